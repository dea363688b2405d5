/**
 * proxy-hold-stuck — the postStart hook that holds a pod's app until its proxy is ready (Istio's
 * holdApplicationUntilProxyStarts, Linkerd's config.linkerd.io/proxy-await, Kuma's waitForDataplaneReady) did not
 * complete: the kubelet killed and restarted the proxy while the pod was still being started (issue 31, item 10).
 *
 * Why: the kubelet starts a pod's ordinary containers in order and waits for each one's postStart hook; a hook that
 * fails or times out kills its container (kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer:
 * event FailedPostStartHook, the container killed) and the pod stays ContainerCreating meanwhile, without an IP in its
 * status (the kubelet publishes it only after the hook: kubernetes/kubernetes#85966). A proxy that needs something
 * only the pod's IP brings waits for itself (kumahq/kuma#9431: Kuma's Dataplane with kuma-cni); a proxy that cannot
 * reach its control plane never becomes ready either (kumahq/kuma#7849: the wait timing out at 3 minutes).
 * When: an injected pod's proxy is an ordinary container with a postStart hook, and it restarted while the pod is
 * still starting it (its state waiting ContainerCreating after a termination), or the kubelet's FailedPostStartHook
 * event names it. Where the mesh's settings show why the hold cannot complete (the profile's
 * `startOrder.stuck`), the finding says it; else it quotes the kubelet's event where read and says the cause is not
 * known (the proxy's log says why it was not ready).
 * Known false positives: a proxy that was slow once (a control plane restarting) and is starting again now.
 * Fix: the mesh's (turn the hold off where it waits for itself, a native sidecar); else the proxy's log.
 */
import { cmd, comment, type Step } from '../fix/steps.js';
import { podStates, MESHES } from '../facts/model.js';
import { eventInfo } from '../k8s/events.js';
import { containers, podSpec } from '../k8s/pods.js';
import { WORKLOADS } from '../k8s/snapshot.js';
import { profileOf } from '../mesh/registry.js';
import { printable } from '../util/errors.js';
import { isObj, nameOf, plural, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  stuck:
    "{pods} of {workload}: {proxy}'s postStart hook, which holds the app until the proxy is ready ({how}; {setting}), did not complete: {seen}; {cause}.",
});

interface Stuck {
  pod: K8sObject;
  restarts: number;
  /** Killed and being started again now. */
  restartedInStart: boolean;
  exitCode?: number;
  finishedAt?: string;
  event?: { message: string; count: number };
}

/** The proxy of `pod` killed while its hook held the pod's start: restarted and being started again, or the kubelet's event. */
function stuckProxy(pod: K8sObject, proxy: string, events: Map<string, { message: string; count: number }>) {
  const c = containers(podSpec(pod)).find((x) => x.name === proxy);
  if (!c || !isObj(c.lifecycle) || !isObj(c.lifecycle.postStart)) return undefined;
  const st = isObj(pod.status) ? pod.status : {};
  const cs = (Array.isArray(st.containerStatuses) ? st.containerStatuses : []).find(
    (s: unknown) => isObj(s) && s.name === proxy,
  );
  const event = events.get(nameOf(pod));
  const restarts = isObj(cs) && typeof cs.restartCount === 'number' ? cs.restartCount : 0;
  const waiting = isObj(cs) && isObj(cs.state) && isObj(cs.state.waiting) ? str(cs.state.waiting.reason) : undefined;
  const last = isObj(cs) && isObj(cs.lastState) && isObj(cs.lastState.terminated) ? cs.lastState.terminated : undefined;
  const restartedInStart = restarts > 0 && !!last && waiting === 'ContainerCreating';
  if (!restartedInStart && !event) return undefined;
  return {
    pod,
    restarts,
    restartedInStart,
    ...(typeof last?.exitCode === 'number' ? { exitCode: last.exitCode } : {}),
    ...(str(last?.finishedAt) ? { finishedAt: str(last?.finishedAt) } : {}),
    ...(event ? { event } : {}),
  } satisfies Stuck;
}

export default defineCheck({
  ...meta('proxy-hold-stuck'),
  facts: [WORKLOADS, MESHES],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      const p = profileOf(mesh);
      const order = p.runtime.startOrder;
      const proxy = p.containers.proxy;
      const ns = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
      for (const w of m.workloads) {
        if (!m.inScope(w.namespace)) continue;
        const pods = (podStates(w).meshed.get(mesh) ?? []).slice(0, 500);
        if (!pods.length) continue;
        // The kubelet's FailedPostStartHook events about the proxy of these pods (their latest message).
        const events = new Map<string, { message: string; count: number; at: string }>();
        if (m.has('events'))
          for (const e of m.inNamespace('events', w.namespace)) {
            if (e.reason !== 'FailedPostStartHook') continue;
            const ev = eventInfo(e);
            if (ev.kind !== 'Pod' || (ev.container !== undefined && ev.container !== proxy)) continue;
            const had = events.get(ev.name);
            const at = ev.lastTimestamp ?? '';
            events.set(ev.name, {
              message: had && had.at > at ? had.message : printable(ev.message, 400),
              count: (had?.count ?? 0) + ev.count,
              at: had && had.at > at ? had.at : at,
            });
          }
        const stuck = pods.flatMap((pod) => stuckProxy(pod, proxy, events) ?? []);
        if (!stuck.length) continue;
        const first = stuck[0]!;
        const held = order.held(m, first.pod);
        const known = order.stuck?.(m, first.pod, w, ns);
        const st = isObj(first.pod.status) ? first.pod.status : {};
        const seen = [
          first.restartedInStart
            ? `the kubelet killed and restarted ${proxy} while starting the pod (${plural(first.restarts, 'restart')}${
                first.exitCode !== undefined ? `, last exit code ${first.exitCode}` : ''
              }${first.finishedAt ? ` at ${first.finishedAt}` : ''}) and the pod is still ContainerCreating`
            : undefined,
          first.event
            ? `the kubelet says (FailedPostStartHook, ${first.event.count}x): "${first.event.message}"`
            : undefined,
          str(st.podIP) || !first.restartedInStart
            ? undefined
            : 'the pod has no IP in its status yet (the kubelet publishes it after the hook)',
        ]
          .filter(Boolean)
          .join('; ');
        const cause =
          known?.cause ??
          `the cluster does not show why ${proxy} was not ready in time (its control plane unreachable, its configuration refused): its log says, the cause is not known`;
        const fix: Step[] = known
          ? known.fix
          : [
              comment`why ${proxy} did not become ready: its events and its previous log`,
              cmd`kubectl describe pod ${nameOf(first.pod)} -n ${w.namespace}`,
              cmd`kubectl logs ${nameOf(first.pod)} -n ${w.namespace} -c ${proxy} --previous`,
            ];
        yield {
          mesh,
          ...say(MESSAGES, 'stuck', {
            pods: plural(stuck.length, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            proxy,
            how: held?.how ?? `${proxy} has a postStart hook`,
            setting: `the setting is ${order.setting}`,
            seen,
            cause,
          }),
          resource: w.ref,
          affectedPods: stuck.length,
          evidence: {
            container: proxy,
            pods: stuck.slice(0, 20).map((s) => ({
              name: nameOf(s.pod),
              restarts: s.restarts,
              exitCode: s.exitCode ?? null,
              finishedAt: s.finishedAt ?? null,
              event: s.event?.message ?? null,
            })),
            hold: held?.how ?? null,
            causeKnown: known !== undefined,
            ...(known ? { source: known.source } : {}),
          },
          fix,
        };
      }
    }
  },
});
