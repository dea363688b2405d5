/**
 * Kuma releases as data (issue 32.4): typed constants, no functions; read through releaseFacts
 * (src/mesh/releases.ts). Rows keyed by release range, oldest first, each with its source in
 * kumahq/kuma.
 */
import type { KubernetesSupport } from '../profile.js';
import type { ReleaseTable, StoredValueRule } from '../release-table.js';
import { KUMA_VALUES } from './key-values.js';
import { KUMA_1_8_BUGS, KUMA_CNI_BUGS } from './release-bugs.js';
import { KUMA_ENDING } from './ending.js';
import { KUMA_PROBES } from './probes.js';

/**
 * Supported Kubernetes versions per release (moved here from support.ts, issue 32.4).
 *
 * Kuma "is validated against two Kubernetes versions" (kumahq/kuma-website@a92a32a8
 * app/_src/introduction/kuma-requirements.md, which embeds them): K8S_MIN_VERSION and
 * K8S_MAX_VERSION of mk/dev.mk at each tag (lines 24-25 up to 2.11.0, 30-31 after).
 */
export const KUMA_KUBERNETES: readonly KubernetesSupport[] = [
  {
    release: '2.14',
    min: '1.32',
    max: '1.35',
    source: 'kumahq/kuma@51c6d381 (v2.14.0) mk/dev.mk K8S_MIN_VERSION, K8S_MAX_VERSION',
  },
  {
    release: '2.13',
    min: '1.31',
    max: '1.34',
    source: 'kumahq/kuma@99bb946e (v2.13.0) mk/dev.mk K8S_MIN_VERSION, K8S_MAX_VERSION',
  },
  {
    release: '2.12',
    min: '1.27',
    max: '1.32',
    source: 'kumahq/kuma@6b477999 (2.12.0) mk/dev.mk K8S_MIN_VERSION, K8S_MAX_VERSION',
  },
  {
    release: '2.11',
    min: '1.27',
    max: '1.32',
    source: 'kumahq/kuma@77a25d52 (2.11.0) mk/dev.mk K8S_MIN_VERSION, K8S_MAX_VERSION',
  },
  {
    release: '2.10',
    min: '1.25',
    max: '1.31',
    source: 'kumahq/kuma@fed22561 (2.10.0) mk/dev.mk K8S_MIN_VERSION, K8S_MAX_VERSION',
  },
  {
    release: '2.9',
    min: '1.25',
    max: '1.31',
    source: 'kumahq/kuma@948e6a43 (2.9.0) mk/dev.mk K8S_MIN_VERSION, K8S_MAX_VERSION',
  },
];

/**
 * Settings of Kuma's injector (its Deployment's environment, from the chart's values) that no release can use any
 * more (issue 31.6/31.7, gen13values): judged on the images it injected.
 */
const KUMA_STORED: readonly StoredValueRule[] = [
  {
    path: 'KUMA_INJECTOR_SIDECAR_CONTAINER_IMAGE, KUMA_INJECTOR_INIT_CONTAINER_IMAGE',
    helm: 'global.image.registry',
    from: '1.0',
    bad: { matches: '(^|/)kong-docker-kuma-docker\\.bintray\\.io/' },
    expects:
      'a registry that serves the images: Bintray, the default registry up to 1.1.4, was shut down on 1 May 2021, and the images moved to docker.io/kumahq (the default from 1.1.5)',
    fails: { on: 'image', containers: ['kuma-sidecar', 'kuma-init'] },
    source:
      'kumahq/kuma@e8a272e6 (1.1.0) deployments/charts/kuma/values.yaml line 4 (global.image.registry kong-docker-kuma-docker.bintray.io); @04cf07f5 (#1901, in 1.1.5): docker.io/kumahq; kumahq/kuma#1884',
  },
];

