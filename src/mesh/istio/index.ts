/**
 * Istio's profile (docs/meshes/istio.md): its data document (data.ts) and the behaviour below,
 * through profileFrom (src/mesh/profile-from.ts): what its data cannot say (the injector's decision
 * and its version-dependent reading of sidecar.istio.io/inject, its revisions and tags, what
 * istiod's Deployment and its injector ConfigMaps say, its Helm and istioctl fixes, ambient).
 * Sources: istio/istio manifests/charts/istio-control/istio-discovery (templates/mutatingwebhook.yaml,
 * files/injection-template.yaml, values.yaml), pkg/kube/inject (inject.go, webhook.go), tools/istio-iptables.
 */
import { meshConfigNames, slimMeshConfig } from './mesh-config.js';
import { memberRollAsks } from './member-roll.js';
import { ISTIO_REFERENCES } from './references.js';
import { istioRanges } from './network.js';
import { containers, initContainers, podSpec } from '../../k8s/pods.js';
import { arr, isObj, nameOf, nsOf, annotationsOf } from '../../util/objects.js';
import { configValues, parseYamlObject, valueAt } from '../config-values.js';
import { templateKeysOf } from './template-keys.js';
import type { NamedRef, ResourceKey } from '../profile.js';
import { profileFrom } from '../profile-from.js';
import { cmd, comment } from '../../fix/steps.js';
import { templateAsks } from '../marker-table.js';
import { ISTIO_CONFIG as CONFIG, ISTIO_DATA } from './data.js';
import { ISTIO_NS_LABEL, ISTIO_REV, istioInjector } from './injector.js';
import { chartUpgrade, reinstallIstiod } from './install.js';
import { istioOwnConfig } from './own-config.js';
import { istiodRelease, istiodVersion } from './version.js';
import { ambient, istioCni } from './ambient.js';
import { ISTIO_MARKERS, enableMarker, namespaceProblems, workloadProblems } from './markers.js';
import { CNI_CONFIG, CNI_EXCLUDE, istioRuntime } from './runtime.js';
import { istioRbacNames, istioVersionReads } from './support.js';
import { istioAnnounced } from './announced.js';
import {
  deactivated,
  expectedConfigs,
  injectorConfigMap,
  isIstiod,
  istioRevisions,
  servedRevisions,
} from './revisions.js';

const NATIVE = ISTIO_DATA.proxy.nativeAnnotation;
const RESOURCE_ANNOTATIONS: Record<ResourceKey, string> = ISTIO_DATA.proxy.annotations;
/** global.proxy.resources default (manifests/charts/istio-control/istio-discovery/values.yaml). */
const DEFAULT_RESOURCES = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '2000m', memory: '1024Mi' } };
const KEYS = Object.keys(RESOURCE_ANNOTATIONS) as ResourceKey[];
const split = (k: ResourceKey) => k.split('.') as ['requests' | 'limits', 'cpu' | 'memory'];

