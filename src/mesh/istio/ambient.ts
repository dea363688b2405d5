/**
 * Istio's ambient mode and its CNI plugin (research/istio.md §6, §8). Sources, istio/istio at
 * 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c unless said otherwise:
 * - pkg/config/constants/constants.go: label `istio.io/dataplane-mode`, values `ambient`
 *   (DataplaneModeAmbient) and `none` (DataplaneModeNone); annotation `ambient.istio.io/redirection`
 *   values `enabled` (AmbientRedirectionEnabled) and `pending` (AmbientRedirectionPending);
 *   `gateway.istio.io/managed: istio.io-mesh-controller` (ManagedGatewayMeshControllerLabel).
 * - cni/pkg/util/podutil.go (read at 0098d99f8e43fe516aaac5a84a131b4ce3c8b9d1) PodRedirectionEnabled:
 *   the namespace or the pod labelled ambient; not a pod with `sidecar.istio.io/status` ("Ztunnel and
 *   sidecar for a single pod is currently not supported"); not a pod labelled `none`; not
 *   hostNetwork. AnnotateEnrolledPod / AnnotatePartiallyEnrolledPod write `enabled` / `pending`
 *   (merge patch through pods/status); un-enrolment removes it. IsZtunnelPod: `app: ztunnel` in the
 *   system namespace.
 * - At 86c9f01f the same rule is cni/pkg/util/enablement_selector.go Matches (hostNetwork and
 *   `sidecar.istio.io/status` pods never match) over manifests/charts/istio-cni/values.yaml
 *   `ambient.enablementSelectors` (default: pod label ambient; or pod label NotIn [none] in a
 *   namespace labelled ambient). Custom selectors in the CNI chart values are not read here.
 * - manifests/charts/ztunnel/templates/daemonset.yaml: DaemonSet `ztunnel`, pods labelled
 *   `app: ztunnel`. manifests/charts/istio-cni/templates/daemonset.yaml: DaemonSet
 *   `istio-cni-node`, pods labelled `k8s-app: istio-cni-node`. manifests/charts/istio-cni/values.yaml:
 *   `excludeNamespaces: [kube-system]`.
 * - pkg/config/analysis/analyzers/injection/injection.go (last changed at 9ac480bcbea8fcb4fc3aff0a700c654e00f1b085):
 *   IST0123 NamespaceMultipleInjectionLabels lists `istio-injection=<v>`, and `istio.io/rev=<v>` and
 *   `istio.io/dataplane-mode=<v>` only when `istio-injection` is absent or `enabled`; more than one
 *   is a warning (pkg/config/analysis/msg/messages.yaml).
 * - manifests/charts/istio-control/istio-discovery/files/injection-template.yaml: the init container
 *   is `istio-validation` with `pilot.cni.enabled` (`istio_cni.enabled` before 1.24), else
 *   `istio-init` with `capabilities.add: [NET_ADMIN, NET_RAW]`.
 */
import { choice, cmd, comment, text, type Step } from '../../fix/steps.js';
import { podSpec } from '../../k8s/pods.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import type { K8sObject } from '../../util/types.js';
import { annotationOf, isObj, labelOf, labelsOf, nsOf, str } from '../../util/objects.js';
import { daemonSetsNamed, templateEnv } from '../cni-install.js';
import { valueAt } from '../config-values.js';
import type { CniPlugin, SidecarlessMode, Template } from '../profile.js';
import { ISTIO_NS_LABEL, ISTIO_REV } from './injector.js';
import { istioCniSkips } from './cni-skips.js';

const DATAPLANE_MODE = 'istio.io/dataplane-mode';
const REDIRECTION = 'ambient.istio.io/redirection';
const SIDECAR_STATUS = 'sidecar.istio.io/status';
/** The istio-cni chart's default excludeNamespaces: never enrolled. */
const CNI_EXCLUDED = ['kube-system'];

/** Waypoints (gateway.istio.io/managed) and the ambient node components: mesh infrastructure, never app workloads. */
function isAmbientInfrastructure(labels: Record<string, string>): boolean {
  return (
    labels['gateway.istio.io/managed'] === 'istio.io-mesh-controller' ||
    labels['gateway.networking.k8s.io/gateway-class-name'] === 'istio-waypoint' ||
    labels.app === 'ztunnel' ||
    labels['k8s-app'] === 'istio-cni-node'
  );
}

/** PodRedirectionEnabled, by labels (the namespace's when read). */
function ambientEnrols(pod: Template, nsLabels: Record<string, string> | undefined): boolean {
  const own = labelOf(pod, DATAPLANE_MODE);
  if (podSpec(pod).hostNetwork === true || annotationOf(pod, SIDECAR_STATUS) !== undefined || own === 'none')
    return false;
  const ns = nsLabels?.['kubernetes.io/metadata.name'];
  if (ns !== undefined && CNI_EXCLUDED.includes(ns)) return false;
  return own === 'ambient' || nsLabels?.[DATAPLANE_MODE] === 'ambient';
}

