/**
 * Istio's injected containers as admission judges them and as they run (issue 24). Sources,
 * istio/istio at 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c:
 * - manifests/charts/istio-control/istio-discovery/files/injection-template.yaml: without the CNI
 *   plugin `istio-init` adds NET_ADMIN and NET_RAW, drops ALL, runs as UID 0 with runAsNonRoot
 *   false; with pilot.cni.enabled `istio-validation` (same image, `--run-validation
 *   --skip-rule-apply`) drops ALL and runs as 1337 with runAsNonRoot true; `istio-proxy` drops ALL
 *   and runs as 1337 (as UID 0 adding NET_ADMIN with interceptionMode TPROXY); none sets a seccomp
 *   profile unless global.proxy.seccompProfile (values.yaml: {}), and none sets
 *   terminationMessagePolicy (their termination message says nothing).
 * - tools/istio-iptables/pkg/cmd/root.go: istio-iptables exits 1 when it cannot program iptables
 *   (handleErrorWithCode(err, 1)) and 126 when validation finds no redirection
 *   (constants.ValidationErrorCode, "iptables validation failed; workload is not ready for Istio").
 * - cni/pkg/plugin/plugin.go: the plugin does nothing for a pod of a namespace in its
 *   exclude_namespaces (ConfigMap istio-cni-config EXCLUDE_NAMESPACES, manifests/charts/istio-cni
 *   templates/configmap-cni.yaml; values.yaml excludeNamespaces: [kube-system]).
 * - OpenShift: istio/istio.io 03b4e33c content/en/docs/setup/platform-setup/openshift/index.md.
 * - Start order (issue 31): pkg/kube/inject/webhook.go reorderPod moves istio-proxy to the first
 *   container when holdApplicationUntilProxyStarts is set (meshConfig.defaultConfig, the pod's
 *   proxy.istio.io/config annotation, or values.global.proxy.holdApplicationUntilProxyStarts), else
 *   last; injection-template.yaml then gives it the postStart hook `pilot-agent wait`. A native
 *   sidecar (sidecar.istio.io/nativeSidecar) is held by the kubelet behind its startup probe.
 *   The setting came in 1.7 (31f785bc, 2020-07).
 */
import { choice, cmd, comment, lit, text, type Step } from '../../fix/steps.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import { annotationsOf, arr, isObj, labelOf, nameOf, str } from '../../util/objects.js';
import { podSpec } from '../../k8s/pods.js';
import type { K8sObject } from '../../util/types.js';
import { valueAt } from '../config-values.js';
import type { InitBackend, InitNeed, InjectedContainer, MeshProfile } from '../profile.js';
import { proxyPlace } from '../start-order.js';
import { setOnTemplate } from '../../fix/commands.js';

/** The CNI plugin's ConfigMap (`{{ template "name" . }}-config` of chart istio-cni) and the key naming the namespaces it skips. */
export const CNI_CONFIG = 'istio-cni-config';
export const CNI_EXCLUDE = 'EXCLUDE_NAMESPACES';

/** The istioctl and Helm ways to set a value of istiod's chart. */
const setValue = (why: string, ns: string, key: string, value: string): Step[] => [
  choice(text`${lit(why)}: run the one line for your install method`, [
    {
      label: text`istioctl, with the profile and values you installed with`,
      steps: [cmd`istioctl install -y --set ${`values.${key}=${value}`} -f YOUR-ISTIOOPERATOR.yaml`],
    },
    {
      label: text`Helm, where ISTIOD-VERSION is the release istiod runs`,
      steps: [
        cmd`helm upgrade istiod istio/istiod -n ${ns} --version ISTIOD-VERSION --reuse-values --set ${`${key}=${value}`}`,
      ],
    },
  ]),
];

