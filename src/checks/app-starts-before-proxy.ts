/**
 * app-starts-before-proxy — the app container of meshed pods failed while its proxy was starting,
 * and restarted: the mesh let the app start before the proxy was ready, and its first connections
 * (to a database, to a config server) went into a proxy that did not yet route them.
 *
 * Why: the kubelet starts a pod's containers in order and waits only for a postStart hook or a
 * native sidecar's startup probe (kubernetes pkg/kubelet/kuberuntime). Each mesh has a setting
 * that uses one of them to hold the app until its proxy is ready, on or off by default, from some
 * release on, or none but a native sidecar (docs/checks/app-starts-before-proxy.md). The profile's
 * `runtime.startOrder` reads from each pod, as it was injected, whether it holds its app (where the
 * proxy sits, its annotations, the control plane's setting), with its source.
 * When: an active pod of an app workload runs the mesh's proxy, started once (no restart), and
 * does not hold its app; an app container of it restarted, and its last failure (exit code not 0,
 * not OOMKilled) ended no later than RACE_WINDOW_S after the proxy started; or, in a pod of
 * restartPolicy Never (a Job's, an Argo Workflows step, linkerd/linkerd2#8700), an app container
 * that never restarted ended so (its current state), the proxy still running beside it. Times come from the
 * pod's container statuses (lastState.terminated.finishedAt, state.running.startedAt), never from
 * the clock. The proxy's own readiness time is not in the status: its start is the earliest it
 * could be ready.
 * Known false positives: an app that fails in its first minute for a reason of its own (its
 * database down) on a pod whose proxy started at the same time. Silent where the pod holds its app
 * (a failure then is not the proxy's), where the app failed later than the window, and for a proxy
 * that restarted (its start time no longer says when the pod started).
 * Fix: the mesh's hold setting for the workload (a pod template annotation), or mesh-wide.
 */
import { defineFact } from '../k8s/fact.js';
import { comment, type Step } from '../fix/steps.js';
import { isActive } from '../k8s/pods.js';
import { profileOf } from '../mesh/registry.js';
import { injectedNames } from '../mesh/proxy.js';
import { meshesAllowed } from '../facts/siblings.js';
import { podStates, APP_WORKLOADS, MESHES } from '../facts/model.js';
import type { K8sObject } from '../util/types.js';
import { annotationsOf, isObj, nameOf, nsOf, plural, str, time } from '../util/objects.js';
import { APP_PROBE_EVENTS, refusedProbes } from '../facts/app-probes.js';
import { eventFirst, eventInfo, PROBE_FAILED, PROBE_KILLED } from '../k8s/events.js';
import type { Model } from '../facts/model.js';
import { defineCheck, messages, meta, say } from './define.js';

/**
 * How long after the proxy started a failing app counts as failing before the proxy was ready: the
 * longest default readiness of the meshes' proxies (4 failed probes 15 s apart: the values.yaml of
 * the chart with the slowest, docs/meshes/); a proxy ready later than that is a problem of its own.
 */
const RACE_WINDOW_S = 60;

interface Status {
  name: string;
  /** From initContainerStatuses (a pod's init container that failed is init-before-proxy's). */
  init: boolean;
  restarts: number;
  running?: Date;
  last?: { finished: Date; exitCode?: number; reason?: string };
  /** Its current termination, when it is not running. */
  ended?: { finished: Date; exitCode?: number; reason?: string };
}

const termination = (term: Record<string, any> | undefined) => {
  const finished = term ? time(term.finishedAt) : undefined;
  return finished
    ? {
        finished,
        ...(typeof term!.exitCode === 'number' ? { exitCode: term!.exitCode as number } : {}),
        ...(str(term!.reason) ? { reason: str(term!.reason)! } : {}),
      }
    : undefined;
};

/** A termination that is the app's own failure: an exit code not 0, not an OOM kill or a completion. */
const failed = (t: Status['last']) =>
  t && t.exitCode !== 0 && t.reason !== 'OOMKilled' && t.reason !== 'Completed' ? t : undefined;

function statuses(pod: K8sObject): Status[] {
  const st = isObj(pod.status) ? pod.status : {};
  const out: Status[] = [];
  for (const f of ['initContainerStatuses', 'containerStatuses'] as const) {
    const list = Array.isArray(st[f]) ? st[f] : [];
    for (const cs of list.slice(0, 64)) {
      if (!isObj(cs) || !str(cs.name)) continue;
      const running = isObj(cs.state) && isObj(cs.state.running) ? time(cs.state.running.startedAt) : undefined;
      const last = termination(
        isObj(cs.lastState) && isObj(cs.lastState.terminated) ? cs.lastState.terminated : undefined,
      );
      const ended = termination(isObj(cs.state) && isObj(cs.state.terminated) ? cs.state.terminated : undefined);
      out.push({
        name: str(cs.name)!,
        init: f === 'initContainerStatuses',
        restarts: typeof cs.restartCount === 'number' ? cs.restartCount : 0,
        ...(running ? { running } : {}),
        ...(last ? { last } : {}),
        ...(ended ? { ended } : {}),
      });
    }
  }
  return out;
}

