/**
 * The network path of a mesh's injected containers to their control plane (issue 31): which
 * NetworkPolicies of an app namespace isolate its meshed pods for egress and let no packet out to
 * the control-plane endpoints the profile's `network` lists (src/mesh/<mesh>/network.ts), or to
 * the cluster DNS that finds them. The rules are Kubernetes' own (src/k8s/networkpolicy.ts).
 * Destinations are the control plane's pods as read (labels, namespace labels, IP, named ports);
 * where none was read (pods not read there, external Consul servers), pods with the chart's labels
 * in the control-plane namespace, and an ipBlock is given the benefit of the doubt.
 */
import { WORKLOAD_DECISION_INPUTS } from './decision.js';
import { defineFact, defineFactFamily } from '../k8s/fact.js';
import { egressVerdict, ingressFrom, namedPorts, policyTypes, type EgressDestination } from '../k8s/networkpolicy.js';
import { isActive } from '../k8s/pods.js';
import type { K8sObject } from '../util/types.js';
import { isObj, labelsOf, nameOf, str } from '../util/objects.js';
import type { ControlPlaneEndpoint } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { namespaceLabels } from '../mesh/webhooks.js';
import type { MeshName } from '../mesh/names.js';
import type { Model, Workload } from './model.js';

/** An endpoint no rule lets the meshed pods reach. */
interface BlockedEndpoint {
  endpoint: ControlPlaneEndpoint;
  /** The control-plane namespace it was looked for in. */
  namespace: string;
  /** Its pods as read (names), or none: judged by the chart's labels. */
  pods: string[];
}

/** One group of workloads of a namespace that the same policies cut off from the same endpoints. */
export interface ProxyPath {
  mesh: MeshName;
  namespace: string;
  /** The policies that select the pods for egress (sorted). */
  policies: string[];
  workloads: Workload[];
  /** Their meshed pods (active), or none yet (judged by the pod template). */
  pods: K8sObject[];
  blocked: BlockedEndpoint[];
  /**
   * No rule lets them out to the cluster DNS: to its pods on the port they listen on, where they were
   * read (a NetworkPolicy port is the destination pod's port, after the Service's translation), else
   * to port 53 (UDP or TCP) anywhere.
   */
  dnsBlocked: boolean;
  /** The cluster DNS as read, where its pods were: what dnsBlocked was judged against. */
  dns?: ClusterDns & { admits53: boolean };
}

/** The cluster DNS: its Service, its pods as read, and the ports those pods listen on behind the Service's port 53. */
interface ClusterDns {
  service: string;
  namespace: string;
  pods: string[];
  /** The pods' ports behind Service port 53, by protocol. */
  ports: { port: number; protocol: string }[];
  dests: { dest: EgressDestination; port: number; protocol: string }[];
}

/**
 * The Services of the cluster DNS, as the distributions name them: kube-dns in kube-system
 * (kubernetes cluster/addons/dns, kubeadm's CoreDNS), dns-default in openshift-dns (the OpenShift
 * cluster DNS operator: Service port 53 to the pods' 5353; openshift/kubernetes-nmstate#776).
 */
export const CLUSTER_DNS = [
  { namespace: 'kube-system', name: 'kube-dns' },
  { namespace: 'openshift-dns', name: 'dns-default' },
] as const;

/** The cluster DNS's pods and the ports behind its Service's port 53, where the Service and its pods were read. */
function clusterDns(m: Model): ClusterDns | undefined {
  return m.fact(CLUSTER_DNS_FACT);
}

const CLUSTER_DNS_FACT = defineFact({
  id: 'cluster-dns',
  inputs: ['services', 'pods', 'namespaces', 'deployments', 'mutatingwebhookconfigurations'],
  compute: (m: Model): ClusterDns | undefined => {
    for (const c of CLUSTER_DNS) {
      if (!m.seesNamespace(c.namespace) || !m.readIn('services', c.namespace) || !m.readIn('pods', c.namespace))
        continue;
      const svc = m.get('services', c.namespace, c.name);
      const spec = isObj(svc?.spec) ? svc!.spec : undefined;
      const sel = isObj(spec?.selector) ? (spec!.selector as Record<string, string>) : undefined;
      if (!spec || !sel || !Object.keys(sel).length) continue;
      const svcPorts = (Array.isArray(spec.ports) ? spec.ports : [])
        .slice(0, 16)
        .filter((x: unknown) => isObj(x) && x.port === 53) as Record<string, unknown>[];
      if (!svcPorts.length) continue;
      const nsl = namespaceLabels(m.namespace(c.namespace), c.namespace);
      const dests: ClusterDns['dests'] = [];
      const pods: string[] = [];
      for (const pod of m.inNamespace('pods', c.namespace).slice(0, 2000)) {
        if (!isActive(pod)) continue;
        const l = labelsOf(pod);
        if (!Object.entries(sel).every(([k, v]) => l[k] === v)) continue;
        const named = namedPorts(pod);
        const ip = str(isObj(pod.status) ? pod.status.podIP : undefined);
        const dest: EgressDestination = {
          namespace: c.namespace,
          namespaceLabels: nsl,
          labels: l,
          ...(ip ? { ip } : {}),
          named,
        };
        for (const sp of svcPorts) {
          const protocol = str(sp.protocol) ?? 'TCP';
          const t = sp.targetPort;
          const port = typeof t === 'number' ? t : typeof t === 'string' ? named.get(t)?.port : 53;
          if (port !== undefined) dests.push({ dest, port, protocol });
        }
        pods.push(nameOf(pod));
      }
      if (!dests.length) continue;
      const ports = [
        ...new Map(dests.map((d) => [`${d.protocol}/${d.port}`, { port: d.port, protocol: d.protocol }])).values(),
      ];
      return {
        service: c.name,
        namespace: c.namespace,
        pods: pods.sort().slice(0, 10),
        ports,
        dests: dests.slice(0, 200),
      };
    }
    return undefined;
  },
});