/**
 * The iptables backend istio-init runs, by release (issue 31: what the node offers against what the init container
 * needs). Each row is the release's image and the binary istio-iptables calls:
 * - istio/proxy_init (1.0 to 1.4): istio/istio@82797c0c (1.1.0) pilot/docker/Dockerfile.proxy_init, FROM ubuntu:xenial,
 *   whose iptables 1.6.0 is legacy only (istio/istio#13986 quotes "iptables v1.6.0").
 * - istio/proxyv2 1.5 to 1.14: docker/Dockerfile.base FROM ubuntu:bionic (istio/istio@c3c35328, 1.5.0; iptables 1.6.1,
 *   legacy only: #23009 quotes "iptables-restore v1.6.1"), ubuntu:focal from istio/istio@57d639a4 (1.11.0), whose
 *   iptables is legacy by default.
 * - 1.15 to 1.21: istio/istio@e3364ab4 (1.15.0) docker/Dockerfile.base line 29 `update-alternatives --set iptables
 *   /usr/sbin/iptables-legacy`; tools/istio-iptables/pkg/constants/constants.go IPTABLES = "iptables".
 * - 1.22 to 1.27.0: istio/istio@aaf597fb (1.22.0) tools/istio-iptables/pkg/dependencies/implementation.go
 *   DetectIptablesVersion (#49279): iptables-nft only where nft rules exist in the pod's network namespace (a new
 *   pod's has none), else iptables-legacy.
 * - 1.27.1 and 1.28.0 on: istio/istio#57385 (@87dc90d2, 1.28.0) and #57411 (release-1.27, 1.27.1) fall back to
 *   iptables-nft where iptable_nat is missing (#57380); 1.27 also runs native nftables with global.nativeNftables
 *   (istio-init --native-nftables). Not legacy-only: no row.
 * A distroless image (tag -distroless) is not in the table.
 */
function istioInitBackend(pod: K8sObject, container: string): InitBackend | undefined {
  const spec = podSpec(pod);
  const c = [...arr(spec.initContainers), ...arr(spec.containers)].find((x) => isObj(x) && x.name === container);
  const image = isObj(c) ? str(c.image) : undefined;
  if (!image || !isObj(c)) return undefined;
  const m = /\/(proxy_init|proxyv2):(1)\.(\d{1,3})\.(\d{1,3})(-distroless)?$/.exec(image.slice(-256));
  if (!m || m[5]) return undefined;
  if (arr(c.args).some((a) => a === '--native-nftables')) return undefined;
  const [minor, patch] = [Number(m[3]), Number(m[4])];
  const release = `${m[1]}:${m[2]}.${minor}.${patch}`;
  if (minor > 27 || (minor === 27 && patch >= 1)) return undefined;
  const runs =
    m[1] === 'proxy_init' || minor < 15
      ? `iptables-legacy only (its image's iptables ${m[1] === 'proxy_init' || minor < 11 ? '1.6, which has no other backend' : 'is legacy by default'})`
      : minor < 22
        ? 'iptables-legacy only (its image sets the iptables alternative to iptables-legacy)'
        : "iptables-legacy in a new pod's network namespace (it picks iptables-nft only where nft rules exist there already)";
  return {
    release,
    runs,
    source:
      m[1] === 'proxy_init' || minor < 15
        ? 'istio/istio@82797c0c (1.1.0) pilot/docker/Dockerfile.proxy_init; @c3c35328 (1.5.0) and @57d639a4 (1.11.0) docker/Dockerfile.base'
        : minor < 22
          ? 'istio/istio@e3364ab4 (1.15.0) docker/Dockerfile.base line 29; tools/istio-iptables/pkg/constants/constants.go'
          : 'istio/istio@aaf597fb (1.22.0) tools/istio-iptables/pkg/dependencies/implementation.go DetectIptablesVersion; #57385, #57411 (1.27.1)',
    fix: (ns) => [
      comment`upgrade ${lit('Istio')} to 1.27.1 or later, whose istio-init falls back to iptables-nft where the node has no legacy nat table, and in 1.27 and later can run on native nftables`,
      ...setValue('native nftables for istio-init, 1.27 and later', ns, 'global.nativeNftables', 'true'),
    ],
  };
}

/** The CNI node agent's pods (manifests/charts/istio-cni templates/daemonset.yaml: label k8s-app: istio-cni-node). */
const AGENT = 'istio-cni-node';

