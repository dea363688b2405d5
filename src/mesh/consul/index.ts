/**
 * Consul service mesh on Kubernetes: its profile (research/consul.md). Sources, hashicorp/consul-k8s
 * commit a507b1d1e3061996dbed00cde73bba2bf068379f (chart 2.1.0-dev; v2.0.3 cross-checked):
 * - charts/consul/templates/_helpers.tpl consul.fullname: fullnameOverride, else global.name, else
 *   `<release>-consul`; the consul-k8s CLI installs release `consul` in namespace `consul` with
 *   global.name=consul (cli/common/utils.go, cli/cmd/install/install.go), hence
 *   `consul-connect-injector`.
 * - templates/connect-inject-mutatingwebhookconfiguration.yaml: MutatingWebhookConfiguration
 *   `<fullname>-connect-injector`; the pod webhook `<fullname>-connect-injector.consul.hashicorp.com`
 *   (the others, mutate-*.consul.hashicorp.com, mutate Consul's CRDs) -> Service
 *   `<fullname>-connect-injector` in the release namespace, path /mutate, failurePolicy
 *   connectInject.failurePolicy (values.yaml: Fail), objectSelector `app NotIn [consul]`,
 *   namespaceSelector connectInject.namespaceSelector (values.yaml: kubernetes.io/metadata.name
 *   NotIn [kube-system, local-path-storage, openebs, gmp-system, gke-managed-cim]).
 * - templates/connect-inject-deployment.yaml: Deployment `<fullname>-connect-injector`, container
 *   `sidecar-injector`, pod labels app: consul, component: connect-injector.
 * - templates/webhook-cert-manager-*.yaml, control-plane/subcommand/webhook-cert-manager/command.go:
 *   Deployment `<fullname>-webhook-cert-manager` generates an in-memory CA (a restart makes a new
 *   one), writes Secret `<fullname>-connect-inject-webhook-cert` (tls.crt, 24h leaf) and patches
 *   caBundle of the webhook configurations every second; the chart sets no caBundle.
 * - control-plane/connect-inject/webhook/mesh_webhook.go sidecarContainer `consul-dataplane`;
 *   container_init.go injectInitContainerName `consul-connect-inject-init`.
 * - constants/annotations_and_labels.go: consul.hashicorp.com/sidecar-proxy-{cpu,memory}-{request,limit}
 *   and enable-consul-dataplane-as-sidecar; values.yaml connectInject.sidecarProxy.resources all
 *   null (no requests or limits; "Recommended production default" 100m / 100Mi).
 * - Jobs: consul-dataplane serves /graceful_shutdown on 127.0.0.1:20600 (constants.DefaultGracefulPort,
 *   acceptance/tests/connect/connect_proxy_lifecycle_test.go calls it with curl).
 * - CNI (pod-security-blocks-init): control-plane/connect-inject/webhook/container_init.go
 *   containerInit: `consul-connect-inject-init` keeps its name in every mode; with transparent
 *   proxy on and CNI off it runs as UID 0 (runAsNonRoot false) with `capabilities.add:
 *   [NET_ADMIN]` (privileged only with -enable-openshift), which Pod Security baseline and
 *   restricted reject; with CNI on it runs as UID 5996, drop ALL, no capability; with transparent
 *   proxy off it drops ALL and adds none. Transparent proxy: common/common.go
 *   TransparentProxyEnabled, the pod annotation consul.hashicorp.com/transparent-proxy, else the
 *   namespace label of that key, else -default-enable-transparent-proxy (Go's strconv.ParseBool;
 *   an unparsable value is an error, so the pod is denied). Flags (subcommand/inject-connect/
 *   command.go): -enable-cni (default false), -default-enable-transparent-proxy (default true);
 *   templates/connect-inject-deployment.yaml always writes both, from connectInject.cni.enabled
 *   (values.yaml: false) and connectInject.transparentProxy.defaultEnabled (true).
 *   templates/cni-daemonset.yaml: DaemonSet `<fullname>-cni` in connectInject.cni.namespace
 *   (default the release namespace); values.yaml cniBinDir /opt/cni/bin, cniNetDir /etc/cni/net.d
 *   ("/home/kubernetes/bin" on GKE).
 */
import { CONSUL_REFERENCES } from './references.js';
import { consulRanges } from './network.js';
import { choice, cmd, comment, lit, text } from '../../fix/steps.js';
import { CONSUL_CERT_LOADS } from './cert-loads.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import { annotationsOf, isObj, labelsOf } from '../../util/objects.js';
import { containers, podSpec } from '../../k8s/pods.js';
import { helmOption, helmUpgrade, type HelmRelease } from '../helm.js';
import { valueAt } from '../config-values.js';
import type { CniPlugin, ResourceKey } from '../profile.js';
import { profileFrom } from '../profile-from.js';
import { CONSUL_DATA, CONSUL_INJECTOR, CONSUL_NATIVE, RESOURCE_ANNOTATIONS } from './data.js';
import {
  CONSUL_INJECT,
  consulInjector,
  consulSettings,
  defaultInjects,
  isConsulInjectorDeployment,
  parseConsul,
} from './injector.js';
import { namespaceMarker, namespaceProblems, workloadProblems } from './markers.js';
import { consulRuntime } from './runtime.js';
import { consulRbac, consulVersions } from './support.js';

