/**
 * Which managed Kubernetes a cluster is, from its nodes: the node's providerID (set by the cloud
 * provider) and the labels the managed node pools carry. Only what says "managed" counts: a
 * self-managed cluster on the same cloud has the providerID but not the pool labels.
 *
 * - EKS: providerID `aws:///<zone>/<instance>`, managed node groups label
 *   `eks.amazonaws.com/nodegroup` (and `eks.amazonaws.com/compute-type` on Fargate); eksctl's
 *   unmanaged node groups `alpha.eksctl.io/cluster-name`, `alpha.eksctl.io/nodegroup-name`;
 * - GKE: providerID `gce://<project>/<zone>/<instance>`, label `cloud.google.com/gke-nodepool`;
 * - AKS: providerID `azure:///subscriptions/...`, label `kubernetes.azure.com/cluster`.
 * The label names are what the providers' node pools set (seen on their nodes and in the tools
 * that detect them); the providers' own source was not read.
 *
 * Where the Nodes were not read (namespace-only permissions), the node names the pods were
 * scheduled to still show two of them: GKE names its nodes `gke-<cluster>-<pool>-…`; EC2
 * instances (EKS's among them, self-managed clusters on EC2 too: `aws`, not `eks`) are named
 * after their private DNS name (`ip-10-0-1-2.ec2.internal`, `….compute.internal`).
 */
import type { K8sObject } from '../util/types.js';
import { isObj, labelsOf, str } from '../util/objects.js';

/** A managed provider; `aws`: EC2 instances, managed or not (seen from node names only). */
export type Provider = 'eks' | 'gke' | 'aks' | 'aws';

const hasLabelPrefix = (labels: Readonly<Record<string, string>>, prefix: string) =>
  Object.keys(labels).some((k) => k.startsWith(prefix));

/** The managed provider one node shows, if any. */
function nodeProvider(node: K8sObject): Provider | undefined {
  const labels = labelsOf(node);
  const id = str(isObj(node.spec) ? node.spec.providerID : undefined) ?? '';
  if (
    hasLabelPrefix(labels, 'eks.amazonaws.com/') ||
    (id.startsWith('aws://') && hasLabelPrefix(labels, 'alpha.eksctl.io/'))
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

/** The provider a node's name shows (GKE's `gke-` prefix, an EC2 private DNS name), if any. */
function nameProvider(name: string): Provider | undefined {
  if (/^gke-/.test(name)) return 'gke';
  if (/\.(?:ec2|compute)\.internal$/.test(name)) return 'aws';
  return undefined;
}

/** The provider most of the given items show (ties by name), undefined when none does. */
function most(items: Iterable<Provider | undefined>): Provider | undefined {
  const count = new Map<Provider, number>();
  for (const p of items) if (p) count.set(p, (count.get(p) ?? 0) + 1);
  return [...count.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]?.[0];
}

/**
 * The managed provider the nodes show: the one most nodes show (ties by name); where no node
 * shows one (or none was read), the one most of the pods' node names show (bounded: 1000 pods);
 * undefined when nothing does.
 */
export function managedProvider(nodes: readonly K8sObject[], pods: readonly K8sObject[] = []): Provider | undefined {
  const fromNodes = most(nodes.map(nodeProvider));
  if (fromNodes) return fromNodes;
  const names = new Set<string>();
  for (const p of pods.slice(0, 1000)) {
    const node = isObj(p.spec) ? str(p.spec.nodeName) : undefined;
    if (node) names.add(node);
  }
  return most([...names].map(nameProvider));
}
