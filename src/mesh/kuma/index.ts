/**
 * Kuma's profile (research/kuma.md). Sources, kumahq/kuma v2.14.3 (commit
 * 0c7aaec033b7dad03c3a9f4d5b56eb6d941bfff9) unless said otherwise:
 * - deployments/charts/kuma/templates/cp-webhooks-and-secrets.yaml: MutatingWebhookConfiguration
 *   `kuma-admission-mutating-webhook-configuration` (`{{kuma.name}}-…`, not the release name), pod
 *   webhooks `namespace-kuma-injector.kuma.io`, `pods-kuma-injector.kuma.io`,
 *   `mesh-zoneproxy-kuma-injector.kuma.io` -> Service `kuma-control-plane` in the release
 *   namespace, path /inject-sidecar, failurePolicy controlPlane.injectorFailurePolicy (values.yaml:
 *   Fail); the other webhooks of that configuration (mesh.defaulter…, owner-reference…) mutate
 *   Kuma's own resources, not pods. Serving certificate: Secret `kuma-tls-cert` (tls.crt, ca.crt),
 *   generated once by Helm (genCA "kuma-ca", 3650 days, reused on upgrade by lookup) or by
 *   cert-manager (annotation cert-manager.io/inject-ca-from).
 * - templates/cp-deployment.yaml, cp-service.yaml: Deployment and Service `kuma-control-plane`,
 *   container `control-plane`, pod label `app: kuma-control-plane`, Service 443 -> 5443.
 * - app/kumactl/cmd/install/context/install_control_plane_context.go: namespace `kuma-system`.
 * - pkg/plugins/runtime/k8s/util/names.go: containers `kuma-sidecar`, `kuma-init`,
 *   `kuma-validation` (CNI); templates/cni-daemonset.yaml: DaemonSet `kuma-cni-node`, label
 *   `app: kuma-cni`, in kube-system.
 * - templates/_helpers.tpl kuma.defaultEnv: KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS
 *   (values.yaml experimental.sidecarContainers: true since 2.14.0) and
 *   KUMA_INJECTOR_SIDECAR_CONTAINER_RESOURCES_* (default requests 50m / 64Mi, limits cpu "0" = none,
 *   memory 512Mi). No pod annotation sets the sidecar's resources (metadata/annotations.go has
 *   none): a ContainerPatch or the Helm values dataPlane.sidecarContainer.resources do.
 * - pkg/plugins/runtime/k8s/plugin.go addMutators: the native sidecar is an init container with
 *   restartPolicy: Always; pkg/plugins/runtime/k8s/controllers/pod_status_controller.go: without
 *   it, the control plane POSTs Envoy's /quitquitquit once a Job pod's other containers ended.
 * - CNI (pod-security-blocks-init): pkg/plugins/runtime/k8s/webhooks/injector/injector.go
 *   NewInitContainer: without the CNI plugin `kuma-init` runs as UID 0 with
 *   `capabilities.add: [NET_ADMIN, NET_RAW]` (drop ALL), which Pod Security baseline and
 *   restricted reject (with experimental eBPF it is privileged instead); with it (cfg.CNIEnabled,
 *   tproxy CNIMode) there is no kuma-init, and `kuma-validation` (NewValidationContainer, UID
 *   5678, no capability) is added when inbound redirection is on. The switch is the control
 *   plane's env KUMA_RUNTIME_KUBERNETES_INJECTOR_CNI_ENABLED (pkg/config/plugins/runtime/k8s/
 *   config.go CNIEnabled, kuma-cp.defaults.yaml cniEnabled: false; envconfig reads it with Go's
 *   strconv.ParseBool), which templates/_helpers.tpl sets from the Helm value cni.enabled
 *   (values.yaml: false); kumactl install control-plane --cni-enabled
 *   (app/kumactl/cmd/install/install_control_plane.go). templates/cni-daemonset.yaml: DaemonSet
 *   `kuma-cni-node` in cni.namespace (values.yaml: kube-system); values.yaml's cni.chained,
 *   netDir, binDir and confName default to Multus paths and must fit the cluster's CNI.
 */
