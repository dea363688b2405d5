/**
 * Linkerd releases as data (issue 32.4): typed constants, no functions; read through
 * releaseFacts (src/mesh/releases.ts). Rows keyed by release range, oldest first, each with its
 * source in linkerd/linkerd2. From 2.15 releases ship as edge builds: an edge build belongs to the
 * newest release whose edge tag it is at or after (version-2.x tags point at edge-24.2.4,
 * edge-24.8.2, edge-24.11.8, edge-25.4.4, edge-25.10.7; version-2.20 @eadc1acf is edge-26.6.3 and a
 * containerd bump); later builds are "edge".
 */
import type { KubernetesSupport } from '../profile.js';
import type { ReleaseTable, StoredValueRule } from '../release-table.js';
import { LINKERD_VALUES } from './key-values.js';
import {
  LINKERD_2_10_BUGS,
  LINKERD_2_11_BUGS,
  LINKERD_2_12_BUGS,
  LINKERD_CNI_BUGS,
  LINKERD_OLDER_BUGS,
} from './release-bugs.js';
import { LINKERD_ENDING } from './ending.js';
import { LINKERD_PROBES } from './probes.js';

/**
 * Supported Kubernetes versions per release (moved here from support.ts, issue 32.4).
 *
 * The support table, linkerd/website @93f00175 linkerd.io/content/2-edge/reference/k8s-versions.md
 * lines 21-33 ("Minimum/Maximum Kubernetes Version" per Linkerd version). For 2.18 and 2.19 the
 * page says 1.22 but the code refuses it: `var minAPIVersion = [3]int{1, 23, 0}` (pkg/k8s/api.go
 * line 30 at version-2.18 @0fe0ad01 and version-2.19 @0ebd74b0; `linkerd check` fails below it):
 * the stricter minimum is used. 2.20: minAPIVersion 1.31.0 (version-2.20 @eadc1acf), as the page.
 */
const PAGE = 'linkerd/website@93f00175 linkerd.io/content/2-edge/reference/k8s-versions.md';
const OLDER = 'linkerd/website@2d8d9ec2 linkerd.io/content/2.15/reference/k8s-versions.md lines 21-28';
export const LINKERD_KUBERNETES: readonly KubernetesSupport[] = [
  { release: '2.20', min: '1.31', max: '1.35', source: PAGE },
  {
    release: '2.19',
    min: '1.23',
    max: '1.35',
    source: `${PAGE}; minimum from linkerd2@0ebd74b0 pkg/k8s/api.go minAPIVersion`,
  },
  {
    release: '2.18',
    min: '1.23',
    max: '1.32',
    source: `${PAGE}; minimum from linkerd2@0fe0ad01 pkg/k8s/api.go minAPIVersion`,
  },
  { release: '2.17', min: '1.22', max: '1.31', source: PAGE },
  { release: '2.16', min: '1.22', max: '1.29', source: PAGE },
  { release: '2.15', min: '1.22', max: '1.29', source: PAGE },
  { release: '2.14', min: '1.21', max: '1.28', source: PAGE },
  { release: '2.13', min: '1.21', max: '1.28', source: PAGE },
  // The page at 2.15 still listed the older stable releases (2.11.0 alone also ran on 1.16, the page says).
  { release: '2.12', min: '1.21', max: '1.24', source: OLDER },
  { release: '2.11', min: '1.17', max: '1.23', source: OLDER },
  { release: '2.10', min: '1.16', max: '1.23', source: OLDER },
];

/**
 * Values of linkerd-config's Helm values (key `values`) that releases cannot use (issue 31.6/31.7, gen13values): the
 * proxy injector decodes the whole file into its Values struct on every request (pkg/config/config.go Values), so a
 * value of another type fails every injection: `failed to unmarshal JSON from: /var/run/linkerd/config/values`.
 */
