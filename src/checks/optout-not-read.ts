/**
 * optout-not-read — a workload's pod template opts out of a mesh, but the template itself carries
 * that mesh's proxy: the opt-out is read where it can never act, and the pods run the proxy
 * (issue 31, item 12: an opt-out placed where the mesh never reads it).
 *
 * Why: a mesh reads its opt-out in its injection webhook only, when it decides whether to add
 * containers to a pod being created (Istio's injectRequired, Linkerd's report.go, Kuma's
 * precheck.go, consul-k8s shouldInject; each profile's markers). A pod template that already
 * holds the proxy (rendered by the mesh's CLI, `istioctl kube-inject` / `linkerd inject --manual`,
 * or copied from an injected pod) runs it whatever its annotation says: the webhook adds nothing,
 * and skips nothing (istio/istio#3774: "the policy override annotation doesn't apply to manual
 * injection").
 * When: an app workload's pod template opts out of a mesh (its template marker, read by the
 * mesh's marker table) and its containers or init containers include that mesh's proxy (any
 * release's name).
 * Fix: remove the mesh's containers, volumes and status annotation from the pod template (apply
 * the manifest without the mesh's inject command), keeping the opt-out; then the pods roll out
 * without the proxy.
 */
import { comment } from '../fix/steps.js';
import { templateOptOut, templateOptOutUnread } from '../facts/markers.js';
import { recreateCommands, setOnTemplate } from '../fix/commands.js';
import { meshesAllowed } from '../facts/siblings.js';
import { APP_WORKLOADS } from '../facts/model.js';
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import { profileOf } from '../mesh/registry.js';
import { injectedNames } from '../mesh/proxy.js';
import { proxyNamesOfAllReleases } from '../mesh/releases.js';
import { plural, str } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import { judgedByPod } from '../k8s/workloads.js';

/** What a finding shows: the opt-out, and the containers the template carries or the release that does not read it. */
type OptOutEvidence = {
  optOut: string;
  templateContainers?: string[];
  release?: string;
  releaseReads?: string;
};

const MESSAGES = messages({
  'release-does-not-read':
    '{workload} opts out of {mesh} with pod template {marker}, which {release} does not read (it reads the opt-out as {reads}): {pods} {run} the proxy all the same.',
  'template-carries-proxy':
    "{workload} opts out of {mesh} with pod template {from} {key}={value}, but its pod template itself carries {mesh}'s {containers} (injected by hand with the mesh's inject command, or copied from an injected pod): {mesh} reads the opt-out only in its injection webhook, which adds nothing to a pod that has its proxy already, so {pods} {run} the proxy whatever the opt-out says.",
});

export default defineCheck({
  ...meta('optout-not-read'),
  facts: [APP_WORKLOADS],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m)) {
      const p = profileOf(mesh);
      const proxies = proxyNamesOfAllReleases(p);
      const own = injectedNames(p);
      for (const w of m.appWorkloads) {
        // Today's opt-out that the installed release does not read (issue 31.7): its pods are injected all the same.
        const unread = templateOptOutUnread(m, mesh, w.template);
        const injected = unread
          ? w.pods.filter((pod) => containers(podSpec(pod)).some((c) => proxies.includes(str(c.name) ?? ''))).length
          : 0;
        if (unread && injected) {
          const reads = unread.reads;
          yield {
            mesh,
            ...say(MESSAGES, 'release-does-not-read', {
              workload: `${w.kind} ${w.namespace}/${w.name}`,
              mesh: p.title,
              marker: unread.marker,
              release: unread.release,
              reads: `${reads.field === 'labels' ? 'label' : 'annotation'} ${reads.key}=${reads.value}`,
              pods: plural(injected, 'pod'),
              run: injected === 1 ? 'runs' : 'run',
            }),
            resource: w.ref,
            affectedPods: injected,
            evidence: {
              optOut: unread.marker,
              release: unread.release,
              releaseReads: `${reads.key}=${reads.value}`,
            } as OptOutEvidence,
            fix: [...setOnTemplate(w, reads.field, reads.key, reads.value), ...recreateCommands(w)],
          };
          continue;
        }
        if (judgedByPod(w)) continue; // a bare pod's (or an unknown owner's) template is the pod: injected or not, it says so itself
        const out = templateOptOut(m, mesh, w.template);
        if (!out) continue;
        const spec = podSpec(w.template);
        const names = [...initContainers(spec), ...containers(spec)].slice(0, 64).map((c) => str(c.name) ?? '');
        if (!names.some((n) => proxies.includes(n))) continue;
        const carried = names.filter((n) => own.includes(n));
        const running = w.pods.length;
        yield {
          mesh,
          ...say(MESSAGES, 'template-carries-proxy', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            mesh: p.title,
            from: out.from,
            key: out.key,
            value: out.value,
            containers: carried.join(', '),
            pods: running ? plural(running, 'pod') : 'its pods',
            run: running === 1 ? 'runs' : 'run',
          }),
          resource: w.ref,
          affectedPods: running,
          evidence: { optOut: `${out.from} ${out.key}=${out.value}`, templateContainers: carried } as OptOutEvidence,
          fix: [
            comment`remove ${carried.join(', ')} and the volumes and annotations the inject command added from the pod template of ${w.kind} ${w.namespace}/${w.name}, keeping ${out.key}=${out.value}: apply the manifest without the ${p.title} inject command`,
          ],
        };
      }
    }
  },
});