export const KUMA_RELEASES: ReleaseTable = {
  order: [
    ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => `1.${n}`),
    ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((n) => `2.${n}`),
  ],
  olderBugs: [
    {
      // Before 0.5.1 the control plane's pod converter makes no Dataplane for a pod a headless Service (clusterIP
      // None) selects: its outbound address is no IP (0.5.0 refuses it in words, #651), so kuma-dp finds no Dataplane
      // ("status: 404. Did you first apply a Dataplane resource?") and exits 1, again and again. 0.5.1 supports
      // headless Services (#749). kumahq/kuma#561 (Kuma 0.3.2).
      id: 'kumahq/kuma#561',
      text: 'the control plane makes no Dataplane for a pod that a headless Service selects, so kuma-dp finds none and exits',
      affected: { from: '0.1.0', to: '0.5.0' },
      fixedIn: '0.5.1',
      symptom: { on: 'pod', container: 'kuma-sidecar', shows: 'terminated', reason: 'Error', when: 'headless-service' },
      source:
        'kumahq/kuma@2bac6f06 (#651, in tag 0.5.0) pkg/plugins/discovery/k8s/controllers/pod_converter.go InboundInterfacesFor; @1aadb58a (support for Headless Service, #749, in tag 0.5.1 @234c8d77)',
    },
  ],
  rows: [
    // What these releases do with the app's probes (src/mesh/kuma/probes.ts).
    ...KUMA_PROBES,
    // How these releases let a pod meant to end end (src/mesh/kuma/ending.ts).
    ...KUMA_ENDING,
    {
      from: '1.0',
      to: '1.4',
      // injector.go needInject (1.0.8 @e099dcdf, 1.4.0 @a518120d): the pod's ANNOTATION
      // kuma.io/sidecar-injection, then the namespace's, read by metadata.Annotations.GetEnabled:
      // exactly enabled or disabled, any other value an error ("annotation ... has wrong value").
      // No label is read: a namespace or pod with only the label is not injected.
      source:
        'kumahq/kuma@e099dcdf (1.0.8) pkg/plugins/runtime/k8s/webhooks/injector/injector.go needInject, metadata/annotations.go GetEnabled; @a518120d (1.4.0) the same',
      recognise: 'the kuma-cp image kumahq/kuma-cp:1.0 to 1.4 (container control-plane)',
      reads: [
        { field: 'annotations', key: 'kuma.io/sidecar-injection', on: 'namespace' },
        { field: 'annotations', key: 'kuma.io/sidecar-injection', on: 'template' },
      ],
      markers: {
        namespace: [{ field: 'annotations', key: 'kuma.io/sidecar-injection', enabling: ['enabled'] }],
        template: [{ field: 'annotations', key: 'kuma.io/sidecar-injection', inject: ['enabled'], skip: ['disabled'] }],
        enable: { field: 'annotations', key: 'kuma.io/sidecar-injection', value: 'enabled' },
        ask: { field: 'annotations', key: 'kuma.io/sidecar-injection', value: 'enabled' },
        optOut: { field: 'annotations', key: 'kuma.io/sidecar-injection', value: 'disabled' },
      },
      webhook:
        'MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration, no namespace selector on the pods webhook',
    },
    {
      from: '1.5',
      to: '2.1',
      // 1.5.0 reads the label first, the annotation "for backwards compatibility" (kumahq/kuma@7112393a,
      // #3417: needInject reads the pod label, the pod annotation, the namespace label, the namespace annotation);
      // metadata/annotations.go: "KumaSidecarInjectionAnnotation defines a Pod/Namespace annotation
      // that gives users an ability to enable or disable sidecar-injection"; 2.2.0 reads it as a label only.
      source:
        'kumahq/kuma@1c846d7d (1.5.0) pkg/plugins/runtime/k8s/webhooks/injector/injector.go needInject (label from kumahq/kuma@7112393a, #3417); @9a2812c6 (2.2.0) UPGRADE.md, metadata/annotations.go PodAnnotationDeprecations',
      recognise: 'the kuma-cp image kumahq/kuma-cp:1.5 to 1.8 or 2.0/2.1 (container control-plane)',
      bugs: KUMA_1_8_BUGS,
      reads: [
        { field: 'annotations', key: 'kuma.io/sidecar-injection', on: 'namespace' },
        { field: 'annotations', key: 'kuma.io/sidecar-injection', on: 'template' },
      ],
      webhook:
        'MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration, no namespace selector on the pods webhook',
    },
    {
      from: '2.2',
      to: '2.14',
      source: 'kumahq/kuma@51c6d381 (v2.14.0) pkg/plugins/runtime/k8s/webhooks/injector/precheck.go',
      recognise: 'the kuma-cp image kumahq/kuma-cp:2.x (container control-plane)',
      bugs: [
        {
          // injector.go NewValidationContainer (2.7.0 to 2.8.8) set no allowPrivilegeEscalation on the
          // kuma-validation init container the CNI mode injects: Pod Security Admission at `restricted`
          // refuses every injected pod ("allowPrivilegeEscalation != false (container "kuma-validation"
          // must set securityContext.allowPrivilegeEscalation=false)"). kumahq/kuma#11176; 2.6.0 has no
          // validation container; 2.9.0 sets it (not backported: 2.7.x and 2.8.x keep the bug).
          id: 'kumahq/kuma#11176',
          text: 'with the CNI enabled, the injected init container kuma-validation does not set allowPrivilegeEscalation: false, so a namespace enforcing the restricted Pod Security Standard refuses every injected pod',
          affected: { from: '2.7.0', to: '2.8.8' },
          fixedIn: '2.9.0',
          symptom: {
            on: 'workload',
            shows: 'create-refused',
            message: 'allowPrivilegeEscalation != false',
            about: 'named',
            container: 'kuma-validation',
          },
          source:
            'kumahq/kuma@b04bb083 (fix(injector): set allowPrivilegeEscalation: false on kuma-validation container, #11178, in tag 2.9.0) pkg/plugins/runtime/k8s/webhooks/injector/injector.go',
        },
        {
          // injector.go 2.9.0 kept the injected init container in a value, not a pointer: with the CNI
          // enabled and no inbound redirect (a gateway, kuma.io/transparent-proxying-inbound... off) it
          // injected an empty one, and the API server refuses the pod ("spec.initContainers[0].name:
          // Required value, spec.initContainers[0].image: Required value"). kumahq/kuma#11993.
          id: 'kumahq/kuma#11993',
          text: 'with the CNI enabled, the injector adds an empty init container (no name, no image) to pods whose inbound traffic is not redirected, so the API server refuses them as invalid',
          affected: { from: '2.9.0', to: '2.9.0' },
          fixedIn: '2.9.1',
          symptom: {
            on: 'workload',
            shows: 'create-refused',
            message: 'is invalid',
            about: 'matches',
            pattern: 'spec\\.initContainers\\[\\d+\\]\\.name: Required value',
          },
          source:
            'kumahq/kuma@9beda2b2 (fix(cni): delegated gateway was not correctly injected, backport of #11922 as #11928, in tag 2.9.1; @ebcc4be5 in 2.10.0) pkg/plugins/runtime/k8s/webhooks/injector/injector.go',
        },
        // The CNI installer's own bug, judged by the kuma-cni release on the pod's node.
        ...KUMA_CNI_BUGS,
      ],
    },
  ],
  domains: ['kuma.io', 'traffic.kuma.io'],
  keySource:
    'kumahq/kuma pkg/plugins/runtime/k8s/metadata/annotations.go and labels.go at each minor tag, 1.0.0 @0fd6b985 to v2.14.0 @51c6d381',
  stored: KUMA_STORED,
  values: KUMA_VALUES,
  keys: [
    { key: 'kuma.io/application-probe-proxy-port', from: '2.9', does: 'a port for proxying application probes' },
    { key: 'kuma.io/builtin-dns', from: '1.8', does: 'the sidecar will use its builtin DNS' },
    { key: 'kuma.io/builtin-dns-logging', from: '2.6', does: '' },
    { key: 'kuma.io/builtin-dns-port', from: '1.8', does: '' },
    {
      key: 'kuma.io/builtindns',
      from: '1.2',
      to: '2.1',
      does: 'Remove with: https://github.com/kumahq/kuma/issues/4675',
    },
    { key: 'kuma.io/builtindnsport', from: '1.2', to: '2.1', does: '' },
    {
      key: 'kuma.io/container-patches',
      from: '1.7',
      does: 'a comma-separated list of ContainerPatch names to be applied to injected containers on a given workload',
    },
    {
      key: 'kuma.io/direct-access-services',
      from: '1.0',
      does: 'a comma-separated list of Services that will be accessed directly',
    },
    {
      key: 'kuma.io/egress',
      from: '1.5',
      does: 'allows marking pod with Kuma Egress which is crucial for Multizone communication',
    },
    { key: 'kuma.io/envoy-admin-port', from: '1.5', does: '' },
    { key: 'kuma.io/envoy-component-log-level', from: '2.5', does: '' },
    { key: 'kuma.io/envoy-log-level', from: '1.8', does: 'allows to control Envoy log level' },
    {
      key: 'kuma.io/gateway',
      from: '1.0',
      does: "allows to mark Gateway pod, inbound listeners won't be generated in that case",
    },
    { key: 'kuma.io/ignore', from: '1.4', does: '' },
    {
      key: 'kuma.io/ingress',
      from: '1.0',
      does: 'allows to mark pod with Kuma Ingress which is crucial for Multizone communication',
    },
    {
      key: 'kuma.io/ingress-public-address',
      from: '1.0',
      does: 'allows to pick public address for Ingress If not defined, Kuma will try to pick this address from the Ingress Service',
    },
    {
      key: 'kuma.io/ingress-public-port',
      from: '1.0',
      does: 'allows to pick public port for Ingress If not defined, Kuma will try to pick this address from the Ingress Service',
    },
    {
      key: 'kuma.io/init-first',
      from: '2.3',
      does: 'allows to specify whether the init container should be prepended or appended to the existing list of init containers',
    },
    {
      key: 'kuma.io/managed-by',
      from: '2.8',
      to: '2.8',
      does: 'points to the Service that a MeshService is derived from',
    },
    { key: 'kuma.io/mesh', from: '1.0', does: 'a Pod label to associate objects with a particular Mesh' },
    { key: 'kuma.io/reachable-backends', from: '2.9', does: '' },
    {
      key: 'kuma.io/service-account-token-volume',
      from: '1.6',
      does: 'allows to specify which volume contains the service account token',
    },
    { key: 'kuma.io/sidecar-drain-time', from: '1.7', does: 'allows to specify drain time of Kuma DP sidecar' },
    {
      key: 'kuma.io/sidecar-env-vars',
      from: '1.1',
      does: 'a ; separated list of env vars that will be applied on Kuma Sidecar Example value: TEST1=1;TEST2=2',
    },
    { key: 'kuma.io/sidecar-injected', from: '1.0', does: '' },
    {
      key: 'kuma.io/sidecar-injection',
      from: '1.0',
      does: 'a Pod/Namespace annotation that gives users an ability to enable or disable sidecar-injection',
    },
    {
      key: 'kuma.io/sidecar-proxy-concurrency',
      from: '1.4',
      does: 'an integer value that explicitly sets the Envoy proxy concurrency in the Kuma sidecar',
    },
    { key: 'kuma.io/sidecar-uid', from: '1.3', does: '' },
    { key: 'kuma.io/tags', from: '1.5', does: 'holds a JSON representation of desired tags' },
    { key: 'kuma.io/transparent-proxying', from: '1.0', does: '' },
    { key: 'kuma.io/transparent-proxying-ebpf', from: '2.0', does: '' },
    { key: 'kuma.io/transparent-proxying-ebpf-bpf-fs-path', from: '2.0', does: '' },
    { key: 'kuma.io/transparent-proxying-ebpf-cgroup-path', from: '2.0', does: '' },
    { key: 'kuma.io/transparent-proxying-ebpf-instance-ip-env-var-name', from: '2.0', does: '' },
    { key: 'kuma.io/transparent-proxying-ebpf-programs-source-path', from: '2.0', does: '' },
    { key: 'kuma.io/transparent-proxying-ebpf-tc-attach-iface', from: '2.0', does: '' },
    {
      key: 'kuma.io/transparent-proxying-engine-v1',
      from: '2.2',
      to: '2.8',
      does: 'enables transparent proxy engine v1 (legacy)',
    },
    {
      key: 'kuma.io/transparent-proxying-experimental-engine',
      from: '1.7',
      to: '2.1',
      does: 'enables experimental transparent proxy engine',
    },
    { key: 'kuma.io/transparent-proxying-inbound-port', from: '1.0', does: '' },
    { key: 'kuma.io/transparent-proxying-inbound-v6-port', from: '1.2', to: '2.8', does: '' },
    { key: 'kuma.io/transparent-proxying-ip-family-mode', from: '2.7', does: '' },
    { key: 'kuma.io/transparent-proxying-outbound-port', from: '1.0', does: '' },
    { key: 'kuma.io/transparent-proxying-reachable-services', from: '1.5', does: '' },
    { key: 'kuma.io/virtual-probes', from: '1.0', does: 'enables automatic converting HttpGet probes to virtual' },
    { key: 'kuma.io/virtual-probes-port', from: '1.0', does: 'an insecure port for listening virtual probes' },
    {
      key: 'kuma.io/wait-for-dataplane-ready',
      from: '2.4',
      does: 'allows to specify if the application sidecar should be hold until Envoy is ready',
    },
    { key: 'kuma.io/workload', from: '2.13', does: 'the workload identifier associated with the Pod' },
    {
      key: 'kuma.io/xds-transport-protocol-variant',
      from: '2.11',
      does: 'allows to specify mode in which control-plane exchange configuration with the sidecar',
    },
    { key: 'traffic.kuma.io/drop-invalid-packets', from: '2.9', does: '' },
    { key: 'traffic.kuma.io/exclude-inbound-ips', from: '2.9', does: '' },
    { key: 'traffic.kuma.io/exclude-inbound-ports', from: '1.0', does: '' },
    { key: 'traffic.kuma.io/exclude-outbound-ips', from: '2.9', does: '' },
    { key: 'traffic.kuma.io/exclude-outbound-ports', from: '1.0', does: '' },
    { key: 'traffic.kuma.io/exclude-outbound-ports-for-uids', from: '2.5', does: '' },
    { key: 'traffic.kuma.io/exclude-outbound-tcp-ports-for-uids', from: '2.0', to: '2.8', does: '' },
    { key: 'traffic.kuma.io/exclude-outbound-udp-ports-for-uids', from: '2.0', to: '2.8', does: '' },
    { key: 'traffic.kuma.io/iptables-logs', from: '2.9', does: '' },
    {
      key: 'traffic.kuma.io/transparent-proxy-config',
      from: '2.9',
      does: 'an annotation used to pass a YAML with the transparent proxy configuration in CNI mode, allowing the new logic to retrieve the config from t',
    },
    {
      key: 'traffic.kuma.io/transparent-proxy-configmap-name',
      from: '2.9',
      does: 'an annotation used to specify the name of the ConfigMap containing the transparent proxy configuration',
    },
  ],
};
