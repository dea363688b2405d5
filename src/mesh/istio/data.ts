/**
 * Istio as data (issue 32 item 4): the constants of its profile, which profileFrom
 * (src/mesh/profile-from.ts) turns into the profile with the behaviour in index.ts (its revisions,
 * its injector's decision, what istiod's Deployment and ConfigMaps say). Sources, istio/istio at
 * 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c unless said otherwise:
 * manifests/charts/istio-control/istio-discovery (templates/mutatingwebhook.yaml, service.yaml,
 * deployment.yaml, files/injection-template.yaml, values.yaml), pkg/kube/inject (inject.go,
 * webhook.go); tag 1.26.0 (c2e9871f) for the marker reading before 1.27.
 */
import { comment } from '../../fix/steps.js';
import type { MeshData } from '../mesh-data.js';
import { ISTIO_IGNORED_NAMESPACES, ISTIO_INJECT, ISTIO_NS_LABEL, ISTIO_REV } from './injector.js';
import { istioNetwork } from './network.js';
import { istioComponents } from './components.js';
import { ISTIO_KUBERNETES, ISTIO_LOOSE_READING, ISTIO_RELEASES } from './releases.js';
import { ISTIO_RBAC_NEEDS, ISTIO_SKEW } from './support.js';

/** The injection webhooks' names end so (sidecar-injector.istio.io, its revision and tag variants). */
export const ISTIO_WEBHOOK_SUFFIX = 'sidecar-injector.istio.io';
/** The default revision's webhook configuration and injector ConfigMap (`-<revision>` for the others). */
export const ISTIO_CONFIG = 'istio-sidecar-injector';

/**
 * How Istio reads `sidecar.istio.io/inject` as its owner means it: the loose reading every
 * release before 1.27 had, which 1.27 and later keep for "true" and "false". The injector's own
 * reading, release by release, is the release table's `parses` (releases.ts).
 */
const { key: _key, ...LOOSE } = ISTIO_LOOSE_READING;

