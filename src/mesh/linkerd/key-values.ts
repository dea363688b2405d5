/**
 * The value types of Linkerd's config annotations and what each release's injector does with a value it cannot parse
 * (issue 31, gen10values; read by the generic validator, src/mesh/key-values.ts).
 *
 * Linkerd's proxy injector never refuses a pod over a value: it merges the namespace's annotations under the pod's
 * and, for each key it parses, logs a warning (or nothing) on a value that does not parse and keeps the default
 * (linkerd/linkerd2 stable-2.10.0 @b10356a8 pkg/inject/inject.go applyAnnotationOverrides; version-2.20 @eadc1acf
 * pkg/inject/inject.go ApplyAnnotationOverrides: `log.Warnf("%s (%s)", err, k8s.ProxyCPURequestAnnotation)`,
 * "unrecognized value used for the ... annotation"). The pod is injected without the setting asked for: a proxy
 * without the requested resources or timeouts, silently. Keys whose value the injector passes on unparsed (log
 * level, skip ports and subnets, access log) are not in this table: what the proxy or proxy-init does with a bad one
 * is not read from their source here.
 */
import type { KeyValueRule, ValueType } from '../release-table.js';

const SOURCE =
  'linkerd/linkerd2 stable-2.10.0 @b10356a8 pkg/inject/inject.go applyAnnotationOverrides; version-2.20 @eadc1acf pkg/inject/inject.go ApplyAnnotationOverrides';

const ignored = (key: string, type: ValueType, from: string, says: string): KeyValueRule => ({
  key,
  on: 'annotation',
  where: ['pod', 'namespace'],
  type,
  from,
  onBad: 'ignore',
  says,
  source: SOURCE,
});

const QUANTITY: ValueType = { kind: 'quantity' };
const DURATION: ValueType = { kind: 'go-duration' };
const BOOL: ValueType = { kind: 'go-bool' };
const PORT: ValueType = { kind: 'int', bits: 32 };

export const LINKERD_VALUES: readonly KeyValueRule[] = [
  ignored('config.linkerd.io/proxy-cpu-request', QUANTITY, '2.10', 'quantities must match the regular expression'),
  ignored('config.linkerd.io/proxy-cpu-limit', QUANTITY, '2.10', 'quantities must match the regular expression'),
  ignored('config.linkerd.io/proxy-memory-request', QUANTITY, '2.10', 'quantities must match the regular expression'),
  ignored('config.linkerd.io/proxy-memory-limit', QUANTITY, '2.10', 'quantities must match the regular expression'),
  ignored(
    'config.linkerd.io/proxy-ephemeral-storage-request',
    QUANTITY,
    '2.12',
    'quantities must match the regular expression',
  ),
  ignored(
    'config.linkerd.io/proxy-ephemeral-storage-limit',
    QUANTITY,
    '2.12',
    'quantities must match the regular expression',
  ),
  ignored(
    'config.linkerd.io/proxy-cpu-ratio-limit',
    { kind: 'float', above: 0, below: 1 },
    '2.18',
    'valid values are between 0.0 and 1.0',
  ),
  ignored('config.linkerd.io/proxy-outbound-connect-timeout', DURATION, '2.10', 'unrecognized ... duration value'),
  ignored('config.linkerd.io/proxy-inbound-connect-timeout', DURATION, '2.10', 'unrecognized ... duration value'),
  ignored(
    'config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout',
    DURATION,
    '2.14',
    'unrecognized duration value',
  ),
  ignored(
    'config.linkerd.io/proxy-inbound-discovery-cache-unused-timeout',
    DURATION,
    '2.14',
    'unrecognized duration value',
  ),
  ignored('config.linkerd.io/shutdown-grace-period', DURATION, '2.12', 'unrecognized ... duration value'),
  ignored('config.linkerd.io/close-wait-timeout', DURATION, '2.10', 'invalid duration value'),
  ignored('config.linkerd.io/proxy-disable-outbound-protocol-detect-timeout', BOOL, '2.15', 'unrecognised value'),
  ignored('config.linkerd.io/proxy-disable-inbound-protocol-detect-timeout', BOOL, '2.15', 'unrecognised value'),
  ignored('config.linkerd.io/enable-debug-sidecar', BOOL, '2.10', 'unrecognized value'),
  ignored('config.linkerd.io/enable-gateway', BOOL, '2.10', 'not read (no warning)'),
  ignored('config.linkerd.io/enable-external-profiles', BOOL, '2.10', 'not read (no warning)'),
  ignored('config.linkerd.io/proxy-enable-native-sidecar', BOOL, '2.15', 'not read (no warning)'),
  ignored('config.alpha.linkerd.io/proxy-enable-native-sidecar', BOOL, '2.15', 'not read (no warning)'),
  ignored('config.linkerd.io/proxy-metrics-hostname-labels', BOOL, '2.18', 'not read (no warning)'),
  ignored(
    'config.alpha.linkerd.io/proxy-wait-before-exit-seconds',
    { kind: 'uint', bits: 64 },
    '2.10',
    'unrecognized value used for the annotation, uint64 is expected',
  ),
  ignored(
    'config.linkerd.io/proxy-await',
    { kind: 'enum', values: ['enabled', 'disabled'] },
    '2.11',
    'unrecognized value used for the annotation, valid values are: [enabled, disabled]',
  ),
  ignored(
    'config.linkerd.io/proxy-admin-shutdown',
    { kind: 'enum', values: ['enabled', 'disabled'] },
    '2.16',
    'unrecognized value used for the annotation, valid values are: [enabled, disabled]',
  ),
  ignored(
    'config.linkerd.io/default-inbound-policy',
    {
      kind: 'enum',
      values: [
        'all-unauthenticated',
        'all-authenticated',
        'cluster-unauthenticated',
        'cluster-authenticated',
        'deny',
        'audit',
      ],
    },
    '2.11',
    'unrecognized value used for the annotation',
  ),
  ignored('config.linkerd.io/admin-port', PORT, '2.10', 'not read (no warning)'),
  ignored('config.linkerd.io/control-port', PORT, '2.10', 'not read (no warning)'),
  ignored('config.linkerd.io/inbound-port', PORT, '2.10', 'not read (no warning)'),
  ignored('config.linkerd.io/outbound-port', PORT, '2.10', 'not read (no warning)'),
  ignored('config.linkerd.io/proxy-uid', { kind: 'int', bits: 64 }, '2.10', 'not read (no warning)'),
  ignored('config.linkerd.io/proxy-gid', { kind: 'int', bits: 64 }, '2.16', 'not read (no warning)'),
];