export const ambient: SidecarlessMode = {
  title: 'ambient mode',
  label: { key: DATAPLANE_MODE, value: 'ambient', optOut: 'none' },
  enrols: ambientEnrols,
  enrolment: (pod) => {
    const v = annotationOf(pod, REDIRECTION);
    if (v === 'enabled') return { state: 'enrolled', text: `annotation ${REDIRECTION}=enabled` };
    if (v === 'pending') return { state: 'pending', text: `annotation ${REDIRECTION}=pending` };
    return { state: 'none', text: v === undefined ? `no annotation ${REDIRECTION}` : `annotation ${REDIRECTION}=${v}` };
  },
  conflict: (l) => {
    if (l[DATAPLANE_MODE] !== 'ambient') return undefined;
    const inj = l[ISTIO_NS_LABEL];
    // IST0123 counts istio.io/rev and istio.io/dataplane-mode only when istio-injection is absent or enabled.
    if (inj !== undefined && inj !== 'enabled') return undefined;
    const markers = [
      ...(inj !== undefined ? [`${ISTIO_NS_LABEL}=${inj}`] : []),
      ...(l[ISTIO_REV] !== undefined ? [`${ISTIO_REV}=${l[ISTIO_REV]}`] : []),
    ];
    return markers.length
      ? { markers, rule: 'IST0123 NamespaceMultipleInjectionLabels (istioctl analyze)' }
      : undefined;
  },
  nodeProxy: {
    title: 'ztunnel',
    daemonSet: 'ztunnel',
    isPod: (pod: K8sObject) => labelOf(pod, 'app') === 'ztunnel' && nsOf(pod) !== '',
  },
  nodeAgent: { title: 'istio-cni node agent', daemonSet: 'istio-cni-node', podSelector: 'k8s-app=istio-cni-node' },
  isInfrastructure: isAmbientInfrastructure,
  /** Meshed through ztunnel, with no sidecar by design (enrolled, or enrolled by its labels and its namespace's). */
  meshedWithoutProxy: (pod, ns) =>
    annotationOf(pod, REDIRECTION) === 'enabled' || ambientEnrols(pod, ns ? labelsOf(ns) : undefined),
};

/** The injector's values say the CNI plugin is on: pilot.cni.enabled (1.22+), istio_cni.enabled (before 1.24). */
/** The NetworkAttachmentDefinition Istio's OpenShift setup has each application namespace create (no spec: Multus reads the plugin's file on the node). */
function attachmentStep(ns: string, name: string): Step[] {
  const nad = JSON.stringify({
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: { name, namespace: ns },
  });
  return [
    comment`create NetworkAttachmentDefinition ${name} in ${ns}, as the Istio setup for OpenShift says for every application namespace`,
    cmd`printf %s ${nad} | kubectl apply -f -`,
  ];
}

/** The istio-cni chart's ConfigMap and its switch for a plugin chained onto the cluster's own (else standalone, for Multus). */
const CNI_CONFIG_NAME = 'istio-cni-config';
const CHAINED = 'CHAINED_CNI_PLUGIN';

