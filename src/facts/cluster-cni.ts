/**
 * The cluster's own CNI plugin when it takes the node's CNI configuration for itself (src/k8s/cluster-cni.ts:
 * Cilium with cni.exclusive), read from the DaemonSets in namespaces the run sees (kube-system is read by -A runs,
 * not by -n ones: a -n run never names it, as it never sees it).
 */
import { defineFact } from '../k8s/fact.js';
import { exclusiveCniOf, type ExclusiveCni } from '../k8s/cluster-cni.js';
import type { Model } from './model.js';

const EXCLUSIVE_CNI = defineFact({
  id: 'exclusive-cni',
  inputs: ['daemonsets'],
  compute: (m: Model): ExclusiveCni[] => {
    if (!m.has('daemonsets')) return [];
    const out: ExclusiveCni[] = [];
    for (const ds of m.list('daemonsets').slice(0, 5000)) {
      const x = exclusiveCniOf(ds);
      if (x) out.push(x);
      if (out.length >= 5) break;
    }
    return out.sort((a, b) => (`${a.namespace}/${a.daemonSet}` < `${b.namespace}/${b.daemonSet}` ? -1 : 1));
  },
});

/** The exclusive CNI plugin running on the cluster, where the run sees its namespace (the first, by namespace/name). */
export function exclusiveCni(m: Model): ExclusiveCni | undefined {
  return m.fact(EXCLUSIVE_CNI).find((x) => m.seesNamespace(x.namespace));
}
