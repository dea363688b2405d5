/**
 * The managed Kubernetes a cluster runs on, when the objects meshdoctor already reads show it:
 * the place a firewall between the API server and the nodes is kept differs (an AWS security
 * group, a GKE firewall rule), and the API server's webhook calls go through it.
 */
import type { K8sObject } from '../util/types.js';
import { isObj, nameOf, nsOf } from '../util/objects.js';

export type Provider = 'aws' | 'gke';

/**
 * What the pods and DaemonSets show: the Amazon VPC CNI runs as DaemonSet kube-system/aws-node
 * on EKS, and EC2 nodes are named after their private DNS name (`ip-10-0-1-2.ec2.internal`,
 * `….compute.internal`); GKE names its nodes `gke-<cluster>-<pool>-…`. Undefined when none shows.
 */
export function providerOf(pods: readonly K8sObject[], daemonsets: readonly K8sObject[]): Provider | undefined {
  if (daemonsets.some((d) => nsOf(d) === 'kube-system' && nameOf(d) === 'aws-node')) return 'aws';
  for (const p of pods) {
    const node = isObj(p.spec) && typeof p.spec.nodeName === 'string' ? p.spec.nodeName : '';
    if (/^gke-/.test(node)) return 'gke';
    if (/\.(ec2|compute)\.internal$/.test(node)) return 'aws';
  }
  return undefined;
}
