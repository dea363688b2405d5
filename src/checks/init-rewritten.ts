/**
 * init-rewritten — a mutating webhook that sees the pod after the mesh's injector rewrote its init
 * containers: the pods of a meshed workload never start, and the cause is another admission layer,
 * named with the field it changed (issue 31, items 2 and 8: every admission layer, who wins).
 *
 * Why: the API server calls the mutating webhooks one after another (configurations by name, then
 * each one's webhooks in order), calls again those with reinvocationPolicy IfNeeded when a later
 * one changed the pod, and each returns the whole pod or a patch over it (kubernetes/apiserver
 * 24a394e5 pkg/admission/plugin/webhook/mutating/dispatcher.go, pkg/admission/reinvocation.go). A
 * webhook that inserts its own native sidecar (an init container with `restartPolicy: Always`) and
 * then sets the field by index, or one built with Kubernetes types older than native sidecars,
 * which drops the field from every init container it returns, leaves the pod with:
 * - a mesh init container that carries `restartPolicy: Always` (no mesh injects its own init
 *   containers so: src/mesh/proxy.ts rewrittenInits): the kubelet runs it as a sidecar, restarting
 *   it each time it exits, and the webhook's own sidecar, as a plain init container, never exits
 *   (GoogleCloudPlatform/gcs-fuse-csi-driver#296: the driver's webhook, reinvoked after Istio's, set
 *   restartPolicy on initContainers[0], istio-validation);
 * - an init container that the pod template does not have (a webhook added it) running without
 *   `restartPolicy: Always` and not exiting, ahead of the mesh's containers, which never start
 *   (gcs-fuse-csi-driver#322: knative's istio-inject webhook removed the restartPolicy of the FUSE
 *   sidecar; the audit log named it). Which webhook dropped the field is not in the pod: the
 *   mutating webhooks called for it are listed in order.
 * The kubelet starts an init container only after the one before it has exited, except after a
 * native sidecar, which only has to have started (kubernetes pkg/kubelet/kuberuntime
 * computeInitContainerActions).
 * When: an active pod of an app workload runs a mesh's proxy (or carries its mark); a mesh init
 * container with `restartPolicy: Always`; or, in a pod not yet initialized, an init container
 * absent from the pod template, without `restartPolicy: Always`, running for more than 10 minutes,
 * with a mesh init container after it that has not started (one after the mesh's iptables init
 * container runs under the redirection: init-before-proxy's subject). Bare pods (their template is the pod) are
 * left out of the second.
 * Known false positives: an init container another webhook adds on purpose that runs a long task
 * (the finding quotes how long it has run).
 * Fix: the webhook named must leave the mesh's init containers alone (or set restartPolicy on its
 * own container by name); upgrade a webhook built with types older than native sidecars, or leave
 * these pods out of it with its objectSelector; then re-create the pods.
 */
import { comment, cmd, type Step } from '../fix/steps.js';
import { recreateCommands } from '../fix/commands.js';
import { ADMISSION_CHAIN, mutatingAfter, otherMutating } from '../facts/admission-chain.js';
import { APP_WORKLOADS, type Model, type Workload } from '../facts/model.js';
import { podsCarrying } from '../facts/pods.js';
import { meshesAllowed } from '../facts/siblings.js';
import { initContainers, containers, podSpec } from '../k8s/pods.js';
import { injectedMesh, injectedNames, rewrittenInits } from '../mesh/proxy.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import type { K8sObject } from '../util/types.js';
import { agree, arr, isObj, nameOf, plural, str } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'made-sidecar':
    "{pods} of {workload} cannot start: {mesh}'s init container {container} carries restartPolicy: Always, which {mesh}'s injector never sets on it, so {by}. The kubelet runs {container} as a sidecar and restarts it each time it exits{blocked}.",
  blocked:
    "{pods} of {workload} cannot start: the init container {container}, which the pod template does not have (a mutating webhook added it), runs without restartPolicy: Always and has not exited for {age}, so {mesh}'s {waiting} after it never {start}. A sidecar injected as a native sidecar whose restartPolicy a later webhook dropped runs like this; which webhook changed it is not in the pod. The mutating webhooks the API server calls for these pods, in order: {hooks}.",
});

