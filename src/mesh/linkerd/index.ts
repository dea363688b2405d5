/**
 * Linkerd's profile (docs/meshes/linkerd.md). Sources: linkerd/linkerd2 charts/linkerd-control-plane
 * (templates/proxy-injector*.yaml, values.yaml), pkg/inject (report.go, inject.go),
 * controller/proxy-injector/webhook.go, pkg/k8s/labels.go.
 */
import { linkerdMeshedByNamespace } from './extensions.js';
import { LINKERD_REFERENCES } from './references.js';
import { linkerdRanges } from './network.js';
import { defineFact } from '../../k8s/fact.js';
import { choice, cmd, comment, lit, text } from '../../fix/steps.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import { annotationsOf } from '../../util/objects.js';
import { configValues, valueAt } from '../config-values.js';
import type { CniPlugin, ResourceKey } from '../profile.js';
import { profileFrom } from '../profile-from.js';
import { LINKERD_DATA, LINKERD_RESOURCE_ANNOTATIONS } from './data.js';
import { fixIdentity, linkerdIdentity } from './identity.js';
import { LINKERD_CERT_LOADS } from './cert-loads.js';
import { LINKERD_INJECT, isLinkerdEnabling, linkerdInjector } from './injector.js';
import { linkerdOwnConfig } from './own-config.js';
import { namespaceProblems, workloadProblems } from './markers.js';
import { linkerdRuntime } from './runtime.js';
import { LINKERD_SKIP_REASONS, readLinkerdSkip } from './skips.js';
import { linkerdRbac, linkerdVersions } from './support.js';
import { linkerdAnnounced } from './announced.js';

const INJECTOR = 'linkerd-proxy-injector';
const WEBHOOK = 'linkerd-proxy-injector.linkerd.io';
const NATIVE = [
  'config.linkerd.io/proxy-enable-native-sidecar',
  'config.beta.linkerd.io/proxy-enable-native-sidecar',
  'config.alpha.linkerd.io/proxy-enable-native-sidecar',
];

/** The linkerd-config values (Helm values as YAML) of the installed Linkerd. */
function linkerdValues(m: MeshContext): Record<string, any> | undefined {
  const ns = m.mesh('linkerd')?.namespaces[0];
  return configValues(ns ? m.get('configmaps', ns, 'linkerd-config') : undefined);
}

const TOKEN_PROJECTION = defineFact({
  id: 'linkerd-token-projection',
  inputs: ['configmaps', 'deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: MeshContext): boolean => {
    // Projected tokens came with stable-2.12.0 (linkerd/linkerd2#7117): the injector of 2.10 and 2.11 has none and
    // skips every pod whose automountServiceAccountToken is false (pkg/inject/report.go at b10356a8 and 02064b02),
    // whatever its values say. The injector's release from its controller image; unread or unplaced: the values.
    const ns = m.mesh('linkerd')?.namespaces[0];
    const injector = ns ? m.get('deployments', ns, 'linkerd-proxy-injector') : undefined;
    const v = injector ? linkerdVersions.controlPlane(m, injector)?.version : undefined;
    const release = v ? linkerdVersions.release(v) : undefined;
    if (release === '2.10' || release === '2.11') return false;
    return valueAt(linkerdValues(m), 'identity', 'serviceAccountTokenProjection') !== false;
  },
});

/** identity.serviceAccountTokenProjection in the linkerd-config values; default true; false before stable-2.12. */
const tokenProjection = (m: MeshContext): boolean => m.fact(TOKEN_PROJECTION);

const RESOURCE_ANNOTATIONS = LINKERD_RESOURCE_ANNOTATIONS;

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
  // linkerd/linkerd2-proxy-init cni-plugin: type linkerd-cni in the node's conflist (linkerd2 issues 10413, 14538).
  pluginType: 'linkerd-cni',
  // linkerd/linkerd2 b24cd405 charts/linkerd2-cni/templates/cni-plugin.yaml: hostPath volume cni-bin-dir and
  // ConfigMap linkerd-cni-config dest_cni_bin_dir are values destCNIBinDir (values.yaml: /opt/cni/bin).
  binDirSetting: 'the linkerd2-cni chart value destCNIBinDir, or linkerd install-cni --dest-cni-bin-dir',
  failures: [
    {
      // linkerd/linkerd2#10849 (GKE): linkerd-cni started before the cluster's own plugin wrote its configuration
      // and installed itself alone ("interface" mode, 01-linkerd-cni.conf), so no plugin before it gave the pod
      // an address; linkerd/linkerd2-proxy-init#242 dropped that mode: linkerd-cni now waits and only chains.
      line: /cannot convert: no valid IP addresses/,
      cause:
        "linkerd-cni runs alone on the node, with no other plugin before it to give the pod an IP address: it started before the cluster's own CNI plugin wrote its configuration and installed itself in interface mode (01-linkerd-cni.conf), which linkerd2-proxy-init dropped (#242) for chaining only",
      source:
        'linkerd/linkerd2-proxy-init#242 (Drop "interface" mode in linkerd-cni); linkerd/linkerd2 b24cd405 CHANGES.md edge-23.6.1; linkerd/linkerd2#10849',
      fix: (node) => [
        comment`on the node, the CNI configuration directory holds a standalone 01-linkerd-cni.conf beside the cluster own conflist: delete the linkerd-cni pod there so that it chains onto that conflist, then re-create the pods`,
        cmd`kubectl get pods -A -o wide --field-selector ${`spec.nodeName=${node ?? 'NODE'}`}`,
        comment`upgrade linkerd-cni to edge-23.6.1 or stable-2.14.0 or later, which only chains and waits for the cluster CNI configuration`,
      ],
    },
  ],
  enabled: (m) => {
    const values = linkerdValues(m);
    return values ? { enabled: values.cniEnabled === true, from: 'linkerd-config values cniEnabled' } : undefined;
  },
  install: (ns) => [
    choice(text`install linkerd-cni and turn it on for the injector: run the lines for your install method`, [
      {
        label: text`linkerd CLI`,
        steps: [
          cmd`linkerd install-cni | kubectl apply -f -`,
          cmd`linkerd upgrade --linkerd-cni-enabled | kubectl apply -f -`,
        ],
      },
      {
        label: text`Helm`,
        steps: [
          cmd`helm install linkerd2-cni linkerd/linkerd2-cni -n linkerd-cni --create-namespace`,
          cmd`helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n ${ns} --reuse-values --set cniEnabled=true`,
        ],
      },
    ]),
  ],
};

