/**
 * consul-k8s releases as data (issue 32.4): typed constants, no functions; read through
 * releaseFacts (src/mesh/releases.ts). Rows keyed by release range, oldest first, each with its
 * source in hashicorp/consul-k8s.
 */
import type { KubernetesSupport } from '../profile.js';
import type { CompanionNeed, ProxyPairing, ReleaseTable } from '../release-table.js';
import { CONSUL_VALUES } from './key-values.js';
import { CONSUL_0_10_BUGS, CONSUL_0_26_BUGS, CONSUL_1_0_BUGS } from './release-bugs.js';
import { CONSUL_ENDING } from './ending.js';
import { CONSUL_PROBES } from './probes.js';

const ORDER = [
  ...[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26].map((n) => `0.${n}`),
  ...[33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49].map((n) => `0.${n}`),
  ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `1.${n}`),
  '2.0',
];

/**
 * Supported Kubernetes versions per release (moved here from support.ts, issue 32.4).
 *
 * The compatibility matrix ("Compatible Kubernetes versions" per consul-k8s version):
 * developer.hashicorp.com/consul/docs/k8s/compatibility (1.8.x, 1.9.x),
 * developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements (1.1.x to 1.3.x), and
 * hashicorp/consul@0363db5d website/content/docs/k8s/compatibility.mdx (1.4.x). Not verified, so
 * not in the table (not examined): 1.5.x to 1.7.x and 2.0.x.
 */
const MATRIX = 'developer.hashicorp.com/consul/docs/k8s/compatibility';
export const CONSUL_KUBERNETES: readonly KubernetesSupport[] = [
  { release: '1.9', min: '1.30', max: '1.34', source: MATRIX },
  { release: '1.8', min: '1.30', max: '1.34', source: MATRIX },
  {
    release: '1.4',
    min: '1.26',
    max: '1.29',
    source: 'hashicorp/consul@0363db5d website/content/docs/k8s/compatibility.mdx',
  },
  {
    release: '1.3',
    min: '1.25',
    max: '1.28',
    source: 'developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements',
  },
  {
    release: '1.2',
    min: '1.24',
    max: '1.27',
    source: 'developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements',
  },
  {
    release: '1.1',
    min: '1.23',
    max: '1.26',
    source: 'developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements',
  },
  // consul-k8s 0.13.0 to 0.26.0 read and patch MutatingWebhookConfigurations through
  // admissionregistration.k8s.io/v1beta1 (AdmissionregistrationV1beta1: subcommand/inject-connect/command.go from
  // v0.13.0 @14461be3, subcommand/webhook-cert-manager/command.go to v0.26.0 @ade3d638; v1 from 0.33.0 @054d4dc3,
  // CHANGELOG "Use AdmissionregistrationV1", hashicorp/consul-k8s#558), which Kubernetes 1.22 no longer serves
  // (kubernetes/website blog "Kubernetes API and Feature Removals In 1.22"): 1.21 at most. The lowest version is the
  // chart's README of the consul-helm release that pins it (imageK8S): 1.9 up to consul-k8s 0.23.0 (consul-helm
  // v0.29.0 @02b30f3a), 1.13 for 0.24.0 and 0.25.0 (v0.30.0 @f1636f6a, v0.31.0), 1.17 for 0.26.0 (v0.32.0 @6a1a2d3c).
  ...[13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]
    .map((n): KubernetesSupport => ({
      release: `0.${n}`,
      min: n <= 23 ? '1.9' : n <= 25 ? '1.13' : '1.17',
      max: '1.21',
      source: `hashicorp/consul-k8s v0.${n}.0 (admissionregistration.k8s.io/v1beta1, not served from Kubernetes 1.22); hashicorp/consul-helm README (Kubernetes ${n <= 23 ? '1.9' : n <= 25 ? '1.13' : '1.17'}+)`,
    }))
    .reverse(),
];

/** The Consul image a consul-k8s 0.x pod runs the Consul binary of, in container `container`, too old below 1.10.0. */
const CONSUL_BINARY = (container: string) => ({
  title: 'Consul',
  container,
  image: '(^|/)consul(-enterprise)?[:@]',
  min: '1.10.0',
  setting: 'the Helm value global.image',
});

