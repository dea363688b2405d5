/**
 * Istio releases as data (issue 32.4): typed constants, no functions; read through releaseFacts
 * (src/mesh/releases.ts). Rows keyed by release range, oldest first, each with its source; the
 * keys of its domain from istio/api annotation/annotations.yaml, label/labels.yaml (1.10+) and
 * label/label.go (1.6 to 1.9) at each minor tag. OpenShift Service Mesh (maistra) versions map
 * to the Istio release they are built from.
 */
import type { KubernetesSupport } from '../profile.js';
import type { ReleaseTable, StoredValueRule, ValueReading } from '../release-table.js';
import { ISTIO_VALUES } from './key-values.js';
import { ISTIO_1_11_BUGS, ISTIO_1_28_BUGS, ISTIO_OLDER_BUGS } from './release-bugs.js';
import { ISTIO_ENDING } from './ending.js';
import { ISTIO_PROBES } from './probes.js';

/**
 * How istiod reads `sidecar.istio.io/inject` (label, else annotation) before 1.27: lower-cased
 * y/yes/true/on inject, "" defers to the selectors and policy, any other value is an explicit "do
 * not inject" (istio/istio@c2e9871f, tag 1.26.0, pkg/kube/inject/inject.go line 225). The data
 * document reads the marker so whatever the release (it is what the owner means: data.ts).
 */
export const ISTIO_LOOSE_READING = {
  key: 'sidecar.istio.io/inject',
  inject: ['y', 'yes', 'true', 'on'],
  skip: ['false'],
  ignore: [''],
  caseInsensitive: true,
  otherwise: 'skip',
} as const satisfies ValueReading;

/**
 * From 1.27.0: only "true" and "false" count; any other value is logged ("Invalid value for ...")
 * and ignored, the never/always selectors and the policy decide (istio/istio@7359d8be, tag 1.27.0,
 * pkg/kube/inject/inject.go lines 227-237; commit 331d32e3, istio/istio#56737).
 */
const EXACT_READING = {
  key: 'sidecar.istio.io/inject',
  inject: ['true'],
  skip: ['false'],
  ignore: [''],
  otherwise: 'invalid',
} as const satisfies ValueReading;

/**
 * Supported Kubernetes versions per release (moved here from support.ts, issue 32.4).
 *
 * istio.io's support table, data/compatibility/supportStatus.yml (`k8sVersions` per release), as
 * served from raw.githubusercontent.com/istio/istio.io/master (read from the docs index, no commit:
 * rows 1.26 to 1.30), and the page it renders, istio.io/latest/docs/releases/supported-releases
 * "Support status of Istio releases" (the zh copy in the docs index: rows 1.23 to 1.25).
 */
const TABLE = 'istio.io data/compatibility/supportStatus.yml (raw.githubusercontent.com/istio/istio.io/master)';
const PAGE = 'istio.io/latest/docs/releases/supported-releases "Support status of Istio releases"';
export const ISTIO_KUBERNETES: readonly KubernetesSupport[] = [
  { release: '1.30', min: '1.32', max: '1.36', source: TABLE },
  { release: '1.29', min: '1.31', max: '1.35', source: TABLE },
  { release: '1.28', min: '1.30', max: '1.34', source: TABLE },
  { release: '1.27', min: '1.29', max: '1.33', source: TABLE },
  { release: '1.26', min: '1.29', max: '1.33', source: TABLE },
  { release: '1.25', min: '1.29', max: '1.32', source: PAGE },
  { release: '1.24', min: '1.28', max: '1.31', source: PAGE },
  { release: '1.23', min: '1.27', max: '1.30', source: PAGE },
];

/**
 * Values of the injector ConfigMap's Helm values (istio-sidecar-injector[-<revision>], key `values`) that releases
 * cannot use (issue 31.6/31.7, gen13values): the injection template reads them per pod, so every pod fails alike.
 */
