/**
 * NetworkPolicy ingress, as networking.k8s.io/v1 defines it, for one question: may the API server
 * reach this pod on this port? (kubernetes/api@82c0029eaa2f5bdbfbbbce9305349a893e6c86dc (v0.33.0)
 * networking/v1/types.go):
 * - a policy applies to the pods its podSelector selects in its namespace; an empty podSelector
 *   selects every pod there (#L62-L68);
 * - a pod is isolated for ingress when a policy selecting it has Ingress in policyTypes; traffic
 *   is then allowed if it matches one ingress rule of any of them, or comes from the pod's own
 *   node (#L70-L76). policyTypes left empty means Ingress (plus Egress when egress rules are
 *   given: SetDefaults_NetworkPolicy, pkg/apis/networking/v1/defaults.go at
 *   kubernetes/kubernetes@030880a5dc5449403c6d1f0aa146a7dc21d6c6dc), so a stored object already
 *   names them; the default is applied here for manifests (`check -f`);
 * - a rule matches when its ports and its from both match; missing or empty ports match every
 *   port, missing or empty from every source (#L110-L126); a port's protocol defaults to TCP; a
 *   port is a number, with endPort the last of a range (#L166-L171), or a named port of the pod
 *   (#L159-L164: resolved against the pod's containers' ports, as network plugins do; whether
 *   init containers' ports count is not said, so they are not used);
 * - a peer is an ipBlock (cidr, except) or pods chosen by namespaceSelector and/or podSelector
 *   (#L192-L214).
 * The API server's source address is unknown in general: a rule from anywhere admits it; one from
 * an ipBlock may (the address must be in the block); one from pods admits it only where its calls
 * are tunnelled through agent pods (konnectivity, on AKS and GKE) that the peer selects.
 */
import type { K8sObject } from '../util/types.js';
import { arr, isObj, labelsOf, str } from '../util/objects.js';
import { containers, podSpec } from './pods.js';
import { evalSelector } from './selectors.js';

/** How a rule lets traffic in on the port. */
export type Admission =
  /** from missing or empty: any source. */
  | { how: 'anywhere'; policy: string; rule: number }
  /** an ipBlock: the API server's address must fall in it. */
  | { how: 'ip-block'; policy: string; rule: number; cidr: string }
  /** pods of kube-system: the API server's calls when tunnelled through agent pods there. */
  | { how: 'kube-system-pods'; policy: string; rule: number };

interface IngressVerdict {
  /** The policies that select the pod for ingress (sorted): empty, the pod is not isolated. */
  policies: string[];
  /** The rules of those policies that admit the port, and from where. */
  admits: Admission[];
}

/** policyTypes with the API's default: Ingress, plus Egress when egress rules are given. */
export function policyTypes(np: K8sObject): string[] {
  const spec = isObj(np.spec) ? np.spec : {};
  const given = arr(spec.policyTypes).filter((t): t is string => typeof t === 'string');
  if (given.length) return given;
  return arr(spec.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** The policy selects the pod (same namespace; an empty podSelector selects all). */
export function selectsPod(np: K8sObject, pod: K8sObject): boolean {
  if (str(np.metadata?.namespace) !== str(pod.metadata?.namespace)) return false;
  const spec = isObj(np.spec) ? np.spec : {};
  return evalSelector(isObj(spec.podSelector) ? spec.podSelector : {}, labelsOf(pod)).matched;
}

/** The pod's named container ports: name -> [port, protocol]. */
function namedPorts(pod: K8sObject): Map<string, { port: number; protocol: string }> {
  const out = new Map<string, { port: number; protocol: string }>();
  for (const c of containers(podSpec(pod)))
    for (const p of arr(c.ports))
      if (isObj(p) && typeof p.name === 'string' && typeof p.containerPort === 'number' && !out.has(p.name))
        out.set(p.name, { port: p.containerPort, protocol: str(p.protocol) ?? 'TCP' });
  return out;
}

/** A rule's port entry matches TCP `port` on this pod. */
function portMatches(entry: unknown, port: number, named: Map<string, { port: number; protocol: string }>): boolean {
  if (!isObj(entry)) return false;
  const protocol = str(entry.protocol) ?? 'TCP';
  if (protocol !== 'TCP') return false;
  const p = entry.port;
  if (p === undefined || p === null) return true; // every port of the protocol
  if (typeof p === 'string') {
    if (/^\d+$/.test(p)) return Number(p) === port; // an IntOrString written as a string of digits
    const n = named.get(p);
    return !!n && n.port === port && n.protocol === 'TCP';
  }
  if (typeof p !== 'number') return false;
  const end = typeof entry.endPort === 'number' ? entry.endPort : p;
  return port >= p && port <= end;
}

const KUBE_SYSTEM_LABELS = { 'kubernetes.io/metadata.name': 'kube-system' };

/**
 * How a peer may admit the API server: an ipBlock (by its cidr), or pods of kube-system (where its
 * calls may be tunnelled); undefined: pods elsewhere, which the API server never is.
 */
function peerAdmits(
  peer: unknown,
  npNamespace: string,
  kubeSystem: Readonly<Record<string, string>>,
): { how: 'ip-block'; cidr: string } | { how: 'kube-system-pods' } | undefined {
  if (!isObj(peer)) return undefined;
  if (isObj(peer.ipBlock)) return { how: 'ip-block', cidr: str(peer.ipBlock.cidr) ?? '' };
  const ns = peer.namespaceSelector;
  // A podSelector alone selects pods of the policy's own namespace.
  const inKubeSystem =
    ns === undefined || ns === null ? npNamespace === 'kube-system' : evalSelector(ns, kubeSystem).matched;
  return inKubeSystem ? { how: 'kube-system-pods' } : undefined;
}

/**
 * Whether the API server may reach `port` (TCP, the container port the webhook's Service leads to)
 * on `pod`, under `policies` (those of the pod's namespace). `kubeSystemLabels`: the labels of
 * the kube-system Namespace (its automatic name label when it was not read).
 */
export function ingressVerdict(
  policies: readonly K8sObject[],
  pod: K8sObject,
  port: number,
  kubeSystemLabels: Readonly<Record<string, string>> = KUBE_SYSTEM_LABELS,
): IngressVerdict {
  const selecting = policies.filter((np) => policyTypes(np).includes('Ingress') && selectsPod(np, pod));
  const named = namedPorts(pod);
  const admits: Admission[] = [];
  for (const np of selecting) {
    const policy = str(np.metadata?.name) ?? '';
    const npNs = str(np.metadata?.namespace) ?? '';
    arr(isObj(np.spec) ? np.spec.ingress : undefined).forEach((rule, i) => {
      if (!isObj(rule)) return;
      const ports = arr(rule.ports);
      if (ports.length && !ports.some((e) => portMatches(e, port, named))) return;
      const from = arr(rule.from);
      if (!from.length) {
        admits.push({ how: 'anywhere', policy, rule: i });
        return;
      }
      for (const peer of from) {
        const a = peerAdmits(peer, npNs, kubeSystemLabels);
        if (a) admits.push({ ...a, policy, rule: i });
      }
    });
  }
  return { policies: selecting.map((np) => str(np.metadata?.name) ?? '').sort(), admits };
}
