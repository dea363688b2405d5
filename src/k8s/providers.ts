/**
 * Which managed Kubernetes a cluster is, from its nodes: the node's providerID (set by the cloud
 * provider) and the labels the managed node pools carry. Only what says "managed" counts: a
 * self-managed cluster on the same cloud has the providerID but not the pool labels.
 *
 * - EKS: providerID `aws:///<zone>/<instance>`, managed node groups label
 *   `eks.amazonaws.com/nodegroup` (and `eks.amazonaws.com/compute-type` on Fargate);
 * - GKE: providerID `gce://<project>/<zone>/<instance>`, label `cloud.google.com/gke-nodepool`;
 * - AKS: providerID `azure:///subscriptions/...`, label `kubernetes.azure.com/cluster`.
 * The label names are what the providers' node pools set (seen on their nodes and in the tools
 * that detect them); the providers' own source was not read.
 */
import type { K8sObject } from '../util/types.js';
import { isObj, labelsOf, str } from '../util/objects.js';

export type Provider = 'eks' | 'gke' | 'aks';

const hasLabelPrefix = (labels: Readonly<Record<string, string>>, prefix: string) =>
  Object.keys(labels).some((k) => k.startsWith(prefix));

/** The managed provider one node shows, if any. */
function nodeProvider(node: K8sObject): Provider | undefined {
  const labels = labelsOf(node);
  const id = str(isObj(node.spec) ? node.spec.providerID : undefined) ?? '';
  if (
    hasLabelPrefix(labels, 'eks.amazonaws.com/') ||
    (id.startsWith('aws://') && labels['alpha.eksctl.io/cluster-name'] !== undefined)
  )
    return 'eks';
  if (
    labels['cloud.google.com/gke-nodepool'] !== undefined ||
    (id.startsWith('gce://') && hasLabelPrefix(labels, 'cloud.google.com/gke-'))
  )
    return 'gke';
  if (
    labels['kubernetes.azure.com/cluster'] !== undefined ||
    (id.startsWith('azure://') && hasLabelPrefix(labels, 'kubernetes.azure.com/'))
  )
    return 'aks';
  return undefined;
}

/** The managed provider the nodes show: the one most nodes show (ties by name), undefined when none does. */
export function managedProvider(nodes: readonly K8sObject[]): Provider | undefined {
  const count = new Map<Provider, number>();
  for (const n of nodes) {
    const p = nodeProvider(n);
    if (p) count.set(p, (count.get(p) ?? 0) + 1);
  }
  return [...count.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]?.[0];
}
