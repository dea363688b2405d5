/**
 * The app probes of meshed pods that the pod's proxy refuses (issue 31, gen12probes): the kubelet's probe failures and
 * kills of app containers (APP_PROBE_FAILED, PROBE_KILLED), indexed once per snapshot, judged against the release
 * tables (src/mesh/app-probes.ts): a probe the proxy meets unrewritten and refuses, whose failure text is the one
 * that refusal gives, and that the workload's unmeshed pods do not fail too. app-probe-through-proxy reports them;
 * app-starts-before-proxy does not count a kill they explain as a start race.
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
import { arr, isObj, nameOf, nsOf, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
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
  readonly failure: Failures;
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
): RefusedProbe[] {
  if (!ev.failed.size) return [];
  const key = `${nsOf(pod)}/${nameOf(pod)}`;
  const ph = podProbeHandling(p, pod);
  if (!ph) return [];
  const out: RefusedProbe[] = [];
  for (const t of probesThroughProxy(p, pod, ph, nsAnnotations)) {
    const failure = ev.failed.get(`${key}/${t.probe.container}/${t.probe.kind}`);
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
