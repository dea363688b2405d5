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
 *
 * The other way round (issue 31, item B): the containers stay but the mark is gone, and the mesh's
 * CNI plugin, which does the traffic redirection where the injector added no privileged init
 * container, skips pods without it (the profile's cni.skips: Istio's istio-cni programs no rules for
 * a pod lacking sidecar.istio.io/status or opted out by sidecar.istio.io/inject=false, istio/istio
 * cni/pkg/plugin/plugin.go). A later webhook that rewrote the annotations (kiali/kiali#3320), a
 * manual injection that dropped them, a pod spec copied from an injected pod: the proxy runs and no
 * traffic reaches it. When: the pod has the proxy as a sidecar, no privileged init container
 * (istio-init redirects whatever the annotations say: silent), the plugin is installed (its
 * DaemonSet read, or the pod has its validation init container) and skips the pod.
 */
import { comment } from '../fix/steps.js';
import { recreateCommands } from '../fix/commands.js';
import { podStates, type Model, type Workload, APP_WORKLOADS } from '../facts/model.js';
import { admissionChainOf, chainEvidence, mutatingAfter, ADMISSION_CHAIN } from '../facts/admission-chain.js';
import { removedFromPod, type Removed } from '../facts/proxy-removed.js';
import { meshTitle, PROFILE_LIST, profileOf } from '../mesh/registry.js';
import { injectedMesh } from '../mesh/proxy.js';
import { installedContainers, INJECTOR_RELEASES } from '../facts/releases.js';
import { podSpec } from '../k8s/pods.js';
import { isObj, nameOf, nsOf } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import type { K8sObject } from '../util/types.js';
import { agree, plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The pod has a container of that name (an init container too). */
const hasContainer = (pod: K8sObject, name: string) => {
  const spec = podSpec(pod);
  // Asked of every meshed pod: the lists are searched in place (no copy).
  const has = (list: unknown) => Array.isArray(list) && list.some((c: unknown) => isObj(c) && c.name === name);
  return has(spec.initContainers) || has(spec.containers);
};

/** The mesh's CNI plugin is installed, as seen: its DaemonSet (any namespace), else the pod's validation init container; undefined: not seen. */
function cniSeen(m: Model, mesh: MeshName, pod: K8sObject): string | undefined {
  const cni = profileOf(mesh).cni;
  if (!cni) return undefined;
  const ds = m.has('daemonsets') ? m.list('daemonsets').find((d) => nameOf(d) === cni.daemonSet) : undefined;
  if (ds) return `DaemonSet ${nsOf(ds) ?? ''}/${cni.daemonSet}`;
  if (cni.validationInit && hasContainer(pod, cni.validationInit))
    return `the pod's init container ${cni.validationInit}, which the injector adds only with the plugin`;
  return undefined;
}

/** The workload's active pods that run the mesh's proxy but that its CNI plugin sets no redirection for (no privileged init container either). */
function unredirected(m: Model, w: Workload, mesh: MeshName) {
  const cni = profileOf(mesh).cni;
  if (!cni?.skips) return [];
  const s = podStates(w);
  // The first 500 active pods that run the mesh's proxy (podStates' split, in the same order).
  const running =
    s.active.length <= 500
      ? (s.meshed.get(mesh) ?? [])
      : s.active.slice(0, 500).filter((pod) => injectedMesh(pod) === mesh);
  return running.flatMap((pod) => {
    if (hasContainer(pod, cni.privilegedInit.name)) return [];
    const skip = cni.skips!(pod);
    const seen = skip && cniSeen(m, mesh, pod);
    return skip && seen ? [{ pod, skip, seen }] : [];
  });
}

/** Its evidence: the pods that lack announced containers (mark, announced, missing), or the pods the CNI plugin skips (skipped, key). */
type RemovedEvidence = { [more: string]: unknown };

const MESSAGES = messages({
  removed:
    "{pods} of {workload} {carry} {meshTitle}'s {mark}, which announces {announced}, but {lack} {missing}: {by}.",
  'cni-skips':
    '{pods} of {workload} {run} {proxy} without {init}, so the {meshTitle} CNI plugin ({seen}) must redirect {their} traffic, but it skips {them}: {reason}. No traffic reaches the proxy.{why}',
});

export default defineCheck<RemovedEvidence, typeof MESSAGES>({
  ...meta('proxy-removed'),
  facts: [APP_WORKLOADS, ADMISSION_CHAIN, INJECTOR_RELEASES],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      for (const { name: mesh } of PROFILE_LIST) {
        const hit = unredirected(m, w, mesh);
        if (!hit.length) continue;
        const first = hit[0]!;
        const later = mutatingAfter(m, w, mesh);
        const title = meshTitle(mesh);
        const cni = profileOf(mesh).cni!;
        // The plugin skips for the missing mark (not an opt-out the workload asked for).
        const status = !first.skip.optedOut;
        yield {
          mesh,
          ...say(MESSAGES, 'cni-skips', {
            pods: plural(hit.length, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            run: agree(hit.length, 'runs', 'run'),
            proxy: profileOf(mesh).containers.proxy,
            init: cni.privilegedInit.name,
            meshTitle: title,
            seen: first.seen,
            their: agree(hit.length, 'its', 'their'),
            them: agree(hit.length, 'it', 'them'),
            reason: first.skip.reason,
            why: status
              ? later.length
                ? ` A mutating webhook called after ${title}'s may have rewritten the annotations: ${later.join(', ')}.`
                : ` The pod spec was injected by hand or copied from an injected pod without the annotation, or a layer that was there when ${agree(hit.length, 'it was', 'they were')} created dropped it.`
              : '',
          }),
          resource: w.ref,
          affectedPods: hit.length,
          evidence: {
            pods: hit.slice(0, 20).map((h) => ({ name: nameOf(h.pod), skipped: h.skip.reason, key: h.skip.key })),
            cni: first.seen,
            source: first.skip.source,
            laterMutatingWebhooks: later,
          },
          fix: [
            ...(status
              ? [
                  ...later.map(
                    (h) =>
                      comment`in webhook ${h}: keep the existing pod annotation ${first.skip.key} when it patches the annotations, or order it before the ${title} injection webhook`,
                  ),
                  comment`if the template carries the proxy containers itself, copied from an injected pod or injected by hand: remove them and let the ${title} injector add them with its annotation`,
                ]
              : [
                  comment`remove ${first.skip.key} from the pod template, or remove the proxy containers: the CNI plugin does not redirect a pod that opts out`,
                ]),
            ...recreateCommands(w),
          ],
        };
      }
    }
    // The installed release's names (consul-k8s 0.x's envoy-sidecar), where they are not today's: asked once per mesh,
    // the first time a workload has an active pod.
    const releases = new Map<MeshName, ReturnType<typeof installedContainers>>();
    const releaseOf = (mesh: MeshName) => {
      if (!releases.has(mesh)) releases.set(mesh, installedContainers(m, mesh));
      return releases.get(mesh);
    };
    for (const w of m.appWorkloads) {
      const active = podStates(w).active.slice(0, 500);
      for (const { name: mesh } of PROFILE_LIST) {
        const hit: [K8sObject, Removed][] = [];
        const release = active.length ? releaseOf(mesh) : undefined;
        for (const p of active) {
          const r = removedFromPod(p, mesh, release);
          if (r) hit.push([p, r]);
        }
        if (hit.length === 0) continue;
        const [, first] = hit[0]!;
        const missing = [...new Set(hit.flatMap(([, r]) => r.missing))].sort();
        const later = mutatingAfter(m, w, mesh);
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