const INJECTOR = CONSUL_INJECTOR;
const NATIVE = CONSUL_NATIVE;
const KEYS = Object.keys(RESOURCE_ANNOTATIONS) as ResourceKey[];
const split = (k: ResourceKey) => k.split('.') as ['requests' | 'limits', 'cpu' | 'memory'];
const TPROXY = 'consul.hashicorp.com/transparent-proxy';

const cni: CniPlugin = {
  privilegedInit: { name: 'consul-connect-inject-init', capabilities: ['NET_ADMIN'] },
  // No validationInit: the init container keeps its name with the plugin (it only drops its capabilities).
  // hashicorp/consul-k8s@a507b1d1 control-plane/connect-inject/webhook/mesh_webhook.go#L454-L458 (the injector writes
  // consul.hashicorp.com/transparent-proxy-status: enabled with transparent proxy), control-plane/cni/main.go#L45-L53,
  // #L213, #L248 (the plugin rewrites it to waiting, then complete; the same at v1.0.0, @2d467395). A pod still at
  // enabled was never set up by the plugin: hashicorp/consul-k8s#3060.
  setUpMark: {
    key: 'consul.hashicorp.com/transparent-proxy-status',
    injected: 'enabled',
    source: 'hashicorp/consul-k8s@a507b1d1 control-plane/cni/main.go#L45-L53',
  },
  daemonSet: 'consul-cni',
  // hashicorp/consul-k8s control-plane/cni: the plugin's type consul-cni (templates/cni-configmap.yaml).
  pluginType: 'consul-cni',
  // hashicorp/consul-k8s a507b1d1 charts/consul/templates/cni-daemonset.yaml: hostPath volume cni-bin-dir is
  // values connectInject.cni.cniBinDir (values.yaml: /opt/cni/bin).
  binDirSetting: 'the chart value connectInject.cni.cniBinDir',
  // On OpenShift (Multus) the pods name NetworkAttachmentDefinition consul-cni in their
  // k8s.v1.cni.cncf.io/networks annotation, and each namespace must have it (hashicorp/consul-k8s
  // 0b4a4e93 acceptance/tests/fixtures/bases/openshift/network-attachment.yaml and
  // acceptance/tests/fixtures/bases/static-client/deployment.yaml on OpenShift).
  attachment: {
    name: 'consul-cni',
    fix: (ns) => [
      comment`create NetworkAttachmentDefinition consul-cni in ${ns}, with a spec.config of type consul-cni and multus true, as the Consul docs for OpenShift show`,
    ],
  },
  enabled: (m) => {
    const s = consulSettings(m);
    return s.cni === undefined ? undefined : { enabled: s.cni, from: `injector ${s.from} flag -enable-cni=${s.cni}` };
  },
  privilegedFor: (m, w) => {
    const tmpl = annotationsOf(w.template)[TPROXY];
    const ns = labelsOf(m.namespace(w.namespace))[TPROXY];
    const [v, from] =
      tmpl !== undefined
        ? [tmpl, `pod template annotation ${TPROXY}=${tmpl}`]
        : ns !== undefined
          ? [ns, `namespace label ${TPROXY}=${ns}`]
          : [
              consulSettings(m).transparentProxy,
              `injector flag -default-enable-transparent-proxy=${consulSettings(m).transparentProxy}`,
            ];
    if (v === undefined) return undefined; // the flag was not read: nothing tells
    const on = typeof v === 'boolean' ? v : parseConsul(v);
    // An unparsable value: the injector denies the pod before any init container (webhook-denied says so).
    if (on === 'invalid')
      return {
        privileged: false,
        from: `${from}, not a value Go's strconv.ParseBool reads: the injector denies the pod`,
      };
    return { privileged: on === true, from: `transparent proxy ${on ? 'on' : 'off'}: ${from}` };
  },
  install: (ns) => [
    choice(
      text`install consul-cni and turn it on for the injector: run the one line for your install method. connectInject.cni.cniBinDir and cniNetDir must fit your nodes, for example /home/kubernetes/bin on GKE`,
      [
        {
          label: text`consul-k8s CLI`,
          steps: [cmd`consul-k8s upgrade -f YOUR-VALUES.yaml -set connectInject.cni.enabled=true`],
        },
        {
          label: text`Helm`,
          steps: [
            cmd`helm upgrade consul hashicorp/consul -n ${ns} --reuse-values --set connectInject.cni.enabled=true`,
          ],
        },
        {
          label: text`or turn transparent proxy off for the workload, so the init container needs no capability but traffic is no longer redirected`,
          steps: [comment`pod template annotation ${lit(TPROXY)}: 'false'`],
        },
      ],
    ),
  ],
};

