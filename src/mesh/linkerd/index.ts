/**
 * Linkerd's profile (docs/meshes/linkerd.md). Sources: linkerd/linkerd2 charts/linkerd-control-plane
 * (templates/proxy-injector*.yaml, values.yaml), pkg/inject (report.go, inject.go),
 * controller/proxy-injector/webhook.go, pkg/k8s/labels.go.
 */
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import { annotationsOf, labelsOf, shq } from '../../util/objects.js';
import { shown } from '../../util/shell.js';
import { configValues, valueAt } from '../config-values.js';
import type { CniPlugin, MeshProfile, ResourceKey } from '../profile.js';
import { fixIdentity, linkerdIdentity } from './identity.js';
import { LINKERD_INJECT, isLinkerdEnabling, isLinkerdValid, linkerdInjector } from './injector.js';
import { enableMarker, enabling, namespaceMarker, namespaceProblems, templateAsking, templateOptOut, workloadProblems } from './markers.js';

const INJECTOR = 'linkerd-proxy-injector';
const WEBHOOK = 'linkerd-proxy-injector.linkerd.io';
const WEBHOOK_CONFIG = 'linkerd-proxy-injector-webhook-config';
const NATIVE = [
  'config.linkerd.io/proxy-enable-native-sidecar',
  'config.beta.linkerd.io/proxy-enable-native-sidecar',
  'config.alpha.linkerd.io/proxy-enable-native-sidecar',
];

/** The linkerd-config values (Helm values as YAML) of the installed Linkerd. */
export function linkerdValues(m: MeshContext): Record<string, any> | undefined {
  const ns = m.mesh('linkerd')?.namespaces[0];
  return configValues(ns ? m.get('configmaps', ns, 'linkerd-config') : undefined);
}

/** identity.serviceAccountTokenProjection in the linkerd-config values; default true. */
const tokenProjection = (m: MeshContext): boolean =>
  m.memo('linkerd:token-projection', () => valueAt(linkerdValues(m), 'identity', 'serviceAccountTokenProjection') !== false);

const RESOURCE_ANNOTATIONS: Record<ResourceKey, string> = {
  'requests.cpu': 'config.linkerd.io/proxy-cpu-request',
  'requests.memory': 'config.linkerd.io/proxy-memory-request',
  'limits.cpu': 'config.linkerd.io/proxy-cpu-limit',
  'limits.memory': 'config.linkerd.io/proxy-memory-limit',
};

const split = (k: ResourceKey) => k.split('.') as ['requests' | 'limits', 'cpu' | 'memory'];

/**
 * linkerd-cni (linkerd/linkerd2 at b24cd4059841f8cee2fb7a9c2ac23a693c583579): without it the
 * injector adds `linkerd-init` with `capabilities.add: [NET_ADMIN, NET_RAW]`
 * (charts/partials/templates/_proxy-init.tpl); with `cniEnabled: true` (values.yaml:62, default
 * false; recorded in ConfigMap linkerd-config key `values`) charts/patch/templates/patch.json adds
 * `linkerd-network-validator` instead. The plugin is DaemonSet `linkerd-cni`
 * (charts/linkerd2-cni/templates/cni-plugin.yaml, chart `linkerd2-cni`); it is installed with
 * `linkerd install-cni` and turned on with `--linkerd-cni-enabled` (cli/cmd/install-cni-plugin.go,
 * an install and upgrade flag in cli/cmd/options.go:46).
 */
const cni: CniPlugin = {
  privilegedInit: { name: 'linkerd-init', capabilities: ['NET_ADMIN', 'NET_RAW'] },
  validationInit: 'linkerd-network-validator',
  daemonSet: 'linkerd-cni',
  enabled: (m) => {
    const values = linkerdValues(m);
    return values ? { enabled: values.cniEnabled === true, from: 'linkerd-config values cniEnabled' } : undefined;
  },
  install: (ns) => [
    '# install linkerd-cni and turn it on for the injector: run the one line for your install method',
    `# linkerd CLI: ${shown('linkerd install-cni | kubectl apply -f - && linkerd upgrade --linkerd-cni-enabled | kubectl apply -f -')}`,
    `# Helm: ${shown(`helm install linkerd2-cni linkerd/linkerd2-cni -n linkerd-cni --create-namespace && helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n ${shq(ns)} --reuse-values --set cniEnabled=true`)}`,
  ],
};

