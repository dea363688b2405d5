/**
 * Istio's mesh configuration of the proxies (issue 31, gen12refs): the `mesh` key of the ConfigMap `istio` (or
 * `istio-<revision>`) beside istiod, whose `defaultConfig` is the ProxyConfig every proxy of the revision starts
 * from. pilot-agent builds a proxy's ProxyConfig from it, then the PROXY_CONFIG the injector wrote, then the pod's
 * `proxy.istio.io/config` annotation (istio/istio 1.30 @86c9f01f pilot/cmd/pilot-agent/config/config.go
 * ConstructProxyConfig; 1.5.0 @0aa646d7 pilot/cmd/pilot-agent/main.go reads the mesh ConfigMap mounted as
 * /etc/istio/config/mesh alike). Its `discoveryAddress` names istiod's Service: the chart writes
 * istiod[-<revision>].<namespace>.svc:15012 (manifests/charts/istio-control/istio-discovery/templates/configmap.yaml),
 * and an install whose values name another namespace or revision than istiod's writes a Service that is not there
 * (Kuadrant/multicluster-gateway-controller#79: istiod.istio.svc:15012 beside istiod in istio-system). Snapshots
 * keep of the ConfigMap only that address, never the rest.
 */
import { cmd, comment } from '../../fix/steps.js';
import { isObj, str } from '../../util/objects.js';
import { configKey, parseYamlObject } from '../config-values.js';
import type { MeshContext } from '../context.js';
import type { ConfigReference } from '../references.js';
import { serviceOfHost } from '../references.js';
import { ISTIO_CONFIG } from './data.js';
import { servedRevisions } from './revisions.js';

export const DISCOVERY_MISSING =
  'pilot-agent dials it for the proxy configuration and, with no CA address set, for the workload certificate: the name does not resolve, Envoy receives no configuration and the proxy never becomes ready (Envoy proxy is NOT ready: config not received from Pilot)';
export const DISCOVERY_SOURCE =
  'istio/istio 1.30 @86c9f01f pilot/cmd/pilot-agent/config/config.go ConstructProxyConfig, pilot/cmd/pilot-agent/options/security.go (CAEndpoint defaults to DiscoveryAddress), pkg/istio-agent/xds_proxy.go; 1.5.0 @0aa646d7 pilot/cmd/pilot-agent/main.go';

/** The mesh ConfigMaps of the served revisions: istio for the default one, istio-<revision> for the others. */
export const meshConfigNames = (revisions: readonly string[]): string[] => [
  'istio',
  ...revisions.filter((r) => r !== 'default').map((r) => `istio-${r}`),
];

/** The `mesh` key's text slimmed to defaultConfig.discoveryAddress (undefined: not set). */
export function slimMeshConfig(text: string): string | undefined {
  const dc = parseYamlObject(text)?.defaultConfig;
  const address = isObj(dc) ? str(dc.discoveryAddress) : undefined;
  return address ? JSON.stringify({ defaultConfig: { discoveryAddress: address } }) : undefined;
}

/**
 * The discoveryAddress of every mesh ConfigMap read beside istiod, as a reference to a Service. A host without a
 * namespace part resolves in each proxy's own namespace: not judged here (the proxies' namespaces differ).
 */
export function istioConfigReferences(m: MeshContext): ConfigReference[] {
  const out: ConfigReference[] = [];
  const revisions = servedRevisions(m.list('mutatingwebhookconfigurations'));
  for (const ns of (m.mesh('istio')?.namespaces ?? []).slice(0, 8))
    for (const name of meshConfigNames(revisions).slice(0, 16)) {
      const dc = configKey(m.get('configmaps', ns, name), 'mesh')?.defaultConfig;
      const address = isObj(dc) ? str(dc.discoveryAddress) : undefined;
      if (!address || !address.includes('.')) continue;
      const svc = serviceOfHost(m, address, ns);
      if (!svc) continue;
      out.push({
        key: 'defaultConfig.discoveryAddress',
        said: `mesh ConfigMap ${ns}/${name} sets defaultConfig.discoveryAddress: ${address}`,
        value: address,
        address,
        target: { title: 'Service', kind: 'services', scope: 'pod namespace', ...svc },
        missing: DISCOVERY_MISSING,
        source: DISCOVERY_SOURCE,
        object: { kind: 'ConfigMap', namespace: ns, name },
        fix: [
          comment`set meshConfig.defaultConfig.discoveryAddress to the Service of istiod that serves this revision, as name.namespace.svc:15012, in the install values and upgrade`,
          cmd`kubectl get services -A -l app=istiod`,
          cmd`kubectl get configmap ${name} -n ${ns} -o yaml`,
        ],
      });
    }
  return out;
}
