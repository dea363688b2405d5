/**
 * proxy-removed — the mesh injected the pod, then an admission layer called after its webhook
 * removed what it added (the proxy, an init container): the pod runs without (part of) its proxy.
 *
 * Why: the API server calls the mutating webhooks one after another (by configuration name, then
 * webhook order) and each gets the pod as the previous ones left it (kubernetes/apiserver 24a394e5
 * pkg/admission/plugin/webhook/mutating/dispatcher.go); a webhook that returns its own container
 * list, or a policy engine's mutation that replaces spec.containers, drops the mesh's containers,
 * while the injector's own mark (an annotation it set with them) stays. Reports: kiali/kiali#3320
 * with denverdino/lxcfs-admission-webhook#13 (a later webhook overwrote Istio's annotations),
 * linkerd/linkerd2#6309 (kubemod called after the injector), istio/istio#45233 (an OPA webhook
 * after Istio's), dapr/dapr#6350 (another webhook removing an injected sidecar).
 * When: an active pod of an app workload carries a mesh's mark (the profile's
 * containers.announced: Istio's sidecar.istio.io/status lists, Linkerd's proxy-version and
 * control-plane-ns, Kuma's sidecar-injected, Consul's connect-inject-status) and lacks a container
 * it announces (a native sidecar in initContainers counts as present). sidecar-missing leaves these
 * pods to this check (facts/missing-proxy.ts).
 * Fix: in the later webhook (named from the admission chain, in the API server's order), leave the
 * mesh's containers alone (exclude them in its policy), or order it before the mesh's webhook
 * (configuration name), or set reinvocationPolicy IfNeeded on the mesh's webhook; then re-create the pods.
 */
import { comment } from '../fix/steps.js';
import { recreateCommands } from '../fix/commands.js';
import { podStates, type Model, type Workload } from '../facts/model.js';
import { admissionChainOf, chainEvidence } from '../facts/admission-chain.js';
import { removedFromPod, type Removed } from '../facts/proxy-removed.js';
import { meshTitle, PROFILE_LIST } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import type { K8sObject } from '../util/types.js';
import { agree, plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The mutating webhooks the API server calls after the mesh's own, in its order. */
function laterWebhooks(m: Model, w: Workload, mesh: MeshName): string[] {
  const links = admissionChainOf(m, w).links.filter((l) => l.type === 'mutating');
  const at = links.findIndex((l) => l.mesh === mesh);
  return (at < 0 ? links.filter((l) => !l.mesh) : links.slice(at + 1).filter((l) => l.mesh !== mesh))
    .slice(0, 16)
    .map((l) => `${l.configuration}/${l.webhook}`);
}

const MESSAGES = messages({
  removed:
    "{pods} of {workload} {carry} {meshTitle}'s {mark}, which announces {announced}, but {lack} {missing}: {by}.",
});

export default defineCheck({
  ...meta('proxy-removed'),
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      const active = podStates(w).active.slice(0, 500);
      for (const { name: mesh } of PROFILE_LIST) {
        const hit: [K8sObject, Removed][] = [];
        for (const p of active) {
          const r = removedFromPod(p, mesh);
          if (r) hit.push([p, r]);
        }
        if (hit.length === 0) continue;
        const [, first] = hit[0]!;
        const missing = [...new Set(hit.flatMap(([, r]) => r.missing))].sort();
        const later = laterWebhooks(m, w, mesh);
        const chain = admissionChainOf(m, w);
        const meshHook = chain.links.find((l) => l.type === 'mutating' && l.mesh === mesh);
        const by = chain.notRead.includes('mutatingwebhookconfigurations')
          ? 'a later admission layer removed them; the mutating webhook configurations were not read, so it is not named'
          : !meshHook
            ? `${meshTitle(mesh)}'s webhook is not in the admission chain as read for its next pod; the other mutating webhooks that match it: ${later.join(', ') || 'none'}`
            : later.length
              ? `a mutating webhook called after ${meshTitle(mesh)}'s removed them: ${later.join(', ')}`
              : `no later mutating webhook is in the admission chain as read${chain.notRead.length ? ` (${chain.notRead.join(', ')} not read)` : ''}: a layer that was there when they were created removed them`;
        yield {
          mesh,
          ...say(MESSAGES, 'removed', {
            pods: plural(hit.length, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            carry: agree(hit.length, 'carries', 'carry'),
            meshTitle: meshTitle(mesh),
            mark: first.announcement.mark,
            announced: first.announcement.containers.join(', '),
            lack: agree(hit.length, 'lacks', 'lack'),
            missing: missing.join(', '),
            by,
          }),
          resource: w.ref,
          affectedPods: hit.length,
          evidence: {
            pods: hit.slice(0, 20).map(([p, r]) => ({
              name: p.metadata?.name ?? '',
              mark: r.announcement.mark,
              announced: [...r.announcement.containers],
              missing: r.missing,
            })),
            markSource: first.announcement.source,
            laterMutatingWebhooks: later,
            admissionChain: chainEvidence(chain),
          },
          fix: [
            ...later.map(
              (h) =>
                comment`in webhook ${h}: leave the containers ${missing.join(', ')} alone, excluding them in its policy or patch, or order it before the ${meshTitle(mesh)} injection webhook: the API server calls configurations by name`,
            ),
            ...(meshHook
              ? [
                  comment`or set reinvocationPolicy: IfNeeded on webhook ${meshHook.configuration}/${meshHook.webhook}, so the injector runs again after the later webhook changed the pod`,
                ]
              : []),
            ...recreateCommands(w),
          ],
        };
      }
    }
  },
});
