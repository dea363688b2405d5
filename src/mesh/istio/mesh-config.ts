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

/** At most this many extension providers are read from one mesh ConfigMap. */
const MAX_PROVIDERS = 32;

/** An extension provider's kind (envoyExtAuthzGrpc, zipkin, opentelemetry...) and the service it names. */
function providers(mesh: Record<string, unknown> | undefined): { name: string; kind: string; service: string }[] {
  const list = Array.isArray(mesh?.extensionProviders) ? mesh.extensionProviders.slice(0, MAX_PROVIDERS) : [];
  return list.flatMap((p) => {
    if (!isObj(p)) return [];
    const kind = Object.keys(p).find((k) => k !== 'name' && isObj(p[k]) && typeof (p[k] as any).service === 'string');
    return kind ? [{ name: str(p.name) ?? '', kind, service: (p[kind] as any).service as string }] : [];
  });
}

/** The `mesh` key's text slimmed to defaultConfig.discoveryAddress and the extension providers' services. */
export function slimMeshConfig(text: string): string | undefined {
  const mesh = parseYamlObject(text);
  const dc = mesh?.defaultConfig;
  const address = isObj(dc) ? str(dc.discoveryAddress) : undefined;
  const ps = providers(mesh);
  if (!address && !ps.length) return undefined;
  return JSON.stringify({
    ...(address ? { defaultConfig: { discoveryAddress: address } } : {}),
    ...(ps.length ? { extensionProviders: ps.map((p) => ({ name: p.name, [p.kind]: { service: p.service } })) } : {}),
  });
}

/** The external authorization providers: an AuthorizationPolicy CUSTOM action names them. */
const AUTHZ = /^envoyExtAuthz/;

const PROVIDER_SOURCE =
  'istio/istio 1.30 @86c9f01f pilot/pkg/model/telemetry_logging.go LookupCluster (namespace/hostname, or a hostname one namespace holds), pilot/pkg/networking/core/tracing.go, pilot/pkg/security/authz/builder/extauthz.go; istio/istio#28974';

/**
 * The Service an extension provider's `service` names, as istiod looks it up in its registry (LookupCluster): a
 * Kubernetes Service is registered under its hostname name.namespace.svc.<cluster domain>, and `<namespace>/<hostname>`
 * or a bare hostname held by one namespace names it. A short name (zipkin, zipkin.monitoring) is no such hostname:
 * `short` says so, where a Service of its first label exists (the one meant). Any other hostname may be a
 * ServiceEntry's (not read): undefined, not judged.
 */
function providerService(
  m: MeshContext,
  service: string,
): { name: string; namespace: string; short?: boolean } | undefined {
  const parts = service.trim().toLowerCase().split('/');
  if (parts.length > 2) return undefined;
  const host = parts[parts.length - 1]!;
  const labels = host.split('.');
  const ns = parts.length === 2 ? parts[0]! : undefined;
  if (labels.length >= 4 && labels[2] === 'svc') return { name: labels[0]!, namespace: ns ?? labels[1]! };
  if (labels.length > 3 || !labels.every((l) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(l))) return undefined;
  // A short name: istiod finds no hostname for it, whatever exists (unless a ServiceEntry declares it).
  const seen = m
    .list('services')
    .filter((s) => s.metadata?.name === labels[0] && m.seesNamespace(s.metadata?.namespace ?? ''));
  const meant = seen.find((s) => s.metadata?.namespace === (ns ?? labels[1])) ?? seen[0];
  return meant ? { name: labels[0]!, namespace: meant.metadata!.namespace!, short: true } : undefined;
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
      const mesh = configKey(m.get('configmaps', ns, name), 'mesh');
      for (const p of providers(mesh)) {
        const svc = providerService(m, p.service);
        if (!svc) continue;
        const { short, ...target } = svc;
        out.push({
          key: `extensionProviders.${p.kind}.service`,
          said: `mesh ConfigMap ${ns}/${name} has extension provider ${p.name} (${p.kind}) with service ${p.service}`,
          value: p.service,
          address: p.service,
          ...(short ? { registryName: `${svc.name}.${svc.namespace}.svc.cluster.local` } : {}),
          ...(AUTHZ.test(p.kind) ? {} : { severity: 'warning' as const }),
          target: { title: 'Service', kind: 'services', scope: 'pod namespace', ...target },
          missing: `istiod looks it up in its service registry, finds none and builds no configuration for provider ${p.name}: the ${AUTHZ.test(p.kind) ? 'external authorization of AuthorizationPolicies with action CUSTOM naming it' : 'telemetry it names'} does not take effect (istiod logs could not find service ${p.service} in Istio service registry)`,
          source: PROVIDER_SOURCE,
          object: { kind: 'ConfigMap', namespace: ns, name },
          fix: [
            comment`name the service as namespace/hostname or as its full hostname name.namespace.svc.cluster.local in meshConfig.extensionProviders, in the install values, and upgrade`,
            cmd`kubectl get services -A --field-selector metadata.name=${svc.name}`,
          ],
        });
      }
      const dc = mesh?.defaultConfig;
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