export const istio = profileFrom(ISTIO_DATA, {
  // istio-injection (any value) beats istio.io/rev: `istio-injection=disabled` beside a revision is an opt-out.
  intent: (i, m) =>
    (i.nsLabels[ISTIO_NS_LABEL] !== undefined
      ? i.nsLabels[ISTIO_NS_LABEL] === 'enabled'
      : i.nsLabels[ISTIO_REV] !== undefined) ||
    templateAsks(ISTIO_MARKERS, i.template) ||
    // Under a member roll (OpenShift Service Mesh) the pod annotation is the opt-in (member-roll.ts).
    (i.nsLabels[ISTIO_NS_LABEL] !== 'disabled' && memberRollAsks(m, i.template)),
  decide: (m, i) => istioInjector(m, i),
  markerRules: { namespace: namespaceProblems, workload: workloadProblems },
  version: istioVersionReads,

  /**
   * The injection template: global.proxy.resources, replaced completely when any
   * sidecar.istio.io/proxy{CPU,Memory}[Limit] annotation is set on the pod template.
   */
  resources: (m, w, observed, observedFrom) => {
    const tmpl = annotationsOf(w.template);
    const out: Partial<Record<ResourceKey, { value: unknown; from: string }>> = {};
    if (KEYS.some((k) => tmpl[RESOURCE_ANNOTATIONS[k]] !== undefined)) {
      for (const k of KEYS)
        out[k] = {
          value: tmpl[RESOURCE_ANNOTATIONS[k]],
          from: `pod template annotation ${RESOURCE_ANNOTATIONS[k]}`,
        };
    } else if (observed) {
      for (const k of KEYS) out[k] = { value: valueAt(observed, ...split(k)), from: observedFrom! };
    } else {
      const values = configValues(injectorConfigMap(m, w));
      const global = values ? valueAt(values, 'global', 'proxy', 'resources') : DEFAULT_RESOURCES;
      const from = values
        ? 'istio-sidecar-injector values global.proxy.resources'
        : 'Istio default global.proxy.resources';
      for (const k of KEYS) out[k] = { value: valueAt(global, ...split(k)), from };
    }
    return out;
  },

  /**
   * ENABLE_NATIVE_SIDECARS: "false" before 1.27 (pilot/pkg/features/experimental.go @1.26.0); from
   * 1.27.0 (7359d8be) "auto" by default (pilot/pkg/features/pilot.go @86c9f01f line 346): native
   * when the pod's node (else every node) runs kubelet 1.33 or later (pkg/kube/inject/webhook.go
   * DetectNativeSidecar). Nodes are not read: "auto" is uncertain unless the workload's own pods
   * show what the injector chose.
   */
  native: (m, w) => {
    const v = annotationsOf(w.template)[NATIVE];
    if (v !== undefined) return { native: v !== 'false', reason: `pod template annotation ${NATIVE}=${v}` };
    const istiods = (m.mesh('istio')?.namespaces ?? [])
      .flatMap((ns) => m.inNamespace('deployments', ns))
      .filter((d) => isIstiod(nameOf(d)));
    const env = istiods
      .flatMap((d) => containers(podSpec(valueAt(d, 'spec', 'template') as { spec?: unknown })))
      .flatMap((c) => arr(c.env));
    const set = env.find((e) => isObj(e) && e.name === 'ENABLE_NATIVE_SIDECARS') as { value?: unknown } | undefined;
    if (set?.value === 'true') return { native: true, reason: 'istiod runs with ENABLE_NATIVE_SIDECARS=true' };
    if (set && set.value !== 'auto') return undefined; // "false" (or unreadable): the pods tell, else not native
    const d = istiods[0];
    const version = d ? istiodVersion(m, nsOf(d), nameOf(d)) : undefined;
    if (version?.version !== undefined && version.rules === 'loose' && set === undefined) return undefined; // before 1.27: off by default
    const how = set
      ? 'ENABLE_NATIVE_SIDECARS=auto'
      : `ENABLE_NATIVE_SIDECARS unset (auto from Istio 1.27${version?.version ? `; istiod ${version.version}` : ', version unknown'})`;
    const meshed = w.pods.filter((p) => containers(podSpec(p)).some((c) => c.name === 'istio-proxy'));
    if (meshed.length)
      return {
        native: false,
        reason: `${how}, and its pods run istio-proxy as an ordinary container (their nodes' kubelets are older than 1.33)`,
      };
    if (
      w.pods.some((p) =>
        initContainers(podSpec(p)).some((c) => c.name === 'istio-proxy' && c.restartPolicy === 'Always'),
      )
    )
      return undefined; // resources.ts: its pods run a native sidecar
    return {
      native: true,
      uncertain: true,
      reason: `${how}: a native sidecar if the nodes' kubelets are 1.33 or later (Nodes are not read)`,
    };
  },

  extend: {
    references: ISTIO_REFERENCES,
    ranges: istioRanges,
    containers: { announced: istioAnnounced },

    controlPlane: {
      isWorkload: (l) => (l.app === 'istiod' && l[ISTIO_REV] !== undefined) || l['istio.io/gateway-name'] !== undefined,
      injector: { isDeployment: isIstiod },
      webhooks: {
        inactive: (h) => deactivated(h),
        /** enableNamespacesByDefault renders `auto.sidecar-injector.istio.io` (templates/mutatingwebhook.yaml @86c9f01f, line 146). */
        injectsUnmarked: (h) => h.name === `auto.${ISTIO_DATA.controlPlane.webhooks.nameSuffix}`,
        expectedConfigs,
        list: () => cmd`kubectl get mutatingwebhookconfigurations -l app=sidecar-injector`,
      },
      reads: {
        named: (namespaces, webhookConfigs) => {
          const revs = servedRevisions(webhookConfigs);
          const out: NamedRef[] = [];
          for (const ns of namespaces) {
            out.push({ key: 'configmaps', namespace: ns, name: 'istio' });
            // The mesh ConfigMap of each revision: its defaultConfig.discoveryAddress (mesh-config.ts, reference-missing).
            for (const name of meshConfigNames(revs).slice(1)) out.push({ key: 'configmaps', namespace: ns, name });
            // The CNI plugin's settings, when it is installed beside istiod (the namespaces its agent skips).
            out.push({ key: 'configmaps', namespace: ns, name: CNI_CONFIG });
            for (const rev of revs.length ? revs : ['default'])
              out.push({ key: 'configmaps', namespace: ns, name: rev === 'default' ? CONFIG : `${CONFIG}-${rev}` });
            // No Secret: no check reads Istio's CA (istio-ca-secret holds its private key; deploy/mesh-rbac/istio.yaml).
          }
          return out;
        },
        // `config` holds the policy and selectors injectRequired reads; `values` the proxy resources and
        // chart settings (istiod reads both keys: pilot/pkg/bootstrap/sidecarinjector.go @86c9f01f).
        configMapKeys: (name) =>
          name.startsWith(CONFIG)
            ? ['config', 'values']
            : name === CNI_CONFIG
              ? [CNI_EXCLUDE, 'CHAINED_CNI_PLUGIN']
              : name === 'istio' || name.startsWith('istio-')
                ? ['mesh']
                : undefined,
        // and -<revision>
        // Of `config`, only what injectRequired reads: the injection templates (and anything else) go.
        slimConfigMap: (_name, key, text) => {
          // Of the mesh ConfigMap, only defaultConfig's addresses (mesh-config.ts).
          if (key === 'mesh') return slimMeshConfig(text);
          if (key !== 'config') return text;
          const cfg = parseYamlObject(text);
          if (!cfg) return undefined;
          const kept: Record<string, unknown> = {};
          for (const k of ['policy', 'neverInjectSelector', 'alwaysInjectSelector'])
            if (cfg[k] !== undefined) kept[k] = cfg[k];
          // The keys of the domain the templates read, not the templates (template-keys.ts, mesh-key-unknown).
          const keys = templateKeysOf(cfg);
          if (keys) kept.templateKeys = keys;
          return JSON.stringify(kept);
        },
      },
    },

    // The namespace label an installed webhook selects: istio-injection=enabled, else istio.io/rev=<revision>.
    markers: { enableMarker },

    injector: { rbac: { ...ISTIO_DATA.injector.rbac, names: istioRbacNames } },

    jobs: {
      relief: (pods, ns) =>
        pods.map((p) => cmd`kubectl exec ${p} -n ${ns} -c istio-proxy -- pilot-agent request POST quitquitquit`),
      // Any owner's pod: the proxy ends as the app would have ended it.
      releasePods: (pods, ns) =>
        pods.map((p) => cmd`kubectl exec ${p} -n ${ns} -c istio-proxy -- pilot-agent request POST quitquitquit`),
    },

    install: {
      ownConfig: istioOwnConfig,
      reinstall: (ns, istiod, m) => reinstallIstiod(ns, istiod, m ? istiodRelease(m, ns, istiod) : undefined),
      // The Helm line is pinned to the installed release (chartUpgrade).
      memoryFix: (ns, istiod, limit, m) => {
        const version = m ? istiodRelease(m, ns, istiod) : undefined;
        return chartUpgrade(ns, istiod, version, 'pilot.resources.limits.memory', limit, { why: 'durable' });
      },
      certFix: (ns, istiod) => [
        comment`istiod re-patches the caBundle of its webhook configurations when it starts`,
        cmd`kubectl -n ${ns} rollout restart ${`deploy/${istiod}`}`,
        comment`errors patching the caBundle. With a plugged-in CA, replace Secret cacerts first`,
        cmd`kubectl -n ${ns} logs ${`deploy/${istiod}`} --tail=200 | grep -i webhook`,
      ],
    },

    revisions: istioRevisions,
    sidecarless: ambient,
    cni: istioCni((m, w) => {
      const cm = injectorConfigMap(m, w);
      const values = configValues(cm);
      return values ? { values, from: nameOf(cm!) } : undefined;
    }),
    runtime: istioRuntime((m, w) => configValues(injectorConfigMap(m, w))),
  },
});
