/**
 * Istio's markers that name an object that must exist (issue 31, gen9refs; src/mesh/references.ts).
 * `sidecar.istio.io/bootstrapOverride` names a ConfigMap in the pod's namespace holding a custom Envoy
 * bootstrap: the injection template mounts it as volume `custom-bootstrap-volume` (a configMap volume,
 * not optional), so a pod naming one that does not exist stays in ContainerCreating (the kubelet's
 * FailedMount). Sources, istio/istio: 1.5.0 install/kubernetes/helm/istio/files/injection-template.yaml,
 * 1.20.0 manifests/charts/istio-control/istio-discovery/files/injection-template.yaml (`isset
 * .ObjectMeta.Annotations \`sidecar.istio.io/bootstrapOverride\``, volume custom-bootstrap-volume).
 * Meshdoctor reads ConfigMaps only by name in the meshes' own namespaces: not examined, only named.
 * `istio.io/rev` naming no served revision is webhook-excludes-namespace's; OpenShift Service Mesh's
 * member roll is member-roll.ts.
 */
import { cmd, comment } from '../../fix/steps.js';
import { addressFix, type References } from '../references.js';
import { DISCOVERY_MISSING, DISCOVERY_SOURCE, istioConfigReferences } from './mesh-config.js';
import { joinMemberRoll, MEMBER_OF, MEMBER_ROLL_SOURCE, memberRollPlanes } from './member-roll.js';

export const ISTIO_REFERENCES: References = {
  rows: [
    {
      key: 'sidecar.istio.io/bootstrapOverride',
      on: ['template annotation'],
      target: { title: 'ConfigMap', kind: 'configmaps', scope: 'pod namespace' },
      missing:
        'the injected pod mounts it as volume custom-bootstrap-volume, and the kubelet does not start a pod whose ConfigMap volume is missing: it stays in ContainerCreating with FailedMount events',
      source:
        'istio/istio 1.20.0 manifests/charts/istio-control/istio-discovery/files/injection-template.yaml (custom-bootstrap-volume); 1.5.0 install/kubernetes/helm/istio/files/injection-template.yaml',
      resource: 'configmap',
    },
    // Addresses of the proxy's ProxyConfig (issue 31, gen12refs) a pod asks for with proxy.istio.io/config, over
    // the mesh ConfigMap's defaultConfig (judged once, mesh-config.ts). Every release of the table reads them alike.
    {
      key: 'proxy.istio.io/config',
      field: ['discoveryAddress'],
      on: ['template annotation'],
      form: 'host',
      target: { title: 'Service', kind: 'services', scope: 'pod namespace' },
      missing: DISCOVERY_MISSING,
      source: DISCOVERY_SOURCE,
      resource: 'service',
    },
    ...(
      [
        [['tracing', 'zipkin', 'address'], 'zipkin'],
        [['tracing', 'datadog', 'address'], 'datadog_agent'],
        [['envoyMetricsService', 'address'], 'envoy_metrics_service'],
        [['envoyAccessLogService', 'address'], 'envoy_accesslog_service'],
      ] as const
    ).map(([field, cluster]) => ({
      key: 'proxy.istio.io/config',
      field,
      // The mesh ConfigMap's are the chart's defaults (zipkin.<istio namespace>:9411 whether a collector is installed
      // or not): only an address a pod asks for is judged.
      on: ['template annotation'] as const,
      form: 'host' as const,
      severity: 'warning' as const,
      target: { title: 'Service', kind: 'services' as const, scope: 'pod namespace' as const },
      missing: `Envoy's bootstrap cluster ${cluster} resolves it by DNS and finds no endpoint: the proxy runs, and what it sends there is dropped`,
      source:
        'istio/istio 1.30 @86c9f01f tools/packaging/common/envoy_bootstrap.json (STRICT_DNS clusters), pkg/bootstrap/config.go; 1.5.0 @0aa646d7 pkg/bootstrap/config.go',
      resource: 'service',
    })),
  ],
  config: istioConfigReferences,
  fix: (m, w, r, row) =>
    r.address !== undefined
      ? addressFix(r)
      : [
          comment`create the ConfigMap holding the custom bootstrap, or correct the annotation to name one that exists`,
          cmd`kubectl get ${row.resource} ${r.target.name} -n ${r.target.namespace ?? ''}`,
        ],
  membership: {
    label: MEMBER_OF,
    setBy: "the ServiceMeshMemberRoll default in the control plane's namespace",
    planes: memberRollPlanes,
    fix: joinMemberRoll,
    source: MEMBER_ROLL_SOURCE,
  },
};