/**
 * Metrics merging (consul-k8s 0.25.0 to 0.49.x): the init container runs `consul connect envoy
 * -prometheus-scrape-path`, which Consul before 1.10.0 refuses ("flag provided but not defined"), and
 * the pod never starts. hashicorp/consul#9848, #9850 (docs: metrics merging only with Consul
 * 1.10.0-alpha1 and above); hashicorp/consul-helm#919 (the maintainer's answer).
 */
const metricsMerging = (consulIn: string, at: string): CompanionNeed => ({
  feature: 'metrics merging',
  command: '-prometheus-scrape-path',
  companion: CONSUL_BINARY(consulIn),
  fails: 'consul-connect-inject-init',
  off: 'the pod template annotation consul.hashicorp.com/enable-metrics-merging: false, or the Helm value connectInject.metrics.defaultEnableMerging=false',
  source: `hashicorp/consul-k8s ${at} (consul connect envoy -prometheus-scrape-path); hashicorp/consul#9848 website/content/docs/k8s/connect/observability/metrics.mdx (metrics merging needs Consul 1.10.0-alpha1 or later)`,
});

/**
 * The Envoy releases each Consul release supports (issue 31, gen9skew): consul-k8s 0.x injects the Envoy image
 * of global.imageEnvoy beside the Consul binary of global.image (the init container runs `consul connect envoy
 * -bootstrap`, the Envoy sidecar runs what it wrote, against the client agent's xDS), and a Consul release
 * configures only the Envoy minors of its own table, older and newer ones are not supported: Envoy 1.18 dropped
 * the v2 xDS API Consul 1.9 and older speak. Consul's table "Supported Versions",
 * hashicorp/consul website/content/docs/connect/proxies/envoy.mdx as it stood before hashicorp/consul#12472
 * (March 2022: rows 1.3.x to 1.11.x), the lists of agent/xds/proxysupport/proxysupport.go in each release
 * (1.7.x: 1.13.1, 1.12.3, 1.11.2, 1.10.0), and hashicorp/consul#7389 (Envoy 1.10.0 with Consul 1.7 only with
 * `consul connect envoy -envoy-version`; hashicorp/consul#7386, hashicorp/consul-helm#370). Consul 1.5.0 and
 * 1.5.1 supported 1.9 and 1.8 only, 1.5.2 on also 1.10: 1.5 is judged by the wider list. Releases not listed
 * are not judged.
 */
const envoyPairing = (proxy: readonly string[], consulIn: readonly string[]): ProxyPairing => ({
  proxy: {
    title: 'Envoy',
    containers: proxy,
    image: '(^|/)envoy[\\w.-]*[:@]',
    setting: 'the Helm value global.imageEnvoy',
  },
  companion: {
    title: 'Consul',
    containers: consulIn,
    image: '(^|/)consul(-enterprise)?[:@]',
    setting: 'the Helm value global.image',
  },
  supports: {
    '1.3': ['1.9', '1.8', '1.7'],
    '1.4': ['1.9', '1.8', '1.7'],
    '1.5': ['1.10', '1.9', '1.8'],
    '1.6': ['1.11', '1.10', '1.9', '1.8'],
    '1.7': ['1.13', '1.12', '1.11'],
    '1.8': ['1.14', '1.13', '1.12', '1.11'],
    '1.9': ['1.16', '1.15', '1.14', '1.13'],
    '1.10': ['1.18', '1.17', '1.16', '1.15'],
    '1.11': ['1.20', '1.19', '1.18', '1.17'],
  },
  onlyWith: [{ companion: '1.7', proxy: '1.10', flag: '-envoy-version' }],
  source:
    'hashicorp/consul website/content/docs/connect/proxies/envoy.mdx (Supported Versions, per Consul release, before hashicorp/consul#12472), agent/xds/proxysupport/proxysupport.go; hashicorp/consul#7389 (Envoy 1.10.0 with Consul 1.7 needs -envoy-version)',
});

