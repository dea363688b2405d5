/**
 * The value types of Kuma's pod annotations and what each release's injector does with a value it cannot parse
 * (issue 31, gen10values; read by the generic validator, src/mesh/key-values.ts).
 *
 * Kuma's injector returns the parse error, and the pod mutator answers the admission request with it
 * (`kube_admission.Errored(http.StatusInternalServerError, err)`): the API server denies the pod (kumahq/kuma
 * 1.0.0 to @348b6528 pkg/plugins/runtime/k8s/webhooks/pod_mutator.go). The parsers: metadata/annotations.go
 * GetBooleanWithDefault ("annotation \"%s\" has wrong value \"%s\""), GetUint32WithDefault ("failed to parse
 * annotation %q"), GetDurationWithDefault (time.ParseDuration), GetMapWithDefault ("invalid format. Map in %q has to
 * be provided in the following format: key1=value1;key2=value2"); from 2.9 (@948e6a43) the injector parses the
 * traffic exclusion ports itself (pkg/transparentproxy/kubernetes/kubernetes_config.go redirectExcludePorts,
 * config.Ports.Set: "value '%s' is not a valid port (uint16 in the range [1, 65535])"); before, it passed them on.
 */
import type { KeyValueRule, ValueType } from '../release-table.js';

const HEAD = 'kumahq/kuma @348b6528';
const ANN = `${HEAD} pkg/plugins/runtime/k8s/metadata/annotations.go`;

const refused = (key: string, type: ValueType, from: string, says: string, source: string): KeyValueRule => ({
  key,
  on: 'annotation',
  type,
  from,
  onBad: 'refuse',
  says,
  source,
});

const PORTS: ValueType = { kind: 'port-list', min: 1, skipEmpty: true };
const PORTS_SOURCE = `kumahq/kuma 2.9.0 @948e6a43, ${HEAD} pkg/transparentproxy/kubernetes/kubernetes_config.go redirectExcludePorts, pkg/transparentproxy/config/config.go Ports.Set, utils.go parsePort`;

export const KUMA_VALUES: readonly KeyValueRule[] = [
  refused(
    'kuma.io/sidecar-env-vars',
    { kind: 'pair-map' },
    '1.1',
    'invalid format. Map in "kuma.io/sidecar-env-vars" has to be provided in the following format: key1=value1;key2=value2',
    `${ANN} GetMapWithDefault; ${HEAD} pkg/plugins/runtime/k8s/containers/factory.go NewContainer`,
  ),
  refused(
    'kuma.io/sidecar-proxy-concurrency',
    { kind: 'uint', bits: 32 },
    '1.4',
    'failed to parse annotation "kuma.io/sidecar-proxy-concurrency"',
    `${ANN} GetUint32WithDefault; ${HEAD} pkg/plugins/runtime/k8s/containers/factory.go proxyConcurrencyFor`,
  ),
  refused(
    'kuma.io/envoy-admin-port',
    { kind: 'uint', bits: 32 },
    '1.5',
    'failed to parse annotation "kuma.io/envoy-admin-port"',
    `${ANN} GetUint32WithDefault; ${HEAD} pkg/plugins/runtime/k8s/containers/factory.go envoyAdminPort`,
  ),
  refused(
    'kuma.io/sidecar-drain-time',
    { kind: 'go-duration' },
    '1.7',
    'time: invalid duration',
    `${ANN} GetDurationWithDefault; ${HEAD} pkg/plugins/runtime/k8s/containers/factory.go drainTime`,
  ),
  refused(
    'kuma.io/wait-for-dataplane-ready',
    { kind: 'word-bool', enabled: true },
    '2.4',
    'annotation "kuma.io/wait-for-dataplane-ready" has wrong value',
    `${ANN} GetBooleanWithDefault; ${HEAD} pkg/plugins/runtime/k8s/containers/factory.go NewContainer`,
  ),
  refused(
    'kuma.io/init-first',
    { kind: 'word-bool', enabled: true },
    '2.3',
    'annotation "kuma.io/init-first" has wrong value',
    `${ANN} GetBooleanWithDefault; ${HEAD} pkg/plugins/runtime/k8s/webhooks/injector/injector.go`,
  ),
  refused(
    'kuma.io/gateway',
    { kind: 'word-bool', enabled: true },
    '2.9',
    'annotation "kuma.io/gateway" has wrong value',
    `${ANN} GetBooleanWithDefault; ${HEAD} pkg/transparentproxy/kubernetes/kubernetes_config.go`,
  ),
  refused(
    'traffic.kuma.io/drop-invalid-packets',
    { kind: 'word-bool', enabled: false },
    '2.9',
    'annotation "traffic.kuma.io/drop-invalid-packets" has wrong value',
    `${ANN} GetBooleanWithDefault (no enabled/disabled); ${HEAD} pkg/transparentproxy/kubernetes/kubernetes_config.go`,
  ),
  refused(
    'traffic.kuma.io/iptables-logs',
    { kind: 'word-bool', enabled: false },
    '2.9',
    'annotation "traffic.kuma.io/iptables-logs" has wrong value',
    `${ANN} GetBooleanWithDefault (no enabled/disabled); ${HEAD} pkg/transparentproxy/kubernetes/kubernetes_config.go`,
  ),
  refused('traffic.kuma.io/exclude-outbound-ports', PORTS, '2.9', 'is not a valid port', PORTS_SOURCE),
  refused('traffic.kuma.io/exclude-inbound-ports', PORTS, '2.9', 'is not a valid port', PORTS_SOURCE),
  {
    // GetList splits at commas and keeps every non-empty item as written: a name with a space or capital letter
    // names no ContainerPatch (reference-missing judges whether the named ones exist, where they are read).
    key: 'kuma.io/container-patches',
    on: 'annotation',
    type: { kind: 'name-list' },
    from: '1.8',
    onBad: 'refuse',
    says: 'could not get ContainerPatch',
    source: `${ANN} GetListWithDefault; kumahq/kuma 1.8.0 pkg/plugins/runtime/k8s/webhooks/injector/injector.go loadContainerPatches (kumahq/kuma#4369)`,
  },
];