const LINKERD_STORED: readonly StoredValueRule[] = [
  {
    configMap: 'linkerd-config',
    key: 'values',
    path: 'identity.issuer.crtExpiry',
    from: '2.10',
    to: '2.11',
    bad: { type: 'string', unless: '^\\d{4}-\\d{2}-\\d{2}T' },
    expects: "a time (RFC 3339, the issuer certificate's expiry) or no value",
    fails: { on: 'injection', says: 'failed to unmarshal JSON from' },
    source:
      'linkerd/linkerd2@b10356a8 (stable-2.10.0) pkg/charts/linkerd2/values.go line 184 (CrtExpiry time.Time), @02064b02 (stable-2.11.0) line 195, gone by @0bd3f732 (stable-2.12.0); pkg/config/config.go Values; linkerd/linkerd2#6005',
  },
  {
    configMap: 'linkerd-config',
    key: 'values',
    path: 'proxyInit.runAsRoot',
    from: '2.12',
    bad: { type: 'string' },
    expects: 'a boolean (true or false, unquoted)',
    fails: { on: 'injection', says: 'failed to unmarshal JSON from' },
    source:
      'linkerd/linkerd2@0bd3f732 (stable-2.12.0) pkg/charts/linkerd2/values.go line 131 (RunAsRoot bool), @a4bec904 (stable-2.14.0) line 137, @655bc6ce (edge-24.11.1) line 192; linkerd/linkerd2#11615',
  },
];