import { KUMA_REFERENCES } from './references.js';
import { kumaRanges } from './network.js';
import { KUMA_VALIDATION_PASSES } from './cni-validation.js';
import { defineFact } from '../../k8s/fact.js';
import { choice, cmd, comment, lit, text, type Step } from '../../fix/steps.js';
import { containers, podSpec } from '../../k8s/pods.js';
import type { MeshContext } from '../context.js';
import { annotationsOf, arr, isObj, labelsOf, nsOf } from '../../util/objects.js';
import { daemonSetsNamed, templateEnv } from '../cni-install.js';
import { kumaOwnConfig } from './own-config.js';
import type { K8sObject } from '../../util/types.js';
import { commandText, helmOption, helmUpgrade, type HelmRelease } from '../helm.js';
import { valueAt } from '../config-values.js';
import type { CniPlugin, ResourceKey } from '../profile.js';
import { profileFrom } from '../profile-from.js';
import { KUMA_DATA } from './data.js';
import { KUMA_INJECT, KUMA_SIDECAR, kumaInjector, kumaMarkers } from './injector.js';
import { namespaceProblems, workloadProblems } from './markers.js';
import { kumaRuntime, WAIT_ENV } from './runtime.js';
import { SIDECAR_IMAGE_ENV, kumaRbac, kumaVersions } from './support.js';

const CP = 'kuma-control-plane';
const TLS_SECRET = 'kuma-tls-cert';
const TLS_CERT_ENV = 'KUMA_GENERAL_TLS_CERT_FILE';
const TLS_CERT_FILE = '/var/run/secrets/kuma.io/tls-cert/tls.crt';
const NATIVE_ENV = 'KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS';
const CNI_ENV = 'KUMA_RUNTIME_KUBERNETES_INJECTOR_CNI_ENABLED';
const UID_ENV = 'KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_UID';
/** Go's strconv.ParseBool, as envconfig reads the control plane's booleans. */
const GO_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const GO_FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];
const RESOURCE_ENV: Record<ResourceKey, string> = {
  'requests.cpu': 'KUMA_INJECTOR_SIDECAR_CONTAINER_RESOURCES_REQUESTS_CPU',
  'requests.memory': 'KUMA_INJECTOR_SIDECAR_CONTAINER_RESOURCES_REQUESTS_MEMORY',
  'limits.cpu': 'KUMA_INJECTOR_SIDECAR_CONTAINER_RESOURCES_LIMITS_CPU',
  'limits.memory': 'KUMA_INJECTOR_SIDECAR_CONTAINER_RESOURCES_LIMITS_MEMORY',
};
/** _helpers.tpl defaults of the four variables ("0": no CPU limit). */
const DEFAULT_RESOURCES: Record<ResourceKey, string> = {
  'requests.cpu': '50m',
  'requests.memory': '64Mi',
  'limits.cpu': '0',
  'limits.memory': '512Mi',
};
const KEYS = Object.keys(RESOURCE_ENV) as ResourceKey[];
const split = (k: ResourceKey) => k.split('.') as ['requests' | 'limits', 'cpu' | 'memory'];

/**
 * The Secret (and key) the control plane serves its webhook certificate from, as its Deployment
 * says, or undefined where the Deployment does not tell (not read, or read from a snapshot, which
 * keeps no volumes). kumahq/kuma@0c7aaec0 (v2.14.3) deployments/charts/kuma/templates/
 * _helpers.tpl#L242-L243: kuma-cp reads its TLS certificate from KUMA_GENERAL_TLS_CERT_FILE
 * (/var/run/secrets/kuma.io/tls-cert/tls.crt); cp-deployment.yaml#L244-L255 mounts the volume
 * `general-tls-cert` there (subPath tls.crt), #L347-L355 that volume is Secret
 * controlPlane.tls.general.secretName when set, else `{{kuma.name}}-tls-cert`.
 */