export function istioCni(
  values: (m: MeshContext, w?: Workload) => { values: Record<string, any> | undefined; from: string } | undefined,
): CniPlugin {
  return {
    privilegedInit: { name: 'istio-init', capabilities: ['NET_ADMIN', 'NET_RAW'] },
    validationInit: 'istio-validation',
    daemonSet: 'istio-cni-node',
    // istio/istio cni/pkg/plugin (1.20-1.24): the plugin's type. On Multus the injection template
    // appends a NetworkAttachmentDefinition to the pod's k8s.v1.cni.cncf.io/networks: `istio-cni`
    // (its namespace's) where istio_cni.enabled and not istio_cni.chained (older releases), and
    // `default/istio-cni` where pilot.cni.provider is multus (istio/istio@29bcc3ca
    // manifests/charts/istio-control/istio-discovery/files/injection-template.yaml, appendMultusNetwork);
    // the NAD must exist where it is named (istio/istio issues 46859, 54820; kubeflow/community-distribution 2580).
    pluginType: 'istio-cni',
    attachment: { name: 'istio-cni', fix: (ns) => attachmentStep(ns, 'istio-cni') },
    // istio/istio 86c9f01f manifests/charts/istio-cni/templates/daemonset.yaml: hostPath volume cni-bin-dir
    // is values cniBinDir (auto-detected; /home/kubernetes/bin on GKE).
    binDirSetting: 'the istio-cni chart value cniBinDir, or with istioctl values.cni.cniBinDir',
    multus: {
      standalone: (m) => {
        // 1.23 and later: ConfigMap istio-cni-config key CHAINED_CNI_PLUGIN; before: the install-cni env.
        for (const ds of daemonSetsNamed(m, 'istio-cni-node')) {
          const cm = m.get('configmaps', nsOf(ds), CNI_CONFIG_NAME);
          const v = (isObj(cm?.data) ? str(cm!.data[CHAINED]) : undefined) ?? templateEnv(ds, CHAINED);
          if (v === 'true' || v === 'false')
            return {
              standalone: v === 'false',
              from: `${cm && isObj(cm.data) && cm.data[CHAINED] !== undefined ? `ConfigMap ${nsOf(ds)}/${CNI_CONFIG_NAME}` : `DaemonSet ${nsOf(ds)}/istio-cni-node env`} ${CHAINED}=${v}`,
            };
        }
        return undefined;
      },
      annotates: (m, w) => {
        const v = values(m, w);
        if (!v?.values) return undefined;
        const provider = valueAt(v.values, 'pilot', 'cni', 'provider') ?? valueAt(v.values, 'istio_cni', 'provider');
        const chained = valueAt(v.values, 'istio_cni', 'chained');
        if (provider === 'multus') return { annotates: true, from: `${v.from} values cni provider multus` };
        if (chained === false) return { annotates: true, from: `${v.from} values istio_cni.chained false` };
        return {
          annotates: false,
          from: `${v.from} values istio_cni.chained ${chained === true ? 'true' : 'unset (true by default)'} and no pilot.cni.provider multus`,
        };
      },
      setting:
        'the injector adds k8s.v1.cni.cncf.io/networks: default/istio-cni only with values istio_cni.chained=false before 1.22, or pilot.cni.provider=multus from 1.22',
      source:
        'istio/istio 1.19.0 manifests/charts/istio-cni/templates/daemonset.yaml (env CHAINED_CNI_PLUGIN) and istio-discovery/files/injection-template.yaml (networks only if not istio_cni.chained); 1.22.0 injection-template.yaml (or provider multus); 86c9f01f istio-cni/templates/configmap-cni.yaml CHAINED_CNI_PLUGIN; istio/istio#48734',
    },
    failures: [
      {
        // istio/istio 86c9f01f cni/pkg/nodeagent/ztunnelserver.go PodAdded: the node agent answers the
        // plugin's ADD with this error while no ztunnel of its node is connected to it (istio/istio#53843).
        line: /no ztunnel connection/,
        cause:
          "the istio-cni node agent on the pod's node has no connection from a ztunnel (the node's ztunnel is not running, not ready, or restarted out of step with the agent), so it cannot add the pod to ambient mode",
        source: 'istio/istio 86c9f01f cni/pkg/nodeagent/ztunnelserver.go PodAdded; istio/istio#53843',
        fix: (node, ns) => [
          comment`the ztunnel pod on the node must run and be ready: restarting it, then the istio-cni-node pod there, reconnects them`,
          cmd`kubectl get pods -n ${ns} -l ${'app=ztunnel'} -o wide --field-selector ${`spec.nodeName=${node ?? 'NODE'}`}`,
        ],
      },
    ],
    enabled: (m, w) => {
      const v = values(m, w);
      if (!v?.values) return undefined;
      const on =
        valueAt(v.values, 'pilot', 'cni', 'enabled') === true || valueAt(v.values, 'istio_cni', 'enabled') === true;
      return {
        enabled: on,
        from: `${v.from} values ${on && valueAt(v.values, 'pilot', 'cni', 'enabled') !== true ? 'istio_cni.enabled' : 'pilot.cni.enabled'}`,
      };
    },
    skips: istioCniSkips,
    install: (ns) => [
      choice(
        text`install the Istio CNI plugin and turn it on for the injector: run the lines for your install method`,
        [
          {
            label: text`istioctl, with the profile and values you installed with`,
            steps: [cmd`istioctl install -y --set components.cni.enabled=true -f YOUR-ISTIOOPERATOR.yaml`],
          },
          // Without --version Helm installs the newest charts, i.e. upgrades istiod: the placeholder is the installed release.
          {
            label: text`Helm, where ISTIOD-VERSION is the release istiod runs`,
            steps: [
              cmd`helm install istio-cni istio/cni -n ${ns} --version ISTIOD-VERSION`,
              cmd`helm upgrade istiod istio/istiod -n ${ns} --version ISTIOD-VERSION --reuse-values --set pilot.cni.enabled=true`,
            ],
          },
        ],
      ),
    ],
  };
}