export const ISTIO_DATA = {
  name: 'istio',
  title: 'Istio',

  containers: {
    proxy: 'istio-proxy',
    init: ['istio-init'],
    image: /(^|\/)proxyv2(:|@|$)/,
  },

  controlPlane: {
    namespace: 'istio-system',
    ownNamespaces: ['istio-system', ...ISTIO_IGNORED_NAMESPACES],
    excludedNamespaces: [],
    injector: {
      name: 'istiod',
      container: 'discovery',
      // istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/templates/service.yaml#L30-L33
      // (https-webhook 443 -> 15017), deployment.yaml#L140.
      webhookPort: 15017,
      podSelector: 'app=istiod',
    },
    webhooks: { config: ISTIO_CONFIG, nameSuffix: ISTIO_WEBHOOK_SUFFIX },
    // istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/templates/deployment.yaml#L65 (istiod's pods
    // carry sidecar.istio.io/inject: "false"), mutatingwebhook.yaml#L82-L100, #L124-L127 (NotIn ["false"]; object.
    // needs In ["true"]). Not istio-injection=disabled on istio-system: it would keep its gateways out too.
    selfExclusion: [{ on: 'template', key: ISTIO_INJECT, value: 'false' }],
    reads: {
      // and the istio-cni agent's switch for a plugin chained or standalone (istio-cni-node's install-cni, before 1.23).
      env: ['ENABLE_NATIVE_SIDECARS', 'CHAINED_CNI_PLUGIN'],
      // istio-proxy's `proxy <type>` args: the CNI plugin redirects only a sidecar (cni-skips.ts), not a gateway or waypoint.
      args: ['^(?:proxy|sidecar|router|waypoint)$'],
    },
  },

  /**
   * Istio's markers (templates/mutatingwebhook.yaml @86c9f01f; inject.go injectRequired): the
   * namespace label `istio-injection` (only "enabled" selects a webhook, any value beats
   * `istio.io/rev`), else `istio.io/rev` (any value: a revision); on the pod,
   * `sidecar.istio.io/inject` (the label wins over the annotation; only the label `true` selects a
   * webhook on its own) and `istio.io/rev` (selects its revision's webhook on its own).
   *
   * A template value opts out when it is "false", the one value every Istio version reads as "do
   * not inject", or another value Istio before 1.27 read so (LOOSE). Istio 1.27+ ignores those
   * (inject.go @86c9f01f lines 227-237), but they say the owner's intent: no advice injects or
   * restarts such a workload, and injection-marker-invalid alone reports the value (its fix:
   * "false"). Callers that need the exact opt-out compare `value` with `optOut.value`.
   */
  markers: {
    namespace: [
      { field: 'labels', key: ISTIO_NS_LABEL, enabling: ['enabled'] },
      { field: 'labels', key: ISTIO_REV, enabling: 'any' },
    ],
    template: [
      { field: 'labels', key: ISTIO_INJECT, ...LOOSE, alone: ['true'] },
      { field: 'annotations', key: ISTIO_INJECT, ...LOOSE, alone: [] },
      { field: 'labels', key: ISTIO_REV, inject: 'any', skip: [], alone: 'any' },
    ],
    // Webhooks select namespaces by label only: the same keys as annotations do nothing (markers.ts namespaceProblems).
    strays: [
      { field: 'annotations', key: ISTIO_NS_LABEL, on: 'namespace', ownRule: true },
      { field: 'annotations', key: ISTIO_REV, on: 'namespace', ownRule: true },
    ],
    ask: { field: 'labels', key: ISTIO_INJECT, value: 'true' },
    optOut: { field: 'labels', key: ISTIO_INJECT, value: 'false' },
    // Where no webhook of a revision serves it (the behaviour's enableMarker picks the label an installed webhook selects).
    enable: { field: 'labels', key: ISTIO_NS_LABEL, value: 'enabled' },
  },

  injector: {
    // A pod selected by two of its webhooks is injected again from the template, not skipped
    // (pkg/kube/inject/webhook.go lines 519-530 at 1.28.0: "We should use new container template
    // instead of restoring what may be previously injected"): the configuration called last wins.
    reinjects: true,
    rbac: ISTIO_RBAC_NEEDS,
  },

  proxy: {
    annotations: {
      'requests.cpu': 'sidecar.istio.io/proxyCPU',
      'requests.memory': 'sidecar.istio.io/proxyMemory',
      'limits.cpu': 'sidecar.istio.io/proxyCPULimit',
      'limits.memory': 'sidecar.istio.io/proxyMemoryLimit',
    },
    onNamespace: false,
    // global.proxy.resources default (manifests/charts/istio-control/istio-discovery/values.yaml).
    suggested: { 'requests.cpu': '100m', 'requests.memory': '128Mi', 'limits.cpu': '2000m', 'limits.memory': '1024Mi' },
    nativeAnnotation: 'sidecar.istio.io/nativeSidecar',
  },

  jobs: {
    shutdown: /quitquitquit/,
    shutdownWords: ['quitquitquit'],
    alternatives: [
      comment`or: end the command of the app with curl -fsS -X POST localhost:15020/quitquitquit`,
      comment`or: opt the pod template out with the label sidecar.istio.io/inject: 'false'`,
    ],
  },

  install: {
    emptyCaBundle:
      'the caBundle is empty: istiod fills it itself, so istiod is not running or cannot patch this configuration',
    restartReloads: ', and istiod re-patches the caBundle',
  },

  versions: {
    kubernetes: ISTIO_KUBERNETES,
    releases: ISTIO_RELEASES,
    skew: ISTIO_SKEW,
    /**
     * The proxy image the injector renders is the annotation's value when the pod template has it
     * (pkg/kube/inject/inject.go GetIstioProxyImage: `annotation.SidecarProxyImage.Name`, 1.5 to 1.28), whatever
     * the release renders the proxy's arguments for: istio/istio#8842, #11295 (a 1.0 agent under the 1.1 injector,
     * "unknown flag: --statusPort").
     */
    pins: [
      {
        key: 'sidecar.istio.io/proxyImage',
        sets: 'image',
        source: 'istio/istio pkg/kube/inject/inject.go GetIstioProxyImage (annotation.SidecarProxyImage)',
      },
    ],
  },
  network: istioNetwork,
  components: istioComponents,
} as const satisfies MeshData;