const ISTIO_STORED: readonly StoredValueRule[] = [
  {
    configMap: 'istio-sidecar-injector',
    key: 'values',
    path: 'pilot.cni',
    from: '1.22',
    bad: { type: 'boolean' },
    expects:
      'an object: its injection template reads pilot.cni.enabled and pilot.cni.provider (write pilot.cni.enabled)',
    fails: { on: 'injection', says: 'failed to run injection template' },
    source:
      'istio/istio@aaf597fb (1.22.0) manifests/charts/istio-control/istio-discovery/files/injection-template.yaml lines 48-143 (`or .Values.pilot.cni.enabled .Values.istio_cni.enabled`, `.Values.pilot.cni.provider`); @2ca3e986 (1.21.0) reads .Values.istio_cni.enabled only; istio/istio#51071',
  },
  {
    configMap: 'istio-sidecar-injector',
    key: 'values',
    path: 'global.proxy_init.image',
    from: '1.5',
    bad: { matches: '(^|/)proxy_init(:|$)' },
    expects: 'the image of istio-init, proxyv2 since 1.4 (no proxy_init image is published for 1.4 or later)',
    fails: { on: 'image', containers: ['istio-init'] },
    source:
      'istio/istio@c4def934 (1.4.0) install/kubernetes/helm/istio/values.yaml lines 304-306 (global.proxy_init.image: proxyv2; @c2bd5959, 1.3.0: proxy_init); istio/istio#19131, #20764',
  },
];

/**
 * Istio's releases. `injectorBuilds`: the standalone sidecar injector (Deployment istio-sidecar-injector, up to 1.5, and OpenShift
 * Service Mesh 1.x): its ClusterRole grants configmaps and mutatingwebhookconfigurations only for
 * named objects (resourceNames istio-sidecar-injector), and it reads no node: no cluster-wide
 * permission the injection depends on (istio/istio@f1860202
 * manifests/istio-control/istio-autoinject/templates/clusterrole.yaml): `injectorBuilds`.
 */
