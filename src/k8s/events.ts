/** Events: their time, count and involved object, and the workload an involved object belongs to. */
import type { Model, Workload } from '../model.js';
import type { K8sObject } from '../types.js';
import { arr, isObj, nsOf, str, time } from '../util.js';

const controllerRef = (o: K8sObject | undefined): Record<string, any> | undefined => {
  const refs = arr(o?.metadata?.ownerReferences).filter(isObj);
  return refs.find((r) => r.controller === true) ?? refs[0];
};

/**
 * The workload an event's involved object belongs to: a ReplicaSet's Deployment (through its
 * ownerReferences, else its name less the pod-template-hash), a CronJob's Job, or the object.
 */
export function workloadOfObject(m: Model, kind: string, ns: string, name: string): Workload | undefined {
  const index = m.memo('workload-index', () => new Map(m.workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w])));
  const find = (k: string, n: string) => index.get(`${k}/${ns}/${n}`);
  if (kind === 'ReplicaSet') {
    const owner = controllerRef(m.get('replicasets', ns, name));
    if (owner?.kind === 'Deployment') return find('Deployment', String(owner.name ?? ''));
    const cut = name.lastIndexOf('-');
    return cut > 0 && /^[a-z0-9]+$/.test(name.slice(cut + 1)) ? find('Deployment', name.slice(0, cut)) : undefined;
  }
  if (kind === 'Job') {
    const owner = controllerRef(m.get('jobs', ns, name));
    if (owner?.kind === 'CronJob') return find('CronJob', String(owner.name ?? ''));
  }
  return find(kind, name);
}

/** An Event's last time, count and involved object, across the v1 fields that carry them. */
export function eventInfo(e: K8sObject) {
  const io = isObj(e.involvedObject) ? e.involvedObject : {};
  const series = isObj(e.series) ? e.series : {};
  const last = [e.lastTimestamp, series.lastObservedTime, e.eventTime, e.firstTimestamp, e.metadata?.creationTimestamp].find((t) => time(t));
  return {
    reason: str(e.reason) ?? '',
    message: str(e.message) ?? '',
    kind: str(io.kind) ?? '',
    namespace: str(io.namespace) ?? nsOf(e),
    name: str(io.name) ?? '',
    count: typeof e.count === 'number' ? e.count : typeof series.count === 'number' ? series.count : 1,
    ...(last ? { lastTimestamp: String(last) } : {}),
  };
}
