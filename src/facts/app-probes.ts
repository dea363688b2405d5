/**
 * The app probes of meshed pods that the pod's proxy refuses (issue 31, gen12probes): the kubelet's probe failures and
 * kills of app containers (APP_PROBE_FAILED, PROBE_KILLED), indexed once per snapshot, judged against the release
 * tables (src/mesh/app-probes.ts): a probe the proxy meets unrewritten and refuses, whose failure text is the one
 * that refusal gives, and that the workload's unmeshed pods do not fail too. app-probe-through-proxy reports them;
 * app-starts-before-proxy does not count a kill they explain as a start race.
 * Where no kubelet event of a probe was read (the API server keeps events about an hour; a dump taken later has none:
 * kumahq/kuma#4020, istio/istio#36314), the container's status is the evidence, asked for with `byStatus`: a startup
 * probe not passed (started: false) past its budget or after restarts, a readiness probe not passed (ready: false)
 * past its budget, while the pod's proxy is ready and no unmeshed pod of the workload shows the same. A liveness
 * probe's restart does not say which probe killed it: not judged from the status.
 */
import { defineFact } from '../k8s/fact.js';
import { APP_PROBE_FAILED, eventInfo, PROBE_KILLED } from '../k8s/events.js';
import type { Workload } from '../k8s/workloads.js';
import {
  podProbeHandling,
  probesThroughProxy,
  refusalShows,
  type PodProbeHandling,
  type ProbeThroughProxy,
} from '../mesh/app-probes.js';
import type { MeshProfile } from '../mesh/profile.js';
import { proxyNamesOfAllReleases } from '../mesh/releases.js';
import { arr, isObj, nameOf, nsOf, plural, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { isActive } from '../k8s/pods.js';
import { podStates, type Model } from './model.js';

/** The kubelet's app probe failures and kills per pod, container and kind: the latest message, counts. */
interface Failures {
  message: string;
  count: number;
  last?: string;
}

export const APP_PROBE_EVENTS = defineFact({
  id: 'app-probe-events',
  inputs: ['events'],
  compute: (m: Model) => {
    const failed = new Map<string, Failures>();
    const killed = new Map<string, number>();
    for (const e of m.list('events')) {
      if (e.reason !== APP_PROBE_FAILED.reason && e.reason !== PROBE_KILLED.reason) continue;
      const info = eventInfo(e);
      if (info.kind !== 'Pod' || !info.container) continue;
      const base = `${info.namespace}/${info.name}/${info.container}`;
      if (info.reason === PROBE_KILLED.reason) {
        const k = / failed (liveness|startup) probe/.exec(info.message)?.[1];
        if (k && PROBE_KILLED.message.test(info.message))
          killed.set(`${base}/${k}`, (killed.get(`${base}/${k}`) ?? 0) + info.count);
        continue;
      }
      if (!APP_PROBE_FAILED.message.test(info.message)) continue;
      const kind = /^(Readiness|Liveness|Startup) /.exec(info.message)![1]!.toLowerCase();
      const key = `${base}/${kind}`;
      const last = str(e.lastTimestamp) ?? str(e.eventTime) ?? str(e.firstTimestamp);
      const had = failed.get(key);
      if (!had) failed.set(key, { message: info.message, count: info.count, ...(last ? { last } : {}) });
      else {
        had.count += info.count;
        if (last && (!had.last || last > had.last)) {
          had.message = info.message;
          had.last = last;
        }
      }
    }
    return { failed, killed };
  },
});

/** A probe of one pod the proxy refuses, with the kubelet's words and the release row that says so. */
export interface RefusedProbe {
  readonly t: ProbeThroughProxy;
  /** The kubelet's failure, from its events; undefined where the container's status is the evidence (`status`). */
  readonly failure?: Failures;
  /** What the container's status shows, where no kubelet event of the probe was read. */
  readonly status?: string;
  readonly kills: number;
  readonly restarts: number;
  readonly release: string;
  readonly how: string;
  readonly source: string;
  readonly h: PodProbeHandling;
}

/** The restart count of a container, from the pod's status. */
function restarts(pod: K8sObject, container: string): number {
  const st = isObj(pod.status) ? pod.status : {};
  for (const cs of arr(st.containerStatuses).slice(0, 64))
    if (isObj(cs) && cs.name === container && typeof cs.restartCount === 'number') return cs.restartCount;
  return 0;
}

const statusOf = (pod: K8sObject, container: string): Record<string, unknown> | undefined => {
  const st = isObj(pod.status) ? pod.status : {};
  for (const cs of [...arr(st.containerStatuses), ...arr(st.initContainerStatuses)].slice(0, 128))
    if (isObj(cs) && cs.name === container) return cs;
  return undefined;
};

/** Seconds the kubelet gives a probe before it acts: initialDelaySeconds + periodSeconds x failureThreshold (defaults 0, 10, 3). */
function budgetSeconds(pod: K8sObject, container: string, kind: string): number | undefined {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const c = arr(spec.containers)
    .slice(0, 64)
    .find((x) => isObj(x) && x.name === container);
  const pr = isObj(c) ? c[`${kind}Probe`] : undefined;
  if (!isObj(pr)) return undefined;
  const n = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  return n(pr.initialDelaySeconds, 0) + n(pr.periodSeconds, 10) * n(pr.failureThreshold, 3);
}

/**
 * What a running container's status shows of its probe of this kind failing (no event needed): a startup probe not
 * passed past its budget or after restarts, a readiness probe not passed past its budget. Undefined otherwise.
 */
function statusFailing(pod: K8sObject, container: string, kind: string, now: Date): string | undefined {
  if (kind === 'liveness') return undefined;
  const cs = statusOf(pod, container);
  const startedAt = cs && isObj(cs.state) && isObj(cs.state.running) ? str(cs.state.running.startedAt) : undefined;
  const since = startedAt ? Date.parse(startedAt) : NaN;
  const budget = budgetSeconds(pod, container, kind);
  if (!cs || !startedAt || !Number.isFinite(since) || budget === undefined) return undefined;
  const past = (now.getTime() - since) / 1000 >= budget;
  const restarts = typeof cs.restartCount === 'number' ? cs.restartCount : 0;
  if (kind === 'startup') {
    if (cs.started !== false || !(past || restarts > 0)) return undefined;
    return `it has run since ${startedAt} without passing its startup probe (started: false${restarts ? `, ${plural(restarts, 'restart')}` : ''})`;
  }
  if (cs.ready !== false || cs.started === false || !past) return undefined;
  return `it has run since ${startedAt} past its readiness budget of ${budget}s and is not ready`;
}

/** Whether the pod's proxy container is ready (a proxy not up explains any probe through it). */
function proxyReady(p: MeshProfile, pod: K8sObject): boolean {
  return proxyNamesOfAllReleases(p).some((n) => statusOf(pod, n)?.ready === true);
}

/** Whether any unmeshed pod of the workload fails this container's probe of this kind: the app's own failure. */
function failsUnmeshed(w: Workload, index: Map<string, Failures>, container: string, kind: string): boolean {
  return podStates(w).unmeshed.some((pod) => index.has(`${nsOf(pod)}/${nameOf(pod)}/${container}/${kind}`));
}

/** The probes of one meshed pod of `w` (meshed by `p`) its proxy refuses, by the tables and the kubelet's events. */
export function refusedProbes(
  m: Model,
  p: MeshProfile,
  w: Workload,
  pod: K8sObject,
  nsAnnotations: Readonly<Record<string, string>> | undefined,
  ev = m.fact(APP_PROBE_EVENTS),
  byStatus = false,
): RefusedProbe[] {
  if (!ev.failed.size && !byStatus) return [];
  const key = `${nsOf(pod)}/${nameOf(pod)}`;
  // By status: only a pod with an app container not started or not ready, beside a ready proxy (cheap tests first).
  const unready =
    byStatus &&
    arr(isObj(pod.status) ? pod.status.containerStatuses : undefined)
      .slice(0, 64)
      .some((cs) => isObj(cs) && (cs.ready === false || cs.started === false)) &&
    proxyReady(p, pod);
  if (!ev.failed.size && !unready) return [];
  const ph = podProbeHandling(p, pod);
  if (!ph) return [];
  const out: RefusedProbe[] = [];
  for (const t of probesThroughProxy(p, pod, ph, nsAnnotations)) {
    const failure = ev.failed.get(`${key}/${t.probe.container}/${t.probe.kind}`);
    // No event of it read: the container's status, where it shows the probe failing; a Linkerd policy only where read.
    const status =
      !failure && unready && (ph.handling.unrewritten.refused !== 'authz' || t.policy)
        ? statusFailing(pod, t.probe.container, t.probe.kind, m.now)
        : undefined;
    if (status) {
      const same = podStates(w).unmeshed.some(
        (u) => isActive(u) && statusFailing(u, t.probe.container, t.probe.kind, m.now),
      );
      if (same) continue;
      out.push({
        t,
        status,
        kills: 0,
        restarts: restarts(pod, t.probe.container),
        release: ph.release,
        how: ph.handling.how,
        source: ph.source,
        h: ph,
      });
      continue;
    }
    if (!failure || !refusalShows(ph.handling, failure.message)) continue;
    if (failsUnmeshed(w, ev.failed, t.probe.container, t.probe.kind)) continue;
    out.push({
      t,
      failure,
      kills: ev.killed.get(`${key}/${t.probe.container}/${t.probe.kind}`) ?? 0,
      restarts: restarts(pod, t.probe.container),
      release: ph.release,
      how: ph.handling.how,
      source: ph.source,
      h: ph,
    });
  }
  return out;
}