export const LINKERD_RELEASES: ReleaseTable = {
  order: ['2.10', '2.11', '2.12', '2.13', '2.14', '2.15', '2.16', '2.17', '2.18', '2.19', '2.20', 'edge'],
  channels: [
    { prefix: 'edge-', from: [24, 2, 4], release: '2.15' },
    { prefix: 'edge-', from: [24, 8, 2], release: '2.16' },
    { prefix: 'edge-', from: [24, 11, 8], release: '2.17' },
    { prefix: 'edge-', from: [25, 4, 4], release: '2.18' },
    { prefix: 'edge-', from: [25, 10, 7], release: '2.19' },
    { prefix: 'edge-', from: [25, 10, 8], release: 'edge' },
    { prefix: 'edge-', from: [26, 6, 3], release: '2.20' },
    { prefix: 'edge-', from: [26, 6, 4], release: 'edge' },
  ],
  olderBugs: LINKERD_OLDER_BUGS,
  rows: [
    // What these releases do with the app's probes (src/mesh/linkerd/probes.ts).
    ...LINKERD_PROBES,
    // How these releases let a pod meant to end end (src/mesh/linkerd/ending.ts).
    ...LINKERD_ENDING,
    {
      from: '2.10',
      to: '2.14',
      source:
        'linkerd/linkerd2@b10356a8 (stable-2.10.0) to @a4bec904 (stable-2.14.0) pkg/k8s/labels.go, charts/partials/templates/proxy.tpl',
      recognise: 'the controller image cr.l5d.io/linkerd/controller:stable-2.x (Deployment linkerd-proxy-injector)',
      containers: { proxy: ['linkerd-proxy'], init: ['linkerd-init'], validation: ['linkerd-network-validator'] },
      injectorRbac: 'today',
      // stable-2.12.2 to 2.12.6 inject, with the CNI plugin, an init container `noop` (pause image,
      // charts/partials/templates/_noop.tpl, added by linkerd/linkerd2@5cb6755e #9504).
      bugs: [
        {
          // The noop container ran as the image's user (root): a pod with runAsNonRoot: true is
          // refused by the kubelet. The fix gives it proxyInit's runAsUser (65534 when root).
          id: 'linkerd/linkerd2#9671',
          text: 'with the CNI plugin, the injected init container noop runs as root, so the kubelet refuses to start it in a pod that sets runAsNonRoot: true',
          affected: { from: 'stable-2.12.2', to: 'stable-2.12.2' },
          fixedIn: 'stable-2.12.3',
          symptom: {
            on: 'pod',
            container: 'noop',
            shows: 'waiting',
            reason: 'CreateContainerConfigError',
            message: 'runAsNonRoot and image will run as root',
          },
          source:
            "linkerd/linkerd2@b79e4588 (helm: use proxyInit's user for the noop init container, #9790, in tag stable-2.12.3) charts/partials/templates/_noop.tpl",
        },
        {
          // The noop container had no resources: a namespace whose ResourceQuota tracks limits
          // refuses the injected pod ("must specify limits.cpu,limits.memory").
          id: 'linkerd/linkerd2#10162',
          text: 'with the CNI plugin, the injected init container noop sets no resources, so a namespace whose ResourceQuota tracks limits or requests refuses every injected pod',
          affected: { from: 'stable-2.12.2', to: 'stable-2.12.3' },
          fixedIn: 'stable-2.12.4',
          symptom: { on: 'workload', shows: 'create-refused', message: 'must specify ' },
          source:
            'linkerd/linkerd2@75042170 (Add resources to noop initContainer, #10253, in tag stable-2.12.4) charts/partials/templates/_noop.tpl',
        },
        ...LINKERD_2_11_BUGS,
        ...LINKERD_2_10_BUGS,
        ...LINKERD_2_12_BUGS,
      ],
    },
    {
      from: '2.15',
      to: 'edge',
      source: 'linkerd/linkerd2@f0d861ea (edge-24.2.4, version-2.15) to @19a0d90d (edge-26.8.3) pkg/k8s/labels.go',
      recognise: 'the controller image cr.l5d.io/linkerd/controller:edge-YY.M.N (Deployment linkerd-proxy-injector)',
      injectorRbac: 'today',
      // The CNI plugin's own bugs, judged by the linkerd-cni release on the pod's node (native sidecars from 2.15).
      bugs: LINKERD_CNI_BUGS,
    },
    // linkerd-cni and the node's CNI configuration (issue 31, gen9path): before the CNI plugin moved to
    // linkerd2-proxy-init, its installer wrote linkerd-cni into the configuration list once and slept ("Unless told
    // otherwise, sleep forever"), so a primary plugin writing its list again later (calico-node restarted, a node
    // restarted) dropped it for good: linkerd/linkerd2#4789, #7855, #6442. The installer of linkerd2-proxy-init's
    // cni-plugin watches the directory (monitor_cni_config: inotifywait on create, moved_to, modify) and installs again.
    {
      from: '2.10',
      to: '2.12',
      source:
        'linkerd/linkerd2@0313f10b cni-plugin/deployment/scripts/install-cni.sh (the configuration written once, then sleep infinity); linkerd/linkerd2#4789, #7855',
      cniRechains: {
        readds: false,
        how: 'its installer writes the plugin into the configuration once at start and then sleeps',
      },
    },
    {
      from: '2.13',
      source:
        'linkerd/linkerd2-proxy-init@7a3d1876 cni-plugin/deployment/scripts/install-cni.sh monitor_cni_config (inotifywait on the directory, installing again on a change)',
      cniRechains: { readds: true, how: 'its installer watches the directory and adds the plugin back on a change' },
    },
    // The cluster's addresses (issue 31, gen10net). Probes: 2.10 has no inbound policy; 2.11's policy admits
    // unauthenticated clients only from clusterNetworks under the cluster-* default policies (the control plane's own
    // pods run cluster-unauthenticated) and under a ServerAuthorization without networks (linkerd-viz's proxy-admin,
    // "for kubelet probes"), so the kubelet probing from a node address outside them gets 403 (linkerd/linkerd2#7507);
    // from 2.12.0 probe routes are authorized by default from policyController.probeNetworks, 0.0.0.0/0 and ::/0
    // (linkerd/linkerd2#9008, edge-22.8.1). IPv6: to version-2.15 the proxy's inbound and admin servers listen on
    // 0.0.0.0 only (LINKERD2_PROXY_ADMIN_LISTEN_ADDR), so a pod whose address is IPv6 is never probed ready
    // (linkerd/linkerd2#3849); from version-2.16 they listen on [::] when values disableIPv6 is false (true by default).
    {
      from: '2.10',
      to: '2.10',
      source:
        'linkerd/linkerd2@b10356a8 (stable-2.10.0) charts/partials/templates/_proxy.tpl (no inbound policy, 0.0.0.0 listeners)',
      ranges: {
        ipv6: {
          serves: 'no',
          how: 'its proxy listens on 0.0.0.0 only (LINKERD2_PROXY_ADMIN_LISTEN_ADDR 0.0.0.0:4191)',
        },
      },
    },
    {
      from: '2.11',
      to: '2.11',
      source:
        'linkerd/linkerd2@02064b02 (stable-2.11.0) charts/linkerd2/templates/identity.yaml (cluster-unauthenticated), viz/charts/linkerd-viz/templates/proxy-admin-policy.yaml, charts/partials/templates/_proxy.tpl; linkerd/linkerd2#7507',
      ranges: {
        probes: {
          outside: 'refused',
          how: "its inbound policy admits unauthenticated clients, the kubelet's probes among them, only from clusterNetworks under the cluster-* default policies (the control plane's own pods) and under a ServerAuthorization without networks (linkerd-viz's proxy-admin)",
        },
        ipv6: {
          serves: 'no',
          how: 'its proxy listens on 0.0.0.0 only (LINKERD2_PROXY_ADMIN_LISTEN_ADDR 0.0.0.0:4191)',
        },
      },
    },
    {
      from: '2.12',
      to: '2.15',
      source:
        'linkerd/linkerd2@0bd3f732 (stable-2.12.0) values.yaml policyController.probeNetworks, linkerd/linkerd2#9008; @f0d861ea (version-2.15) charts/partials/templates/_proxy.tpl (0.0.0.0 listeners)',
      ranges: {
        probes: {
          outside: 'admitted',
          how: 'probes are authorized by default from policyController.probeNetworks (0.0.0.0/0 and ::/0)',
        },
        ipv6: {
          serves: 'no',
          how: 'its proxy listens on 0.0.0.0 only (LINKERD2_PROXY_ADMIN_LISTEN_ADDR 0.0.0.0:4191)',
        },
      },
    },
    {
      from: '2.16',
      source:
        'linkerd/linkerd2@332c4efa (edge-24.8.2, version-2.16) charts/partials/templates/_proxy.tpl (listeners on [::] unless disableIPv6), values.yaml disableIPv6 true, clusterNetworks with fd00::/8',
      ranges: {
        probes: {
          outside: 'admitted',
          how: 'probes are authorized by default from policyController.probeNetworks (0.0.0.0/0 and ::/0)',
        },
        ipv6: {
          serves: 'setting',
          how: 'its proxy listens on [::] only when values disableIPv6 is false (true by default)',
        },
      },
    },
  ],
  domains: ['linkerd.io', 'config.linkerd.io', 'config.alpha.linkerd.io'],
  keySource:
    'linkerd/linkerd2 pkg/k8s/labels.go and the keys its charts write (charts/partials, charts/linkerd-control-plane/templates) at stable-2.10.0 @b10356a8, 2.11.0 @02064b02, 2.12.0 @0bd3f732, 2.13.0 @775dc9fb, 2.14.0 @a4bec904, edge-24.2.4 @f0d861ea, edge-24.8.2 @332c4efa, edge-24.11.8 @43335fd9, edge-25.4.4 @0fe0ad01, edge-25.10.7 @0ebd74b0, version-2.20 @eadc1acf, edge-26.8.3 @19a0d90d',
  values: LINKERD_VALUES,
  stored: LINKERD_STORED,
  keys: [
    {
      key: 'config.alpha.linkerd.io/proxy-enable-native-sidecar',
      from: '2.15',
      does: 'enables the native initContainer sidecar',
    },
    {
      key: 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds',
      from: '2.10',
      does: 'makes the proxy container to wait for the given period before exiting after the Pod entered the Terminating state',
    },
    {
      // Read by the linkerd-jaeger extension, not the proxy injector: the service account of the trace collector.
      key: 'config.alpha.linkerd.io/trace-collector-service-account',
      from: '2.10',
      to: '2.18',
      does: 'the linkerd-jaeger extension injector reads it (jaeger/injector/mutator/webhook.go, stable-2.10.0 to edge-25.1.1; the extension is gone from edge-25.10.1, linkerd/linkerd2#14558)',
    },
    {
      key: 'config.linkerd.io/access-log',
      from: '2.12',
      does: 'configures whether HTTP access logging is enabled, and what access log format is used',
    },
    { key: 'config.linkerd.io/admin-port', from: '2.10', does: 'can be used to override the adminPort config' },
    {
      key: 'config.linkerd.io/admission-webhooks',
      from: '2.10',
      does: 'indicates whether admission webhooks are enabled for a namespace',
    },
    {
      key: 'config.linkerd.io/close-wait-timeout',
      from: '2.10',
      does: 'configures nf_conntrack_tcp_timeout_close_wait',
    },
    { key: 'config.linkerd.io/control-port', from: '2.10', does: 'can be used to override the controlPort config' },
    { key: 'config.linkerd.io/debug-image', from: '2.10', does: 'can be used to override the debugImage config' },
    {
      key: 'config.linkerd.io/debug-image-pull-policy',
      from: '2.10',
      does: 'can be used to override the debugImagePullPolicy config',
    },
    {
      key: 'config.linkerd.io/debug-image-version',
      from: '2.10',
      does: 'can be used to override the debugImageVersion config',
    },
    {
      key: 'config.linkerd.io/default-inbound-policy',
      from: '2.11',
      does: 'used to configure the default inbound policy of the proxy',
    },
    {
      key: 'config.linkerd.io/disable-identity',
      from: '2.10',
      to: '2.11',
      does: 'can be used to disable identity on the injected proxy',
    },
    {
      key: 'config.linkerd.io/enable-debug-sidecar',
      from: '2.10',
      does: 'set to true if the debug container is injected',
    },
    {
      key: 'config.linkerd.io/enable-external-profiles',
      from: '2.10',
      does: 'can be used to override the disableExternalProfilesAnnotation config',
    },
    {
      key: 'config.linkerd.io/enable-gateway',
      from: '2.10',
      does: 'can be used to configure the proxy to operate as a gateway, routing requests that target the inbound router',
    },
    {
      key: 'config.linkerd.io/image-pull-policy',
      from: '2.10',
      does: 'can be used to override the proxyImagePullPolicy and proxyInitImagePullPolicy configs',
    },
    { key: 'config.linkerd.io/inbound-port', from: '2.10', does: 'can be used to override the inboundPort config' },
    {
      key: 'config.linkerd.io/init-image',
      from: '2.10',
      to: '2.19',
      does: 'can be used to override the proxyInitImage config',
    },
    {
      key: 'config.linkerd.io/init-image-version',
      from: '2.10',
      to: '2.19',
      does: 'can be used to override the proxy-init image version',
    },
    { key: 'config.linkerd.io/opaque-ports', from: '2.10', does: 'can be used to override the opaquePorts config' },
    { key: 'config.linkerd.io/outbound-port', from: '2.10', does: 'can be used to override the outboundPort config' },
    {
      key: 'config.linkerd.io/pod-inbound-ports',
      from: '2.11',
      does: 'can be used to set a comma-separated list of (non-proxy) container ports exposed by the pod spec',
    },
    {
      key: 'config.linkerd.io/proxy-additional-env',
      from: '2.20',
      does: 'allows setting additional proxy environment variables via a JSON-encoded list of Kubernetes EnvVar objects',
    },
    {
      key: 'config.linkerd.io/proxy-admin-shutdown',
      from: '2.16',
      does: 'can be used to override the LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED config',
    },
    {
      key: 'config.linkerd.io/proxy-await',
      from: '2.11',
      does: 'can be used to force the application to wait for the proxy to be ready',
    },
    { key: 'config.linkerd.io/proxy-cpu-limit', from: '2.10', does: 'can be used to override the limitCPU config' },
    {
      key: 'config.linkerd.io/proxy-cpu-ratio-limit',
      from: '2.18',
      does: "can be used to configure proxy worker threads as a proportion of the node's available CPUs",
    },
    { key: 'config.linkerd.io/proxy-cpu-request', from: '2.10', does: 'can be used to override the requestCPU config' },
    {
      key: 'config.linkerd.io/proxy-disable-inbound-protocol-detect-timeout',
      from: '2.15',
      does: 'can be used to disable protocol detection timeouts for inbound connections by setting them to a very high value',
    },
    {
      key: 'config.linkerd.io/proxy-disable-outbound-protocol-detect-timeout',
      from: '2.15',
      does: 'can be used to disable protocol detection timeouts for outbound connections by setting them to a very high value',
    },
    {
      key: 'config.linkerd.io/proxy-enable-native-sidecar',
      from: '2.20',
      does: 'enables the native initContainer sidecar',
    },
    {
      key: 'config.linkerd.io/proxy-ephemeral-storage-limit',
      from: '2.12',
      does: 'can be used to override the limitEphemeralStorage config',
    },
    {
      key: 'config.linkerd.io/proxy-ephemeral-storage-request',
      from: '2.12',
      does: 'can be used to override the requestEphemeralStorage config',
    },
    { key: 'config.linkerd.io/proxy-gid', from: '2.16', does: 'can be used to override the GID config' },
    { key: 'config.linkerd.io/proxy-image', from: '2.10', does: 'can be used to override the proxyImage config' },
    {
      key: 'config.linkerd.io/proxy-inbound-connect-timeout',
      from: '2.10',
      does: 'can be used to configure the inbound TCP connection timeout in the proxy',
    },
    {
      key: 'config.linkerd.io/proxy-inbound-discovery-cache-unused-timeout',
      from: '2.14',
      does: 'can be used to configure the timeout that will evict unused inbound discovery results',
    },
    { key: 'config.linkerd.io/proxy-log-format', from: '2.10', does: 'can be used to override the log format config' },
    {
      key: 'config.linkerd.io/proxy-log-http-headers',
      from: '2.16',
      does: 'can be used to override if the proxy is permitted to log HTTP headers',
    },
    { key: 'config.linkerd.io/proxy-log-level', from: '2.10', does: 'can be used to override the log level config' },
    {
      key: 'config.linkerd.io/proxy-memory-limit',
      from: '2.10',
      does: 'can be used to override the limitMemory config',
    },
    {
      key: 'config.linkerd.io/proxy-memory-request',
      from: '2.10',
      does: 'can be used to override the requestMemoryConfig',
    },
    {
      key: 'config.linkerd.io/proxy-metrics-hostname-labels',
      from: '2.18',
      does: 'ProxyOutboundConnectTimeout can be used to configure the outbound TCP connection timeout in the proxy',
    },
    {
      key: 'config.linkerd.io/proxy-outbound-connect-timeout',
      from: '2.10',
      does: 'can be used to configure the outbound TCP connection timeout in the proxy',
    },
    {
      key: 'config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout',
      from: '2.14',
      does: 'ProxyOutboundDiscoveryCacheTimeout can be used to configure the timeout that will evict unused outbound discovery results',
    },
    {
      key: 'config.linkerd.io/proxy-require-identity-inbound-ports',
      from: '2.10',
      does: 'can be used to configure the proxy to always require identity on inbound ports',
    },
    { key: 'config.linkerd.io/proxy-uid', from: '2.10', does: 'can be used to override the UID config' },
    { key: 'config.linkerd.io/proxy-version', from: '2.10', does: 'can be used to override the proxy version config' },
    {
      key: 'config.linkerd.io/shutdown-grace-period',
      from: '2.12',
      does: 'configures the grace period for graceful shutdowns in the proxy',
    },
    {
      key: 'config.linkerd.io/skip-inbound-ports',
      from: '2.10',
      does: 'can be used to override the ignoreInboundPorts config',
    },
    {
      key: 'config.linkerd.io/skip-outbound-ports',
      from: '2.10',
      does: 'can be used to override the ignoreOutboundPorts config',
    },
    { key: 'config.linkerd.io/skip-subnets', from: '2.12', does: 'can be used to override the skipSubnets config' },
    // Read by the linkerd-jaeger extension, not the proxy injector: the trace collector address (references.ts),
    // its protocol and service name (b67c8ac6, edge-24.10.1).
    {
      key: 'config.linkerd.io/trace-collector',
      from: '2.10',
      to: '2.18',
      does: 'the linkerd-jaeger extension injector reads it (jaeger/injector/mutator/webhook.go, stable-2.10.0 to edge-25.1.1; the extension is gone from edge-25.10.1, linkerd/linkerd2#14558)',
    },
    {
      key: 'config.linkerd.io/trace-collector-name',
      from: '2.17',
      to: '2.18',
      does: 'the linkerd-jaeger extension injector reads it (jaeger/injector/mutator/webhook.go, stable-2.10.0 to edge-25.1.1; the extension is gone from edge-25.10.1, linkerd/linkerd2#14558)',
    },
    {
      key: 'config.linkerd.io/trace-collector-protocol',
      from: '2.17',
      to: '2.18',
      does: 'the linkerd-jaeger extension injector reads it (jaeger/injector/mutator/webhook.go, stable-2.10.0 to edge-25.1.1; the extension is gone from edge-25.10.1, linkerd/linkerd2#14558)',
    },
    {
      // The label linkerd2-cni puts on every object of its install, its Namespace too: pkg/healthcheck/healthcheck.go
      // LinkerdCNIResourceLabel and charts/linkerd2-cni/templates/cni-plugin.yaml at stable-2.10.0 and b24cd405.
      key: 'linkerd.io/cni-resource',
      from: '2.10',
      does: 'marks the objects of the linkerd2-cni install, its namespace and DaemonSet included',
    },
    {
      key: 'linkerd.io/control-plane-component',
      from: '2.10',
      does: "identifies this object as a component of Linkerd's control plane (e.g",
    },
    {
      key: 'linkerd.io/control-plane-ns',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the namespace of the Linkerd control plane',
    },
    { key: 'linkerd.io/created-by', from: '2.10', does: 'indicates the source of the injected data plane (e.g' },
    {
      key: 'linkerd.io/extension',
      from: '2.10',
      does: 'a label that helps identifying the namespace that contain a Linkerd Extension',
    },
    { key: 'linkerd.io/helm-release-version', from: '2.12', to: '2.14', does: 'written by the chart' },
    {
      key: 'linkerd.io/identity-issuer-expiry',
      from: '2.10',
      to: '2.10',
      does: 'indicates the time at which this set of identity issuer credentials will cease to be valid',
    },
    {
      key: 'linkerd.io/identity-mode',
      from: '2.10',
      to: '2.11',
      does: 'controls how a pod participates in service identity',
    },
    {
      key: 'linkerd.io/inject',
      from: '2.10',
      does: 'controls whether or not a pod should be injected when set on a pod spec',
    },
    { key: 'linkerd.io/install', from: '2.12', does: 'written by the chart' },
    {
      key: 'linkerd.io/is-control-plane',
      from: '2.10',
      to: '2.10',
      does: 'a label that helps identifying the namespaces that contain a Linkerd control plane',
    },
    {
      key: 'linkerd.io/is-control-plane',
      from: '2.12',
      does: 'a label that helps identifying the namespaces that contain a Linkerd control plane',
    },
    { key: 'linkerd.io/proxy', from: '2.10', does: 'written by the chart' },
    {
      key: 'linkerd.io/proxy-cronjob',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the CronJob that this proxy belongs to',
    },
    {
      key: 'linkerd.io/proxy-daemonset',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the DaemonSet that this proxy belongs to',
    },
    {
      key: 'linkerd.io/proxy-deployment',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the deployment that this proxy belongs to',
    },
    {
      key: 'linkerd.io/proxy-job',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the Job that this proxy belongs to',
    },
    {
      key: 'linkerd.io/proxy-replicaset',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the ReplicaSet that this proxy belongs to',
    },
    {
      key: 'linkerd.io/proxy-replicationcontroller',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the ReplicationController that this proxy belongs to',
    },
    {
      key: 'linkerd.io/proxy-statefulset',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the StatefulSet that this proxy belongs to',
    },
    { key: 'linkerd.io/proxy-version', from: '2.10', does: 'indicates the version of the injected data plane (e.g' },
    { key: 'linkerd.io/tls', from: '2.10', does: 'the issuer secret scheme used by linkerd' },
    {
      key: 'linkerd.io/trust-root-sha256',
      from: '2.12',
      does: 'indicates the cert bundle configured on the injected workload',
    },
    { key: 'linkerd.io/v1alpha1', from: '2.12', does: 'written by the chart' },
    { key: 'linkerd.io/v1beta1', from: '2.12', does: 'written by the chart' },
    { key: 'linkerd.io/v1beta2', from: '2.15', to: '2.15', does: 'written by the chart' },
    { key: 'linkerd.io/v1beta3', from: '2.16', does: 'written by the chart' },
    {
      key: 'linkerd.io/workload-ns',
      from: '2.10',
      does: 'injected into mesh-enabled apps, identifying the Namespace that this proxy belongs to',
    },
  ],
};
