/**
 * Whether the cluster DNS answers at all, as read (issue 31, gen10net): the Service the distributions name
 * (kube-system/kube-dns, openshift-dns/dns-default: src/facts/proxy-network.ts CLUSTER_DNS) with no ready endpoint
 * (its EndpointSlices list none ready) or none of its pods ready (CoreDNS Pending, crash-looping, scaled to zero).
 * Every injected proxy finds its control plane by name through it (Linkerd's linkerd-identity-headless and linkerd-dst,
 * istiod.<ns>.svc, kuma-control-plane, consul-server: the profiles' `network.endpoints`), so with it down no proxy
 * becomes ready: "Failed to resolve control-plane component" (linkerd/linkerd2#5932, #7938), "lookup
 * istiod.istio-system.svc on <dns>:53: no such host" (istio/istio#36186). Only read in a namespace this run sees
 * (Model.seesNamespace): a check using it is marked readsOtherNamespaces. Undefined: up, or not read enough to tell.
 */
import { defineFact, inputsOf } from '../k8s/fact.js';
import { podHealth } from '../k8s/health.js';
import { isActive } from '../k8s/pods.js';
import { arr, isObj, labelsOf, nameOf, str } from '../util/objects.js';
import { CLUSTER_DNS } from './proxy-network.js';
import type { K8sObject } from '../util/types.js';
import { MESHES, type Model } from './model.js';

interface DnsDown {
  namespace: string;
  service: string;
  clusterIP?: string;
  /** Why it is down, in words built from what was read. */
  why: string;
  /** Its pods as read: name, phase, waiting reason, the scheduler's message for a pod it could not place. */
  pods: { pod: string; phase?: string; waiting?: string; unschedulable?: string }[];
  /** The Deployment behind it (the pods' owner by name, as the distributions name it), with its replicas. */
  deployment?: { name: string; replicas?: number; readyReplicas?: number };
}

const DEPLOYMENTS = ['coredns', 'kube-dns', 'dns-default'];

export const CLUSTER_DNS_DOWN = defineFact({
  id: 'cluster-dns-down',
  // Model.seesNamespace asks the meshes (their control-plane namespaces).
  inputs: inputsOf(MESHES, ['services', 'pods', 'endpointslices', 'deployments']),
  compute: (m: Model): DnsDown | undefined => {
    for (const c of CLUSTER_DNS) {
      if (!m.seesNamespace(c.namespace) || !m.readIn('services', c.namespace)) continue;
      const svc = m.get('services', c.namespace, c.name);
      const spec = isObj(svc?.spec) ? svc!.spec : undefined;
      if (!spec) continue;
      const sel = isObj(spec.selector) ? (spec.selector as Record<string, string>) : {};
      const podsRead = m.readIn('pods', c.namespace) && Object.keys(sel).length > 0;
      const pods = podsRead
        ? m
            .inNamespace('pods', c.namespace)
            .slice(0, 2000)
            .filter((p) => isActive(p) && Object.entries(sel).every(([k, v]) => labelsOf(p)[k] === v))
        : [];
      const readyPods = pods.filter((p) => podHealth(p).ready);
      const slicesRead = m.readIn('endpointslices', c.namespace);
      const slices = slicesRead
        ? m
            .inNamespace('endpointslices', c.namespace)
            .filter((s) => labelsOf(s)['kubernetes.io/service-name'] === c.name)
        : [];
      const readyEndpoints = slices.flatMap((s) =>
        arr(s.endpoints).filter((e) => isObj(e) && (!isObj(e.conditions) || e.conditions.ready !== false)),
      );
      const deployment = m.readIn('deployments', c.namespace)
        ? DEPLOYMENTS.map((n) => m.get('deployments', c.namespace, n)).find(Boolean)
        : undefined;
      const dspec = isObj(deployment?.spec) ? deployment!.spec : {};
      const dstatus = isObj(deployment?.status) ? deployment!.status : {};
      const dep = deployment
        ? {
            name: nameOf(deployment),
            ...(typeof dspec.replicas === 'number' ? { replicas: dspec.replicas } : {}),
            ...(typeof dstatus.readyReplicas === 'number' ? { readyReplicas: dstatus.readyReplicas } : {}),
          }
        : undefined;
      // Down: the pods were read and none is ready, or the EndpointSlices were read, exist, and list none ready.
      const podsDown = podsRead && readyPods.length === 0;
      const slicesDown = slices.length > 0 && readyEndpoints.length === 0;
      if (!podsDown && !(slicesDown && !podsRead)) continue;
      const why =
        dep?.replicas === 0
          ? `Deployment ${c.namespace}/${dep.name} is scaled to 0 replicas`
          : pods.length === 0
            ? `no pod matches its selector ${Object.entries(sel)
                .map(([k, v]) => `${k}=${v}`)
                .join(',')}`
            : `none of its ${pods.length} pod${pods.length === 1 ? ' is' : 's is'} ready`;
      return {
        namespace: c.namespace,
        service: c.name,
        ...(str(spec.clusterIP) ? { clusterIP: str(spec.clusterIP) } : {}),
        why,
        pods: pods.slice(0, 10).map((p) => {
          const h = podHealth(p);
          const sched = arr(isObj(p.status) ? p.status.conditions : undefined).find(
            (x) => isObj(x) && x.type === 'PodScheduled' && x.status === 'False',
          );
          return {
            pod: nameOf(p),
            ...(h.phase ? { phase: h.phase } : {}),
            ...(h.waiting ? { waiting: h.waiting } : {}),
            ...(isObj(sched) && str(sched.message) ? { unschedulable: str(sched.message)!.slice(0, 300) } : {}),
          };
        }),
        ...(dep ? { deployment: dep } : {}),
      };
    }
    return undefined;
  },
});

