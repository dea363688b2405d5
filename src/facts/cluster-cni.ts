/**
 * The cluster's own CNI plugin when it takes the node's CNI configuration for itself (src/k8s/cluster-cni.ts:
 * Cilium with cni.exclusive), read from the DaemonSets in namespaces the run sees (kube-system is read by -A runs,
 * not by -n ones: a -n run never names it, as it never sees it).
 */
import { exclusiveCniOf, type ExclusiveCni } from '../k8s/cluster-cni.js';
import { POD_NETWORK } from './pod-network.js';
import type { Model } from './model.js';

/** The exclusive CNI plugins among the pod network agents (one table of agents by image: src/k8s/pod-network.ts). */
function exclusiveCnis(m: Model): ExclusiveCni[] {
  return m.fact(POD_NETWORK).flatMap((a) => exclusiveCniOf(a) ?? []);
}

/** The exclusive CNI plugin running on the cluster, where the run sees its namespace (the first, by namespace/name). */
export function exclusiveCni(m: Model): ExclusiveCni | undefined {
  return exclusiveCnis(m).find((x) => m.seesNamespace(x.namespace));
}
