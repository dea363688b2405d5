/**
 * The network path from the API server to a mesh's injector: which NetworkPolicies in the
 * injector's namespace select its pods, whether one of them admits the webhook's target port from
 * where the API server's calls come from (src/k8s/networkpolicy.ts has the rules), and the
 * managed provider the nodes show (whose firewall may close the port on its own).
 */
import { defineFact, defineFactFamily } from '../k8s/fact.js';
import { ingressVerdict, type Admission } from '../k8s/networkpolicy.js';
import { isActive } from '../k8s/pods.js';
import { managedProvider, type Provider } from '../k8s/providers.js';
import { cmd, comment, type Step } from '../fix/steps.js';
import type { K8sObject } from '../util/types.js';
import { labelsOf, nameOf, str } from '../util/objects.js';
import { apiservers } from './apiserver.js';
import { webhookTargets } from './controlplane.js';
import type { Model } from './model.js';
import type { MeshName } from '../mesh/names.js';

type Target = ReturnType<typeof webhookTargets>[number];

/** One injector pod the API server cannot reach on the port. */
interface BlockedPod {
  pod: string;
  node?: string;
  /** The policies that select it for ingress, none admitting the port from the API server. */
  policies: string[];
}

export interface WebhookPath {
  target: Target;
  /** The container port the calls arrive on (the Service's targetPort, resolved). */
  port: number;
  /** The injector's active pods the Service selects. */
  pods: K8sObject[];
  blocked: BlockedPod[];
  /** How the pods that are reachable are reached (a rule from anywhere, an ipBlock, kube-system's pods), for evidence. */
  admits: Admission[];
}

export const PROVIDER = defineFact({
  id: 'provider',
  inputs: ['nodes', 'pods'],
  compute: (m: Model): Provider | undefined => managedProvider(m.list('nodes'), m.list('pods')),
});

/**
 * The managed provider of the cluster: the one fact every check about the path to the injector
 * asks (webhook-call-failed, webhook-port-blocked). From the nodes' labels, else the node names of
 * the pods read (undefined: none recognised). Reads nodes and pods.
 */
export const provider = (m: Model): Provider | undefined => m.fact(PROVIDER);

/**
 * The provider's own rule opening TCP `port` from the control plane to the nodes, where the
 * injector's Service is `service`: the one firewall fix of every check (a rule of its own, added
 * beside the provider's, as NetworkPolicies add up; `gcloud compute firewall-rules update` of
 * GKE's own rule would replace the ports it allows). GKE private clusters open only 443 and 10250
 * from the control plane (Linkerd's and Istio's GKE setup pages open 8443 / 15017 by a rule); on
 * EKS, and any cluster on EC2, the security groups between the control plane and the nodes decide;
 * on AKS the calls come through konnectivity's pods of kube-system.
 */
export function firewallSteps(p: Provider | undefined, port: number, service: string): Step[] {
  const name = `allow-apiserver-to-${service}`.slice(0, 63).replace(/-+$/, '');
  if (p === 'gke')
    return [
      comment`GKE private cluster: the control plane reaches the nodes only on TCP 443 and 10250 unless a firewall rule opens ${port}. Fill in the network of the cluster, its control-plane range, masterIpv4CidrBlock, and the node tag`,
      cmd`gcloud compute firewall-rules create ${`${name}-from-control-plane`} --network NETWORK --direction INGRESS --allow ${`tcp:${port}`} --source-ranges MASTER_IPV4_CIDR --target-tags NODE_TAG`,
    ];
  if (p === 'eks' || p === 'aws')
    return [
      comment`${p === 'eks' ? 'EKS' : 'AWS'}: the security group of the nodes must admit TCP ${port} from the cluster security group, that of the network interfaces of the control plane. Fill in both group ids`,
      cmd`aws ec2 authorize-security-group-ingress --group-id NODE_SECURITY_GROUP --protocol tcp --port ${port} --source-group CLUSTER_SECURITY_GROUP`,
    ];
  if (p === 'aks')
    return [
      comment`AKS: calls from the API server come through the konnectivity agent pods of kube-system, so a rule from namespaceSelector kubernetes.io/metadata.name=kube-system admits them too`,
    ];
  return [];
}

export const WEBHOOK_PATHS = defineFactFamily({
  id: 'webhook-paths',
  inputs: [
    'deployments',
    'mutatingwebhookconfigurations',
    'namespaces',
    'networkpolicies',
    'nodes',
    'pods',
    'replicasets',
    'services',
  ],
  compute: (m: Model, mesh: MeshName): WebhookPath[] => {
    const servers = apiservers(m).filter((i) => i.source.kind === 'Pod');
    const nodes = new Set(servers.map((i) => i.node));
    const kubeSystem = labelsOf(m.namespace('kube-system'));
    const kubeSystemLabels = Object.keys(kubeSystem).length
      ? kubeSystem
      : { 'kubernetes.io/metadata.name': 'kube-system' };
    const out: WebhookPath[] = [];
    for (const target of webhookTargets(m, mesh)) {
      if (target.unread || !m.readIn('networkpolicies', target.namespace) || target.containerPort === undefined)
        continue;
      const port = target.containerPort;
      // By name among the namespace's pods (the last of two equal names, as m.get), not through the index of every pod.
      const named = new Map<string, K8sObject>();
      for (const p of m.inNamespace('pods', target.namespace)) named.set(nameOf(p), p);
      const pods = target.selectedPods.map((n) => named.get(n)).filter((p): p is K8sObject => !!p && isActive(p));
      const policies = m.inNamespace('networkpolicies', target.namespace);
      const blocked: BlockedPod[] = [];
      const admits: Admission[] = [];
      for (const pod of pods) {
        const v = ingressVerdict(policies, pod, port, kubeSystemLabels);
        admits.push(...v.admits);
        if (!v.policies.length) continue;
        const reachable = v.admits.some((a) => a.how !== 'kube-system-pods' || servers.length === 0);
        const node = str((pod.spec as { nodeName?: unknown } | undefined)?.nodeName);
        const local = servers.length > 0 && node !== undefined && nodes.size === 1 && nodes.has(node);
        if (reachable || local) continue;
        blocked.push({ pod: str(pod.metadata?.name) ?? '', ...(node ? { node } : {}), policies: v.policies });
      }
      out.push({ target, port, pods, blocked, admits });
    }
    return out;
  },
});

/**
 * Each webhook target of the mesh whose namespace's policies were read and whose port is known,
 * with the injector pods no policy lets the API server reach. A pod is reachable when no policy
 * selects it for ingress, when a rule admits the port from anywhere or from an ipBlock (the API
 * server's address is unknown: an ipBlock is given the benefit of the doubt), from pods of
 * kube-system where the API server's calls may be tunnelled (unless its pods show that it runs
 * on the nodes' own network), or when every API server runs on the pod's own node (traffic from
 * the local node is always allowed).
 */
export function webhookPaths(m: Model, mesh: MeshName): WebhookPath[] {
  return m.fact(WEBHOOK_PATHS, mesh);
}