export const ISTIO_RELEASES: ReleaseTable = {
  order: [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30].map(
    (n) => `1.${n}`,
  ),
  distributions: [
    {
      title: 'OpenShift Service Mesh',
      image: '(openshift-service-mesh|maistra)/',
      versions: [
        {
          prefix: '2.0',
          release: '1.6',
          source: 'docs.openshift.com service_mesh/v2x/servicemesh-release-notes "Component versions" (2.0: Istio 1.6)',
        },
        { prefix: '2.1', release: '1.9', source: 'the same page (2.1: Istio 1.9)' },
        { prefix: '2.2', release: '1.12', source: 'the same page (2.2: Istio 1.12)' },
        { prefix: '2.3', release: '1.14', source: 'the same page (2.3: Istio 1.14)' },
        { prefix: '2.4', release: '1.16', source: 'the same page (2.4: Istio 1.16)' },
        { prefix: '2.5', release: '1.18', source: 'the same page (2.5: Istio 1.18)' },
        { prefix: '2.6', release: '1.20', source: 'the same page (2.6: Istio 1.20)' },
      ],
      // Its istiod ClusterRole grants no admissionregistration rule (the operator's webhookca controller patches the
      // injection webhook's caBundle: pkg/controller/servicemesh/webhookca/controller.go) and is bound by a RoleBinding
      // in the control plane namespace unless global.clusterWide: no cluster-wide permission the injection depends on.
      injectorRbac: [],
      injectorRbacSource:
        'maistra/istio-operator@8143614c resources/helm/v2.0 and v2.5/istio-control/istio-discovery/templates/clusterrole.yaml, clusterrolebinding.yaml',
      // Its operator renders istiod from the ServiceMeshControlPlane (no istio/istiod chart is installed; 2.5.1 is no
      // chart version): pkg/apis/maistra/conversion/proxy.go lines 176-191 (spec.proxy.injection.autoInject true/false
      // renders global.proxy.autoInject enabled/disabled), runtime.go lines 336-340 (spec.runtime.components.pilot
      // .container.resources renders pilot.resources); pkg/controller/common/metadata.go OwnerNameKey (the rendered
      // objects are labelled maistra.io/owner-name: <SMCP>); istiod is Deployment istiod-<SMCP> (resources/helm/v2.5).
      installedBy: {
        operator: 'the OpenShift Service Mesh operator',
        kind: 'ServiceMeshControlPlane',
        resource: 'servicemeshcontrolplane',
        nameLabel: 'maistra.io/owner-name',
        namePrefix: 'istiod-',
        values: [
          {
            key: 'global.proxy.autoInject',
            field: 'spec.proxy.injection.autoInject',
            values: { enabled: true, disabled: false },
          },
          {
            key: 'pilot.resources.limits.memory',
            field: 'spec.runtime.components.pilot.container.resources.limits.memory',
          },
        ],
        source:
          'maistra/istio-operator@8143614c pkg/apis/maistra/conversion/proxy.go, runtime.go; pkg/controller/common/metadata.go',
      },
    },
  ],
  injectorBuilds: [
    {
      title: 'the standalone sidecar injector',
      // Mirrors keep the image's name behind a prefix: rancher/istio-sidecar_injector (Rancher's chart, rancher/rancher#28950).
      image: '(^|/)(istio-)?sidecar_injector(-rhel\\d+)?[:@]|/sidecar-injector-rhel\\d+[:@]',
      injectorRbac: [],
      source: 'istio/istio@f1860202 manifests/istio-control/istio-autoinject/templates/clusterrole.yaml',
    },
  ],
  olderBugs: [
    ...ISTIO_OLDER_BUGS,
    {
      // 1.0.3's injection template (sidecar-injector-configmap.yaml) turned every pod label into an env var
      // ISTIO_META_<label key> (#9208): a label key with a prefix ("app.kubernetes.io/name") makes an env name with
      // a '/', which the API server refuses, so no pod with such a label is created. 1.0.4 encodes the labels as
      // JSON in one variable, ISTIO_METAJSON_LABELS (#9634). istio/istio#9571, #9605, #9982, #10512.
      id: 'istio/istio#9571',
      text: 'the injection template turns every pod label into an env var ISTIO_META_<label key>, and a label key with a prefix and a slash (app.kubernetes.io/name) makes an env var name the API server refuses',
      affected: { from: '1.0.3', to: '1.0.3' },
      fixedIn: '1.0.4',
      symptom: {
        on: 'workload',
        shows: 'create-refused',
        message: 'a valid environment variable name',
        about: 'matches',
        pattern: 'Invalid value: \\\\?"ISTIO_META_[^"\\\\]{0,253}/',
      },
      source:
        'istio/istio@a44d4c8b (1.0.3) install/kubernetes/helm/istio/templates/sidecar-injector-configmap.yaml line 140; @52da3bce (Inject: Encode labels as json similar to annotations, #9634, in tag 1.0.4 @d5cb99f4)',
    },
  ],
  rows: [
    // What these releases do with the app's probes (src/mesh/istio/probes.ts).
    ...ISTIO_PROBES,
    // How these releases let a pod meant to end end (src/mesh/istio/ending.ts).
    ...ISTIO_ENDING,
    {
      from: '1.5',
      to: '1.5',
      source:
        'istio/istio@f1860202 manifests/istio-control/istio-autoinject/templates (the standalone injector, global.istiod.enabled false)',
      recognise:
        'Deployment istio-sidecar-injector, image istio/sidecar_injector:1.5.x (container sidecar-injector-webhook), or istiod with image istio/pilot:1.5.x',
      webhook: 'MutatingWebhookConfiguration istio-sidecar-injector, namespaceSelector istio-injection=enabled',
      bugs: [
        {
          // istio/istio#23027 (fixed by #22738 on master): istiod-injector-configmap.yaml rendered
          // `alwaysInjectSelector:` / `neverInjectSelector:` with the first list line indented twice
          // (`      {{ toYaml ... | indent 6 }}`): a selector set in sidecarInjectorWebhook makes the
          // injector ConfigMap's config invalid and istiod (and the standalone injector reading
          // it) crash on start. Fixed in 1.5.2 by the cherry-pick #23033.
          id: 'istio/istio#23027',
          text: 'with sidecarInjectorWebhook.alwaysInjectSelector or neverInjectSelector set, the istiod chart renders the injector ConfigMap with a mis-indented selector list and the injector crash-loops on start',
          affected: { from: '1.5.0', to: '1.5.1' },
          fixedIn: '1.5.2',
          symptom: { on: 'injector', shows: 'crash-loop', image: '(^|/)pilot(-rhel\\d+)?[:@]' },
          source:
            'istio/istio@13aa33b5 (1.5: Fix injector indent, #23033, in tag 1.5.2) manifests/istio-control/istio-discovery/templates/istiod-injector-configmap.yaml',
        },
      ],
    },
    {
      // istiod's ClusterRole istiod-<namespace> came from the base chart, bound to ServiceAccount
      // istiod-service-account (ClusterRoleBinding istiod-pilot-<namespace> to 1.7, istiod-<namespace> from 1.8),
      // and granted mutatingwebhookconfigurations without update up to 1.6.x: a healthy 1.6 istiod holds only these.
      // Istio 1.5's istiod (global.istiod.enabled) had the same rules from the istio-discovery chart: ClusterRole
      // istiod-<namespace> (mutatingwebhookconfigurations get, list, watch, patch) bound by istiod-<namespace>, and
      // configmaps from ClusterRole istio-pilot-<namespace> bound by istio-pilot-<namespace>.
      from: '1.5',
      to: '1.10',
      source:
        'istio/istio@c3c35328 (1.5.0) manifests/istio-control/istio-discovery/templates/clusterrole.yaml, clusterrolebinding.yaml; @3ddc57b6 (1.6.14) manifests/charts/base/templates/clusterrole.yaml, clusterrolebinding.yaml; @d26cba7e (1.10.0) the same files',
      recognise: 'istiod image istio/pilot:1.x (container discovery), ServiceAccount istiod-service-account',
      injectorRbac: [
        {
          group: 'admissionregistration.k8s.io',
          resource: 'mutatingwebhookconfigurations',
          verbs: ['get', 'list', 'watch', 'patch'],
          why: "patches its injection webhook's caBundle",
        },
        {
          group: '',
          resource: 'configmaps',
          verbs: ['get', 'list', 'watch'],
          why: 'reads its injection template (istio-sidecar-injector)',
        },
      ],
    },
    {
      // Istio 1.5's istio-discovery chart: ClusterRole istiod-<namespace> bound by istiod-<namespace>.
      from: '1.5',
      to: '1.5',
      source:
        'istio/istio@c3c35328 (1.5.0) manifests/istio-control/istio-discovery/templates/clusterrole.yaml, clusterrolebinding.yaml',
      injectorRbacNames: { clusterRole: 'istiod-<namespace>', clusterRoleBinding: 'istiod-<namespace>' },
    },
    {
      // The base chart's names: ClusterRole istiod-<namespace> bound by istiod-pilot-<namespace> (1.6, 1.7).
      from: '1.6',
      to: '1.7',
      source:
        'istio/istio@3ddc57b6 (1.6.14), @20223481 (1.7.0) manifests/charts/base/templates/clusterrole.yaml, clusterrolebinding.yaml',
      injectorRbacNames: { clusterRole: 'istiod-<namespace>', clusterRoleBinding: 'istiod-pilot-<namespace>' },
    },
    {
      // From 1.8 the binding is named as the role: istiod-<namespace> (to 1.10; 1.11 renames both).
      from: '1.8',
      to: '1.10',
      source:
        'istio/istio@c87a4c87 (1.8.0), @d26cba7e (1.10.0) manifests/charts/base/templates/clusterrole.yaml, clusterrolebinding.yaml',
      injectorRbacNames: { clusterRole: 'istiod-<namespace>', clusterRoleBinding: 'istiod-<namespace>' },
    },
    {
      from: '1.11',
      source:
        'istio/istio manifests/charts/istio-control/istio-discovery/templates/clusterrole.yaml (istiod-clusterrole-<namespace> from 1.11.0 @57d639a4; 1.28.0 @b8d1df54)',
      recognise:
        'istiod image istio/pilot:1.x (container discovery); labels app.kubernetes.io/version and helm.sh/chart istiod-<version> from 1.24',
      injectorRbac: 'today',
      bugs: ISTIO_1_11_BUGS,
    },
    {
      from: '1.5',
      to: '1.26',
      source: 'istio/istio@c2e9871f (1.26.0) pkg/kube/inject/inject.go injectRequired, line 225',
      parses: [ISTIO_LOOSE_READING],
    },
    {
      from: '1.27',
      source: 'istio/istio@7359d8be (1.27.0) pkg/kube/inject/inject.go injectRequired, lines 227-237 (331d32e3)',
      parses: [EXACT_READING],
      bugs: ISTIO_1_28_BUGS,
    },
  ],
  domains: ['sidecar.istio.io', 'istio.io', 'proxy.istio.io', '.sidecar.istio.io'],
  templateOnly: {
    keys: [
      'sidecar.istio.io/proxyCPU',
      'sidecar.istio.io/proxyCPULimit',
      'sidecar.istio.io/proxyMemory',
      'sidecar.istio.io/proxyMemoryLimit',
    ],
    source:
      'istio/istio@ae959de3 (1.5.9) manifests/istio-control/istio-discovery/files/injection-template.yaml (isset .ObjectMeta.Annotations), @86c9f01f manifests/charts/istio-control/istio-discovery/files/injection-template.yaml; no Go file of pkg/kube/inject reads them (1.10.0, 1.20.0, 1.28.0)',
  },
  keySource:
    'istio/api annotation/annotations.yaml, label/labels.yaml, label/label.go at 1.5.0 @891bf31f, 1.6.0 @2c1705ec, 1.10.0 @c42041d3, 1.16.0 @b9e5d446, 1.24.0 @9397ebf0, 1.28.0 @a5aa715c, 1.30.0 @a283232d and every minor tag between',
  values: ISTIO_VALUES,
  stored: ISTIO_STORED,
  keys: [
    {
      key: 'istio.io/autoRegistrationGroup',
      from: '1.13',
      does: 'On a WorkloadEntry stores the associated WorkloadGroup',
    },
    {
      key: 'istio.io/connectedAt',
      from: '1.13',
      does: 'On a WorkloadEntry stores the time in nanoseconds when the associated workload connected to a Pilot instance',
    },
    { key: 'istio.io/dataplane-mode', from: '1.24', does: '' },
    {
      key: 'istio.io/disconnectedAt',
      from: '1.13',
      does: 'On a WorkloadEntry stores the time in nanoseconds when the associated workload disconnected from a Pilot instance',
    },
    { key: 'istio.io/dry-run', from: '1.10', does: 'Specifies whether or not the given resource is in dry-run mode' },
    { key: 'istio.io/ingress-use-waypoint', from: '1.30', does: '' },
    { key: 'istio.io/reroute-virtual-interfaces', from: '1.25', does: '' },
    {
      key: 'istio.io/rev',
      from: '1.6',
      does: 'Specifies a control plane revision to which a given proxy is connected',
    },
    {
      key: 'istio.io/tag',
      from: '1.24',
      does: 'Istio control plane tag name associated with the resource - for internal use only',
    },
    { key: 'istio.io/use-waypoint', from: '1.24', does: '' },
    { key: 'istio.io/use-waypoint-namespace', from: '1.24', does: '' },
    { key: 'istio.io/waypoint-for', from: '1.24', does: '' },
    {
      key: 'istio.io/workloadController',
      from: '1.13',
      does: 'On a WorkloadEntry should store the current/last pilot instance connected to the workload for XDS',
    },
    {
      key: 'proxy.istio.io/config',
      from: '1.6',
      does: 'Overrides for the proxy configuration for this specific proxy',
    },
    {
      key: 'proxy.istio.io/overrides',
      from: '1.11',
      does: 'Used internally to indicate user-specified overrides in the proxy container of the pod during injection',
    },
    {
      key: 'readiness.status.sidecar.istio.io/applicationPorts',
      from: '1.5',
      does: 'Specifies the list of ports exposed by the application container',
    },
    {
      key: 'readiness.status.sidecar.istio.io/failureThreshold',
      from: '1.5',
      does: 'Specifies the failure threshold for the Envoy sidecar readiness probe',
    },
    {
      key: 'readiness.status.sidecar.istio.io/initialDelaySeconds',
      from: '1.5',
      does: 'Specifies the initial delay (in seconds) for the Envoy sidecar readiness',
    },
    {
      key: 'readiness.status.sidecar.istio.io/periodSeconds',
      from: '1.5',
      does: 'Specifies the period (in seconds) for the Envoy sidecar readiness probe',
    },
    { key: 'sidecar.istio.io/agentLogLevel', from: '1.10', does: 'Specifies the log output level for pilot-agent' },
    {
      key: 'sidecar.istio.io/bootstrapOverride',
      from: '1.5',
      does: 'Specifies an alternative Envoy bootstrap configuration file',
    },
    { key: 'sidecar.istio.io/componentLogLevel', from: '1.5', does: 'Specifies the component log level for Envoy' },
    {
      key: 'sidecar.istio.io/controlPlaneAuthPolicy',
      from: '1.5',
      to: '1.23',
      does: 'Specifies the auth policy used by the Istio control plane',
    },
    {
      key: 'sidecar.istio.io/discoveryAddress',
      from: '1.5',
      does: 'Specifies the XDS discovery address to be used by the Envoy',
    },
    {
      key: 'sidecar.istio.io/enableCoreDump',
      from: '1.5',
      to: '1.24',
      does: 'Specifies whether or not an Envoy sidecar should enable core dump',
    },
    {
      key: 'sidecar.istio.io/extraStatTags',
      from: '1.12',
      does: 'An additional list of tags to extract from the in-proxy Istio Wasm telemetry',
    },
    {
      key: 'sidecar.istio.io/inject',
      from: '1.5',
      does: 'Specifies whether or not an Envoy sidecar should be automatically',
    },
    {
      key: 'sidecar.istio.io/interceptionMode',
      from: '1.5',
      does: 'Specifies the mode used to redirect inbound connections to Envoy',
    },
    { key: 'sidecar.istio.io/logLevel', from: '1.5', does: 'Specifies the log level for Envoy' },
    {
      key: 'sidecar.istio.io/nativeSidecar',
      from: '1.24',
      does: 'Specifies if the istio-proxy sidecar should be injected as a',
    },
    {
      key: 'sidecar.istio.io/proxyCPU',
      from: '1.5',
      does: 'Specifies the requested CPU setting for the Envoy sidecar',
    },
    { key: 'sidecar.istio.io/proxyCPULimit', from: '1.6', does: 'Specifies the CPU limit for the Envoy sidecar' },
    {
      key: 'sidecar.istio.io/proxyImage',
      from: '1.5',
      does: 'Specifies the Docker image to be used by the Envoy sidecar',
    },
    {
      key: 'sidecar.istio.io/proxyImageType',
      from: '1.13',
      does: 'Specifies the Docker image type to be used by the Envoy sidecar',
    },
    {
      key: 'sidecar.istio.io/proxyMemory',
      from: '1.5',
      does: 'Specifies the requested memory setting for the Envoy sidecar',
    },
    { key: 'sidecar.istio.io/proxyMemoryLimit', from: '1.6', does: 'Specifies the memory limit for the Envoy sidecar' },
    {
      key: 'sidecar.istio.io/rewriteAppHTTPProbers',
      from: '1.5',
      does: 'Rewrite HTTP readiness and liveness probes to be redirected to',
    },
    { key: 'sidecar.istio.io/statsCompression', from: '1.26', does: '' },
    {
      key: 'sidecar.istio.io/statsEvictionInterval',
      from: '1.28',
      does: 'Specifies the expiration interval for the Istio standard',
    },
    {
      key: 'sidecar.istio.io/statsFlushInterval',
      from: '1.28',
      does: 'Specifies the flush interval for push-based stat sinks, e.g',
    },
    {
      key: 'sidecar.istio.io/statsHistogramBins',
      from: '1.28',
      does: 'Specifies the bin size per time series for the Istio standard',
    },
    {
      key: 'sidecar.istio.io/statsHistogramBuckets',
      from: '1.19',
      does: 'Specifies the custom histogram buckets with a prefix matcher to separate the Istio mesh metrics from the Envoy stats, e.g',
    },
    {
      key: 'sidecar.istio.io/statsInclusionPrefixes',
      from: '1.5',
      does: 'Specifies the comma separated list of prefixes of the stats to be',
    },
    {
      key: 'sidecar.istio.io/statsInclusionRegexps',
      from: '1.5',
      does: 'Specifies the comma separated list of regexes the stats should match',
    },
    {
      key: 'sidecar.istio.io/statsInclusionSuffixes',
      from: '1.5',
      does: 'Specifies the comma separated list of suffixes of the stats to be',
    },
    {
      key: 'sidecar.istio.io/status',
      from: '1.5',
      does: 'Generated by Envoy sidecar injection that indicates the status of',
    },
    {
      key: 'sidecar.istio.io/userVolume',
      from: '1.5',
      does: 'Specifies one or more user volumes (as a JSON array) to be added to',
    },
    {
      key: 'sidecar.istio.io/userVolumeMount',
      from: '1.5',
      does: 'Specifies one or more user volume mounts (as a JSON array) to be added',
    },
    { key: 'status.sidecar.istio.io/port', from: '1.5', does: 'Specifies the HTTP status Port for the Envoy sidecar' },
    {
      key: 'traffic.sidecar.istio.io/excludeInboundPorts',
      from: '1.5',
      does: 'A comma separated list of inbound ports to be excluded from redirection',
    },
    {
      key: 'traffic.sidecar.istio.io/excludeInterfaces',
      from: '1.15',
      does: 'A comma separated list of interfaces to be excluded from Istio traffic capture',
    },
    {
      key: 'traffic.sidecar.istio.io/excludeOutboundIPRanges',
      from: '1.5',
      does: 'A comma separated list of IP ranges in CIDR form to be excluded from',
    },
    {
      key: 'traffic.sidecar.istio.io/excludeOutboundPorts',
      from: '1.5',
      does: 'A comma separated list of outbound ports to be excluded from redirection',
    },
    {
      key: 'traffic.sidecar.istio.io/includeInboundPorts',
      from: '1.5',
      does: 'A comma separated list of inbound ports for which traffic is to be',
    },
    {
      key: 'traffic.sidecar.istio.io/includeOutboundIPRanges',
      from: '1.5',
      does: 'A comma separated list of IP ranges in CIDR form to redirect to Envoy',
    },
    {
      key: 'traffic.sidecar.istio.io/includeOutboundPorts',
      from: '1.7',
      does: 'A comma separated list of outbound ports for which traffic is to be',
    },
    {
      key: 'traffic.sidecar.istio.io/kubevirtInterfaces',
      from: '1.5',
      does: 'A comma separated list of virtual interfaces whose inbound traffic',
    },
  ],
};