/**
 * The injector Deployment the flags were read from (`from`: namespace/name), where it is in this namespace (0.x: not
 * named like its Service); else the injector's own name.
 */
const flagsDeployment = (from: string | undefined, ns: string, injector: string): string => {
  const [dns, dname] = (from ?? '').split('/');
  return dns === ns && dname ? dname : injector;
};

/** The chart's fullname from the injector's Deployment or Service name (0.x: `-webhook-deployment`, `-svc`). */
const fullname = (injector: string): string =>
  injector.replace(/-connect-injector(-webhook-deployment|-svc)?$/, '') || 'consul';

/**
 * The Helm release and chart version of the injector `<ns>/<injector>`. consul-k8s a507b1d
 * charts/consul/templates/connect-inject-deployment.yaml labels it `release: <release>` (its
 * `chart` label is the constant `consul-helm`, _helpers.tpl consul.chart: no version); the chart
 * version is the consul-k8s version, the tag of its consul-k8s-control-plane image (values.yaml
 * global.imageK8S, e.g. hashicorp/consul-k8s-control-plane:1.6.2 in chart 1.6.2).
 */
function consulRelease(m: MeshContext | undefined, ns: string, injector: string): HelmRelease {
  if (!m) return {};
  const d = m.get('deployments', ns, injector);
  const release = labelsOf(d).release;
  const image = containers(podSpec(isObj(d?.spec) ? d!.spec.template : undefined)).find(
    (c) => c.name === 'sidecar-injector',
  )?.image;
  const version =
    typeof image === 'string' ? /consul-k8s-control-plane:v?([0-9][0-9A-Za-z.+-]*)$/.exec(image)?.[1] : undefined;
  return { ...(release ? { release } : {}), ...(version ? { version } : {}) };
}

/**
 * consul-k8s knows the pod annotation enable-consul-dataplane-as-sidecar from v1.9.0 (CHANGELOG
 * 1.9.0, GH-4678), backported to v1.8.2, v1.7.5 and v1.6.9 (control-plane/connect-inject/constants/
 * annotations_and_labels.go at each tag); an unparsable version counts as known.
 */
function nativeAnnotationKnown(v: string): boolean {
  const x = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  if (!x) return true;
  const [maj, min, patch] = [Number(x[1]), Number(x[2]), Number(x[3])];
  if (maj !== 1) return maj > 1;
  if (min >= 9) return true;
  const since: Record<number, number> = { 8: 2, 7: 5, 6: 9 };
  return since[min] !== undefined && patch >= since[min]!;
}

/**
 * Consul's profile: its data document (data.ts) and the behaviour below, through profileFrom
 * (src/mesh/profile-from.ts): what its data cannot say (the injector's flags, its Helm and
 * consul-k8s fixes, its webhook-cert-manager).
 */
