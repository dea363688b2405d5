/**
 * Where a DaemonSet's pod may run, as the scheduler and the DaemonSet controller decide it, for
 * one question: does this node's agent pod have a place here? (kubernetes/kubernetes v1.33:
 * pkg/controller/daemon/util/daemonset_util.go AddOrUpdateDaemonPodTolerations: every daemon pod
 * tolerates node.kubernetes.io/not-ready and unreachable (NoExecute), disk-pressure,
 * memory-pressure, pid-pressure and unschedulable (NoSchedule), and network-unavailable
 * (NoSchedule) with hostNetwork; staging/src/k8s.io/api/core/v1/toleration.go ToleratesTaint:
 * an empty effect matches every effect, operator Exists with an empty key every taint, Equal (the
 * default) the key and the value; component-helpers/scheduling/corev1/nodeaffinity: nodeSelector
 * labels all equal, required nodeSelectorTerms OR'ed, their matchExpressions AND'ed, operators In,
 * NotIn, Exists, DoesNotExist, Gt, Lt.) A cordoned node (spec.unschedulable) still runs daemon pods.
 */
import type { K8sObject } from '../util/types.js';
import { arr, isObj, labelsOf, nameOf, str, strMap } from '../util/objects.js';

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** The taints every daemon pod tolerates (the DaemonSet controller adds them). */
const DAEMON_TOLERATIONS: readonly { key: string; effect: string; hostNetworkOnly?: true }[] = [
  { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule', hostNetworkOnly: true },
];

/** A toleration tolerates a taint (toleration.go ToleratesTaint). */
function tolerates(t: unknown, taint: Taint): boolean {
  if (!isObj(t)) return false;
  const effect = str(t.effect) ?? '';
  if (effect && effect !== taint.effect) return false;
  const key = str(t.key) ?? '';
  const op = str(t.operator) ?? 'Equal';
  if (op === 'Exists') return key === '' || key === taint.key;
  return key === taint.key && (str(t.value) ?? '') === (taint.value ?? '');
}

/** A node's taints that repel pods (NoSchedule, NoExecute). */
function nodeTaints(node: K8sObject): Taint[] {
  const spec = isObj(node.spec) ? node.spec : {};
  return arr(spec.taints)
    .filter(isObj)
    .slice(0, 64)
    .flatMap((t) => {
      const key = str(t.key);
      const effect = str(t.effect);
      if (!key || (effect !== 'NoSchedule' && effect !== 'NoExecute')) return [];
      const value = str(t.value);
      return [{ key, effect, ...(value ? { value } : {}) }];
    });
}

/** The node's taints a daemon pod with this spec does not tolerate. */
export function untolerated(node: K8sObject, podSpec: Record<string, any>): Taint[] {
  const own = arr(podSpec.tolerations);
  return nodeTaints(node).filter(
    (taint) =>
      !own.some((t) => tolerates(t, taint)) &&
      !DAEMON_TOLERATIONS.some(
        (d) => d.key === taint.key && d.effect === taint.effect && (!d.hostNetworkOnly || podSpec.hostNetwork === true),
      ),
  );
}

/** One requirement (In, NotIn, Exists, DoesNotExist, Gt, Lt); an unknown operator matches (benefit of the doubt). */
function requirementMatches(req: Record<string, any>, labels: Readonly<Record<string, string>>): boolean {
  const key = str(req.key) ?? '';
  const values = arr(req.values).filter((v): v is string => typeof v === 'string');
  const has = Object.prototype.hasOwnProperty.call(labels, key);
  const v = labels[key];
  switch (req.operator) {
    case 'In':
      return has && values.includes(v!);
    case 'NotIn':
      return !has || !values.includes(v!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const n = Number(v);
      const bound = Number(values[0]);
      if (!has || !Number.isInteger(n) || !Number.isInteger(bound)) return false;
      return req.operator === 'Gt' ? n > bound : n < bound;
    }
    default:
      return true;
  }
}

/**
 * Why the pod spec's node selection leaves the node out: the nodeSelector labels it lacks, or
 * "required node affinity"; undefined when the node is selected.
 */
export function selectionMisses(node: K8sObject, podSpec: Record<string, any>): string | undefined {
  const labels = labelsOf(node);
  const wanted = strMap(podSpec.nodeSelector);
  const missing = Object.entries(wanted).filter(([k, v]) => labels[k] !== v);
  if (missing.length) return `nodeSelector ${missing.map(([k, v]) => `${k}=${v}`).join(',')}`;
  const aff = isObj(podSpec.affinity) && isObj(podSpec.affinity.nodeAffinity) ? podSpec.affinity.nodeAffinity : {};
  const req = aff.requiredDuringSchedulingIgnoredDuringExecution;
  if (!isObj(req)) return undefined;
  const terms = arr(req.nodeSelectorTerms).filter(isObj).slice(0, 32);
  if (!terms.length) return undefined;
  const fields = { 'metadata.name': nameOf(node) };
  const ok = terms.some(
    (t) =>
      (arr(t.matchExpressions).length > 0 || arr(t.matchFields).length > 0) &&
      arr(t.matchExpressions)
        .filter(isObj)
        .every((r) => requirementMatches(r, labels)) &&
      arr(t.matchFields)
        .filter(isObj)
        .every((r) => requirementMatches(r, fields)),
  );
  return ok ? undefined : 'required node affinity';
}

/** The node's Ready condition: true, false, or undefined when it does not say. */
export function nodeReady(node: K8sObject): boolean | undefined {
  const conds = isObj(node.status) ? arr(node.status.conditions) : [];
  const c = conds.find((x) => isObj(x) && x.type === 'Ready');
  return isObj(c) ? c.status === 'True' : undefined;
}

/**
 * The node a daemon pod is for: its spec.nodeName once bound, else the one node its required node
 * affinity names by field (the DaemonSet controller writes `matchFields metadata.name In [node]`
 * into every pod it creates: kubernetes v1.33 pkg/controller/daemon/util/daemonset_util.go
 * ReplaceDaemonSetPodNodeNameNodeAffinity), so a pod the scheduler has not placed still names its node.
 */
export function daemonPodNode(pod: K8sObject): string | undefined {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const bound = str(spec.nodeName);
  if (bound) return bound;
  const aff = isObj(spec.affinity) && isObj(spec.affinity.nodeAffinity) ? spec.affinity.nodeAffinity : {};
  const req = aff.requiredDuringSchedulingIgnoredDuringExecution;
  if (!isObj(req)) return undefined;
  for (const t of arr(req.nodeSelectorTerms).filter(isObj).slice(0, 8))
    for (const f of arr(t.matchFields).filter(isObj).slice(0, 8)) {
      const values = arr(f.values);
      if (f.key === 'metadata.name' && f.operator === 'In' && values.length === 1 && typeof values[0] === 'string')
        return values[0].slice(0, 253);
    }
  return undefined;
}

/**
 * Why the scheduler has not placed a pod: the message of its PodScheduled condition when that is
 * False with reason Unschedulable (kubernetes pkg/scheduler/schedule_one.go: "0/3 nodes are
 * available: 1 Insufficient memory. preemption: ..."), else undefined.
 */
export function unschedulableMessage(pod: K8sObject): string | undefined {
  const conds = isObj(pod.status) ? arr(pod.status.conditions) : [];
  const c = conds.find((x) => isObj(x) && x.type === 'PodScheduled');
  if (!isObj(c) || c.status !== 'False' || c.reason !== 'Unschedulable') return undefined;
  return str(c.message) ?? '';
}