function mountedTlsSecret(deployments: readonly K8sObject[]): readonly [string, string] | undefined {
  for (const d of deployments) {
    const spec = podSpec(valueAt(d, 'spec', 'template') as { spec?: unknown });
    const volumes = arr(valueAt(spec, 'volumes'));
    for (const c of containers(spec)) {
      if (c.name !== 'control-plane') continue;
      const env = arr(c.env).find((e) => isObj(e) && e.name === TLS_CERT_ENV) as { value?: unknown } | undefined;
      const file = typeof env?.value === 'string' && env.value.startsWith('/') ? env.value : TLS_CERT_FILE;
      for (const v of arr(c.volumeMounts)) {
        if (!isObj(v) || typeof v.mountPath !== 'string' || typeof v.name !== 'string') continue;
        const dir = v.mountPath.replace(/\/+$/, '');
        const key =
          v.mountPath === file && typeof v.subPath === 'string'
            ? v.subPath
            : file.startsWith(`${dir}/`)
              ? file.slice(dir.length + 1)
              : undefined;
        if (!key) continue;
        const secret = valueAt(
          volumes.find((x) => isObj(x) && x.name === v.name),
          'secret',
          'secretName',
        );
        if (typeof secret === 'string' && secret) return [secret, key];
      }
    }
  }
  return undefined;
}

const KUMA_ENV = defineFact({
  id: 'kuma-env',
  inputs: ['deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: MeshContext): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const ns of m.mesh('kuma')?.namespaces ?? []) {
      const d = m.get('deployments', ns, CP);
      for (const c of containers(podSpec(valueAt(d, 'spec', 'template') as { spec?: unknown }))) {
        if (c.name !== 'control-plane') continue;
        for (const e of arr(c.env))
          if (isObj(e) && typeof e.name === 'string' && typeof e.value === 'string') env[e.name] = e.value;
      }
    }
    return env;
  },
});

/** The env of the control-plane containers of the installed Kuma control planes. */
function controlPlaneEnv(m: MeshContext): Record<string, string> {
  return m.fact(KUMA_ENV);
}

/**
 * The serving certificate's Secret and key in `ns`: the one the Deployment mounts, else the chart's
 * default; undefined while the Deployments of `ns` were not read (which Secret is served is unknown:
 * a stale `kuma-tls-cert` is not compared in its place).
 */
function servingSecret(m: MeshContext, ns: string): readonly [string, string] | undefined {
  if (!m.readIn('deployments', ns)) return undefined;
  return mountedTlsSecret(m.inNamespace('deployments', ns)) ?? [TLS_SECRET, 'tls.crt'];
}

/** A quantity as the env gives it; "0" (no limit) and redacted values are none. */
const quantity = (v: string | undefined): string | undefined =>
  v !== undefined && /^[0-9.]+[a-zA-Z]*$/.test(v) && v !== '0' ? v : undefined;

