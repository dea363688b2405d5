/**
 * The plugin that gives the cluster's pods their addresses, from its node agent's DaemonSet image, and
 * whether those addresses belong to the nodes' own network.
 *
 * A managed control plane (EKS) runs the API server outside the cluster's nodes: it reaches a pod only
 * at an address of the cloud network (the AWS VPC CNI, DaemonSet aws-node, gives pods VPC addresses).
 * A plugin that replaces it with an overlay (Weave Net, Calico networking, Flannel, Antrea, Cilium in
 * its default cluster-pool mode) gives pods addresses the control plane has no route to, so a webhook
 * served by a pod is never reached ("Calico networking cannot currently be installed on the EKS
 * control plane nodes. As a result the control plane nodes will not be able to initiate network
 * connections to Calico pods ... such as those implementing admission controller webhooks, can include
 * hostNetwork:true": Calico's EKS install guide, quoted by its maintainers in projectcalico/calico#3818;
 * weaveworks/weave#3694 and linkerd/linkerd2#3353 for Weave Net; open-policy-agent/gatekeeper#1091).
 * Calico in policy-only mode runs beside aws-node and leaves the addresses to it; Cilium in ENI mode
 * gives VPC addresses: neither is an overlay, which the pod's address then shows (it is in the nodes'
 * network).
 */
import { arr, isObj, nameOf, nsOf, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { podSpec } from './pods.js';

export interface PodNetworkAgent {
  product: string;
  namespace: string;
  daemonSet: string;
  image: string;
  /** The cloud's own plugin, whose pod addresses are the nodes' network (the AWS VPC CNI). */
  cloud: boolean;
  /** Pods of the DaemonSet it wants scheduled (status.desiredNumberScheduled; undefined: no status). */
  desired?: number;
}

const AGENTS: readonly { product: string; image: RegExp; cloud: boolean }[] = [
  { product: 'AWS VPC CNI', image: /(?:^|\/)amazon-k8s-cni(?::|@|$)/, cloud: true },
  { product: 'Weave Net', image: /(?:^|\/)weave-kube(?::|@|$)/, cloud: false },
  // GKE's network policy add-on runs Calico from gcr.io/projectcalico-org/node (linkerd/linkerd2#4029, #4789).
  { product: 'Calico', image: /(?:^|\/)(?:calico|projectcalico-org)\/node(?::|@|$)/, cloud: false },
  { product: 'Flannel', image: /(?:^|\/)(?:flannel|flannel-io\/flannel|coreos\/flannel)(?::|@|$)/, cloud: false },
  { product: 'Antrea', image: /(?:^|\/)antrea-(?:agent-)?ubuntu(?::|@|$)|(?:^|\/)antrea\/antrea-agent/, cloud: false },
  { product: 'Cilium', image: /(?:^|\/)cilium\/cilium(?:-ci)?(?::|@|$)/, cloud: false },
];

/** The pod network plugin a DaemonSet runs, if it runs one (one of its containers' images). */
export function podNetworkAgentOf(ds: K8sObject): PodNetworkAgent | undefined {
  const spec = podSpec(isObj(ds.spec) && isObj(ds.spec.template) ? ds.spec.template : undefined);
  for (const a of AGENTS) {
    const c = arr(spec.containers).find((x) => isObj(x) && a.image.test(str(x.image) ?? ''));
    if (!isObj(c)) continue;
    const desired = isObj(ds.status) ? ds.status.desiredNumberScheduled : undefined;
    return {
      product: a.product,
      namespace: nsOf(ds),
      daemonSet: nameOf(ds),
      image: (str(c.image) ?? '').slice(0, 200),
      cloud: a.cloud,
      ...(typeof desired === 'number' ? { desired } : {}),
    };
  }
  return undefined;
}

const ipv4 = (s: string | undefined): number[] | undefined => {
  const m = s ? /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s) : null;
  return m ? m.slice(1).map(Number) : undefined;
};

/**
 * Whether an IPv4 pod address is outside the nodes' network: in no /16 of a node's InternalIP (a VPC
 * is at most a /16; overlay pools default to other ranges: Weave 10.32.0.0/12, Calico 192.168.0.0/16
 * unless set, Flannel 10.244.0.0/16). Undefined when either is unknown (IPv6, nothing read).
 */
export function outsideNodeNetwork(podIP: string | undefined, nodes: readonly K8sObject[]): boolean | undefined {
  const pod = ipv4(podIP);
  if (!pod) return undefined;
  const prefixes = new Set<string>();
  for (const n of nodes.slice(0, 5000)) {
    const addrs = isObj(n.status) ? arr(n.status.addresses) : [];
    for (const a of addrs) {
      const ip = isObj(a) && a.type === 'InternalIP' ? ipv4(str(a.address)) : undefined;
      if (ip) prefixes.add(`${ip[0]}.${ip[1]}`);
    }
  }
  if (prefixes.size === 0) return undefined;
  return !prefixes.has(`${pod[0]}.${pod[1]}`);
}

/**
 * A node the kubelet reports not Ready for want of a pod network (its Ready condition's message: the
 * container runtime's `NetworkReady=false reason:NetworkPluginNotReady message:... cni config
 * uninitialized`, or `cni plugin not initialized`): the reason and the message as the kubelet wrote them.
 */
export function nodeNetworkNotReady(node: K8sObject): { reason: string; message: string } | undefined {
  const conds = isObj(node.status) ? arr(node.status.conditions) : [];
  const ready = conds.find((c) => isObj(c) && c.type === 'Ready');
  if (!isObj(ready) || ready.status === 'True') return undefined;
  const message = str(ready.message) ?? '';
  const m =
    /reason:(NetworkPluginNotReady)|(cni config uninitialized|cni plugin not initialized|network plugin is not ready)/.exec(
      message.slice(0, 2000),
    );
  if (!m) return undefined;
  const detail = ['cni config uninitialized', 'cni plugin not initialized', 'network plugin is not ready'].find((x) =>
    message.includes(x),
  );
  return { reason: ['NetworkPluginNotReady', detail].filter(Boolean).join(': '), message: message.slice(0, 500) };
}
