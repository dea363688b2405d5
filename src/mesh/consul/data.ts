/**
 * Consul as data (issue 32 item 4): the constants of its profile, which profileFrom
 * (src/mesh/profile-from.ts) turns into the profile with the behaviour in index.ts. Sources,
 * hashicorp/consul-k8s commit a507b1d1e3061996dbed00cde73bba2bf068379f unless said otherwise: the
 * list at the top of index.ts, markers.ts and injector.ts.
 */
import { comment, lit } from '../../fix/steps.js';
import type { MeshData } from '../mesh-data.js';
import { CONSUL_FLAGS, CONSUL_INJECT, FALSE, TRUE } from './injector.js';
import { consulNetwork } from './network.js';
import { consulComponents } from './components.js';
import { CONSUL_KUBERNETES, CONSUL_RELEASES } from './releases.js';

export const CONSUL_INJECTOR = 'consul-connect-injector';
const CONSUL_CERT_SECRET = 'consul-connect-inject-webhook-cert';
export const CONSUL_NATIVE = 'consul.hashicorp.com/enable-consul-dataplane-as-sidecar';
export const RESOURCE_ANNOTATIONS = {
  'requests.cpu': 'consul.hashicorp.com/sidecar-proxy-cpu-request',
  'requests.memory': 'consul.hashicorp.com/sidecar-proxy-memory-request',
  'limits.cpu': 'consul.hashicorp.com/sidecar-proxy-cpu-limit',
  'limits.memory': 'consul.hashicorp.com/sidecar-proxy-memory-limit',
} as const;

export const CONSUL_DATA = {
  name: 'consul',
  title: 'Consul',

  containers: {
    proxy: 'consul-dataplane',
    init: ['consul-connect-inject-init'],
    image: /(^|\/)consul-dataplane(:|@|$)/,
    // A multi-port pod (several services in consul.hashicorp.com/connect-service) gets one proxy per service, named
    // `<proxy>-<service>`: hashicorp/consul-k8s@v1.0.0 control-plane/connect-inject/webhook/consul_dataplane_sidecar.go
    // (containerName = fmt.Sprintf("%s-%s", sidecarContainer, mpi.serviceName)); envoy_sidecar.go of 0.x alike.
    perService: true,
    // Consul's own mark on a pod it injected: hashicorp/consul-k8s@c22b3930 control-plane/connect-inject/constants/
    // annotations_and_labels.go KeyInjectStatus, which its webhook sets with the consul-dataplane container
    // (envoy-sidecar before 1.0).
    announced: {
      field: 'annotations',
      key: 'consul.hashicorp.com/connect-inject-status',
      value: 'injected',
      containers: ['consul-dataplane'],
      source: 'hashicorp/consul-k8s@c22b3930 control-plane/connect-inject/constants/annotations_and_labels.go',
    },
  },

  controlPlane: {
    namespace: 'consul',
    ownNamespaces: ['consul'],
    // values.yaml connectInject.namespaceSelector (kube-system is Kubernetes' own).
    excludedNamespaces: ['local-path-storage', 'openebs', 'gmp-system', 'gke-managed-cim'],
    // The webhook's objectSelector leaves out every pod labelled app: consul (all the chart's components).
    workloads: { key: 'app', values: ['consul'] },
    podLabels: { app: 'consul' },
    injector: {
      name: CONSUL_INJECTOR,
      container: 'sidecar-injector',
      // hashicorp/consul-k8s@a507b1d1 charts/consul/templates/connect-inject-service.yaml#L15-L17 (443 -> 8080),
      // connect-inject-deployment.yaml#L156 (-listen=:8080).
      webhookPort: 8080,
      podSelector: 'app=consul,component=connect-injector',
    },
    webhooks: {
      config: CONSUL_INJECTOR,
      nameSuffix: '-connect-injector.consul.hashicorp.com',
      servingCertSecrets: [[CONSUL_CERT_SECRET, 'tls.crt']],
    },
    // hashicorp/consul-k8s@a507b1d1 charts/consul/templates/connect-inject-mutatingwebhookconfiguration.yaml#L269-L273: objectSelector
    // `app NotIn [consul]`, and every Consul pod is labelled app: consul (its Deployments' selectors pin it).
    selfExclusion: [],
    reads: { secrets: [CONSUL_CERT_SECRET], args: CONSUL_FLAGS },
  },

  // The pod annotation, and nothing on the namespace; people write it as a label, or on the Namespace.
  markers: {
    namespace: [],
    template: [{ field: 'annotations', key: CONSUL_INJECT, inject: TRUE, skip: FALSE }],
    strays: [
      { field: 'annotations', key: CONSUL_INJECT, on: 'namespace', ownRule: true },
      { field: 'labels', key: CONSUL_INJECT, on: 'namespace', ownRule: true },
      { field: 'labels', key: CONSUL_INJECT, on: 'template' },
    ],
    ask: { field: 'annotations', key: CONSUL_INJECT, value: 'true' },
    optOut: { field: 'annotations', key: CONSUL_INJECT, value: 'false' },
    advisesPodOptIn: true,
    // hashicorp/consul-k8s@a507b1d1 control-plane/subcommand/inject-connect/command.go#L204 (-default-inject),
    // charts/consul/templates/connect-inject-deployment.yaml#L149 from values.yaml#L2425-L2430 (connectInject.default: false).
    injectsAllWhen: 'the injector runs with -default-inject=true (Helm value connectInject.default: true)',
  },

  proxy: {
    annotations: RESOURCE_ANNOTATIONS,
    onNamespace: false,
    suggested: { 'requests.cpu': '100m', 'requests.memory': '100Mi', 'limits.cpu': '100m', 'limits.memory': '100Mi' },
    nativeAnnotation: CONSUL_NATIVE,
  },

  jobs: {
    shutdown: /graceful_shutdown|:20600\b/,
    shutdownWords: ['graceful_shutdown', ':20600\\b'],
    alternatives: [
      comment`or: end the command of the app with curl -fsS -X POST http://localhost:20600/graceful_shutdown`,
      comment`or: opt the pod template out with the annotation ${lit(CONSUL_INJECT)}: 'false'`,
    ],
  },

  install: {
    emptyCaBundle:
      // consul-k8s 0.26 and later: webhook-cert-manager; up to 0.25 the injector itself with -tls-auto (injector.ts tlsAuto).
      "the caBundle is empty: Consul's webhook-cert-manager fills it, or up to consul-k8s 0.25 the injector itself at start with -tls-auto, so the one that fills it is not running or cannot patch this configuration",
    restartReloads: '',
  },

  versions: { kubernetes: CONSUL_KUBERNETES, releases: CONSUL_RELEASES },
  network: consulNetwork,
  components: consulComponents,
} as const satisfies MeshData;