export const CONSUL_RELEASES: ReleaseTable = {
  order: ORDER,
  rows: [
    // What these releases do with the app's probes (src/mesh/consul/probes.ts).
    ...CONSUL_PROBES,
    // How these releases let a pod meant to end end (src/mesh/consul/ending.ts).
    ...CONSUL_ENDING,
    {
      from: '0.2',
      to: '0.9',
      source: 'hashicorp/consul-k8s@958ead40 (v0.2.0) connect-inject/envoy_sidecar.go, container_init.go',
      recognise: 'the connect injector image hashicorp/consul-k8s:0.x (container sidecar-injector)',
      containers: { proxy: ['consul-connect-envoy-sidecar'], init: ['consul-connect-inject-init'] },
      pairs: [envoyPairing(['consul-connect-envoy-sidecar'], ['consul-connect-inject-init'])],
      webhook: 'MutatingWebhookConfiguration <fullname>-connect-injector-cfg (consul-helm)',
      // handler.go reads no Namespace before v0.26.0: the chart's ClusterRole only patches its webhook.
      injectorRbac: [],
      bugs: [
        {
          // connect-inject/handler.go (v0.2.0 to v0.3.0) added its default annotations to the local pod
          // without a patch creating metadata.annotations: a pod without annotations injected by
          // default (-default-inject) is refused ("jsonpatch add operation does not apply: doc is missing
          // path: /metadata/annotations/consul.hashicorp.com~1connect-inject-status"). hashicorp/consul-k8s#20.
          id: 'hashicorp/consul-k8s#20',
          text: 'with injection on by default, the injector patches an annotation into pods that have no annotations at all without creating them, so the API server refuses every such pod',
          affected: { from: '0.2.0', to: '0.3.0' },
          fixedIn: '0.4.0',
          symptom: {
            on: 'workload',
            shows: 'create-refused',
            message: 'jsonpatch',
            about: 'matches',
            pattern: 'doc is missing path: "?/metadata/annotations/consul\\.hashicorp\\.com~1connect-inject-status',
          },
          source:
            'hashicorp/consul-k8s@18b704de (Create patches for the default annotations that are being added, #53, in tag v0.4.0) connect-inject/handler.go',
        },
      ],
    },
    {
      from: '0.10',
      to: '0.23',
      source:
        'hashicorp/consul-k8s@5ec736a7 (v0.10.0) to @08981fb5 (v0.23.0) connect-inject/envoy_sidecar.go, lifecycle_sidecar.go',
      containers: {
        proxy: ['consul-connect-envoy-sidecar'],
        init: ['consul-connect-inject-init'],
        helpers: ['consul-connect-lifecycle-sidecar'],
      },
      pairs: [envoyPairing(['consul-connect-envoy-sidecar'], ['consul-connect-inject-init'])],
      injectorRbac: [],
      bugs: [
        {
          // connect-inject/container_init.go v0.16.0 limited consul-connect-inject-init to 25Mi while it
          // copies the consul binary (100Mi+) to a shared volume: the kernel kills it (OOMKilled, exit
          // 137), or cp fails ("cp: write error: Out of memory"), and the pod never starts. The pod runs
          // no consul-k8s version of its own but its lifecycle sidecar's image is the injector's release.
          id: 'hashicorp/consul-k8s#283',
          text: 'the injected init container consul-connect-inject-init has a 25Mi memory limit while it copies the consul binary, so it is killed for memory and the pod never starts',
          affected: { from: '0.16.0', to: '0.16.0' },
          fixedIn: '0.17.0',
          symptom: {
            on: 'pod',
            container: 'consul-connect-inject-init',
            shows: 'terminated',
            reason: 'OOMKilled',
            message: 'Out of memory',
            versionFrom: 'consul-connect-lifecycle-sidecar',
          },
          source:
            'hashicorp/consul-k8s@402c38b7 (Update resources for lifecycle sidecar and init container for connect-inject, #291, in tag v0.17.0) connect-inject/container_init.go initContainerMemoryLimit',
        },
        ...CONSUL_0_10_BUGS,
      ],
    },
    {
      from: '0.24',
      to: '0.25',
      source:
        'hashicorp/consul-k8s@3055f681 (v0.24.0), @c3326769 (v0.25.0) connect-inject/envoy_sidecar.go, consul_sidecar.go',
      containers: { proxy: ['envoy-sidecar'], init: ['consul-connect-inject-init'], helpers: ['consul-sidecar'] },
      pairs: [envoyPairing(['envoy-sidecar'], ['consul-connect-inject-init'])],
      injectorRbac: [],
      // Metrics merging (0.25.0): the init container runs the Consul image itself (ImageConsul) and passes
      // `consul connect envoy -prometheus-scrape-path`, a flag Consul gained in 1.10.0 (hashicorp/consul-k8s#482).
      needs: [
        metricsMerging('consul-connect-inject-init', 'v0.25.0 @c3326769 connect-inject/container_init.go line 444'),
      ],
    },
    {
      from: '0.26',
      to: '0.49',
      source:
        'hashicorp/consul-k8s@ade3d638 (v0.26.0) connect-inject/handler.go line 211 (Namespaces().Get), container_init.go; @0a2cf9ae (v0.49.0) charts/consul/templates/connect-inject-clusterrole.yaml',
      containers: {
        proxy: ['envoy-sidecar'],
        init: ['copy-consul-bin', 'consul-connect-inject-init'],
        helpers: ['consul-sidecar'],
      },
      pairs: [envoyPairing(['envoy-sidecar'], ['copy-consul-bin'])],
      webhook:
        'MutatingWebhookConfiguration <fullname>-connect-injector-cfg, Deployment <fullname>-connect-injector-webhook-deployment',
      injectorRbac: 'today',
      bugs: CONSUL_0_26_BUGS,
      // From 0.26.0 the init container runs consul-k8s, and the Consul binary copy-consul-bin copied from the Consul
      // image (ImageConsul): the same flag, and `consul connect redirect-traffic` for transparent proxy (on by
      // default), a command Consul gained in 1.10.0 (hashicorp/consul#9910).
      needs: [
        metricsMerging(
          'copy-consul-bin',
          'v0.26.0 @ade3d638 connect-inject/container_init.go line 297, v0.49.0 @0a2cf9ae control-plane/connect-inject/container_init.go line 440',
        ),
        {
          feature: 'transparent proxy',
          command: 'connect redirect-traffic',
          companion: CONSUL_BINARY('copy-consul-bin'),
          fails: 'consul-connect-inject-init',
          off: 'the pod template annotation consul.hashicorp.com/transparent-proxy: false, or the Helm value connectInject.transparentProxy.defaultEnabled=false',
          source:
            'hashicorp/consul-k8s v0.26.0 @ade3d638 connect-inject/container_init.go line 315 (consul connect redirect-traffic); hashicorp/consul#9910 (the command, Consul 1.10.0); hashicorp/consul-helm CHANGELOG 0.32.0 (transparent proxy requires Consul 1.10.0 or higher)',
        },
      ],
    },
    {
      from: '1.0',
      to: '2.0',
      source:
        'hashicorp/consul-k8s@2d467395 (v1.0.0) control-plane/connect-inject/webhook/container_init.go (sidecarContainer consul-dataplane)',
      recognise: 'the image hashicorp/consul-k8s-control-plane:1.x (container sidecar-injector)',
      injectorRbac: 'today',
      bugs: CONSUL_1_0_BUGS,
    },
  ],
  domains: ['consul.hashicorp.com'],
  keySource:
    'hashicorp/consul-k8s connect-inject/*.go (v0.2.0 to v0.49.0) and control-plane/connect-inject/constants/annotations_and_labels.go (v1.0.0 @2d467395 to v2.0.0 @c973a03b), each minor tag',
  values: CONSUL_VALUES,
  keys: [
    {
      key: 'consul.hashicorp.com/connect-inject',
      from: '0.2',
      does: 'the key of the annotation that controls whether injection is explicitly enabled or disabled for a pod',
    },
    {
      key: 'consul.hashicorp.com/connect-inject-managed-by',
      from: '0.26',
      does: 'the key of the label that is added to pods managed by the Endpoints controller',
    },
    {
      key: 'consul.hashicorp.com/connect-inject-mount-volume',
      from: '0.43',
      does: 'the key of the annotation that controls whether the data volume that connect inject uses to store data including the Consul ACL token is mou',
    },
    {
      key: 'consul.hashicorp.com/connect-inject-status',
      from: '0.2',
      does: 'the key of the annotation that is added to a pod after an injection is done',
    },
    { key: 'consul.hashicorp.com/connect-k8s-version', from: '1.0', does: 'the current version of this binary' },
    { key: 'consul.hashicorp.com/connect-service', from: '0.2', does: 'the name of the service to proxy' },
    {
      key: 'consul.hashicorp.com/connect-service-default-port',
      from: '2.0',
      does: 'the name or value of the service port that should be marked as default in Consul service registration when multiple ports are registered',
    },
    {
      key: 'consul.hashicorp.com/connect-service-port',
      from: '0.2',
      does: 'the name or value of the port to proxy incoming connections to',
    },
    {
      key: 'consul.hashicorp.com/connect-service-protocol',
      from: '0.8',
      to: '0.49',
      does: 'contains the protocol that should be used for the service that is being injected',
    },
    {
      key: 'consul.hashicorp.com/connect-service-tags',
      from: '0.10',
      to: '0.49',
      does: 'a list of tags to register with the service this is specified as a comma separated list e.g',
    },
    {
      key: 'consul.hashicorp.com/connect-service-upstreams',
      from: '0.2',
      does: 'a list of upstreams to register with the proxy in the format of `<service-name>:<local-port>,...`',
    },
    {
      key: 'consul.hashicorp.com/connect-sync-period',
      from: '0.10',
      to: '0.49',
      does: 'controls the -sync-period flag passed to the consul-k8s consul-sidecar command',
    },
    { key: 'consul.hashicorp.com/consul-dns', from: '0.37', does: 'enables or disables Consul DNS for a given pod' },
    {
      key: 'consul.hashicorp.com/consul-envoy-proxy-concurrency',
      from: '0.45',
      does: 'annotations for sidecar concurrency',
    },
    { key: 'consul.hashicorp.com/consul-k8s-version', from: '1.3', does: 'the current version of this binary' },
    {
      key: 'consul.hashicorp.com/consul-namespace',
      from: '0.20',
      does: 'the Consul namespace the service is registered into',
    },
    {
      key: 'consul.hashicorp.com/consul-sidecar-access-log-enabled',
      from: '2.0',
      does: 'annotations for sidecar access volumes',
    },
    { key: 'consul.hashicorp.com/consul-sidecar-access-log-path', from: '2.0', does: '' },
    {
      key: 'consul.hashicorp.com/consul-sidecar-cpu-limit',
      from: '0.40',
      to: '0.49',
      does: 'annotations for consul sidecar resource limits',
    },
    { key: 'consul.hashicorp.com/consul-sidecar-cpu-request', from: '0.40', to: '0.49', does: '' },
    { key: 'consul.hashicorp.com/consul-sidecar-memory-limit', from: '0.40', to: '0.49', does: '' },
    { key: 'consul.hashicorp.com/consul-sidecar-memory-request', from: '0.40', to: '0.49', does: '' },
    { key: 'consul.hashicorp.com/consul-sidecar-user-volume', from: '0.46', does: 'annotations for sidecar volumes' },
    { key: 'consul.hashicorp.com/consul-sidecar-user-volume-mount', from: '0.46', does: '' },
    { key: 'consul.hashicorp.com/dual-stack', from: '1.9', does: 'stores if pod need to run in dualstack mode' },
    { key: 'consul.hashicorp.com/enable-consul-dataplane-as-sidecar', from: '1.9', does: '' },
    {
      key: 'consul.hashicorp.com/enable-metrics',
      from: '0.25',
      does: 'annotations for metrics to configure where Prometheus scrapes metrics from, whether to run a merged metrics endpoint on the consul sidecar, ',
    },
    { key: 'consul.hashicorp.com/enable-metrics-merging', from: '0.25', does: '' },
    {
      key: 'consul.hashicorp.com/enable-sidecar-proxy-lifecycle',
      from: '1.3',
      does: 'annotations for sidecar proxy lifecycle configuration',
    },
    { key: 'consul.hashicorp.com/enable-sidecar-proxy-lifecycle-shutdown-drain-listeners', from: '1.3', does: '' },
    {
      key: 'consul.hashicorp.com/envoy-extra-args',
      from: '0.20',
      does: 'a space-separated list of arguments to be passed to the envoy binary',
    },
    {
      key: 'consul.hashicorp.com/gateway-consul-service-name',
      from: '1.0',
      does: 'the key of the annotation whose value is the service name with which the mesh gateway is registered',
    },
    {
      key: 'consul.hashicorp.com/gateway-kind',
      from: '1.0',
      does: 'the key of the annotation that indicates pods that represent Consul Connect Gateways',
    },
    {
      key: 'consul.hashicorp.com/gateway-namespace',
      from: '1.0',
      does: 'the key of the annotation that indicates the Consul namespace where a Terminating or Ingress Gateway pod is deployed',
    },
    {
      key: 'consul.hashicorp.com/gateway-wan-address-source',
      from: '1.0',
      does: 'the key of the annotation that determines which source to use to determine the wan address and wan port for the mesh-gateway service registr',
    },
    {
      key: 'consul.hashicorp.com/gateway-wan-address-static',
      from: '1.0',
      does: "the key of the annotation that when the source of the mesh-gateway is 'Static', is the value of the WAN address for the gateway",
    },
    {
      key: 'consul.hashicorp.com/gateway-wan-port',
      from: '1.0',
      does: 'the key of the annotation whose value is the WAN port for the mesh-gateway service registration',
    },
    {
      key: 'consul.hashicorp.com/kubernetes-service',
      from: '0.43',
      does: 'the name of the Kubernetes service to register',
    },
    { key: 'consul.hashicorp.com/merged-metrics-port', from: '0.25', does: '' },
    {
      key: 'consul.hashicorp.com/mesh-gateway-container-port',
      from: '1.0',
      does: 'the key of the annotation whose value is used as the port and also registered as the LAN port when the mesh-gateway service is registered',
    },
    {
      key: 'consul.hashicorp.com/mesh-inject',
      from: '1.3',
      to: '1.5',
      does: 'the key of the annotation that controls whether V2 mesh injection is explicitly enabled or disabled for a pod using',
    },
    {
      key: 'consul.hashicorp.com/mesh-inject-mount-volume',
      from: '1.3',
      to: '1.5',
      does: 'the key of the annotation that controls whether the data volume that mesh inject uses to store data including the Consul ACL token is mounte',
    },
    {
      key: 'consul.hashicorp.com/mesh-inject-status',
      from: '1.3',
      to: '1.5',
      does: 'the key of the annotation that is added to a pod after an injection is done',
    },
    {
      key: 'consul.hashicorp.com/mesh-service-destinations',
      from: '1.3',
      to: '1.5',
      does: 'a list of destinations to register with the proxy',
    },
    {
      key: 'consul.hashicorp.com/original-pod',
      from: '0.26',
      does: 'the value of the pod before being overwritten by the consul webhook/meshWebhook',
    },
    {
      key: 'consul.hashicorp.com/peering-token',
      from: '0.46',
      does: 'a label that can be added to a secret to allow it to be watched by the peering controllers',
    },
    {
      key: 'consul.hashicorp.com/peering-version',
      from: '0.46',
      does: 'the version of the peering resource and can be utilized to explicitly perform the peering operation again',
    },
    {
      key: 'consul.hashicorp.com/prometheus-ca-file',
      from: '0.46',
      does: 'annotations for configuring TLS for Prometheus',
    },
    { key: 'consul.hashicorp.com/prometheus-ca-path', from: '0.46', does: '' },
    { key: 'consul.hashicorp.com/prometheus-cert-file', from: '0.46', does: '' },
    { key: 'consul.hashicorp.com/prometheus-key-file', from: '0.46', does: '' },
    { key: 'consul.hashicorp.com/prometheus-scrape-path', from: '0.25', does: '' },
    { key: 'consul.hashicorp.com/prometheus-scrape-port', from: '0.25', does: '' },
    {
      key: 'consul.hashicorp.com/proxy-config-map',
      from: '1.4',
      does: 'allows for default values to be set in the opaque config map during proxy registration',
    },
    {
      key: 'consul.hashicorp.com/redirect-traffic-config',
      from: '0.48',
      does: 'stores iptables.Config information so that the CNI plugin can use it to apply iptables rules',
    },
    {
      key: 'consul.hashicorp.com/service-ignore',
      from: '0.38',
      does: 'a label that can be added to a service to prevent it from being registered with Consul',
    },
    {
      key: 'consul.hashicorp.com/service-meta-',
      from: '0.10',
      does: 'a list of metadata key/value pairs to add to the service registration',
    },
    { key: 'consul.hashicorp.com/service-metrics-path', from: '0.25', does: '' },
    { key: 'consul.hashicorp.com/service-metrics-port', from: '0.25', does: '' },
    {
      key: 'consul.hashicorp.com/service-tags',
      from: '0.10',
      does: 'a list of tags to register with the service this is specified as a comma separated list e.g',
    },
    { key: 'consul.hashicorp.com/sidecar-initial-probe-check-delay-seconds', from: '1.9', does: '' },
    { key: 'consul.hashicorp.com/sidecar-probe-check-timeout-seconds', from: '1.9', does: '' },
    { key: 'consul.hashicorp.com/sidecar-probe-failure-threshold', from: '1.9', does: '' },
    { key: 'consul.hashicorp.com/sidecar-probe-period-seconds', from: '1.9', does: '' },
    {
      key: 'consul.hashicorp.com/sidecar-proxy-cpu-limit',
      from: '0.16',
      does: 'annotations for sidecar proxy resource limits',
    },
    { key: 'consul.hashicorp.com/sidecar-proxy-cpu-request', from: '0.16', does: '' },
    { key: 'consul.hashicorp.com/sidecar-proxy-lifecycle-graceful-port', from: '1.3', does: '' },
    { key: 'consul.hashicorp.com/sidecar-proxy-lifecycle-graceful-shutdown-path', from: '1.3', does: '' },
    { key: 'consul.hashicorp.com/sidecar-proxy-lifecycle-graceful-startup-path', from: '1.5', does: '' },
    { key: 'consul.hashicorp.com/sidecar-proxy-lifecycle-shutdown-grace-period-seconds', from: '1.3', does: '' },
    { key: 'consul.hashicorp.com/sidecar-proxy-lifecycle-startup-grace-period-seconds', from: '1.5', does: '' },
    {
      key: 'consul.hashicorp.com/sidecar-proxy-liveness-failure-seconds',
      from: '1.4',
      does: 'configures how long the k8s liveness probe will wait for before the proxy is considered to be unhealthy and the container is restarted',
    },
    { key: 'consul.hashicorp.com/sidecar-proxy-memory-limit', from: '0.16', does: '' },
    { key: 'consul.hashicorp.com/sidecar-proxy-memory-request', from: '0.16', does: '' },
    {
      key: 'consul.hashicorp.com/sidecar-proxy-startup-failure-seconds',
      from: '1.4',
      does: 'configures how long the k8s startup probe will wait for success before the proxy is considered to be unhealthy and the container is restarte',
    },
    {
      key: 'consul.hashicorp.com/telemetry-collector',
      from: '1.4',
      does: 'a label signaling the pod is associated with the deployment of a Consul Telemetry Collector',
    },
    {
      key: 'consul.hashicorp.com/transparent-proxy',
      from: '0.26',
      does: 'enables or disables transparent proxy for a given pod',
    },
    {
      key: 'consul.hashicorp.com/transparent-proxy-exclude-inbound-ports',
      from: '0.26',
      does: 'a comma-separated list of inbound ports to exclude from traffic redirection',
    },
    {
      key: 'consul.hashicorp.com/transparent-proxy-exclude-outbound-cidrs',
      from: '0.26',
      does: 'a comma-separated list of outbound CIDRs to exclude from traffic redirection',
    },
    {
      key: 'consul.hashicorp.com/transparent-proxy-exclude-outbound-ports',
      from: '0.26',
      does: 'a comma-separated list of outbound ports to exclude from traffic redirection',
    },
    {
      key: 'consul.hashicorp.com/transparent-proxy-exclude-uids',
      from: '0.26',
      does: 'a comma-separated list of additional user IDs to exclude from traffic redirection',
    },
    {
      key: 'consul.hashicorp.com/transparent-proxy-overwrite-probes',
      from: '0.26',
      does: 'controls whether the Kubernetes probes should be overwritten to point to the Envoy proxy when running in Transparent Proxy mode',
    },
    {
      key: 'consul.hashicorp.com/transparent-proxy-status',
      from: '0.48',
      does: 'the key of the annotation that is added to a pod when transparent proxy is done',
    },
    {
      key: 'consul.hashicorp.com/use-proxy-health-check',
      from: '1.1',
      does: 'creates a readiness listener on the sidecar proxy and queries this instead of the application health check for the status of the application',
    },
  ],
};