const cni: CniPlugin = {
  privilegedInit: { name: 'kuma-init', capabilities: ['NET_ADMIN', 'NET_RAW'] },
  validationInit: 'kuma-validation',
  validationPasses: KUMA_VALIDATION_PASSES,
  daemonSet: 'kuma-cni-node',
  // kumahq/kuma app/cni: type kuma-cni. With Multus (the chart's default, cni.chained false) kuma-cp
  // creates NetworkAttachmentDefinition kuma-cni only in namespaces labelled kuma.io/sidecar-injection
  // (kuma-website docs/networking/cni.md; kumahq/kuma issue 4224): `disabled` keeps the pods' own labels deciding.
  pluginType: 'kuma-cni',
  // kumahq/kuma 348b6528 deployments/charts/kuma/templates/cni-daemonset.yaml: hostPath volume cni-bin-dir is
  // values cni.binDir (values.yaml: /var/lib/cni/bin).
  binDirSetting: 'the chart value cni.binDir, or kumactl install control-plane --cni-bin-dir',
  failures: [
    {
      // kumahq/kuma ef89161a (2.0.0) app/cni/pkg/cni/main.go getCniProcessStderr: the plugin's ADD fails unless
      // exactly one /install-cni process (the kuma-cni agent's) runs on the node, `len(pids) != 1`, with this
      // text also when none runs; 0aa9ddb6 (2.9.0) only logs it. kumahq/kuma#10461: after a node reboot.
      line: /more than one process '\/install-cni' running on a node/,
      cause:
        'Kuma\'s kuma-cni plugin before 2.9.0 fails every sandbox of the node unless exactly one install-cni process of the kuma-cni node agent runs there, and says "more than one" also when none runs: the agent\'s pod on the node is not running (as after a node restart), or two run during a rollout',
      source:
        'kumahq/kuma ef89161a app/cni/pkg/cni/main.go getCniProcessStderr (len(pids) != 1), made a log line by 0aa9ddb6 (2.9.0) app/cni/pkg/cni/main_linux.go; kumahq/kuma#10461',
      fix: (node) => [
        comment`once the kuma-cni agent pod on the node runs, the plugin finds its process again: that pod must start first`,
        cmd`kubectl get pods -A -o wide -l ${'app=kuma-cni'} --field-selector ${`spec.nodeName=${node ?? 'NODE'}`}`,
        comment`upgrade Kuma to 2.9.0 or later, where the plugin no longer fails a sandbox for it`,
      ],
    },
  ],
  multus: {
    standalone: (m) => {
      for (const ds of daemonSetsNamed(m, 'kuma-cni-node')) {
        const v = templateEnv(ds, 'CHAINED_CNI_PLUGIN');
        if (v === 'true' || v === 'false')
          return { standalone: v === 'false', from: `DaemonSet ${nsOf(ds)}/kuma-cni-node env CHAINED_CNI_PLUGIN=${v}` };
      }
      return undefined;
    },
    setting:
      'kuma-cp adds k8s.v1.cni.cncf.io/networks: kuma-cni to every pod it injects in CNI mode, so something after it removed the annotation',
    source:
      'kumahq/kuma 348b6528 deployments/charts/kuma/templates/cni-daemonset.yaml (env CHAINED_CNI_PLUGIN, values cni.chained false by default), pkg/transparentproxy/kubernetes/kubernetes_config.go (CNIMode: networks kuma-cni)',
  },
  attachment: {
    name: 'kuma-cni',
    fix: (ns) => [
      comment`kuma-cp creates NetworkAttachmentDefinition kuma-cni in namespaces labelled kuma.io/sidecar-injection, and the value disabled leaves injection to the labels of the pods`,
      cmd`kubectl label namespace ${ns} kuma.io/sidecar-injection=disabled`,
    ],
  },
  enabled: (m) => {
    const v = controlPlaneEnv(m)[CNI_ENV];
    if (v === undefined || (!GO_TRUE.includes(v) && !GO_FALSE.includes(v))) return undefined;
    return { enabled: GO_TRUE.includes(v), from: `${CP} env ${CNI_ENV}=${v}` };
  },
  install: (ns) => [
    choice(
      text`install kuma-cni and turn it on for the injector: run the one line for your install method, with cni.chained, cni.netDir, cni.binDir and cni.confName set for the CNI of your cluster as the Kuma CNI docs say`,
      [
        {
          label: text`kumactl, with the flags you installed with`,
          steps: [
            cmd`kumactl install control-plane --cni-enabled --cni-chained --cni-net-dir /etc/cni/net.d --cni-bin-dir /opt/cni/bin --cni-conf-name YOUR-CNI.conflist | kubectl apply -f -`,
          ],
        },
        {
          label: text`Helm`,
          steps: [
            cmd`helm upgrade YOUR-RELEASE kuma/kuma -n ${ns} --version YOUR-KUMA-VERSION --reuse-values --set cni.enabled=true --set cni.chained=true --set cni.netDir=/etc/cni/net.d --set cni.binDir=/opt/cni/bin --set cni.confName=YOUR-CNI.conflist`,
          ],
        },
      ],
    ),
  ],
};
/**
 * The Helm release and chart version of the control plane in `ns` (quoted or not): kumahq/kuma v2.14.3
 * deployments/charts/kuma/templates/_helpers.tpl kuma.labels: `helm.sh/chart: <chart>-<version>`
 * (kuma.chart), `app.kubernetes.io/instance: <release>`, on the control-plane Deployment (kuma.cpLabels).
 */