/**
 * The pod's node runs no ready istio-cni node agent: the plugin could not set up the pod's
 * redirection ("this can occur if a pod is scheduled before the node is ready", tools/istio-iptables
 * pkg/cmd/root.go). Only where the agent's pods were read: cluster-wide, or some found.
 */
function cniAgentNeeds(m: MeshContext, pod: K8sObject, cpNs: string): InitNeed[] {
  const node = str(podSpec(pod).nodeName);
  if (!node || !m.has('pods')) return [];
  const agents = m.list('pods').filter((p) => labelOf(p, 'k8s-app') === AGENT && !p.metadata?.deletionTimestamp);
  if (agents.length === 0 && !m.snapshot.scope.allNamespaces) return [];
  const onNode = agents.filter((p) => str(podSpec(p).nodeName) === node);
  const ready = onNode.some((p) =>
    arr(isObj(p.status) ? p.status.conditions : undefined).some(
      (c) => isObj(c) && c.type === 'Ready' && c.status === 'True',
    ),
  );
  if (ready) return [];
  return [
    {
      cause: `the istio-cni node agent ${onNode.length ? 'is not ready' : 'does not run'} on the pod's node ${node}, so nothing set up the pod's redirection`,
      evidence: { node, cniAgentPods: onNode.map(nameOf).sort() },
      source:
        'istio/istio 86c9f01f tools/istio-iptables/pkg/cmd/root.go (validation exit 126), manifests/charts/istio-cni daemonset.yaml',
      fix: [
        comment`get the istio-cni node agent running and ready on the node, then re-create the pod`,
        cmd`kubectl get pods -n ${cpNs} -l ${`k8s-app=${AGENT}`} -o wide`,
        cmd`kubectl delete pod ${nameOf(pod)} -n ${str(pod.metadata?.namespace) ?? ''}`,
      ],
    },
  ];
}

