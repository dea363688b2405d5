/**
 * Kuma as data (issue 32 item 4): the constants of its profile, which profileFrom
 * (src/mesh/profile-from.ts) turns into the profile with the behaviour in index.ts. Sources,
 * kumahq/kuma v2.14.3 (commit 0c7aaec033b7dad03c3a9f4d5b56eb6d941bfff9) unless said otherwise: the
 * list at the top of index.ts, markers.ts and injector.ts.
 */
import { comment, lit } from '../../fix/steps.js';
import type { MeshData } from '../mesh-data.js';
import { FALSE, KUMA_INJECT, KUMA_NS_ENABLING, KUMA_POD_ENABLING, KUMA_SIDECAR, TRUE } from './injector.js';
import { kumaNetwork } from './network.js';
import { kumaComponents } from './components.js';
import { KUMA_KUBERNETES, KUMA_RELEASES } from './releases.js';
import { KUMA_SKEW } from './support.js';

const CP = 'kuma-control-plane';
const NATIVE_ENV = 'KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS';

export const KUMA_DATA = {
  name: 'kuma',
  title: 'Kuma',

  containers: {
    proxy: KUMA_SIDECAR,
    init: ['kuma-init', 'kuma-validation'],
    image: /(^|\/)kuma-dp(:|@|$)/,
    // kumahq/kuma@0c7aaec0 (v2.14.3) pkg/plugins/runtime/k8s/controllers/gateway_instance_controller.go#L234-L316
    // (a MeshGatewayInstance's pods: kuma.io/gateway: builtin, kuma.io/sidecar-injection: disabled), util/names.go#L5.
    // Unreleased v3 drops the builtin gateway (#18058).
    gateway: 'kuma-gateway',
    // Kuma's own mark on a pod it injected: kumahq/kuma@62b073c4 pkg/plugins/runtime/k8s/metadata/annotations.go
    // KumaSidecarInjectedAnnotation, which its injector sets with the kuma-sidecar container.
    announced: {
      field: 'annotations',
      key: 'kuma.io/sidecar-injected',
      value: 'true',
      containers: [KUMA_SIDECAR],
      source: 'kumahq/kuma@62b073c4 pkg/plugins/runtime/k8s/metadata/annotations.go',
    },
  },

  controlPlane: {
    namespace: 'kuma-system',
    ownNamespaces: ['kuma-system'],
    // _helpers.tpl: app: kuma-control-plane, kuma-cni, kuma-ingress, kuma-egress (Kuma's own components).
    workloads: { key: 'app', values: [CP, 'kuma-cni', 'kuma-ingress', 'kuma-egress'] },
    podLabels: { app: CP },
    injector: {
      name: CP,
      container: 'control-plane',
      // kumahq/kuma@348b6528 deployments/charts/kuma/templates/cp-service.yaml#L33-L36 (https-admission-server 443 ->
      // admissionServerPort), values.yaml#L339 (5443).
      webhookPort: 5443,
      // kumahq/kuma@348b6528 deployments/charts/kuma/values.yaml controlPlane.hostNetwork (false) and
      // controlPlane.admissionServerPort ("Recommended to set in combination with hostNetwork to prevent multiple port
      // bindings on the same port (like Calico in AWS EKS)"), templates/cp-deployment.yaml `hostNetwork:`.
      hostNetwork: {
        chart: 'kuma/kuma',
        set: ['controlPlane.hostNetwork=true'],
        note: 'the admission port, controlPlane.admissionServerPort, 5443 by default, must then be free on the nodes: change it if another host-network process binds it',
        source:
          'kumahq/kuma@348b6528 deployments/charts/kuma/values.yaml controlPlane.hostNetwork, admissionServerPort',
      },
    },
    webhooks: {
      config: 'kuma-admission-mutating-webhook-configuration',
      // The injection webhooks' names end so (their siblings in the configuration mutate Kuma's own resources).
      nameSuffix: 'kuma-injector.kuma.io',
    },
    // kumahq/kuma v2.14.3 app/kumactl/cmd/install/render_helm_files.go#L43 (kumactl labels kuma-system
    // kuma.io/sidecar-injection: "false"): the namespace webhook selects only enabled and true, the pods webhook
    // only pods labelled enabled (cp-webhooks-and-secrets.yaml; its release namespace is also left out by name).
    selfExclusion: [{ on: 'namespace', key: KUMA_INJECT, value: 'false' }],
  },

  // The label kuma.io/sidecar-injection on the namespace (the namespace webhook selects enabled or true) or the pod
  // (read first; the pods webhook selects exactly `enabled`); the annotation only logs a deprecation since 2.2.0.
  markers: {
    namespace: [{ field: 'labels', key: KUMA_INJECT, enabling: KUMA_NS_ENABLING }],
    template: [
      {
        field: 'labels',
        key: KUMA_INJECT,
        inject: TRUE,
        skip: FALSE,
        alone: [KUMA_POD_ENABLING],
      },
    ],
    strays: [
      { field: 'annotations', key: KUMA_INJECT, on: 'namespace', since: '2.2.0' },
      { field: 'annotations', key: KUMA_INJECT, on: 'template', since: '2.2.0' },
    ],
    // The pods webhook selects exactly `enabled` (in a namespace carrying the label, since 2.11).
    ask: { field: 'labels', key: KUMA_INJECT, value: KUMA_POD_ENABLING },
    optOut: { field: 'labels', key: KUMA_INJECT, value: 'disabled' },
    enable: { field: 'labels', key: KUMA_INJECT, value: 'enabled' },
    advisesPodOptIn: true,
    // kumahq/kuma v2.14.3 (0c7aaec) deployments/charts/kuma/templates/cp-webhooks-and-secrets.yaml: the
    // pods webhook needs the namespace label to exist (operator Exists) and the pod label `enabled`;
    // precheck.go needToInject reads the pod's label before the namespace's, so `disabled` on the
    // namespace keeps every other pod out (the namespace webhook selects only enabled and true).
    podOptInNamespaceLabel: { key: KUMA_INJECT, value: 'disabled' },
  },

  injector: {
    // The control plane's pod controller turns each injected pod into a Dataplane; when it cannot (its own validating
    // webhook rejects the Dataplane, a probe port it cannot translate, a Mesh it cannot find), it records a Warning on
    // the pod and kuma-dp never gets its bootstrap configuration: the proxy runs and is never ready (kumahq/kuma#1216,
    // #8256). kumahq/kuma 1.0.1 pkg/plugins/runtime/k8s/controllers/pod_controller.go#L42,L219 (recorder
    // "k8s.kuma.io/dataplane-generator", plugin.go#L136) and v2.14.3 pod_controller.go#L44,L232, plugin.go#L201.
    warnings: [
      {
        reason: 'FailedToGenerateKumaDataplane',
        component: 'k8s.kuma.io/dataplane-generator',
        means: 'the control plane could not create the Dataplane of the pod, so its proxy never gets its configuration',
        source: 'kumahq/kuma 1.0.1 and v2.14.3 pkg/plugins/runtime/k8s/controllers/pod_controller.go',
      },
    ],
  },

  proxy: {
    annotations: {},
    onNamespace: false,
    suggested: { 'requests.cpu': '50m', 'requests.memory': '64Mi', 'limits.cpu': '500m', 'limits.memory': '512Mi' },
    // No native sidecar annotation: no per-pod switch, the control plane's setting decides (and Kubernetes 1.29+).
  },

  jobs: {
    shutdown: /quitquitquit/,
    shutdownWords: ['quitquitquit'],
    alternatives: [
      comment`or: set ${lit(NATIVE_ENV)}=true on the control plane, with Helm experimental.sidecarContainers=true, on Kubernetes 1.29 or later`,
      comment`or: opt the pod template out with the label ${lit(KUMA_INJECT)}: disabled`,
    ],
    controlPlaneStops: `Kuma's control plane stops ${KUMA_SIDECAR} once a Job pod's other containers have exited`,
  },

  install: { restartReloads: '' },

  versions: { kubernetes: KUMA_KUBERNETES, releases: KUMA_RELEASES, skew: KUMA_SKEW },
  network: kumaNetwork,
  components: kumaComponents,
} as const satisfies MeshData;
