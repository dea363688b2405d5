/**
 * The value types of Istio's pod annotations and what each release's injector does with a value it cannot parse
 * (issue 31, gen10values; read by the generic validator, src/mesh/key-values.ts).
 *
 * istiod (and the standalone sidecar injector up to 1.5) validates a pod's annotations before it injects, and fails
 * the injection on an invalid one: `invalid value '%s' for annotation '%s': %v`, "injection failed due to invalid
 * annotations", returned as the admission response (a denial): istio/istio 1.5.0 @0aa646d7 to 1.8.0 @3bf36b59
 * pkg/kube/inject/inject.go annotationRegistry and validateAnnotations; 1.9 to 1.30 @86c9f01f
 * pkg/kube/inject/validate.go AnnotationValidation (split out by fddc4dd1 #28792). Which keys it validates changed:
 * prometheus.istio.io/merge-metrics from 1.6 (1.6.0 @32eafc7f), proxy.istio.io/config from 1.7 (1.7.0,
 * validateProxyConfig: the YAML applied onto the default ProxyConfig, then validated), sidecar.istio.io/enableCoreDump
 * until 1.25 (dropped by 8cce528f #53830, not in 1.26.0 @2e84c7b0), the four proxy resource annotations from 1.29
 * (299edbbb #58928, in 1.29.0: validateResourceQuantity, resource.ParseQuantity), the interface lists from 1.30
 * (76b606f2 #58785: before, any text was passed on to the iptables rules, istio/istio#58781, #58836). Before 1.29 the injection template
 * wrote those four into the proxy's resources, and a value that is no quantity failed the patched pod's unmarshalling
 * ("quantities must match the regular expression"): a denial too (istio/istio#12249 shows that message).
 */
import type { KeyValueRule } from '../release-table.js';

const VALIDATE_OLD = 'istio/istio 1.5.0 @0aa646d7 pkg/kube/inject/inject.go annotationRegistry, validateAnnotations';
const VALIDATE = `${VALIDATE_OLD}; 1.9 to 1.30 @86c9f01f pkg/kube/inject/validate.go AnnotationValidation`;
const SAYS = "invalid value '<value>' for annotation '<key>'";

const portList = (key: string, any?: string): KeyValueRule => ({
  key,
  on: 'annotation',
  type: { kind: 'port-list', min: 0, ...(any ? { any } : {}) },
  from: '1.5',
  onBad: 'refuse',
  says: `${SAYS}: ${key.split('/')[1]} invalid: failed parsing port`,
  source: `${VALIDATE} (parsePorts: strings.TrimSpace, split at commas, each strconv.ParseUint(port, 10, 16))`,
});

const cidrs = (key: string, any?: string): KeyValueRule => ({
  key,
  on: 'annotation',
  type: { kind: 'cidr-list', ...(any ? { any } : {}) },
  from: '1.5',
  onBad: 'refuse',
  says: `${SAYS}: failed parsing cidr`,
  source: `${VALIDATE} (validateCIDRList: each comma-separated item netip.ParsePrefix, net.ParseCIDR before 1.16)`,
});

const uint32 = (key: string): KeyValueRule => ({
  key,
  on: 'annotation',
  type: { kind: 'uint', bits: 32 },
  from: '1.5',
  onBad: 'refuse',
  says: SAYS,
  source: `${VALIDATE} (validateUInt32: strconv.ParseUint(value, 10, 32))`,
});

const quantity = (key: string, from = '1.5'): KeyValueRule[] => [
  {
    key,
    on: 'annotation',
    type: { kind: 'quantity' },
    from,
    to: '1.28',
    onBad: 'refuse',
    says: 'quantities must match the regular expression',
    source:
      'istio/istio 1.28.0 @4559042b manifests/charts/istio-control/istio-discovery/files/injection-template.yaml (the annotation written into the proxy resources; the patched pod does not unmarshal); istio/istio#12249',
  },
  {
    key,
    on: 'annotation',
    type: { kind: 'quantity' },
    from: '1.29',
    onBad: 'refuse',
    says: SAYS,
    source: 'istio/istio 1.29.0 pkg/kube/inject/validate.go validateResourceQuantity (299edbbb #58928)',
  },
];

