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
export function namedPorts(pod: K8sObject): Map<string, { port: number; protocol: string }> {
  const out = new Map<string, { port: number; protocol: string }>();
  for (const c of containers(podSpec(pod)))
    for (const p of arr(c.ports))
      if (isObj(p) && typeof p.name === 'string' && typeof p.containerPort === 'number' && !out.has(p.name))
        out.set(p.name, { port: p.containerPort, protocol: str(p.protocol) ?? 'TCP' });
  return out;
}

/**
 * A rule's port entry matches `port` (TCP unless `protocol` says otherwise) on this pod; `named`
 * undefined: the destination's port names are unknown, and a named port is given the benefit of the doubt.
 */
function portMatches(
  entry: unknown,
  port: number,
  named: Map<string, { port: number; protocol: string }> | undefined,
  want = 'TCP',
): boolean {
  if (!isObj(entry)) return false;
  const protocol = str(entry.protocol) ?? 'TCP';
  if (protocol !== want) return false;
  const p = entry.port;
  if (p === undefined || p === null) return true; // every port of the protocol
  if (typeof p === 'string') {
    if (/^\d+$/.test(p)) return Number(p) === port; // an IntOrString written as a string of digits
    if (!named) return true;
    const n = named.get(p);
    return !!n && n.port === port && n.protocol === want;
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
 * The ingress rules that admit `port` of the policies selecting `pod` for ingress (types.go, as above), each with
 * its policy's name and namespace, its index and its peers (none: from anywhere); and the selecting policies' names.
 */
function ingressRules(
  policies: readonly K8sObject[],
  pod: K8sObject,
  port: number,
  protocol?: string,
): { policies: string[]; rules: { policy: string; namespace: string; index: number; from: unknown[] }[] } {
  const selecting = policies.filter((np) => policyTypes(np).includes('Ingress') && selectsPod(np, pod));
  const named = namedPorts(pod);
  const rules: { policy: string; namespace: string; index: number; from: unknown[] }[] = [];
  for (const np of selecting) {
    const policy = str(np.metadata?.name) ?? '';
    const namespace = str(np.metadata?.namespace) ?? '';
    arr(isObj(np.spec) ? np.spec.ingress : undefined).forEach((rule, index) => {
      if (!isObj(rule)) return;
      const ports = arr(rule.ports);
      if (ports.length && !ports.some((e) => portMatches(e, port, named, protocol))) return;
      rules.push({ policy, namespace, index, from: arr(rule.from) });
    });
  }
  return { policies: selecting.map((np) => str(np.metadata?.name) ?? '').sort(), rules };
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
  const { policies: names, rules } = ingressRules(policies, pod, port);
  const admits: Admission[] = [];
  for (const r of rules) {
    if (!r.from.length) {
      admits.push({ how: 'anywhere', policy: r.policy, rule: r.index });
      continue;
    }
    for (const peer of r.from) {
      const a = peerAdmits(peer, r.namespace, kubeSystemLabels);
      if (a) admits.push({ ...a, policy: r.policy, rule: r.index });
    }
  }
  return { policies: names, admits };
}

/**
 * Egress (issue 31), by the same API (types.go #L70-L76 and #L128-L146): a pod is isolated for
 * egress when a policy selecting it has Egress in policyTypes; traffic is then allowed if it
 * matches one egress rule of any of them. A rule matches when its ports and its `to` both match;
 * missing or empty `to` is every destination. The destination is a pod: a peer's
 * namespaceSelector is matched against its namespace's labels (a peer without one: the policy's
 * own namespace) and its podSelector against the pod's labels; an ipBlock against its IP when
 * known (IPv4), else given the benefit of the doubt. Packets to a Service are judged after the
 * Service's address was translated to the pod's (the pod's port, the Service's targetPort), as
 * network plugins enforce it.
 */
export interface EgressDestination {
  namespace: string;
  namespaceLabels: Readonly<Record<string, string>>;
  labels: Readonly<Record<string, string>>;
  /** status.podIP, when known. */
  ip?: string;
  /** The destination's named container ports (undefined: not known). */
  named?: Map<string, { port: number; protocol: string }>;
}

/** How a rule lets traffic out to the port. */
interface EgressAllowance {
  how: 'anywhere' | 'ip-block' | 'pods';
  policy: string;
  rule: number;
}

interface EgressVerdict {
  /** The policies that select the pod for egress (sorted): empty, the pod is not isolated. */
  policies: string[];
  allows: EgressAllowance[];
}

/** An IPv4 address as a number, or undefined. */
function ipv4(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((x) => x > 255)) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

/** `ip` within IPv4 `cidr`: true, false, or undefined when either is not IPv4. */
export function inCidr(ip: string, cidr: string): boolean | undefined {
  const [base, bits] = cidr.split('/');
  const a = ipv4(ip);
  const b = ipv4(base ?? '');
  const n = bits === undefined ? 32 : /^\d{1,2}$/.test(bits) ? Number(bits) : NaN;
  if (a === undefined || b === undefined || !(n >= 0 && n <= 32)) return undefined;
  if (n === 0) return true;
  const mask = (0xffffffff << (32 - n)) >>> 0;
  return (a & mask) >>> 0 === (b & mask) >>> 0;
}

/** A peer of a rule may be the destination (`dest` undefined: any destination counts). */
function peerAllows(
  peer: unknown,
  npNamespace: string,
  dest: EgressDestination | undefined,
): 'ip-block' | 'pods' | undefined {
  if (!isObj(peer)) return undefined;
  if (isObj(peer.ipBlock)) {
    if (!dest?.ip) return 'ip-block';
    const cidr = str(peer.ipBlock.cidr) ?? '';
    const inside = inCidr(dest.ip, cidr);
    if (inside === false) return undefined;
    if (inside === true && arr(peer.ipBlock.except).some((e) => typeof e === 'string' && inCidr(dest.ip!, e) === true))
      return undefined;
    return 'ip-block';
  }
  if (!dest) return 'pods';
  const ns = peer.namespaceSelector;
  const nsOk =
    ns === undefined || ns === null ? dest.namespace === npNamespace : evalSelector(ns, dest.namespaceLabels).matched;
  if (!nsOk) return undefined;
  const ps = peer.podSelector;
  const podOk = ps === undefined || ps === null ? true : evalSelector(ps, dest.labels).matched;
  return podOk ? 'pods' : undefined;
}

/**
 * Whether `pod` may send to `port` (`protocol`, TCP by default) of `dest` under `policies` (those
 * of the pod's namespace); `dest` undefined: to any destination at all (the cluster DNS, whose
 * pods and addresses differ between distributions).
 */
export function egressVerdict(
  policies: readonly K8sObject[],
  pod: { metadata?: unknown; spec?: unknown; [k: string]: unknown },
  port: number,
  dest: EgressDestination | undefined,
  protocol = 'TCP',
): EgressVerdict {
  const selecting = policies.filter((np) => policyTypes(np).includes('Egress') && selectsPod(np, pod as K8sObject));
  const allows: EgressAllowance[] = [];
  for (const np of selecting) {
    const policy = str(np.metadata?.name) ?? '';
    const npNs = str(np.metadata?.namespace) ?? '';
    arr(isObj(np.spec) ? np.spec.egress : undefined).forEach((rule, i) => {
      if (!isObj(rule)) return;
      const ports = arr(rule.ports);
      if (ports.length && !ports.some((e) => portMatches(e, port, dest?.named, protocol))) return;
      const to = arr(rule.to);
      if (!to.length) {
        allows.push({ how: 'anywhere', policy, rule: i });
        return;
      }
      const how = to.map((peer) => peerAllows(peer, npNs, dest)).find((h) => h !== undefined);
      if (how) allows.push({ how, policy, rule: i });
    });
  }
  return { policies: selecting.map((np) => str(np.metadata?.name) ?? '').sort(), allows };
}

/**
 * Ingress from a known pod (issue 31, gen8net): whether `source` may reach `port` (`protocol`, TCP by default) of
 * `pod` under `policies` (those of `pod`'s namespace), the egress rules mirrored (types.go NetworkPolicyIngressRule:
 * a pod is isolated for ingress when a policy selecting it has Ingress in policyTypes; a rule admits when its ports
 * match the pod's port and one `from` peer matches the source, missing or empty `from` being every source; a peer's
 * namespaceSelector against the source's namespace labels, without one the policy's own namespace; an ipBlock against
 * the source's IP, given the benefit of the doubt where it is not known).
 */
export function ingressFrom(
  policies: readonly K8sObject[],
  pod: K8sObject,
  port: number,
  source: EgressDestination,
  protocol = 'TCP',
): EgressVerdict {
  const { policies: names, rules } = ingressRules(policies, pod, port, protocol);
  const allows: EgressAllowance[] = [];
  for (const r of rules) {
    const how = r.from.length
      ? r.from.map((peer) => peerAllows(peer, r.namespace, source)).find((h) => h !== undefined)
      : 'anywhere';
    if (how) allows.push({ how, policy: r.policy, rule: r.index });
  }
  return { policies: names, allows };
}
