/**
 * Istio's profile (docs/meshes/istio.md). Sources: istio/istio manifests/charts/istio-control/
 * istio-discovery (templates/mutatingwebhook.yaml, files/injection-template.yaml, values.yaml),
 * pkg/kube/inject (inject.go, webhook.go), tools/istio-iptables.
 */
import { containers, initContainers, podSpec } from '../../k8s/pods.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import type { K8sObject } from '../../util/types.js';
import { arr, isObj, labelsOf, nameOf, nsOf, annotationsOf, dict } from '../../util/objects.js';
import { configValues, parseYamlObject, valueAt } from '../config-values.js';
import type { MeshProfile, NamedRef, ResourceKey } from '../profile.js';
import type { MeshWebhook } from '../profile.js';
import { ISTIO_IGNORED_NAMESPACES, ISTIO_INJECT, ISTIO_NS_LABEL, ISTIO_REV, istioInjector } from './injector.js';
import { chartUpgrade, reinstallIstiod, serviceRevision } from './install.js';
import { istiodRelease, istiodVersion } from './version.js';
import { ambient, istioCni } from './ambient.js';
import { choice, cmd, comment, text, type Step } from '../../fix/steps.js';
import { ISTIO_MARKERS, enableMarker, namespaceProblems, workloadProblems } from './markers.js';
import { templateAsks } from '../marker-table.js';
import { CNI_CONFIG, CNI_EXCLUDE, istioRuntime } from './runtime.js';
import { istioNetwork } from './network.js';
import { istioRbac, istioVersions } from './support.js';
import { istioAnnounced } from './announced.js';

const SUFFIX = 'sidecar-injector.istio.io';
const CONFIG = 'istio-sidecar-injector';
const NATIVE = 'sidecar.istio.io/nativeSidecar';
/** global.proxy.resources default (manifests/charts/istio-control/istio-discovery/values.yaml). */
const DEFAULT_RESOURCES = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '2000m', memory: '1024Mi' } };

const RESOURCE_ANNOTATIONS: Record<ResourceKey, string> = {
  'requests.cpu': 'sidecar.istio.io/proxyCPU',
  'requests.memory': 'sidecar.istio.io/proxyMemory',
  'limits.cpu': 'sidecar.istio.io/proxyCPULimit',
  'limits.memory': 'sidecar.istio.io/proxyMemoryLimit',
};
const KEYS = Object.keys(RESOURCE_ANNOTATIONS) as ResourceKey[];
const split = (k: ResourceKey) => k.split('.') as ['requests' | 'limits', 'cpu' | 'memory'];

/** The control plane Deployment: istiod, or istiod-<revision>. */
const isIstiod = (name: string): boolean => /^istiod(-|$)/.test(name);
/** The revision from an istiod Deployment name ("istiod-canary" -> "canary"). */
const revisionOf = (istiod: string): string | undefined =>
  istiod.startsWith('istiod-') ? istiod.slice('istiod-'.length) : undefined;

/** Revisions served by the installed webhooks ('default' for the unrevisioned one). */
function revisions(webhookConfigs: K8sObject[]): string[] {
  const revs = new Set<string>();
  for (const cfg of webhookConfigs) {
    const name = cfg.metadata?.name ?? '';
    const hooks = Array.isArray(cfg.webhooks) ? (cfg.webhooks as Record<string, any>[]) : [];
    if (!hooks.some((h) => typeof h?.name === 'string' && h.name.endsWith(SUFFIX))) continue;
    const rev = cfg.metadata?.labels?.[ISTIO_REV];
    if (typeof rev === 'string' && rev) revs.add(rev);
    else if (name === CONFIG) revs.add('default');
  }
  return [...revs].sort();
}