/** The active pods of the control-plane namespaces with the endpoint's labels, as destinations. */
function destinations(
  m: Model,
  namespaces: readonly string[],
  e: ControlPlaneEndpoint,
): { dests: EgressDestination[]; pods: string[] } {
  const dests: EgressDestination[] = [];
  const pods: string[] = [];
  for (const ns of namespaces) {
    const nsl = namespaceLabels(m.namespace(ns), ns);
    for (const pod of m.inNamespace('pods', ns).slice(0, 2000)) {
      if (!isActive(pod)) continue;
      const l = labelsOf(pod);
      if (!Object.entries(e.podLabels).every(([k, v]) => l[k] === v)) continue;
      const ip = str(isObj(pod.status) ? pod.status.podIP : undefined);
      dests.push({ namespace: ns, namespaceLabels: nsl, labels: l, ...(ip ? { ip } : {}), named: namedPorts(pod) });
      pods.push(nameOf(pod));
    }
  }
  if (dests.length === 0) {
    const ns = namespaces[0]!;
    dests.push({ namespace: ns, namespaceLabels: namespaceLabels(m.namespace(ns), ns), labels: e.podLabels });
  }
  return { dests, pods: pods.sort() };
}

/** What a pod of the workload looks like to a policy: a meshed pod, else the template in the namespace. */
const asPod = (w: Workload, pods: readonly K8sObject[]) =>
  pods[0] ?? { metadata: { namespace: w.namespace, labels: labelsOf(w.template) }, spec: w.template.spec };

export const PROXY_PATHS = defineFactFamily({
  id: 'proxy-paths',
  inputs: [...WORKLOAD_DECISION_INPUTS, 'networkpolicies', 'services'],
  compute: (m: Model, mesh: MeshName): ProxyPath[] => {
    const net = profileOf(mesh).network;
    if (!net || !m.has('networkpolicies')) return [];
    const cpNamespaces = m.mesh(mesh)?.namespaces.length
      ? m.mesh(mesh)!.namespaces
      : [profileOf(mesh).controlPlane.namespace];
    const targets = net.endpoints.map((endpoint) => ({ endpoint, ...destinations(m, cpNamespaces, endpoint) }));
    const groups = new Map<string, ProxyPath>();
    for (const w of m.appWorkloads) {
      if (!m.readIn('networkpolicies', w.namespace)) continue;
      const policies = m.inNamespace('networkpolicies', w.namespace);
      if (policies.length === 0) continue;
      const pods = (m.podStates(w).meshed.get(mesh) ?? []).filter(isActive);
      if (pods.length === 0 && !m.decision(w, mesh)?.inject) continue;
      const pod = asPod(w, pods);
      const blocked: BlockedEndpoint[] = [];
      let selecting: string[] = [];
      for (const t of targets) {
        const open = t.endpoint.ports.some((port) =>
          t.dests.some((d) => {
            const v = egressVerdict(policies, pod, port, d);
            selecting = v.policies;
            return v.policies.length === 0 || v.allows.length > 0;
          }),
        );
        if (!open) blocked.push({ endpoint: t.endpoint, namespace: t.dests[0]!.namespace, pods: t.pods });
      }
      const dns = ['UDP', 'TCP'].map((proto) => egressVerdict(policies, pod, 53, undefined, proto));
      selecting = dns[0]!.policies;
      const admits53 = dns.some((v) => v.allows.length > 0);
      // Where the cluster DNS's pods were read: judged against them, on the ports they listen on.
      const cd = clusterDns(m);
      const dnsBlocked =
        selecting.length > 0 &&
        (cd
          ? !cd.dests.some((d) => egressVerdict(policies, pod, d.port, d.dest, d.protocol).allows.length > 0)
          : !admits53);
      if (blocked.length === 0 && !dnsBlocked) continue;
      const key = [
        w.namespace,
        selecting.join(','),
        blocked.map((b) => `${b.endpoint.service}:${b.endpoint.ports.join('/')}`).join(','),
        dnsBlocked,
      ].join('|');
      const g = groups.get(key);
      if (g) {
        g.workloads.push(w);
        g.pods.push(...pods);
      } else
        groups.set(key, {
          mesh,
          namespace: w.namespace,
          policies: selecting,
          workloads: [w],
          pods: [...pods],
          blocked,
          dnsBlocked,
          ...(cd && dnsBlocked ? { dns: { ...cd, admits53 } } : {}),
        });
    }
    return [...groups.values()];
  },
});

