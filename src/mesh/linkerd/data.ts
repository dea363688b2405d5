/**
 * Linkerd as data (issue 32 item 4): the constants of its profile, which profileFrom
 * (src/mesh/profile-from.ts) turns into the profile with the behaviour in index.ts. Sources: the
 * list at the top of index.ts, markers.ts and injector.ts (linkerd/linkerd2 b24cd405 unless said
 * otherwise).
 */
import { comment } from '../../fix/steps.js';
import type { MeshData } from '../mesh-data.js';
import { LINKERD_INJECT } from './injector.js';
import { linkerdNetwork } from './network.js';
import { linkerdComponents } from './components.js';
import { LINKERD_KUBERNETES, LINKERD_RELEASES } from './releases.js';

const INJECTOR = 'linkerd-proxy-injector';
/** The 2018 injector's namespace label, ignored by today's Linkerd. */
const LINKERD_LEGACY = 'linkerd.io/auto-inject';

export const LINKERD_RESOURCE_ANNOTATIONS = {
  'requests.cpu': 'config.linkerd.io/proxy-cpu-request',
  'requests.memory': 'config.linkerd.io/proxy-memory-request',
  'limits.cpu': 'config.linkerd.io/proxy-cpu-limit',
  'limits.memory': 'config.linkerd.io/proxy-memory-limit',
} as const;