function kumaRelease(m: MeshContext | undefined, ns: string): HelmRelease {
  if (!m) return {};
  const d = m
    .inNamespace('deployments', ns)
    .find((x) => labelsOf(x)['helm.sh/chart']?.startsWith('kuma-') && labelsOf(x)['app.kubernetes.io/instance']);
  const l = labelsOf(d);
  const version = /^kuma-(.+)$/.exec(l['helm.sh/chart'] ?? '')?.[1];
  return {
    ...(l['app.kubernetes.io/instance'] ? { release: l['app.kubernetes.io/instance'] } : {}),
    ...(version ? { version: version.replace(/_/g, '+') } : {}),
  };
}

/** Kuma's chart-made serving Secret: deleted, then re-generated by Helm (or cert-manager). */
function kumaCertFix(
  ns: string,
  injector: string,
  certManager: boolean,
  secret: string,
  m: MeshContext | undefined,
): Step[] {
  return [
    comment`delete the webhook certificate Secret: ${lit(certManager ? 'cert-manager re-issues it and patches the caBundle' : 'the upgrade below generates a new CA, certificate and caBundle, as Helm reuses the Secret while it exists')}`,
    cmd`kubectl -n ${ns} delete secret ${secret}`,
    ...(certManager
      ? []
      : helmUpgrade(
          kumaRelease(m, ns),
          'kuma/kuma',
          ns,
          [],
          [
            'for a Helm install, or for a kumactl install instead: ',
            ...commandText(cmd`kumactl install control-plane | kubectl apply -f -`),
          ],
        )),
    comment`the control plane loads its certificate at start`,
    cmd`kubectl -n ${ns} rollout restart ${`deploy/${injector}`}`,
  ];
}

/**
 * Kuma's profile: its data document (data.ts) and the behaviour below, through profileFrom
 * (src/mesh/profile-from.ts): what its data cannot say (the injector's decision, what its
 * control plane's env and Deployment say, its Helm and kumactl fixes).
 */