/**
 * NodeLocal DNSCache (kubernetes cluster/addons/dns/nodelocaldns: DaemonSet node-local-dns, pods labelled
 * k8s-app=node-local-dns, listening on a link-local address such as 169.254.20.10 that the kubelet's clusterDNS points
 * to; kubespray's DaemonSet nodelocaldns, k8s-app=nodelocaldns, 169.254.25.10): on a node whose cache pod is not ready,
 * the pods of that node resolve nothing ("lookup istiod.istio-system.svc on 169.254.25.10:53: no such host",
 * istio/istio#36186). The nodes whose cache pod is there and not ready (a node without one is not judged).
 */
interface NodeLocalDown {
  namespace: string;
  daemonSet: string;
  /** Node -> its cache pod, not ready (name, phase, waiting reason). */
  nodes: Map<string, { pod: string; phase?: string; waiting?: string }>;
}

const NODE_LOCAL = [
  { name: 'node-local-dns', label: 'node-local-dns' },
  { name: 'nodelocaldns', label: 'nodelocaldns' },
] as const;

export const NODE_LOCAL_DNS_DOWN = defineFact({
  id: 'node-local-dns-down',
  inputs: inputsOf(MESHES, ['pods', 'daemonsets']),
  compute: (m: Model): NodeLocalDown | undefined => {
    const ns = 'kube-system';
    if (!m.seesNamespace(ns) || !m.readIn('pods', ns) || !m.readIn('daemonsets', ns)) return undefined;
    for (const c of NODE_LOCAL) {
      if (!m.get('daemonsets', ns, c.name)) continue;
      const nodes = new Map<string, { pod: string; phase?: string; waiting?: string }>();
      for (const p of m.inNamespace('pods', ns).slice(0, 5000)) {
        if (!isActive(p) || labelsOf(p)['k8s-app'] !== c.label) continue;
        const node = isObj(p.spec) ? str(p.spec.nodeName) : undefined;
        const h = podHealth(p);
        if (!node || h.ready) continue;
        nodes.set(node, {
          pod: nameOf(p),
          ...(h.phase ? { phase: h.phase } : {}),
          ...(h.waiting ? { waiting: h.waiting } : {}),
        });
      }
      return nodes.size ? { namespace: ns, daemonSet: c.name, nodes } : undefined;
    }
    return undefined;
  },
});

/** Whether the pod's DNS is down: the cluster DNS as a whole, or the NodeLocal DNS cache of its node. */
export const dnsDownFor = (m: Model, pod: K8sObject): boolean => {
  if (m.fact(CLUSTER_DNS_DOWN)) return true;
  const node = isObj(pod.spec) ? str(pod.spec.nodeName) : undefined;
  return !!node && !!m.fact(NODE_LOCAL_DNS_DOWN)?.nodes.has(node);
};