/** Some status that statuses() reads, of a container not in `injected`, counts a restart (as statuses() reads it). */
function appRestarted(pod: K8sObject, injected: readonly string[]): boolean {
  const st = isObj(pod.status) ? pod.status : {};
  for (const f of ['initContainerStatuses', 'containerStatuses'] as const) {
    const list: unknown[] = Array.isArray(st[f]) ? st[f] : [];
    for (let i = 0; i < list.length && i < 64; i++) {
      const cs = list[i];
      if (!isObj(cs)) continue;
      const name = str(cs.name);
      if (typeof cs.restartCount === 'number' && cs.restartCount !== 0 && name && !injected.includes(name)) return true;
    }
  }
  return false;
}

const PROBE_EVENTS = defineFact({
  id: 'probe-events',
  inputs: ['events'],
  compute: (m: Model) => {
    const out = new Map<string, { unready: Map<string, Date>; killed: Map<string, Date> }>();
    for (const e of m.list('events')) {
      if (e.reason !== PROBE_FAILED.reason && e.reason !== PROBE_KILLED.reason) continue; // before eventInfo, which parses dates
      const info = eventInfo(e);
      if (info.kind !== 'Pod' || !info.container) continue;
      const probe = info.reason === PROBE_FAILED.reason && PROBE_FAILED.message.test(info.message);
      const kill = info.reason === PROBE_KILLED.reason && PROBE_KILLED.message.test(info.message);
      if (!probe && !kill) continue;
      const key = `${info.namespace}/${info.name}`;
      const entry = out.get(key) ?? { unready: new Map<string, Date>(), killed: new Map<string, Date>() };
      out.set(key, entry);
      if (probe && !/^Liveness /.test(info.message)) {
        const last = time(info.lastTimestamp);
        const had = entry.unready.get(info.container);
        if (last && (!had || last > had)) entry.unready.set(info.container, last);
      }
      if (kill) {
        const first = eventFirst(e);
        const had = entry.killed.get(info.container);
        if (first && (!had || first < had)) entry.killed.set(info.container, first);
      }
    }
    return out;
  },
});

/**
 * A pod's probe events, where events were read (memoized per snapshot): for each container, the
 * last time its readiness (or startup) probe failed, and the first time it was killed for a failed
 * probe. Bounded: the events of the scope, read once.
 */
function probeEvents(m: Model, pod: K8sObject): { unready: Map<string, Date>; killed: Map<string, Date> } | undefined {
  if (!m.has('events')) return undefined;
  const index = m.fact(PROBE_EVENTS);
  return index.get(`${nsOf(pod)}/${nameOf(pod)}`);
}

const MESSAGES = messages({
  'upgrade-then-hold':
    '{pods} of {workload}: the app container {container} failed{how_failed} {when}, {then}: {meshTitle} started the app without waiting for its proxy ({how}). Its proxy {older} comes from a release that has no setting to hold the app: {meshTitle} has {setting}; upgrade, then set it.',
  hold: '{pods} of {workload}: the app container {container} failed{how_failed} {when}, {then}: {meshTitle} started the app without waiting for its proxy ({how}). {meshTitle} holds the app until the proxy is ready with {setting}.',
});

