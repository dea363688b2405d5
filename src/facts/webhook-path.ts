/**
 * The network path from the API server to a mesh's injector: which NetworkPolicies in the
 * injector's namespace select its pods, whether one of them admits the webhook's target port from
 * where the API server's calls come from (src/k8s/networkpolicy.ts has the rules), and the
 * managed provider the nodes show (whose firewall may close the port on its own).
 */
import { ingressVerdict, type Admission } from '../k8s/networkpolicy.js';
import { isActive } from '../k8s/pods.js';
import { managedProvider, type Provider } from '../k8s/providers.js';
import type { K8sObject } from '../util/types.js';
import { labelsOf, str } from '../util/objects.js';
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

/** The managed provider of the cluster, from its nodes (undefined: none recognised, or nodes not read). */
export const provider = (m: Model): Provider | undefined => m.memo('provider', () => managedProvider(m.list('nodes')));

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
  return m.memo(`webhook-paths:${mesh}`, () => {
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
      const pods = target.selectedPods
        .map((n) => m.get('pods', target.namespace, n))
        .filter((p): p is K8sObject => !!p && isActive(p));
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
  });
}