/** Pods judged per workload (bounded). */
const MAX_PODS = 20;
/** An init container running longer than this is not starting up: it does not end. */
const STUCK_MS = 10 * 60 * 1000;

const statusesOf = (pod: K8sObject, key: 'initContainerStatuses' | 'containerStatuses') =>
  (isObj(pod.status) ? arr(pod.status[key]) : []).filter(isObj).slice(0, 64);

/** The running state's start time of a container, as its status says. */
function runningSince(pod: K8sObject, name: string): number | undefined {
  const s = statusesOf(pod, 'initContainerStatuses').find((x) => x.name === name);
  const at = isObj(s?.state) && isObj(s.state.running) ? str(s.state.running.startedAt) : undefined;
  const t = at ? Date.parse(at) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

/** Whether the container has started (a running or terminated state, or `started: true`). */
function started(pod: K8sObject, name: string): boolean {
  const s = [...statusesOf(pod, 'initContainerStatuses'), ...statusesOf(pod, 'containerStatuses')].find(
    (x) => x.name === name,
  );
  if (!s) return false;
  return s.started === true || (isObj(s.state) && (isObj(s.state.running) || isObj(s.state.terminated)));
}

/** The pod is a mesh's pod: it runs its proxy (or its init containers). */
function podMesh(pod: K8sObject, mesh: MeshName): boolean {
  if (injectedMesh(pod) === mesh) return true;
  const own = injectedNames(profileOf(mesh));
  return initContainers(podSpec(pod)).some((c) => own.includes(str(c.name) ?? ''));
}

interface Blocked {
  pod: string;
  container: string;
  since: number;
  waiting: string[];
}

/** The pod waits behind an init container its template does not have, which runs and does not end. */
function blockedBy(m: Model, w: Workload, pod: K8sObject, mesh: MeshName, anyAfter = false): Blocked | undefined {
  if (w.kind === 'Pod') return undefined;
  const own = injectedNames(profileOf(mesh));
  // The template's names, made only for a pod with an init container the mesh did not inject (few).
  let template: Set<string> | undefined;
  const inits = initContainers(podSpec(pod)).slice(0, 64);
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i]!;
    const name = str(c.name) ?? '';
    if (!name || c.restartPolicy === 'Always') continue; // a native sidecar: the next one starts anyway
    if (own.includes(name)) continue;
    template ??= new Set(
      [...initContainers(podSpec(w.template)), ...containers(podSpec(w.template))].map((x) => str(x.name) ?? ''),
    );
    if (template.has(name)) continue;
    const since = runningSince(pod, name);
    if (since === undefined || m.now.getTime() - since < STUCK_MS) continue;
    // A mesh init container must wait behind it (anyAfter: any mesh container, where a rewritten one explains it): one after the mesh's own iptables init container, with only the
    // proxy waiting, runs under the redirection (init-before-proxy's subject), not ahead of the mesh.
    const waitingInits = inits
      .slice(i + 1)
      .map((x) => str(x.name) ?? '')
      .filter((n) => own.includes(n) && !started(pod, n));
    if (!waitingInits.length && !anyAfter) continue;
    const after = [
      ...waitingInits,
      ...containers(podSpec(pod))
        .map((x) => str(x.name) ?? '')
        .filter((n) => own.includes(n) && !started(pod, n)),
    ];
    if (!after.length) continue;
    return { pod: nameOf(pod), container: name, since, waiting: after };
  }
  return undefined;
}

const ageText = (ms: number) => {
  const min = Math.floor(ms / 60000);
  return min >= 120 ? `${Math.floor(min / 60)} hours` : `${min} minutes`;
};

/** Its evidence: a rewritten mesh init container's (field, laterMutatingWebhooks), or a blocking one's (runningSince, mutatingWebhooks). */
type RewrittenEvidence = { [more: string]: unknown };