export const linkerd: MeshProfile & { readonly name: 'linkerd' } = {
  name: 'linkerd',
  title: 'Linkerd',

  proxyContainer: 'linkerd-proxy',
  initContainers: ['linkerd-init'],
  proxyImage: /(^|\/)proxy:|linkerd.*\/proxy(:|@|$)/,

  defaultNamespace: 'linkerd',
  defaultInjector: INJECTOR,
  injectorContainer: 'proxy-injector',
  injectorPodSelector: 'linkerd.io/control-plane-component=proxy-injector',
  defaultWebhookConfig: WEBHOOK_CONFIG,
  ownsWebhook: (h) => h.name === WEBHOOK || h.serviceName === INJECTOR,
  isInjectorDeployment: (name) => name === INJECTOR,
  injectorDeployment: () => INJECTOR,
  isControlPlaneNamespace: (ns) => labelsOf(ns)['linkerd.io/is-control-plane'] === 'true',
  isControlPlaneWorkload: (l) => l['linkerd.io/control-plane-component'] !== undefined || l['linkerd.io/cni-resource'] !== undefined,
  cni,
  isOwnPod: (l, ns) => l['linkerd.io/control-plane-ns'] === ns || l['linkerd.io/extension'] !== undefined,
  ownNamespaces: ['linkerd'],
  excludedNamespaces: ['cert-manager'],
  namedObjects: (namespaces) =>
    namespaces.flatMap((ns) => [
      { key: 'configmaps' as const, namespace: ns, name: 'linkerd-config' },
      { key: 'configmaps' as const, namespace: ns, name: 'linkerd-identity-trust-roots' },
      { key: 'secrets' as const, namespace: ns, name: 'linkerd-proxy-injector-k8s-tls' },
      { key: 'secrets' as const, namespace: ns, name: 'linkerd-identity-issuer' },
    ]),
  configMapKey: (name) => (name === 'linkerd-config' ? 'values' : name === 'linkerd-identity-trust-roots' ? 'ca-bundle.crt' : undefined),

  reinstall: (ns) => [
    '# re-render the control plane the way it was installed: run the one line for your install method',
    `# linkerd CLI: ${shown('linkerd upgrade | kubectl apply -f -')}`,
    `# Helm: helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n ${shq(ns)} --reuse-values`,
  ],
  expectedWebhookConfigs: () => [WEBHOOK_CONFIG],
  listWebhookConfigs: (expected) => `kubectl get mutatingwebhookconfigurations ${shq(expected)}`,
  injectorMemoryFix: (ns, _injector, limit) => [
    '# durable, if installed with Helm',
    `helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n ${ns} --reuse-values --set proxyInjectorResources.memory.limit=${limit}`,
  ],
  webhookCertFix: (ns, deploy, certManager) => [
    `# delete the webhook certificate Secret: ${certManager ? 'cert-manager re-issues it' : 'the upgrade below re-creates it'}`,
    `kubectl -n ${ns} delete secret linkerd-proxy-injector-k8s-tls`,
    ...(certManager
      ? []
      : [
          '# a new webhook certificate and caBundle: for a Helm install, run helm upgrade linkerd-control-plane instead of this line',
          'linkerd upgrade | kubectl apply -f -',
        ]),
    `kubectl -n ${ns} rollout restart ${deploy}`,
  ],
  restartReloads: '',
  servingCertSecrets: [
    ['linkerd-proxy-injector-k8s-tls', 'tls.crt'],
    ['linkerd-proxy-injector-tls', 'crt.pem'],
  ],

  intent: (i) => isLinkerdEnabling(i.nsAnnotations[LINKERD_INJECT]) || isLinkerdEnabling(annotationsOf(i.template)[LINKERD_INJECT]),
  templateAsks: (t) => isLinkerdEnabling(annotationsOf(t)[LINKERD_INJECT]),
  templateAsking,
  namespaceMarker,
  enableMarker,
  optOut: { field: 'annotations', key: LINKERD_INJECT, value: 'disabled' },
  templateOptOut,
  namespaceMarkerKeys: () => ({ field: 'annotations', keys: [LINKERD_INJECT] }),
  namespaceEnabling: enabling,
  templateEnabling: enabling,
  templateMarkerInvalid: (t) => {
    const v = annotationsOf(t)[LINKERD_INJECT];
    return v !== undefined && !isLinkerdValid(v);
  },
  namespaceProblems,
  workloadProblems,

  injector: (m, i) =>
    linkerdInjector(i.nsAnnotations, i.template, { tokenProjection: tokenProjection(m), ...(i.proxyPresent ? { proxyPresent: i.proxyPresent } : {}) }),
  skippedEventPrefix: 'Linkerd sidecar proxy injection skipped: ',
  tokenRequirement: (m) =>
    tokenProjection(m) ? undefined : { why: 'Linkerd runs without projected identity tokens', evidence: { serviceAccountTokenProjection: false } },

  resourceAnnotations: RESOURCE_ANNOTATIONS,
  // values-ha.yaml's proxy resources.
  suggestedResources: { 'requests.cpu': '100m', 'requests.memory': '20Mi', 'limits.cpu': '1', 'limits.memory': '250Mi' },
  namespaceResourceAnnotations: true,
  /**
   * charts/linkerd-control-plane values.yaml: no proxy requests or limits by default;
   * `proxy.resources.{cpu,memory}.{request,limit}` in the linkerd-config values; overridden by the
   * config.linkerd.io annotations on the pod template, else on the namespace.
   */
  proxyResources: (m, w, observed, observedFrom) => {
    const tmpl = annotationsOf(w.template);
    const ns = annotationsOf(m.namespace(w.namespace));
    const values = valueAt(linkerdValues(m), 'proxy', 'resources');
    const out: Partial<Record<ResourceKey, { value: unknown; from: string }>> = {};
    for (const key of Object.keys(RESOURCE_ANNOTATIONS) as ResourceKey[]) {
      const [kind, r] = split(key);
      const ann = RESOURCE_ANNOTATIONS[key];
      const leaf = kind === 'requests' ? 'request' : 'limit';
      if (tmpl[ann] !== undefined) out[key] = { value: tmpl[ann], from: `pod template annotation ${ann}` };
      else if (observed) out[key] = { value: valueAt(observed, kind, r), from: observedFrom! };
      else if (ns[ann] !== undefined) out[key] = { value: ns[ann], from: `namespace annotation ${ann}` };
      else out[key] = { value: valueAt(values, r, leaf), from: `linkerd-config proxy.resources.${r}.${leaf}` };
    }
    return out;
  },
  nativeSidecar: (m, w: Workload) => {
    const tmpl = annotationsOf(w.template);
    const ns = annotationsOf(m.namespace(w.namespace));
    for (const [where, ann] of [
      ['pod template', tmpl],
      ['namespace', ns],
    ] as const) {
      const key = NATIVE.find((k) => ann[k] !== undefined);
      if (key) return { native: ann[key] === 'true', reason: `${where} annotation ${key}=${ann[key]}` };
    }
    if (valueAt(linkerdValues(m), 'proxy', 'nativeSidecar') === true) return { native: true, reason: 'linkerd-config proxy.nativeSidecar: true' };
    return undefined;
  },
  nativeSidecarAnnotation: 'config.beta.linkerd.io/proxy-enable-native-sidecar',

  job: {
    shutdown: /linkerd-await\b.*--shutdown|:4191\/shutdown/,
    shutdownWords: ['linkerd-await\\b', '--shutdown', ':4191\\/shutdown'],
    alternatives: [
      '# or: wrap the command of the app in linkerd-await --shutdown -- with config.linkerd.io/proxy-admin-shutdown: enabled on the pod template',
      '# or: opt the pod template out with the annotation linkerd.io/inject: disabled',
    ],
    relief: (_pods, ns, job) => ['# the app has exited, and linkerd-proxy has no shell to stop it from', `kubectl delete job ${shq(job)} -n ${ns}`],
  },

  identity: {
    issuer: 'linkerd-identity',
    sources: (m) => linkerdIdentity(m.list('configmaps'), m.list('secrets')),
    fix: fixIdentity,
  },
};