export const kuma = profileFrom(KUMA_DATA, {
  intent: (i) => {
    // The installed release's marker (Kuma 1.0 to 1.4: the annotation; releases.ts), else today's label.
    const { field, parse } = kumaMarkers(i.markers);
    const own = field === 'labels' ? labelsOf(i.template) : annotationsOf(i.template);
    const pod = parse(own[KUMA_INJECT]);
    return pod !== undefined
      ? pod === true
      : parse((field === 'labels' ? i.nsLabels : i.nsAnnotations)[KUMA_INJECT]) === true;
  },
  decide: (_m, i) => kumaInjector(i.nsLabels, i.template, { markers: i.markers, nsAnnotations: i.nsAnnotations }),
  markerRules: { namespace: namespaceProblems, workload: workloadProblems },
  version: kumaVersions,
  /** The CP's KUMA_INJECTOR_SIDECAR_CONTAINER_RESOURCES_* (the chart's defaults where unset). */
  resources: (m, _w, observed, observedFrom) => {
    const out: Partial<Record<ResourceKey, { value: unknown; from: string }>> = {};
    const env = controlPlaneEnv(m);
    for (const k of KEYS) {
      if (observed) out[k] = { value: valueAt(observed, ...split(k)), from: observedFrom! };
      else if (quantity(env[RESOURCE_ENV[k]]) !== undefined || env[RESOURCE_ENV[k]] === '0')
        out[k] = { value: quantity(env[RESOURCE_ENV[k]]), from: `${CP} env ${RESOURCE_ENV[k]}` };
      else
        out[k] = {
          value: quantity(DEFAULT_RESOURCES[k]),
          from: `Kuma default (Helm dataPlane.sidecarContainer.resources)`,
        };
    }
    return out;
  },
  native: (m) => {
    const v = controlPlaneEnv(m)[NATIVE_ENV];
    return v === 'true' || v === 'false'
      ? { native: v === 'true', reason: `${CP} runs with ${NATIVE_ENV}=${v}` }
      : undefined;
  },

  extend: {
    references: KUMA_REFERENCES,
    ranges: kumaRanges,
    controlPlane: {
      webhooks: {
        // The Secret the control plane's Deployment mounts (a custom controlPlane.tls.general.secretName too), else the default.
        servingCertSecretIn: (m, ns) => servingSecret(m, ns),
      },
      reads: {
        // The default Secret, and the one the control plane's Deployment mounts when it names another.
        named: (namespaces, _hooks, deployments) =>
          namespaces.flatMap((ns) => {
            const mounted = mountedTlsSecret(deployments.filter((d) => d.metadata?.namespace === ns))?.[0];
            return [...new Set([TLS_SECRET, mounted ?? TLS_SECRET])].map((name) => ({
              key: 'secrets' as const,
              namespace: ns,
              name,
            }));
          }),
        configMapKeys: () => undefined,
        // and the kuma-cni agent's switch for a plugin chained or standalone (cni-daemonset.yaml).
        env: [
          NATIVE_ENV,
          CNI_ENV,
          UID_ENV,
          ...Object.values(RESOURCE_ENV),
          SIDECAR_IMAGE_ENV,
          WAIT_ENV,
          'CHAINED_CNI_PLUGIN',
        ],
      },
    },

    injector: { rbac: kumaRbac },

    proxy: {
      resources: {
        fix: (m) => {
          const ns = m.mesh('kuma')?.namespaces[0] ?? 'kuma-system';
          return [
            choice(
              text`Kuma has no pod annotation for the proxy resources: give kuma-sidecar requests and limits in the control plane`,
              [
                helmOption(
                  kumaRelease(m, ns),
                  'kuma/kuma',
                  ns,
                  [['dataPlane.sidecarContainer.resources.limits.cpu', '500m']],
                  'setting the other requests and limits as needed',
                ),
                {
                  label: text`or per workload`,
                  steps: [
                    comment`a ContainerPatch in the control-plane namespace ${ns}, named by the pod template annotation kuma.io/container-patches`,
                  ],
                },
              ],
            ),
          ];
        },
      },
    },

    jobs: {
      relief: (_pods, ns, job) => [
        comment`the app has exited, and the Kuma control plane could not stop ${lit(KUMA_SIDECAR)}`,
        cmd`kubectl delete job ${job} -n ${ns}`,
      ],
    },

    install: {
      ownConfig: kumaOwnConfig,
      reinstall: (ns, _injector, m) => [
        choice(text`re-render the control plane the way it was installed: run the one line for your install method`, [
          {
            label: text`kumactl, with the flags you installed with`,
            steps: [cmd`kumactl install control-plane --namespace ${ns} | kubectl apply -f -`],
          },
          helmOption(kumaRelease(m, ns), 'kuma/kuma', ns, []),
        ]),
      ],
      memoryFix: (ns, _injector, limit, m) =>
        helmUpgrade(
          kumaRelease(m, ns),
          'kuma/kuma',
          ns,
          [['controlPlane.resources.limits.memory', limit]],
          text`durable, if installed with Helm`,
        ),
      certFix: (ns, injector, certManager, m) => {
        const secret = (m && servingSecret(m, ns)?.[0]) ?? TLS_SECRET;
        // cp-webhooks-and-secrets.yaml#L4-L6 (v2.14.3): a Secret of your own (controlPlane.tls.general.secretName) comes with
        // controlPlane.tls.general.caBundle; Helm generates neither, so deleting it would only break the control plane.
        if (secret !== TLS_SECRET && !certManager)
          return [
            comment`Secret ${secret} is your own, named by Helm controlPlane.tls.general.secretName: re-issue it for ${`${injector}.${ns}.svc`} and set controlPlane.tls.general.caBundle to the CA that signed it, in the same upgrade`,
            cmd`kubectl -n ${ns} rollout restart ${`deploy/${injector}`}`,
          ];
        return kumaCertFix(ns, injector, certManager, secret, m);
      },
    },

    cni,
    runtime: kumaRuntime(controlPlaneEnv),
  },
});