export const LINKERD_DATA = {
  name: 'linkerd',
  title: 'Linkerd',

  containers: {
    proxy: 'linkerd-proxy',
    init: ['linkerd-init'],
    image: /(^|\/)proxy:|linkerd.*\/proxy(:|@|$)/,
  },

  controlPlane: {
    namespace: 'linkerd',
    ownNamespaces: ['linkerd'],
    excludedNamespaces: ['cert-manager'],
    namespaceLabel: { key: 'linkerd.io/is-control-plane', value: 'true' },
    // isWorkload and isOwnPod read several labels: index.ts.
    injector: {
      name: INJECTOR,
      container: 'proxy-injector',
      // linkerd/linkerd2@b24cd405 charts/linkerd-control-plane/templates/proxy-injector.yaml#L107-L112, #L194-L213;
      // controller/cmd/proxy-injector/main.go#L19 (--addr :8443).
      webhookPort: 8443,
      podSelector: 'linkerd.io/control-plane-component=proxy-injector',
    },
    webhooks: {
      config: 'linkerd-proxy-injector-webhook-config',
      names: ['linkerd-proxy-injector.linkerd.io'],
      servingCertSecrets: [
        ['linkerd-proxy-injector-k8s-tls', 'tls.crt'],
        ['linkerd-proxy-injector-tls', 'crt.pem'],
      ],
    },
    // linkerd/linkerd2@b24cd405 charts/linkerd-control-plane/values.yaml#L522-L533 (proxyInjector.namespaceSelector:
    // config.linkerd.io/admission-webhooks NotIn [disabled]); templates/namespace.yaml#L14 (the CLI labels its
    // namespace so; Helm users do it themselves: values-ha.yaml#L57 webhookFailurePolicy: Fail).
    selfExclusion: [{ on: 'namespace', key: 'config.linkerd.io/admission-webhooks', value: 'disabled' }],
    reads: {
      configMaps: { 'linkerd-config': 'values', 'linkerd-identity-trust-roots': 'ca-bundle.crt' },
      // And the Secrets of the components whose certificate reload is judged by release (component-cert-not-reloaded,
      // cert-loads.ts): the webhooks' and tap's, by their chart names from stable-2.9 (-k8s-tls) and before (-tls):
      // linkerd/linkerd2 stable-2.9.0 and stable-2.8.1 charts/linkerd2/templates.
      secrets: [
        'linkerd-proxy-injector-k8s-tls',
        'linkerd-identity-issuer',
        'linkerd-proxy-injector-tls',
        'linkerd-sp-validator-k8s-tls',
        'linkerd-sp-validator-tls',
        'linkerd-tap-k8s-tls',
        'linkerd-tap-tls',
      ],
      // linkerd-proxy's postStart hook names the admin port it polls (linkerd-await -p/--port: proxy-hold-stuck).
      args: ['^(?:--port|-p)(?:=\\d{1,5})?$'],
    },
  },

  // The annotation linkerd.io/inject on the namespace or the pod template (report.go: enabled, ingress, disabled,
  // and empty, which is no marker); people write it as a label, or the 2018 injector's label.
  markers: {
    namespace: [{ field: 'annotations', key: LINKERD_INJECT, enabling: ['enabled', 'ingress'] }],
    template: [
      { field: 'annotations', key: LINKERD_INJECT, inject: ['enabled', 'ingress'], skip: ['disabled'], ignore: [''] },
    ],
    strays: [
      { field: 'labels', key: LINKERD_INJECT, on: 'namespace' },
      { field: 'labels', key: LINKERD_LEGACY, on: 'namespace', legacy: "Linkerd's 2018 injector" },
      { field: 'labels', key: LINKERD_INJECT, on: 'template' },
      { field: 'labels', key: LINKERD_LEGACY, on: 'template' },
    ],
    ask: { field: 'annotations', key: LINKERD_INJECT, value: 'enabled' },
    optOut: { field: 'annotations', key: LINKERD_INJECT, value: 'disabled' },
    enable: { field: 'annotations', key: LINKERD_INJECT, value: 'enabled' },
  },

  injector: {
    skippedEventPrefix: 'Linkerd sidecar proxy injection skipped: ',
    // linkerd-identity records Warnings on its own Deployment (recorder component linkerd-identity, object Deployment
    // linkerd-identity in the control-plane namespace) when it cannot use its issuer: every proxy that asks for a
    // certificate then gets none and is not ready. linkerd/linkerd2 stable-2.10.0 pkg/identity/service.go#L30-L32,
    // L95,L179 and controller/cmd/identity/main.go#L54,L145; b24cd40 (edge) pkg/identity/service.go#L36-L38,L113,L230.
    warnings: [
      {
        reason: 'IssuerValidationFailed',
        component: 'linkerd-identity',
        means:
          'its identity issuer certificate cannot be used to sign, so the proxies that ask for a certificate get none',
        on: { kind: 'Deployment', name: 'linkerd-identity' },
        source: 'linkerd/linkerd2 stable-2.10.0 and b24cd40 pkg/identity/service.go eventTypeFailed',
      },
      {
        reason: 'IssuerUpdateSkipped',
        component: 'linkerd-identity',
        means: 'it could not read the renewed issuer certificate from its Secret and keeps the one it had',
        on: { kind: 'Deployment', name: 'linkerd-identity' },
        source: 'linkerd/linkerd2 stable-2.10.0 and b24cd40 pkg/identity/service.go eventTypeSkipped',
      },
    ],
  },

  proxy: {
    annotations: LINKERD_RESOURCE_ANNOTATIONS,
    onNamespace: true,
    // values-ha.yaml's proxy resources.
    suggested: { 'requests.cpu': '100m', 'requests.memory': '20Mi', 'limits.cpu': '1', 'limits.memory': '250Mi' },
    nativeAnnotation: 'config.beta.linkerd.io/proxy-enable-native-sidecar',
  },

  jobs: {
    shutdown: /linkerd-await\b.*--shutdown|:4191\/shutdown/,
    shutdownWords: ['linkerd-await\\b', '--shutdown', ':4191\\/shutdown'],
    alternatives: [
      comment`or: wrap the command of the app in linkerd-await --shutdown -- with config.linkerd.io/proxy-admin-shutdown: enabled on the pod template`,
      comment`or: opt the pod template out with the annotation linkerd.io/inject: disabled`,
    ],
  },

  install: { restartReloads: '' },

  versions: {
    kubernetes: LINKERD_KUBERNETES,
    releases: LINKERD_RELEASES,
    /**
     * The injector's values for the proxy image, overridden by the pod template's annotations
     * (pkg/inject/inject.go applyAnnotationOverrides: k8s.ProxyImageAnnotation -> Proxy.Image.Name,
     * k8s.ProxyVersionOverrideAnnotation -> Proxy.Image.Version, stable-2.10 to version-2.20).
     */
    pins: [
      {
        key: 'config.linkerd.io/proxy-version',
        sets: 'version',
        source: 'linkerd/linkerd2 pkg/inject/inject.go applyAnnotationOverrides (ProxyVersionOverrideAnnotation)',
      },
      {
        key: 'config.linkerd.io/proxy-image',
        sets: 'name',
        source: 'linkerd/linkerd2 pkg/inject/inject.go applyAnnotationOverrides (ProxyImageAnnotation)',
      },
    ],
  },
  network: linkerdNetwork,
  components: linkerdComponents,
} as const satisfies MeshData;