/** The istio-sidecar-injector ConfigMap for the revision whose webhook would inject this workload (the default one without a workload). */
function injectorConfigMap(m: MeshContext, w: Workload | undefined): K8sObject | undefined {
  const hook = w ? m.decision(w, 'istio')?.calls.find((c) => c.called)?.webhook : undefined;
  const name = hook?.configName.startsWith(CONFIG) ? hook.configName : CONFIG;
  const ns = hook?.service?.namespace ?? m.mesh('istio')?.namespaces[0];
  return ns ? m.get('configmaps', ns, name) : undefined;
}

/** The istio-sidecar-injector values for the revision whose webhook would inject this workload. */
const injectorValues = (m: MeshContext, w: Workload): Record<string, any> | undefined =>
  configValues(injectorConfigMap(m, w));

export const istio: MeshProfile & { readonly name: 'istio' } = {
  name: 'istio',
  title: 'Istio',

  containers: {
    announced: istioAnnounced,
    proxy: 'istio-proxy',
    init: ['istio-init'],
    image: /(^|\/)proxyv2(:|@|$)/,
  },

  controlPlane: {
    namespace: 'istio-system',
    ownNamespaces: ['istio-system', ...ISTIO_IGNORED_NAMESPACES],
    excludedNamespaces: [],
    isNamespace: () => false,
    isWorkload: (l) => (l.app === 'istiod' && l[ISTIO_REV] !== undefined) || l['istio.io/gateway-name'] !== undefined,
    isOwnPod: () => false,
    injector: {
      name: 'istiod',
      container: 'discovery',
      // istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/templates/service.yaml#L30-L33
      // (https-webhook 443 -> 15017), deployment.yaml#L140.
      webhookPort: 15017,
      podSelector: 'app=istiod',
      isDeployment: isIstiod,
    },
    webhooks: {
      defaultConfig: CONFIG,
      owns: (h) => h.name.endsWith(SUFFIX),
      inactive: (h) => deactivated(h),
      /** enableNamespacesByDefault renders `auto.sidecar-injector.istio.io` (templates/mutatingwebhook.yaml @86c9f01f, line 146). */
      injectsUnmarked: (h) => h.name === `auto.${SUFFIX}`,
      expectedConfigs: (istiods) =>
        (istiods.length ? istiods : ['istiod']).map((d) => (revisionOf(d) ? `${CONFIG}-${revisionOf(d)}` : CONFIG)),
      list: () => cmd`kubectl get mutatingwebhookconfigurations -l app=sidecar-injector`,
    },
    // istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/templates/deployment.yaml#L65 (istiod's pods
    // carry sidecar.istio.io/inject: "false"), mutatingwebhook.yaml#L82-L100, #L124-L127 (NotIn ["false"]; object.
    // needs In ["true"]). Not istio-injection=disabled on istio-system: it would keep its gateways out too.
    selfExclusion: [{ on: 'template', key: ISTIO_INJECT, value: 'false' }],
    reads: {
      named: (namespaces, webhookConfigs) => {
        const revs = revisions(webhookConfigs);
        const out: NamedRef[] = [];
        for (const ns of namespaces) {
          out.push({ key: 'configmaps', namespace: ns, name: 'istio' });
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
            : undefined,
      // and -<revision>
      // Of `config`, only what injectRequired reads: the injection templates (and anything else) go.
      slimConfigMap: (_name, key, text) => {
        if (key !== 'config') return text;
        const cfg = parseYamlObject(text);
        if (!cfg) return undefined;
        const kept: Record<string, unknown> = {};
        for (const k of ['policy', 'neverInjectSelector', 'alwaysInjectSelector'])
          if (cfg[k] !== undefined) kept[k] = cfg[k];
        return JSON.stringify(kept);
      },
      // and the istio-cni agent's switch for a plugin chained or standalone (istio-cni-node's install-cni, before 1.23).
      env: ['ENABLE_NATIVE_SIDECARS', 'CHAINED_CNI_PLUGIN'],
      // istio-proxy's `proxy <type>` args: the CNI plugin redirects only a sidecar (cni-skips.ts), not a gateway or waypoint.
      args: ['^(?:proxy|sidecar|router|waypoint)$'],
    },
  },

  markers: {
    ...ISTIO_MARKERS,
    // istio-injection (any value) beats istio.io/rev: `istio-injection=disabled` beside a revision is an opt-out.
    intent: (i) =>
      (i.nsLabels[ISTIO_NS_LABEL] !== undefined
        ? i.nsLabels[ISTIO_NS_LABEL] === 'enabled'
        : i.nsLabels[ISTIO_REV] !== undefined) || templateAsks(ISTIO_MARKERS, i.template),
    enableMarker,
    rules: { namespace: namespaceProblems, workload: workloadProblems },
  },

  injector: {
    decide: (m, i) => istioInjector(m, i),
    rbac: istioRbac,
    // A pod selected by two of its webhooks is injected again from the template, not skipped
    // (pkg/kube/inject/webhook.go lines 519-530 at 1.28.0: "We should use new container template
    // instead of restoring what may be previously injected"): the configuration called last wins.
    reinjects: true,
  },

  proxy: {
    resources: {
      annotations: RESOURCE_ANNOTATIONS,
      onNamespace: false,
      suggested: {
        'requests.cpu': '100m',
        'requests.memory': '128Mi',
        'limits.cpu': '2000m',
        'limits.memory': '1024Mi',
      },
      /**
       * The injection template: global.proxy.resources, replaced completely when any
       * sidecar.istio.io/proxy{CPU,Memory}[Limit] annotation is set on the pod template.
       */
      of: (m, w, observed, observedFrom) => {
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
          const values = injectorValues(m, w);
          const global = values ? valueAt(values, 'global', 'proxy', 'resources') : DEFAULT_RESOURCES;
          const from = values
            ? 'istio-sidecar-injector values global.proxy.resources'
            : 'Istio default global.proxy.resources';
          for (const k of KEYS) out[k] = { value: valueAt(global, ...split(k)), from };
        }
        return out;
      },
    },
    native: {
      /**
       * ENABLE_NATIVE_SIDECARS: "false" before 1.27 (pilot/pkg/features/experimental.go @1.26.0); from
       * 1.27.0 (7359d8be) "auto" by default (pilot/pkg/features/pilot.go @86c9f01f line 346): native
       * when the pod's node (else every node) runs kubelet 1.33 or later (pkg/kube/inject/webhook.go
       * DetectNativeSidecar). Nodes are not read: "auto" is uncertain unless the workload's own pods
       * show what the injector chose.
       */
      decide: (m, w) => {
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
      annotation: NATIVE,
    },
  },

  jobs: {
    shutdown: /quitquitquit/,
    shutdownWords: ['quitquitquit'],
    alternatives: [
      comment`or: end the command of the app with curl -fsS -X POST localhost:15020/quitquitquit`,
      comment`or: opt the pod template out with the label sidecar.istio.io/inject: 'false'`,
    ],
    relief: (pods, ns) =>
      pods.map((p) => cmd`kubectl exec ${p} -n ${ns} -c istio-proxy -- pilot-agent request POST quitquitquit`),
  },

  install: {
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
    emptyCaBundle:
      'the caBundle is empty: istiod fills it itself, so istiod is not running or cannot patch this configuration',
    restartReloads: ', and istiod re-patches the caBundle',
  },

  revisions: {
    label: ISTIO_REV,
    served: revisions,
    unserved: (m, requested, relabel) => unservedRevision(m, requested, relabel),
  },

  sidecarless: ambient,

  cni: istioCni((m, w) => {
    const cm = injectorConfigMap(m, w);
    const values = configValues(cm);
    return values ? { values, from: nameOf(cm!) } : undefined;
  }),

  runtime: istioRuntime((m, w) => configValues(injectorConfigMap(m, w))),
  versions: istioVersions,
  network: istioNetwork,
};

/** For explain and evidence: the per-pod value and how Istio parses it. */

/** The selectors istioctl writes into the webhooks it deactivates (`tag set default`; istioctl/pkg/util/common.go:27 @86c9f01f). */
const DEACTIVATED = 'istio.io/deactivated';
const deactivated = (h: { namespaceSelector: unknown; objectSelector: unknown }) =>
  [h.namespaceSelector, h.objectSelector].some(
    (s) => isObj(s) && isObj(s.matchLabels) && s.matchLabels[DEACTIVATED] === 'never-match',
  );

/**
 * The revisions and tags the installed webhook configurations serve. A tag's configuration is
 * `istio-revision-tag-<tag>`, labelled `istio.io/tag: <tag>` and `istio.io/rev: <revision>`
 * (templates/revision-tags-mwc.yaml, istioctl/pkg/tag/generate.go @86c9f01f); its webhooks call
 * the revision's Service istiod[-<rev>]. A revision's is labelled `istio.io/rev` without
 * `istio.io/tag` (istioctl's own selector, istioctl/pkg/tag/util.go). Deactivated webhooks serve
 * nothing.
 */
function installedRevisions(hooks: MeshWebhook[]): {
  revisions: string[];
  tags: Record<string, string>;
  values: string[];
} {
  const revisions = new Set<string>();
  const tags = dict(); // keyed by tag names from the cluster
  const values = new Set<string>();
  for (const h of hooks) {
    if (h.mesh !== 'istio') continue; // deactivated webhooks never reach here (inactiveWebhook)
    h.revisions.forEach((r) => values.add(r));
    const labels = labelsOf(h.config);
    const target = labels[ISTIO_REV] ?? (h.service ? serviceRevision(h.service.name) : undefined);
    const tag =
      labels['istio.io/tag'] ??
      (h.configName.startsWith(TAG_PREFIX) ? h.configName.slice(TAG_PREFIX.length) : undefined);
    if (tag !== undefined) {
      if (target) tags[tag] = target;
    } else if (target) revisions.add(target);
    else h.revisions.forEach((r) => revisions.add(r));
  }
  return { revisions: [...revisions].sort(), tags, values: [...values].sort() };
}
const TAG_PREFIX = 'istio-revision-tag-';

/**
 * A namespace or pod label `istio.io/rev=<requested>` that no installed webhook serves: relabel to
 * an installed revision or tag, or install the missing revision, or make it a tag of an installed
 * revision (`istioctl tag set`, istioctl/pkg/tag/tag.go @86c9f01f). Comments: the user chooses.
 */
function unservedRevision(m: MeshContext, requested: string, relabel: (value: string) => Step[]) {
  const { revisions, tags, values } = installedRevisions(m.webhooksOf('istio'));
  const options = values.map((v) => ({
    label:
      tags[v] !== undefined
        ? text`to use the installed tag ${v} of revision ${tags[v]!}`
        : text`to use the installed revision ${v}`,
    steps: relabel(v),
  }));
  const target = revisions.find((r) => r !== 'default') ?? revisions[0];
  options.push(
    {
      label: text`to install revision ${requested} with istioctl`,
      steps: [cmd`istioctl install -y --set revision=${requested} -f YOUR-ISTIOOPERATOR.yaml`],
    },
    {
      label: text`to install revision ${requested} with Helm`,
      steps: [cmd`helm install ${`istiod-${requested}`} istio/istiod -n istio-system --set revision=${requested}`],
    },
  );
  if (target)
    options.push({
      label: text`to restore tag ${requested} for an installed revision`,
      steps: [cmd`istioctl tag set ${requested} --revision ${target}`],
    });
  return {
    evidence: { requestedRevision: requested, installedRevisions: revisions, installedTags: tags },
    fix: [
      choice(
        text`${requested} is neither an installed revision nor a tag: choose one below. Pasted as it is, this block runs nothing`,
        options,
      ),
    ],
  };
}