export const ISTIO_VALUES: readonly KeyValueRule[] = [
  {
    key: 'sidecar.istio.io/interceptionMode',
    on: 'annotation',
    type: { kind: 'enum', values: ['REDIRECT', 'TPROXY', 'NONE'] },
    from: '1.5',
    onBad: 'refuse',
    says: `${SAYS}: interceptionMode invalid, use REDIRECT,TPROXY,NONE`,
    source: `${VALIDATE} (validateInterceptionMode)`,
  },
  {
    key: 'status.sidecar.istio.io/port',
    on: 'annotation',
    type: { kind: 'uint', bits: 16, trim: true },
    from: '1.5',
    onBad: 'refuse',
    says: `${SAYS}: excludeInboundPorts invalid: failed parsing port`,
    source: `${VALIDATE} (validateStatusPort: parsePort)`,
  },
  uint32('readiness.status.sidecar.istio.io/initialDelaySeconds'),
  uint32('readiness.status.sidecar.istio.io/periodSeconds'),
  uint32('readiness.status.sidecar.istio.io/failureThreshold'),
  cidrs('traffic.sidecar.istio.io/includeOutboundIPRanges', '*'),
  cidrs('traffic.sidecar.istio.io/excludeOutboundIPRanges'),
  portList('traffic.sidecar.istio.io/includeInboundPorts', '*'),
  portList('traffic.sidecar.istio.io/excludeInboundPorts'),
  portList('traffic.sidecar.istio.io/excludeOutboundPorts'),
  {
    key: 'sidecar.istio.io/enableCoreDump',
    on: 'annotation',
    type: { kind: 'go-bool' },
    from: '1.5',
    to: '1.25',
    onBad: 'refuse',
    says: SAYS,
    source: `${VALIDATE} (validateBool); dropped by istio/istio@8cce528f #53830, absent from 1.26.0 @2e84c7b0`,
  },
  {
    key: 'prometheus.istio.io/merge-metrics',
    on: 'annotation',
    type: { kind: 'go-bool' },
    from: '1.6',
    onBad: 'refuse',
    says: SAYS,
    source: 'istio/istio 1.6.0 @32eafc7f pkg/kube/inject/inject.go annotationRegistry (validateBool)',
  },
  {
    key: 'proxy.istio.io/config',
    on: 'annotation',
    type: { kind: 'yaml-map' },
    from: '1.7',
    onBad: 'refuse',
    says: `${SAYS}: failed to convert to apply proxy config`,
    source:
      'istio/istio 1.7.0 pkg/kube/inject/inject.go annotationRegistry validateProxyConfig; 1.30 @86c9f01f validate.go validateProxyConfig (protomarshal.ApplyYAML onto the default ProxyConfig, then ValidateMeshConfigProxyConfig: its fields are not judged here)',
  },
  ...[
    'traffic.sidecar.istio.io/excludeInterfaces',
    'traffic.sidecar.istio.io/kubevirtInterfaces',
    'istio.io/reroute-virtual-interfaces',
  ].map((key): KeyValueRule => ({
    key,
    on: 'annotation',
    type: { kind: 'interface-list' },
    from: '1.30',
    onBad: 'refuse',
    says: `${SAYS}: interface name`,
    source:
      'istio/istio 1.30.0 pkg/kube/inject/validate.go ValidateExcludeInterfaces, pkg/util/net/ip.go ValidateInterfaceNames (76b606f2 #58785; istio/istio#58781)',
  })),
  ...quantity('sidecar.istio.io/proxyCPU'),
  ...quantity('sidecar.istio.io/proxyMemory'),
  ...quantity('sidecar.istio.io/proxyCPULimit', '1.6'),
  ...quantity('sidecar.istio.io/proxyMemoryLimit', '1.6'),
];
