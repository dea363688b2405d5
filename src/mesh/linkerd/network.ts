/**
 * What Linkerd's injected proxy dials over the pod network before it is ready (issue 31): the
 * identity service for its certificate, the destination and policy services for discovery and
 * policy (linkerd/linkerd2@b24cd4059841f8cee2fb7a9c2ac23a693c583579 charts/partials/templates/_proxy.tpl:
 * LINKERD2_PROXY_IDENTITY_SVC_ADDR `linkerd-identity-headless.<ns>.svc.<domain>.:8080`,
 * LINKERD2_PROXY_DESTINATION_SVC_ADDR `linkerd-dst-headless...:8086`,
 * LINKERD2_PROXY_POLICY_SVC_ADDR `linkerd-policy...:8090`; charts/linkerd-control-plane/templates/
 * identity.yaml and destination.yaml: ports 8080, 8086, 8090 = targetPorts, pods labelled
 * `linkerd.io/control-plane-component: identity | destination`). Without them the proxy logs
 * `linkerd_reconnect: Failed to connect` and its readiness probe answers 503 (linkerd/linkerd2#3620,
 * #9812).
 */
import { configValues } from '../config-values.js';
import type { MeshContext } from '../context.js';
import type { ProxyNetwork, ProxyRanges } from '../profile.js';
import { upgrade } from './runtime.js';
import { linkerdPodNeeds } from './pod-needs.js';

const SOURCE =
  'linkerd/linkerd2@b24cd405 charts/partials/templates/_proxy.tpl, charts/linkerd-control-plane/templates/identity.yaml, destination.yaml';
const COMPONENT = 'linkerd.io/control-plane-component';

/**
 * clusterNetworks (issue 31, gen10net): the networks the proxy performs discovery for and counts as the cluster's
 * (linkerd/linkerd2@b24cd405 charts/linkerd-control-plane/values.yaml: "The cluster networks for which service
 * discovery is performed. This should include the pod and service networks", default
 * "10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16" to version-2.15, with ",fd00::/8" from version-2.16;
 * charts/partials/templates/_proxy.tpl LINKERD2_PROXY_DESTINATION_PROFILE_NETWORKS and
 * LINKERD2_PROXY_POLICY_CLUSTER_NETWORKS; destination.yaml --cluster-networks for the policy controller). Read from the
 * installed values (ConfigMap linkerd-config key values); no pod annotation overrides it. A Service whose ClusterIP
 * is outside gets no discovery and no mTLS ("Our linkerd config clusterNetworks was missing the network range used by
 * the Kubernetes service": linkerd/linkerd2#9521); what a node address outside does to the kubelet's probes and
 * whether the proxy serves IPv6 are the release tables' (releases.ts, RangeBehaviour).
 */
const DEFAULT_NETWORKS = ['10.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12', '192.168.0.0/16'];
const RANGES_SOURCE =
  'linkerd/linkerd2@b24cd405 charts/linkerd-control-plane/values.yaml clusterNetworks, disableIPv6; charts/partials/templates/_proxy.tpl';

/** The installed values, from ConfigMap linkerd-config of the first control-plane namespace that has it. */
function installed(m: MeshContext, namespaces: readonly string[]) {
  for (const ns of namespaces.slice(0, 8)) {
    const cm = m.get('configmaps', ns, 'linkerd-config');
    const values = configValues(cm);
    if (values) return { ns, values };
  }
  return undefined;
}

export const linkerdRanges: ProxyRanges = {
  role: 'cluster',
  meshWide: (m, namespaces) => {
    const got = installed(m, namespaces);
    if (!got) return undefined;
    const v = got.values.clusterNetworks;
    const from = `values of ConfigMap ${got.ns}/linkerd-config`;
    if (typeof v !== 'string' || !v.trim())
      return {
        name: 'clusterNetworks',
        include: DEFAULT_NETWORKS,
        exclude: [],
        from: `the chart's default (not set in the ${from})`,
      };
    return {
      name: 'clusterNetworks',
      include: v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .slice(0, 64),
      exclude: [],
      from,
    };
  },
  forPod: () => undefined,
  outside:
    'the proxy performs no service discovery for those addresses and counts them outside the cluster: connections to them get no mTLS, no load balancing and no policy of the mesh',
  source: RANGES_SOURCE,
  fix: (setting, add, ns) =>
    upgrade(
      'add the ranges to clusterNetworks, then restart the control plane and the meshed workloads so that their proxies read it',
      ns,
      // Helm splits --set on commas: the list is one value.
      `clusterNetworks=${[...(setting.include === '*' ? [] : setting.include), ...add].join('\\,')}`,
    ),
  ipv6Setting: (m, namespaces) => {
    const got = installed(m, namespaces);
    if (!got) return undefined;
    return {
      on: got.values.disableIPv6 === false,
      from: `disableIPv6 ${got.values.disableIPv6 === undefined ? "unset (the chart's default true)" : String(got.values.disableIPv6)} in the values of ConfigMap ${got.ns}/linkerd-config`,
      fix: upgrade('serve IPv6 from the proxy, then restart the meshed workloads', got.ns, 'disableIPv6=false'),
    };
  },
};

export const linkerdNetwork: ProxyNetwork = {
  endpoints: [
    {
      role: 'its identity certificate',
      service: 'linkerd-identity',
      ports: [8080],
      podLabels: { [COMPONENT]: 'identity' },
      from: 'the linkerd-proxy',
      source: SOURCE,
    },
    {
      role: 'service discovery',
      service: 'linkerd-dst',
      ports: [8086],
      podLabels: { [COMPONENT]: 'destination' },
      from: 'the linkerd-proxy',
      source: SOURCE,
    },
    {
      role: 'inbound and outbound policy',
      service: 'linkerd-policy',
      ports: [8090],
      podLabels: { [COMPONENT]: 'destination' },
      from: 'the linkerd-proxy',
      source: SOURCE,
    },
  ],
  symptom: 'linkerd-proxy never becomes ready ("linkerd_reconnect: Failed to connect" in its log, readiness probe 503)',
  podSpec: linkerdPodNeeds,
};