export default defineCheck({
  ...meta('app-starts-before-proxy'),
  facts: [APP_WORKLOADS, MESHES, PROBE_EVENTS, APP_PROBE_EVENTS],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      const injected = injectedNames(p);
      const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
      for (const w of m.appWorkloads) {
        const hits: {
          pod: string;
          container: string;
          failedAt: string;
          exitCode: number | null;
          killedByProbe?: true;
          proxyStartedAt: string;
          proxyNotReadyAt?: string;
          seconds: number;
          restarts: number;
          restartPolicy?: 'Never';
        }[] = [];
        let how: string | undefined;
        let older: string | undefined;
        for (const pod of (podStates(w).meshed.get(mesh) ?? []).filter(isActive)) {
          // Only a pod with an app container that restarted, or one that never restarts its containers, can
          // show a failure (cheapest test first).
          const never = isObj(pod.spec) && pod.spec.restartPolicy === 'Never';
          if (!never && !appRestarted(pod, injected)) continue;
          const hold = p.runtime.startOrder.held(m, pod);
          if (!hold || hold.held) continue; // held (a failure then is not the proxy's), or nothing tells
          const all = statuses(pod);
          const proxy = all.find((s) => s.name === p.containers.proxy);
          if (!proxy?.running || proxy.restarts > 0) continue;
          // The kubelet's probe events, where read: the proxy's readiness still failing (it was not
          // ready then) extends the window; an app container killed for a failed probe is a failure.
          const ev = probeEvents(m, pod);
          const unreadyUntil = ev?.unready.get(p.containers.proxy);
          const windowEnd = Math.max(
            proxy.running.getTime() + RACE_WINDOW_S * 1000,
            unreadyUntil && unreadyUntil.getTime() > proxy.running.getTime() ? unreadyUntil.getTime() : 0,
          );
          // A pod that never restarts its containers (restartPolicy Never) keeps an app's one failure as its current state.
          for (const app of all) {
            if (injected.includes(app.name)) continue;
            const once = app.restarts === 0 && never && !app.init ? failed(app.ended) : undefined;
            if (app.restarts === 0 && !once) continue;
            const lastFailed = once ?? failed(app.last);
            // A kill for a probe the proxy refuses (app-probe-through-proxy) is no start race.
            const killedAt = ev?.killed.get(app.name);
            const killed =
              killedAt &&
              refusedProbes(m, p, w, pod, annotationsOf(m.namespace(w.namespace))).some(
                (r) => r.t.probe.container === app.name && r.t.probe.kind !== 'readiness',
              )
                ? undefined
                : killedAt;
            // The earliest failure the pod shows inside the window: the last termination, or a probe's kill.
            const failure = [
              ...(lastFailed ? [{ at: lastFailed.finished, exitCode: lastFailed.exitCode, by: 'exit' as const }] : []),
              ...(killed ? [{ at: killed, exitCode: undefined, by: 'probe' as const }] : []),
            ]
              .filter((f) => f.at.getTime() <= windowEnd)
              .sort((a, b) => a.at.getTime() - b.at.getTime())[0];
            if (!failure) continue;
            const seconds = Math.round((failure.at.getTime() - proxy.running.getTime()) / 1000);
            how ??= hold.how;
            // The release the pod's proxy comes from predates the setting: that release has none.
            const v = p.versions?.proxy(pod);
            const since = p.runtime.startOrder.since;
            if (!older && v && since && (p.versions!.compare(v.version, since) ?? 0) < 0) older = v.version;
            hits.push({
              pod: nameOf(pod),
              container: app.name,
              failedAt: failure.at.toISOString(),
              exitCode: failure.exitCode ?? null,
              ...(failure.by === 'probe' ? { killedByProbe: true } : {}),
              proxyStartedAt: proxy.running.toISOString(),
              ...(unreadyUntil && unreadyUntil.getTime() >= failure.at.getTime()
                ? { proxyNotReadyAt: unreadyUntil.toISOString() }
                : {}),
              seconds,
              restarts: app.restarts,
              ...(once ? { restartPolicy: 'Never' as const } : {}),
            });
          }
        }
        if (!hits.length) continue;
        hits.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : a.container < b.container ? -1 : 1));
        const first = hits[0]!;
        const pods = [...new Set(hits.map((h) => h.pod))];
        const when =
          first.seconds <= 0
            ? `${-first.seconds} s before its proxy ${p.containers.proxy} had even started`
            : first.proxyNotReadyAt
              ? `${first.seconds} s after its proxy ${p.containers.proxy} started, while the proxy was still not ready (its readiness probe failed until ${first.proxyNotReadyAt})`
              : `${first.seconds} s after its proxy ${p.containers.proxy} started, before it could be ready`;
        const fix: Step[] = [...p.runtime.startOrder.fix(w, cpNs), comment`the pods get it when they are re-created`];
        yield {
          mesh,
          ...(() => {
            const said = {
              pods: plural(pods.length, 'pod'),
              workload: `${w.kind} ${w.namespace}/${w.name}`,
              container: first.container,
              how_failed: first.killedByProbe
                ? ' (killed for a failed probe)'
                : first.exitCode !== null
                  ? ` (exit code ${first.exitCode})`
                  : '',
              when,
              then: first.restartPolicy ? 'and was not restarted (restartPolicy Never)' : 'and restarted',
              meshTitle: p.title,
              how: `${how}`,
              setting: p.runtime.startOrder.setting,
            };
            return older ? say(MESSAGES, 'upgrade-then-hold', { ...said, older }) : say(MESSAGES, 'hold', said);
          })(),
          resource: w.ref,
          affectedPods: pods.length,
          evidence: {
            container: first.container,
            hold: {
              held: false,
              how: how ?? null,
              setting: p.runtime.startOrder.setting,
              source: p.runtime.startOrder.source,
            },
            failures: hits.slice(0, 20),
            ...(older ? { proxyVersion: older, settingSince: p.runtime.startOrder.since ?? null } : {}),
            windowSeconds: RACE_WINDOW_S,
          },
          fix,
        };
      }
    }
  },
});
