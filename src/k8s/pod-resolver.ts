/**
 * What a pod's own spec gives its containers to resolve names with, and the operating system it asks for (issue 31,
 * gen10spec): Kubernetes facts without a mesh, read by src/facts/pod-needs.ts against what the mesh's containers need.
 *
 * DNS (kubernetes pkg/kubelet/network/dns/dns.go getPodDNSType and GetPodDNS, v1.30.0; pkg/apis/core/types.go
 * DNSPolicy): `ClusterFirst` (the default) gives the cluster DNS, but a hostNetwork pod falls back to `Default`;
 * `ClusterFirstWithHostNet` gives the cluster DNS to hostNetwork pods too; `Default` gives the node's resolv.conf
 * (which resolves no Service name unless the node's resolver forwards to the cluster DNS); `None` gives only
 * `dnsConfig.nameservers` and `searches`.
 * The node's OS (pkg/apis/core/types.go PodOS, kubernetes.io/os in staging/src/k8s.io/api/core/v1/well_known_labels.go
 * LabelOSStable, beta.kubernetes.io/os before 1.14): `spec.os.name`, a nodeSelector on the label, or a required node
 * affinity whose every term asks for it.
 */
import { isObj, str } from '../util/objects.js';

/**
 * The address NodeLocal DNSCache listens on by convention (kubernetes cluster/addons/dns/nodelocaldns/README.md,
 * 169.254.20.10): it forwards the cluster's domain to the cluster DNS, so a pod naming it resolves Service names.
 */
export const NODE_LOCAL_DNS = '169.254.20.10';

/** The resolver a pod's spec gives its containers, where it is not the cluster DNS. */
interface PodResolver {
  /** The field that decides ("dnsPolicy"). */
  readonly field: string;
  /** Its value as the spec has it, with what it depends on ("Default", "None", "ClusterFirst with hostNetwork: true"). */
  readonly value: string;
  /** Who answers the pod's queries (a clause). */
  readonly resolver: string;
  /** dnsPolicy None: the nameservers it names (at most 3, as the kubelet keeps them). */
  readonly nameservers?: readonly string[];
}

/**
 * The pod's resolver where it may not be the cluster DNS: undefined for ClusterFirst (without hostNetwork) and
 * ClusterFirstWithHostNet. For `None`, `clusterDns` (the cluster DNS addresses, where read) decides: a nameserver
 * among them is the cluster DNS; without them the nameservers are returned for the caller to say it could not compare.
 */
export function podResolver(spec: Record<string, unknown>, clusterDns?: readonly string[]): PodResolver | undefined {
  const policy = str(spec.dnsPolicy);
  const host = spec.hostNetwork === true;
  if (policy === 'ClusterFirstWithHostNet') return undefined;
  if (policy === 'Default')
    return { field: 'dnsPolicy', value: 'Default', resolver: "the node's resolver (its /etc/resolv.conf)" };
  if (policy === 'None') {
    const cfg = isObj(spec.dnsConfig) ? spec.dnsConfig : {};
    const ns = (Array.isArray(cfg.nameservers) ? cfg.nameservers : [])
      .filter((x): x is string => typeof x === 'string')
      .slice(0, 3);
    if (ns.includes(NODE_LOCAL_DNS) || (clusterDns && ns.some((n) => clusterDns.includes(n)))) return undefined;
    return {
      field: 'dnsPolicy',
      value: 'None',
      resolver: ns.length ? `only the nameservers of its dnsConfig, ${ns.join(', ')}` : 'no nameserver at all',
      nameservers: ns,
    };
  }
  if (host && (policy === undefined || policy === 'ClusterFirst'))
    return {
      field: 'dnsPolicy',
      value: `${policy ?? 'ClusterFirst (the default)'} with hostNetwork: true`,
      resolver:
        "the node's resolver (the kubelet gives a hostNetwork pod the cluster DNS only with ClusterFirstWithHostNet)",
    };
  return undefined;
}

/**
 * dnsPolicy None with a cluster DNS nameserver: the search domains of its dnsConfig, where none completes `address`,
 * a Service name the injector writes short (`<svc>.<ns>.svc` needs the cluster's domain, `<svc>.<ns>` needs
 * `svc.<domain>`; the kubelet's ClusterFirst writes `<ns>.svc.<domain> svc.<domain> <domain>`, None only what the pod
 * gives). Undefined where the name is complete, the policy is not None, or a search may complete it.
 */
export function searchGap(spec: Record<string, unknown>, address: string): readonly string[] | undefined {
  if (str(spec.dnsPolicy) !== 'None') return undefined;
  const labels = address.split('.');
  const cfg = isObj(spec.dnsConfig) ? spec.dnsConfig : {};
  const searches = (Array.isArray(cfg.searches) ? cfg.searches : [])
    .filter((x: unknown): x is string => typeof x === 'string')
    .slice(0, 32);
  if (labels.length === 3 && labels[2] === 'svc')
    return searches.some((d) => d && !d.split('.').includes('svc')) ? undefined : searches;
  if (labels.length === 2) return searches.some((d) => d.startsWith('svc.')) ? undefined : searches;
  return undefined;
}

/** The label that says a node's OS, and its pre-1.14 form. */
const OS_LABELS = ['kubernetes.io/os', 'beta.kubernetes.io/os'];

/** Where a pod's spec asks for a node of another OS than Linux: the field and the OS, or undefined. */
export function podOs(spec: Record<string, unknown>): { field: string; os: string } | undefined {
  const os = isObj(spec.os) ? str(spec.os.name) : undefined;
  if (os && os !== 'linux') return { field: 'spec.os.name', os };
  const sel = isObj(spec.nodeSelector) ? spec.nodeSelector : {};
  for (const l of OS_LABELS) {
    const v = str(sel[l]);
    if (v && v !== 'linux') return { field: `nodeSelector ${l}`, os: v };
  }
  const req =
    isObj(spec.affinity) && isObj(spec.affinity.nodeAffinity)
      ? spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
      : undefined;
  const terms = isObj(req) && Array.isArray(req.nodeSelectorTerms) ? req.nodeSelectorTerms.slice(0, 16) : [];
  // Every term (they are ORed) must exclude Linux for the pod to be kept off Linux nodes.
  const asked = terms.map((t) => {
    const exprs = isObj(t) && Array.isArray(t.matchExpressions) ? t.matchExpressions.slice(0, 16) : [];
    for (const e of exprs) {
      const key = isObj(e) ? str(e.key) : undefined;
      if (!key || !OS_LABELS.includes(key)) continue;
      const vals = (Array.isArray(e.values) ? e.values : []).filter((v: unknown): v is string => typeof v === 'string');
      if (e.operator === 'In' && vals.length && !vals.includes('linux')) return { key, os: vals.join(', ') };
      if (e.operator === 'NotIn' && vals.includes('linux')) return { key, os: 'not linux' };
    }
    return undefined;
  });
  const first = asked[0];
  if (first && asked.every((a) => a !== undefined))
    return { field: `required node affinity ${first.key}`, os: first.os };
  return undefined;
}
