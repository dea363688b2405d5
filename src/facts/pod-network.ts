/**
 * The plugins giving the cluster's pods their addresses (src/k8s/pod-network.ts), from the DaemonSets in
 * namespaces the run sees (kube-system is read by -A runs, not by -n ones).
 */
import { defineFact } from '../k8s/fact.js';
import { podNetworkAgentOf, type PodNetworkAgent } from '../k8s/pod-network.js';
import type { Model } from './model.js';

export const POD_NETWORK = defineFact({
  id: 'pod-network-agents',
  inputs: ['daemonsets'],
  compute: (m: Model): PodNetworkAgent[] => {
    if (!m.has('daemonsets')) return [];
    const out: PodNetworkAgent[] = [];
    for (const ds of m.list('daemonsets').slice(0, 5000)) {
      const x = podNetworkAgentOf(ds);
      if (x) out.push(x);
      if (out.length >= 8) break;
    }
    return out.sort((a, b) => (`${a.namespace}/${a.daemonSet}` < `${b.namespace}/${b.daemonSet}` ? -1 : 1));
  },
});

/**
 * The overlay plugin running instead of the cloud's own (no DaemonSet of the cloud's plugin that wants
 * pods), where the run sees their namespaces; undefined when DaemonSets were not read, the cloud's plugin
 * runs, or no overlay plugin is seen.
 */
export function overlayInsteadOfCloudCni(m: Model): PodNetworkAgent | undefined {
  const seen = m.fact(POD_NETWORK).filter((a) => m.seesNamespace(a.namespace));
  if (seen.some((a) => a.cloud && a.desired !== 0)) return undefined;
  return seen.find((a) => !a.cloud && a.desired !== 0);
}