export const consul = profileFrom(CONSUL_DATA, {
  intent: (i, m) => {
    const v = parseConsul(annotationsOf(i.template)[CONSUL_INJECT]);
    if (v !== undefined) return v === true;
    return defaultInjects(m, i.namespace, i.nsLabels);
  },
  decide: (m, i) => consulInjector(m, i.namespace, i.template),
  markerRules: { namespace: namespaceProblems, workload: workloadProblems },
  version: consulVersions,
  /** The pod template annotations, else the injector's -default-sidecar-proxy-* flags (Helm connectInject.sidecarProxy.resources: none by default). */
  resources: (m: MeshContext, w: Workload, observed, observedFrom) => {
    const tmpl = annotationsOf(w.template);
    const flags = consulSettings(m).resources;
    const out: Partial<Record<ResourceKey, { value: unknown; from: string }>> = {};
    for (const k of KEYS) {
      const ann = RESOURCE_ANNOTATIONS[k];
      const [kind, r] = split(k);
      if (tmpl[ann] !== undefined) out[k] = { value: tmpl[ann], from: `pod template annotation ${ann}` };
      else if (observed) out[k] = { value: valueAt(observed, kind, r), from: observedFrom! };
      else
        out[k] = {
          value: flags[k],
          from: `injector flag -default-sidecar-proxy-${r}-${kind === 'requests' ? 'request' : 'limit'}`,
        };
    }
    return out;
  },
  native: (m, w) => {
    const v = annotationsOf(w.template)[NATIVE];
    if (v !== undefined) return { native: v === 'true', reason: `pod template annotation ${NATIVE}=${v}` };
    const s = consulSettings(m);
    return s.nativeSidecar === undefined
      ? undefined
      : {
          native: s.nativeSidecar,
          reason: `injector flag -default-enable-consul-dataplane-as-sidecar=${s.nativeSidecar}`,
        };
  },

  extend: {
    references: CONSUL_REFERENCES,
    ranges: consulRanges,
    controlPlane: {
      certLoads: CONSUL_CERT_LOADS,
      injector: { isDeployment: isConsulInjectorDeployment },
      webhooks: {
        expectedConfigs: (injectors) => (injectors.length ? injectors : [INJECTOR]),
        list: () => cmd`kubectl get mutatingwebhookconfigurations -l component=connect-injector`,
      },
    },

    markers: {
      namespaceMarker,
      // mesh_webhook.go shouldInject (a507b1d): the deny list is read before any annotation, so it leaves out every pod of the namespace.
      namespaceSettingOff: (_m, ns) => [
        comment`or leave namespace ${ns} out of Consul altogether: add it to the Helm value connectInject.k8sDenyNamespaces, the -deny-k8s-namespace flag of the injector, and upgrade the release. The injector then refuses even pods annotated ${lit(CONSUL_INJECT)}: 'true'`,
      ],
    },

    injector: {
      token: (m) =>
        consulSettings(m).acls
          ? {
              why: 'Consul runs with ACLs (the injected init container logs in with the token)',
              evidence: { aclAuthMethod: true },
              denies: true,
            }
          : undefined,
      rbac: consulRbac,
    },

    proxy: {
      native: {
        unsupported: (m) => {
          const install = m.mesh('consul');
          const injector = install?.webhooks.find((h) => h.service)?.service;
          const v = injector ? consulRelease(m, injector.namespace, injector.name).version : undefined;
          if (!v || nativeAnnotationKnown(v)) return undefined;
          return text`consul-k8s ${v} does not know the annotation ${lit(NATIVE)}, added in 1.9.0 and backported to 1.8.2, 1.7.5 and 1.6.9: upgrade Consul first, or use one of the ways below`;
        },
      },
    },

    jobs: {
      relief: (_pods, ns, job) => [
        comment`the app has exited, and consul-dataplane listens for its shutdown only on the loopback of the pod`,
        cmd`kubectl delete job ${job} -n ${ns}`,
      ],
    },

    install: {
      reinstall: (ns, injector, m) => [
        choice(text`re-render the control plane the way it was installed: run the one line for your install method`, [
          { label: text`consul-k8s CLI`, steps: [cmd`consul-k8s upgrade -f YOUR-VALUES.yaml`] },
          helmOption(consulRelease(m, ns, injector), 'hashicorp/consul', ns, []),
        ]),
      ],
      memoryFix: (ns, injector, limit, m) =>
        helmUpgrade(
          consulRelease(m, ns, injector),
          'hashicorp/consul',
          ns,
          [['connectInject.resources.limits.memory', limit]],
          text`durable, if installed with Helm`,
        ),
      // From consul-k8s 0.26 the webhook-cert-manager fills the caBundle (injector.ts tlsAuto: up to 0.25 the injector).
      caBundleFiller: (m, ns, injector) => {
        const s = consulSettings(m);
        if (s.tlsAuto) return undefined;
        const name = `${fullname(flagsDeployment(s.from, ns, injector))}-webhook-cert-manager`;
        return m.get('deployments', ns, name) ? { namespace: ns, name } : undefined;
      },
      certFix: (ns, injector, _certManager, m) => {
        // consul-k8s up to 0.25: the injector itself, started with -tls-auto, makes its certificate and patches the
        // caBundle at start; there is no webhook-cert-manager for it to restart (consulSettings tlsAuto).
        const s = m ? consulSettings(m) : undefined;
        const [dns, dname] = (s?.from ?? '').split('/');
        const deployment = flagsDeployment(s?.from, ns, injector);
        if (s?.tlsAuto && dns && dname)
          return [
            comment`this release of the injector makes its own certificate and patches the caBundle when it starts, -tls-auto`,
            cmd`kubectl -n ${dns} rollout restart ${`deploy/${dname}`}`,
          ];
        return [
          comment`the webhook-cert-manager makes a new CA and certificate and patches the caBundle within seconds of its restart`,
          cmd`kubectl -n ${ns} rollout restart ${`deploy/${fullname(deployment)}-webhook-cert-manager`}`,
          comment`the injector loads the new certificate when it restarts`,
          cmd`kubectl -n ${ns} rollout restart ${`deploy/${deployment}`}`,
        ];
      },
    },

    cni,
    // Transparent proxy decides the init container's capabilities (cni.privilegedFor reads it).
    runtime: consulRuntime((m, w) => cni.privilegedFor!(m, w)?.privileged),
  },
});