/** Every group of meshed workloads whose egress policies cut their injected containers off (memoized per mesh). */
export function proxyPaths(m: Model, mesh: MeshName): ProxyPath[] {
  return m.fact(PROXY_PATHS, mesh);
}

/** Meshed workloads an ingress policy of the control plane's namespace refuses on an endpoint (issue 31, gen8net). */
export interface ControlPlaneIngress {
  mesh: MeshName;
  /** The control-plane namespace and the policies there that select the endpoint's pods for ingress (sorted). */
  namespace: string;
  policies: string[];
  endpoint: ControlPlaneEndpoint;
  /** The endpoint's pods as read, judged. */
  pods: string[];
  /** The meshed workloads no rule admits, and their active meshed pods. */
  workloads: Workload[];
  meshedPods: K8sObject[];
}

/**
 * The other end of the proxy's path (issue 31, gen8net): NetworkPolicies of the control plane's namespace that
 * isolate the endpoint's pods (istiod, Linkerd's destination, identity and policy, kuma-cp, Consul's servers) for
 * ingress and admit none of the meshed pods on the endpoint's ports (a "default deny" in istio-system that admits
 * only the gateways, one admitting only the API server for the webhook). Judged against the endpoint's pods as read
 * (none read: nothing judged) and each meshed workload's first meshed pod (else its template in its namespace).
 */
export const CONTROL_PLANE_INGRESS = defineFactFamily({
  id: 'control-plane-ingress',
  inputs: [...WORKLOAD_DECISION_INPUTS, 'networkpolicies'],
  compute: (m: Model, mesh: MeshName): ControlPlaneIngress[] => {
    const net = profileOf(mesh).network;
    if (!net || !m.has('networkpolicies')) return [];
    const cpNamespaces = m.mesh(mesh)?.namespaces.length
      ? m.mesh(mesh)!.namespaces
      : [profileOf(mesh).controlPlane.namespace];
    const groups = new Map<string, ControlPlaneIngress>();
    for (const ns of cpNamespaces.slice(0, 8)) {
      if (!m.readIn('networkpolicies', ns)) continue;
      const policies = m.inNamespace('networkpolicies', ns);
      if (!policies.some((np) => policyTypes(np).includes('Ingress'))) continue;
      for (const endpoint of net.endpoints) {
        const pods = m
          .inNamespace('pods', ns)
          .slice(0, 2000)
          .filter((p) => isActive(p) && Object.entries(endpoint.podLabels).every(([k, v]) => labelsOf(p)[k] === v))
          .slice(0, 50);
        if (!pods.length) continue;
        for (const w of m.appWorkloads) {
          const meshed = (m.podStates(w).meshed.get(mesh) ?? []).filter(isActive);
          if (meshed.length === 0 && !m.decision(w, mesh)?.inject) continue;
          const from = asPod(w, meshed);
          const ip = str(isObj(from.status) ? (from.status as Record<string, unknown>).podIP : undefined);
          const source: EgressDestination = {
            namespace: w.namespace,
            namespaceLabels: namespaceLabels(m.namespace(w.namespace), w.namespace),
            labels: labelsOf(from as K8sObject),
            ...(ip ? { ip } : {}),
          };
          let selecting: string[] = [];
          const open = endpoint.ports.some((port) =>
            pods.some((pod) => {
              const v = ingressFrom(policies, pod, port, source);
              if (v.policies.length) selecting = v.policies;
              return v.policies.length === 0 || v.allows.length > 0;
            }),
          );
          if (open) continue;
          const key = `${ns}|${endpoint.service}|${selecting.join(',')}`;
          const g = groups.get(key);
          if (g) {
            g.workloads.push(w);
            g.meshedPods.push(...meshed);
          } else
            groups.set(key, {
              mesh,
              namespace: ns,
              policies: selecting,
              endpoint,
              pods: pods.map(nameOf).sort(),
              workloads: [w],
              meshedPods: [...meshed],
            });
        }
      }
    }
    return [...groups.values()];
  },
});

/** The control plane's endpoints whose ingress policies refuse meshed workloads (memoized per mesh). */
export function controlPlaneIngress(m: Model, mesh: MeshName): ControlPlaneIngress[] {
  return m.fact(CONTROL_PLANE_INGRESS, mesh);
}
