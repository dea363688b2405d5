/**
 * The cluster's own address ranges, as read (issue 31, gen10net): each Node's pod ranges (spec.podCIDRs, else
 * spec.podCIDR) and InternalIP addresses (the source of the kubelet's probes), and the ClusterIPs of the Services
 * read in the namespaces this run sees (Model.seesNamespace: `check -n` judges alike live and from a snapshot).
 * Headless Services (clusterIP None) have none. Bounded: 5,000 nodes, 20,000 Services.
 */
import { defineFact, inputsOf } from '../k8s/fact.js';
import { parseCidr, parseIp, type Cidr } from '../k8s/cidr.js';
import { arr, isObj, nameOf, nsOf, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { MESHES, type Model } from './model.js';

interface NodeRanges {
  name: string;
  podCIDRs: Cidr[];
  internalIPs: string[];
}

export interface ServiceAddresses {
  namespace: string;
  name: string;
  clusterIPs: string[];
  selector: Record<string, string>;
}

interface ClusterAddresses {
  nodes: NodeRanges[];
  services: ServiceAddresses[];
}

export const CLUSTER_ADDRESSES = defineFact({
  id: 'cluster-addresses',
  // Model.seesNamespace asks the meshes (their control-plane namespaces).
  inputs: inputsOf(MESHES, ['nodes', 'services']),
  compute: (m: Model): ClusterAddresses => {
    const nodes: NodeRanges[] = [];
    for (const n of m.list('nodes').slice(0, 5000)) {
      const spec = isObj(n.spec) ? n.spec : {};
      const texts = arr(spec.podCIDRs).length ? arr(spec.podCIDRs) : [spec.podCIDR];
      const podCIDRs = texts.flatMap((t) => {
        const c = parseCidr(str(t));
        return c ? [c] : [];
      });
      const internalIPs = (isObj(n.status) ? arr(n.status.addresses) : [])
        .filter((a) => isObj(a) && a.type === 'InternalIP' && parseIp(str(a.address)))
        .map((a) => str((a as Record<string, unknown>).address)!)
        .slice(0, 8);
      nodes.push({ name: nameOf(n), podCIDRs: podCIDRs.slice(0, 8), internalIPs });
    }
    const services: ServiceAddresses[] = [];
    for (const s of m.list('services').slice(0, 20000)) {
      if (!m.seesNamespace(nsOf(s))) continue;
      const spec = isObj(s.spec) ? s.spec : {};
      if (spec.type === 'ExternalName') continue;
      const ips = (arr(spec.clusterIPs).length ? arr(spec.clusterIPs) : [spec.clusterIP])
        .map((x) => str(x))
        .filter((x): x is string => !!x && x !== 'None' && !!parseIp(x))
        .slice(0, 4);
      if (!ips.length) continue;
      const sel = isObj(spec.selector) ? spec.selector : {};
      services.push({
        namespace: nsOf(s),
        name: nameOf(s),
        clusterIPs: ips,
        selector: Object.fromEntries(Object.entries(sel).filter(([, v]) => typeof v === 'string')) as Record<
          string,
          string
        >,
      });
    }
    return {
      nodes: nodes.sort((a, b) => a.name.localeCompare(b.name)),
      services: services.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)),
    };
  },
});

/** A pod's addresses (status.podIPs, else status.podIP), the primary first. */
export function podAddresses(pod: K8sObject): string[] {
  const st = isObj(pod.status) ? pod.status : {};
  const ips = arr(st.podIPs)
    .map((x) => (isObj(x) ? str(x.ip) : undefined))
    .filter((x): x is string => !!x && !!parseIp(x));
  const primary = str(st.podIP);
  if (primary && parseIp(primary) && !ips.includes(primary)) ips.unshift(primary);
  return ips.slice(0, 4);
}