export default defineCheck<RewrittenEvidence, typeof MESSAGES>({
  ...meta('init-rewritten'),
  facts: [APP_WORKLOADS, ADMISSION_CHAIN],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      for (const w of m.appWorkloads) {
        // Of its first MAX_PODS active pods, those carrying a container named as the mesh injects one:
        // a rewritten init container and a mesh's pod are both such (src/facts/pods.ts).
        const pods = podsCarrying(w, mesh, MAX_PODS);
        const rewritten = pods.flatMap((pod) => {
          const names = rewrittenInits(pod, mesh);
          return names.length ? [{ pod, container: names[0]! }] : [];
        });
        const blocked = pods.flatMap((pod) => {
          const b = podMesh(pod, mesh) ? blockedBy(m, w, pod, mesh) : undefined;
          return b ? [b] : [];
        });
        if (rewritten.length) {
          const first = rewritten[0]!;
          const later = mutatingAfter(m, w, mesh);
          // Behind the rewritten one, the webhook's own container as a plain init container: whatever waits after it.
          const stuck = blockedBy(m, w, first.pod, mesh, true);
          const names = rewritten.map((r) => nameOf(r.pod));
          const fix: Step[] = [
            ...later.map(
              (h) =>
                comment`in webhook ${h}: leave the init container ${first.container} alone: a webhook that makes its own init container a native sidecar must set restartPolicy on that container by name, not by index`,
            ),
            ...(later.length
              ? []
              : [
                  comment`find the webhook that rewrites the init containers after the injector`,
                  cmd`kubectl get mutatingwebhookconfigurations`,
                ]),
            ...recreateCommands(w),
          ];
          yield {
            mesh,
            ...say(MESSAGES, 'made-sidecar', {
              pods: plural(names.length, 'pod'),
              workload: `${w.kind} ${w.namespace}/${w.name}`,
              mesh: p.title,
              container: first.container,
              by: later.length
                ? `a mutating webhook that sees the pod after ${p.title}'s rewrote the init containers: ${later.join(', ')}`
                : `a layer after ${p.title}'s injector rewrote the init containers; no other mutating webhook is in the admission chain as read`,
              blocked: stuck
                ? `, and the init container ${stuck.container}, which the pod template does not have, runs as a plain init container that has not exited for ${ageText(m.now.getTime() - stuck.since)}, so ${stuck.waiting.join(', ')} never ${agree(stuck.waiting.length, 'starts', 'start')}`
                : '',
            }),
            resource: w.ref,
            affectedPods: names.length,
            evidence: {
              pods: names,
              container: first.container,
              field: 'restartPolicy: Always',
              laterMutatingWebhooks: later,
              ...(stuck ? { stuckBehind: stuck.container, waiting: stuck.waiting } : {}),
            },
            fix,
          };
          continue;
        }
        if (!blocked.length) continue;
        const first = blocked[0]!;
        const hooks = otherMutating(m, w);
        yield {
          mesh,
          ...say(MESSAGES, 'blocked', {
            pods: plural(blocked.length, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            container: first.container,
            age: ageText(m.now.getTime() - first.since),
            mesh: p.title,
            waiting: first.waiting.join(', '),
            start: agree(first.waiting.length, 'starts', 'start'),
            hooks: hooks.length ? hooks.join(', ') : 'none read',
          }),
          resource: w.ref,
          affectedPods: blocked.length,
          evidence: {
            pods: blocked.map((b) => b.pod),
            container: first.container,
            runningSince: new Date(first.since).toISOString(),
            waiting: first.waiting,
            mutatingWebhooks: hooks,
          },
          fix: [
            ...hooks.map(
              (h) =>
                comment`in webhook ${h}: if it adds or returns ${first.container}, it must keep restartPolicy: Always on it: upgrade a webhook built with Kubernetes types older than native sidecars, or leave these pods out with its objectSelector`,
            ),
            ...recreateCommands(w),
          ],
        };
      }
    }
  },
});