export function istioRuntime(
  values: (m: MeshContext, w?: Workload) => Record<string, any> | undefined,
): MeshProfile['runtime'] {
  return {
    injected: (m: MeshContext, w: Workload, cni: boolean): InjectedContainer[] => {
      const v = values(m, w);
      const seccomp = str(valueAt(v, 'global', 'proxy', 'seccompProfile', 'type'));
      const privileged = valueAt(v, 'global', 'proxy', 'privileged') === true;
      const base = { allowPrivilegeEscalation: privileged, privileged, drop: ['ALL'], ...(seccomp ? { seccomp } : {}) };
      const tproxy = annotationsOf(w.template)['sidecar.istio.io/interceptionMode'] === 'TPROXY';
      return [
        cni
          ? { name: 'istio-validation', init: true, securityContext: { ...base, runAsUser: 1337, runAsNonRoot: true } }
          : {
              name: 'istio-init',
              init: true,
              securityContext: { ...base, add: ['NET_ADMIN', 'NET_RAW'], runAsUser: 0, runAsNonRoot: false },
            },
        {
          name: 'istio-proxy',
          init: false,
          securityContext: tproxy
            ? { ...base, add: ['NET_ADMIN'], runAsUser: 0, runAsNonRoot: false }
            : { ...base, runAsUser: 1337, runAsNonRoot: true },
        },
      ];
    },
    injectedFrom: 'istio/istio 86c9f01f manifests/charts/istio-control/istio-discovery/files/injection-template.yaml',
    // The template's service.istio.io/canonical-name: the pod's own canonical-name, app.kubernetes.io/name or app label,
    // else .DeploymentMeta.Name, the pod's top owner's name (a Deployment's, a custom resource's, a bare pod's own;
    // pkg/kube/inject/webhook.go). Until 1.20 written whole (istio/istio#25157, #48562); from 1.21 `trunc 63 |
    // trimSuffix "-"` (istio/istio#48562), which still leaves a cut ending in "." or "_" (istio/istio#60756).
    ownerLabels: [
      {
        key: 'service.istio.io/canonical-name',
        owners: '*',
        unless: ['service.istio.io/canonical-name', 'app.kubernetes.io/name', 'app'],
        truncated: { max: 63, since: '1.21' },
        fix: 'set the label service.istio.io/canonical-name or app.kubernetes.io/name on the pod template, 63 characters or fewer, starting and ending with a letter or digit: the injector copies it instead of the name',
        source:
          'istio/istio 86c9f01f manifests/charts/istio-control/istio-discovery/files/injection-template.yaml (canonical-name); istio/istio#48562 (1.21: trunc 63)',
      },
    ],
    restrictedFix: (rule, _container, ns) =>
      rule === 'seccompProfile'
        ? setValue(
            'or have the injector give its containers the RuntimeDefault profile',
            ns,
            'global.proxy.seccompProfile.type',
            'RuntimeDefault',
          )
        : undefined,
    openshift: (ns) => [
      comment`the Istio sidecar runs as UID 1337, which the default SCCs of OpenShift refuse, as the Istio OpenShift setup guide says: allow the ServiceAccounts of the namespace the anyuid SCC`,
      cmd`oc adm policy add-scc-to-group anyuid ${`system:serviceaccounts:${ns}`}`,
      comment`with the Istio OpenShift profile, the CNI plugin through Multus, the namespace also needs a NetworkAttachmentDefinition named istio-cni, as the same guide says`,
    ],
    failures: [
      {
        container: 'istio-validation',
        exitCode: 126,
        cause:
          'the Istio CNI plugin had not set up the pod\'s traffic redirection when it started ("iptables validation failed; workload is not ready for Istio"): the istio-cni node agent was not ready on its node, or it skips the pod\'s namespace',
        source:
          'istio/istio 86c9f01f tools/istio-iptables/pkg/constants/constants.go ValidationErrorCode = 126, pkg/cmd/root.go',
        fix: (c) => [
          comment`once the istio-cni node agent runs on the node and does not skip the namespace, re-create the pod: the CNI repair controller does it with cni.repair.deletePods=true`,
          cmd`kubectl delete pod ${c.pod} -n ${c.namespace}`,
        ],
      },
      {
        container: 'istio-init',
        // istio-iptables ends on an iptables command that fails: handleErrorWithCode(err, 1); a failed
        // iptables-restore or iptables call through RunOrFail panicked (Go exits 2) up to 1.10 and calls
        // os.Exit(-1) (255) since 1.11 (e60d08a8, istio/istio#30851): the three codes across releases.
        exitCode: [1, 2, 255],
        node: true,
        cause:
          "istio-iptables could not program the pod's iptables: typically the node lacks the kernel modules (br_netfilter, nf_nat, xt_REDIRECT, xt_owner, iptable_nat, iptable_mangle, iptable_filter) or the ip6tables ones",
        source:
          'istio/istio 86c9f01f tools/istio-iptables/pkg/cmd/root.go (exit 1), 1.10.0 pkg/dependencies/implementation.go RunOrFail panic (exit 2), e60d08a8 os.Exit(-1) (exit 255, 1.11); istio/istio#44118, #53147, #23009',
        fix: (c) => [
          comment`its log names the iptables command that failed`,
          cmd`kubectl logs ${c.pod} -n ${c.namespace} -c istio-init --previous`,
          comment`load the modules on the nodes, or install the Istio CNI plugin so that the pods need no iptables of their own: istioctl install --set components.cni.enabled=true`,
        ],
      },
    ],
    initNeeds: (m, _w, pod, container) => {
      if (container !== 'istio-validation') return [];
      const ns = str(pod.metadata?.namespace) ?? '';
      for (const cpNs of m.mesh('istio')?.namespaces ?? []) {
        const cm = m.get('configmaps', cpNs, CNI_CONFIG);
        const raw = isObj(cm?.data) ? str(cm!.data[CNI_EXCLUDE]) : undefined;
        if (raw === undefined) continue;
        const excluded = raw.split(',').map((x) => x.trim());
        if (!excluded.includes(ns)) return cniAgentNeeds(m, pod, cpNs);
        return [
          {
            cause: `the Istio CNI plugin skips namespace ${ns} (ConfigMap ${cpNs}/${CNI_CONFIG} ${CNI_EXCLUDE}=${raw}), so it never sets up the pods' redirection`,
            evidence: { configMap: `${cpNs}/${CNI_CONFIG}`, [CNI_EXCLUDE]: raw },
            source:
              'istio/istio 86c9f01f cni/pkg/plugin/plugin.go (ExcludeNamespaces), manifests/charts/istio-cni values.yaml excludeNamespaces',
            fix: [
              comment`take the namespace out of the istio-cni chart value excludeNamespaces, or opt the namespace out of sidecar injection`,
              cmd`kubectl get configmap ${CNI_CONFIG} -n ${cpNs} -o jsonpath=${`{.data.${CNI_EXCLUDE}}`}`,
            ],
          },
        ];
      }
      return cniAgentNeeds(m, pod, m.mesh('istio')?.namespaces[0] ?? 'istio-system');
    },
    startOrder: {
      // pkg/kube/inject/inject.go reorderPod (1.24.0 @0fd4a2c4 and every release since 1.6): istio-init is moved
      // last ("Init container must be last to allow any traffic to pass before iptables is setup"), the CNI's
      // istio-validation first; a native istio-proxy is moved first. tools/istio-iptables leaves the proxy's
      // UID (values global.proxy.uid... 1337) alone; istio.io docs setup/additional-setup/cni "Compatibility
      // with application init containers": run it as 1337, or exclude what it dials.
      initTraffic: {
        proxyUid: 1337,
        exclude: [
          { key: 'traffic.sidecar.istio.io/excludeOutboundIPRanges', takes: 'the address ranges it dials' },
          { key: 'traffic.sidecar.istio.io/excludeOutboundPorts', takes: 'the ports it dials' },
        ],
        native: ['sidecar.istio.io/nativeSidecar'],
        source:
          'istio/istio pkg/kube/inject/inject.go reorderPod; tools/istio-iptables (proxy UID 1337); istio.io setup/additional-setup/cni, compatibility with application init containers',
      },
      held: (_m, pod) => {
        const place = proxyPlace(pod, 'istio-proxy');
        if (place === 'native')
          return {
            held: true,
            how: 'istio-proxy is a native sidecar: the kubelet starts the app after its startup probe',
          };
        if (place === 'first')
          return {
            held: true,
            how: 'istio-proxy is the first container: holdApplicationUntilProxyStarts, its postStart hook waits for it',
          };
        if (place === 'later')
          return {
            held: false,
            how: 'istio-proxy is not the first container: holdApplicationUntilProxyStarts was off when the pod was injected',
          };
        return undefined;
      },
      setting: 'holdApplicationUntilProxyStarts (Istio 1.7 and later)',
      since: '1.7.0',
      source: 'istio/istio 86c9f01f pkg/kube/inject/webhook.go reorderPod, injection-template.yaml',
      fix: (w, ns) => [
        comment`hold the app until istio-proxy is ready, for this workload: the pod template annotation proxy.istio.io/config, merged into any value it has already`,
        ...setOnTemplate(w, 'annotations', 'proxy.istio.io/config', '{"holdApplicationUntilProxyStarts": true}'),
        ...setValue('or for every pod of the mesh', ns, 'global.proxy.holdApplicationUntilProxyStarts', 'true'),
      ],
    },
    // injection-template.yaml: istio-init's securityContext privileged is values.global.proxy.privileged
    // (values.yaml false); istio/istio#12948 and #13857 (OpenShift, SELinux) run once it is true.
    privileged: (ns) =>
      setValue(
        'run istio-init privileged, which SELinux lets program the pod iptables',
        ns,
        'global.proxy.privileged',
        'true',
      ),
    initBackend: istioInitBackend,
    image: (ns) => [
      comment`the proxy image is the istiod values global.hub and global.tag, or global.proxy.image, or the pod template annotation sidecar.istio.io/proxyImage`,
      cmd`kubectl get configmap istio-sidecar-injector -n ${ns} -o jsonpath=${'{.data.values}'}`,
    ],
  };
}
