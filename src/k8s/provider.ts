/**
 * The managed Kubernetes a cluster runs on, when the objects meshdoctor already reads show it:
 * the place a firewall between the API server and the nodes is kept differs (an AWS security
 * group, a GKE firewall rule), and the API server's webhook calls go through it.
 */
import type { K8sObject } from '../util/types.js';
import { isObj } from '../util/objects.js';

export type Provider = 'aws' | 'gke';

/**
 * What the pods' nodes show: EC2 nodes (EKS's among them) are named after their private DNS name
 * (`ip-10-0-1-2.ec2.internal`, `….compute.internal`); GKE names its nodes `gke-<cluster>-<pool>-…`.
 * Undefined when none shows.
 */
export function providerOf(pods: readonly K8sObject[]): Provider | undefined {
  for (const p of pods) {
    const node = isObj(p.spec) && typeof p.spec.nodeName === 'string' ? p.spec.nodeName : '';
    if (/^gke-/.test(node)) return 'gke';
    if (/\.(ec2|compute)\.internal$/.test(node)) return 'aws';
  }
  return undefined;
}
