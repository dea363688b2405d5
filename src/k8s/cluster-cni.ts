/**
 * The cluster's own CNI plugins that take the node's CNI configuration directory for themselves, so that a
 * plugin chained onto theirs (a service mesh's CNI plugin: it appends itself to the primary plugin's
 * configuration list, or writes a list of its own) is removed or rewritten, from their DaemonSet.
 *
 * Cilium: with `cni.exclusive` (the Helm value; ConfigMap cilium-config key `cni-exclusive`, true by default) its
 * agent owns /etc/cni/net.d, renaming every other plugin's configuration to *.cilium_bak and rewriting its own
 * 05-cilium.conflist, so another plugin chained onto it loses its place (Cilium's Helm reference for cni.exclusive,
 * quoted in linkerd/linkerd2#11597; linkerd/website#1794 "Add notes about Cilium's exclusive mode"; Istio's CNI
 * agent says so itself: istio/istio 266914aa cni/pkg/install/install.go installation throttle, "Hint: Cilium CNI
 * was detected; ensure 'cni.exclusive=false' in the Cilium configuration"). Its agent runs as DaemonSet `cilium`
 * (pods `k8s-app: cilium`, container `cilium-agent`, image quay.io/cilium/cilium: cilium/cilium
 * install/kubernetes/cilium/templates/cilium-agent/daemonset.yaml). The setting itself lives in the ConfigMap,
 * which meshdoctor does not read outside the meshes' namespaces: a finding says that it was not read.
 */
import type { PodNetworkAgent } from './pod-network.js';

export interface ExclusiveCni {
  /** "Cilium". */
  product: string;
  namespace: string;
  daemonSet: string;
  image?: string;
  /** The setting that lets another plugin chain onto it, as its install names it. */
  setting: string;
  /** Where the setting can be read on the cluster. */
  readFrom: string;
  /** A pasteable change of the setting (the values of a Helm release), without the release's own name. */
  helm: { chart: string; release: string; set: string };
  source: string;
}

interface Known {
  /** The product, as src/k8s/pod-network.ts recognises its agent by image. */
  product: string;
  setting: string;
  readFrom: (ns: string) => string;
  helm: { chart: string; release: string; set: string };
  source: string;
}

const KNOWN: readonly Known[] = [
  {
    product: 'Cilium',
    setting: 'cni.exclusive=false',
    readFrom: (ns) => `ConfigMap ${ns}/cilium-config key cni-exclusive`,
    helm: { chart: 'cilium/cilium', release: 'cilium', set: 'cni.exclusive=false' },
    source:
      "Cilium Helm reference cni.exclusive (true by default; other plugins' configurations renamed *.cilium_bak), ConfigMap cilium-config key cni-exclusive",
  },
];

/** The exclusive CNI plugin a pod network agent is, if it is one (the agent recognised by its image). */
export function exclusiveCniOf(agent: PodNetworkAgent): ExclusiveCni | undefined {
  const k = KNOWN.find((x) => x.product === agent.product);
  return k
    ? {
        product: k.product,
        namespace: agent.namespace,
        daemonSet: agent.daemonSet,
        image: agent.image,
        setting: k.setting,
        readFrom: k.readFrom(agent.namespace),
        helm: k.helm,
        source: k.source,
      }
    : undefined;
}
