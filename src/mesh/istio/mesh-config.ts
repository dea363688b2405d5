/**
 * Istio's mesh configuration of the proxies (issue 31, gen12refs): the `mesh` key of the ConfigMap `istio` (or
 * `istio-<revision>`) beside istiod, whose `defaultConfig` is the ProxyConfig every injected proxy starts from.
 * pilot-agent builds a proxy's ProxyConfig from it, then the PROXY_CONFIG the injector wrote, then the pod's
 * `proxy.istio.io/config` annotation (istio/istio 1.30 @86c9f01f pilot/cmd/pilot-agent/config/config.go
 * ConstructProxyConfig; 1.5.0 @0aa646d7 pilot/cmd/pilot-agent/main.go reads the mesh ConfigMap mounted as
 * /etc/istio/config/mesh alike). Snapshots keep of it only the addresses the reference rows name
 * (src/mesh/istio/references.ts), never the rest.
 */
import type { Workload } from '../../k8s/workloads.js';
import { isObj } from '../../util/objects.js';
import { configKey, parseYamlObject } from '../config-values.js';
import type { MeshContext } from '../context.js';
import { ISTIO_CONFIG } from './data.js';
import { injectorConfigMap } from './revisions.js';

/** The mesh ConfigMap beside an injector ConfigMap: istio-sidecar-injector[-rev] reads istio[-rev]. */
export const meshConfigName = (injectorConfig: string): string => `istio${injectorConfig.slice(ISTIO_CONFIG.length)}`;

/** The defaultConfig fields that name an address: all a snapshot keeps of the mesh ConfigMap. */
export const ADDRESS_FIELDS: readonly (readonly string[])[] = [
  ['discoveryAddress'],
  ['tracing', 'zipkin', 'address'],
  ['tracing', 'datadog', 'address'],
  ['envoyMetricsService', 'address'],
  ['envoyAccessLogService', 'address'],
];

/** The `mesh` key's text slimmed to defaultConfig's address fields (undefined: no such field). */
export function slimMeshConfig(text: string): string | undefined {
  const dc = parseYamlObject(text)?.defaultConfig;
  if (!isObj(dc)) return undefined;
  const kept: Record<string, unknown> = {};
  for (const path of ADDRESS_FIELDS) {
    let v: unknown = dc;
    for (const p of path) v = isObj(v) ? v[p] : undefined;
    if (typeof v !== 'string') continue;
    let at = kept;
    for (const p of path.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
    at[path[path.length - 1]!] = v;
  }
  return Object.keys(kept).length ? JSON.stringify({ defaultConfig: kept }) : undefined;
}

/** The defaultConfig of the mesh ConfigMap of the revision that injects the workload, where it was read. */
export function istioMeshConfig(m: MeshContext, w: Workload): { said: string; values: unknown } | undefined {
  const injector = injectorConfigMap(m, w);
  const ns = injector?.metadata?.namespace;
  if (!injector || !ns) return undefined;
  const name = meshConfigName(injector.metadata?.name ?? ISTIO_CONFIG);
  const dc = configKey(m.get('configmaps', ns, name), 'mesh')?.defaultConfig;
  return isObj(dc) ? { said: `the mesh ConfigMap ${ns}/${name} sets defaultConfig`, values: dc } : undefined;
}