/**
 * Linkerd's profile: its data document (data.ts) and the behaviour below, through profileFrom
 * (src/mesh/profile-from.ts): what its data cannot say (its injector's decision and skip events,
 * what linkerd-config says, its CLI and Helm fixes, its identity).
 */
export const linkerd = profileFrom(LINKERD_DATA, {
  intent: (i) =>
    isLinkerdEnabling(i.nsAnnotations[LINKERD_INJECT]) || isLinkerdEnabling(annotationsOf(i.template)[LINKERD_INJECT]),
  decide: (m, i) =>
    linkerdInjector(i.nsAnnotations, i.template, {
      tokenProjection: tokenProjection(m),
      ...(i.proxyPresent ? { proxyPresent: i.proxyPresent } : {}),
    }),
  markerRules: { namespace: namespaceProblems, workload: workloadProblems },
  version: linkerdVersions,
  /**
   * charts/linkerd-control-plane values.yaml: no proxy requests or limits by default;
   * `proxy.resources.{cpu,memory}.{request,limit}` in the linkerd-config values; overridden by the
   * config.linkerd.io annotations on the pod template, else on the namespace.
   */
  resources: (m, w, observed, observedFrom) => {
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
  native: (m, w: Workload) => {
    const tmpl = annotationsOf(w.template);
    const ns = annotationsOf(m.namespace(w.namespace));
    for (const [where, ann] of [
      ['pod template', tmpl],
      ['namespace', ns],
    ] as const) {
      const key = NATIVE.find((k) => ann[k] !== undefined);
      if (key) return { native: ann[key] === 'true', reason: `${where} annotation ${key}=${ann[key]}` };
    }
    if (valueAt(linkerdValues(m), 'proxy', 'nativeSidecar') === true)
      return { native: true, reason: 'linkerd-config proxy.nativeSidecar: true' };
    return undefined;
  },

  extend: {
    references: LINKERD_REFERENCES,
    ranges: linkerdRanges,
    containers: { announced: linkerdAnnounced },
    controlPlane: {
      isWorkload: (l) =>
        l['linkerd.io/control-plane-component'] !== undefined || l['linkerd.io/cni-resource'] !== undefined,
      isOwnPod: (l, ns) => l['linkerd.io/control-plane-ns'] === ns || l['linkerd.io/extension'] !== undefined,
      meshedByNamespace: linkerdMeshedByNamespace,
      webhooks: { owns: (h) => h.name === WEBHOOK || h.serviceName === INJECTOR },
      certLoads: LINKERD_CERT_LOADS,
    },

    injector: {
      skipReasons: LINKERD_SKIP_REASONS,
      readSkip: (m, w, reason, pods) => readLinkerdSkip(m, w, reason, pods, tokenProjection(m)),
      token: (m) =>
        tokenProjection(m)
          ? undefined
          : {
              why: 'Linkerd runs without projected identity tokens',
              evidence: { serviceAccountTokenProjection: false },
            },
      rbac: linkerdRbac,
    },

    jobs: {
      relief: (_pods, ns, job) => [
        comment`the app has exited, and linkerd-proxy has no shell to stop it from`,
        cmd`kubectl delete job ${job} -n ${ns}`,
      ],
    },

    install: {
      ownConfig: linkerdOwnConfig,
      reinstall: (ns) => [
        choice(text`re-render the control plane the way it was installed: run the one line for your install method`, [
          { label: text`linkerd CLI`, steps: [cmd`linkerd upgrade | kubectl apply -f -`] },
          {
            label: text`Helm`,
            steps: [cmd`helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n ${ns} --reuse-values`],
          },
        ]),
      ],
      memoryFix: (ns, _injector, limit) => [
        comment`durable, if installed with Helm`,
        cmd`helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n ${ns} --reuse-values --set proxyInjectorResources.memory.limit=${limit}`,
      ],
      certFix: (ns, injector, certManager) => [
        comment`delete the webhook certificate Secret: ${lit(certManager ? 'cert-manager re-issues it' : 'the upgrade below re-creates it')}`,
        cmd`kubectl -n ${ns} delete secret linkerd-proxy-injector-k8s-tls`,
        ...(certManager
          ? []
          : [
              comment`a new webhook certificate and caBundle: for a Helm install, run helm upgrade linkerd-control-plane instead of this line`,
              cmd`linkerd upgrade | kubectl apply -f -`,
            ]),
        cmd`kubectl -n ${ns} rollout restart ${`deploy/${injector}`}`,
      ],
    },

    cni,

    identity: {
      issuer: 'linkerd-identity',
      sources: (m) => linkerdIdentity(m.list('configmaps'), m.list('secrets')),
      fix: fixIdentity,
    },

    runtime: linkerdRuntime(linkerdValues),
  },
});
