/**
 * Kuma's injected containers as admission judges them and as they run (issue 24). Sources,
 * kumahq/kuma v2.14.3 (0c7aaec033b7dad03c3a9f4d5b56eb6d941bfff9):
 * - pkg/plugins/runtime/k8s/webhooks/injector/injector.go NewInitContainer: `kuma-init` runs
 *   `kumactl install transparent-proxy` as UID 0 (runAsGroup 0) adding NET_ADMIN and NET_RAW and
 *   dropping ALL; no allowPrivilegeEscalation, no runAsNonRoot, no seccomp profile.
 *   NewValidationContainer (CNI on): `kuma-validation` runs as the sidecar's UID (5678), drops ALL,
 *   allowPrivilegeEscalation false. NewSidecarContainer with pkg/plugins/runtime/k8s/containers/
 *   factory.go: `kuma-sidecar` runs as 5678, drops ALL, allowPrivilegeEscalation false; no
 *   runAsNonRoot and no seccomp profile (Pod Security restricted wants both, from the pod or the
 *   container). None sets terminationMessagePolicy.
 * - pkg/transparentproxy/validate/validator.go: the validator fails "most likely the transparent
 *   proxy is not established correctly, please check CNI logs".
 * - deployments/charts/kuma/values.yaml dataPlane.image.repository `kuma-dp`,
 *   dataPlane.initImage.repository `kuma-init`; the injector's resources for kuma-init and
 *   kuma-validation: requests 20m / 20M, limits memory 50M (cpu "0": none) in
 *   pkg/config/app/kuma-cp/kuma-cp.defaults.yaml (research notes issue24 §2.4).
 * - OpenShift: kumahq/kuma-website 07ddf25e app/_src/installation/openshift.md (kuma-cni, and the
 *   `nonroot` SCC for the application namespace, as the sidecar's UID is explicit).
 */
import { cmd, comment } from '../../fix/steps.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import type { InjectedContainer, MeshProfile } from '../profile.js';
import { proxyPlace } from '../start-order.js';
import { kumaHoldStuck } from './hold-stuck.js';
import { setOnTemplate } from '../../fix/commands.js';
import { annotationsOf } from '../../util/objects.js';

/**
 * Start order (issue 31), kumahq/kuma 348b6528: pkg/plugins/runtime/k8s/webhooks/injector/injector.go
 * always puts kuma-sidecar first; containers/factory.go gives it the postStart hook `kuma-dp wait`
 * only with the pod annotation kuma.io/wait-for-dataplane-ready (metadata.Annotations
 * GetEnabledWithDefault: enabled/true/yes, disabled/false/no) or the control plane's
 * KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_WAIT_FOR_DATAPLANE_READY (kuma-cp.defaults.yaml
 * false); as a native sidecar it has a startupProbe on /ready. Since 2.4.0 (9b3f7676, kumahq/kuma#7583).
 */
export const WAIT_ENV = 'KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_WAIT_FOR_DATAPLANE_READY';
const WAIT = 'kuma.io/wait-for-dataplane-ready';
const bool = (v: string | undefined) =>
  v === undefined
    ? undefined
    : ['enabled', 'true', 'yes'].includes(v)
      ? true
      : ['disabled', 'false', 'no'].includes(v)
        ? false
        : undefined;

/** The sidecar's UID: the control plane's KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_UID, else 5678 (kuma-cp.defaults.yaml, config.go). */
const uid = (env: Record<string, string>) => {
  const v = Number(env.KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_UID);
  return Number.isInteger(v) && v > 0 ? v : 5678;
};

export function kumaRuntime(env: (m: MeshContext) => Record<string, string>): MeshProfile['runtime'] {
  return {
    injected: (m: MeshContext, _w: Workload, cni: boolean): InjectedContainer[] => {
      const u = uid(env(m));
      const sidecar = { runAsUser: u, drop: ['ALL'], allowPrivilegeEscalation: false };
      return [
        cni
          ? { name: 'kuma-validation', init: true, securityContext: sidecar }
          : {
              name: 'kuma-init',
              init: true,
              securityContext: { runAsUser: 0, add: ['NET_ADMIN', 'NET_RAW'], drop: ['ALL'] },
            },
        { name: 'kuma-sidecar', init: false, securityContext: sidecar },
      ];
    },
    injectedFrom:
      'kumahq/kuma v2.14.3 pkg/plugins/runtime/k8s/webhooks/injector/injector.go, pkg/plugins/runtime/k8s/containers/factory.go',
    openshift: (ns) => [
      comment`the Kuma sidecar runs as an explicit UID, 5678: allow the ServiceAccounts of the namespace the nonroot SCC, and install kuma-cni with kumactl install control-plane --cni-enabled, as OpenShift 4 runs nftables, as the Kuma OpenShift guide says`,
      cmd`oc adm policy add-scc-to-group nonroot ${`system:serviceaccounts:${ns}`}`,
    ],
    initResources: () => ({
      requests: { cpu: '20m', memory: '20M' },
      limits: { memory: '50M' },
      from: 'Kuma default kuma-init resources',
    }),
    failures: [
      {
        container: 'kuma-validation',
        cause:
          "kuma-cni had not set up the pod's transparent proxy when it started (the validator could not reach its server through the redirection): kuma-cni was not ready on the node, or its configuration does not fit the cluster's CNI (cni.chained, netDir, confName)",
        source: 'kumahq/kuma v2.14.3 pkg/transparentproxy/validate/validator.go',
        fix: (c) => [
          comment`check kuma-cni on the node of the pod, then re-create the pod`,
          cmd`kubectl delete pod ${c.pod} -n ${c.namespace}`,
        ],
      },
      {
        container: 'kuma-init',
        node: true,
        cause:
          "kumactl install transparent-proxy could not program the pod's iptables (OpenShift 4 and other nftables-only nodes cannot run it in the pod: Kuma's OpenShift guide)",
        source:
          'kumahq/kuma v2.14.3 app/kumactl/cmd/install/install_transparent_proxy.go; kumahq/kuma-website app/_src/installation/openshift.md',
        fix: (c) => [
          comment`its log says which iptables call failed`,
          cmd`kubectl logs ${c.pod} -n ${c.namespace} -c kuma-init --previous`,
          comment`install kuma-cni so that the pods need no iptables of their own: kumactl install control-plane --cni-enabled, or Helm cni.enabled=true`,
        ],
      },
    ],
    startOrder: {
      // pkg/plugins/runtime/k8s/webhooks/injector/injector.go (2.3.0 @ line 216, and since): kuma-init is appended
      // after the pod's own init containers, prepended only where the pod says kuma.io/init-first: true (#5857);
      // with native sidecars or the CNI plugin there is no kuma-init: the CNI redirects from the pod's start;
      // the redirection leaves the sidecar's UID alone (kuma.io/sidecar-uid, default 5678) and the
      // traffic.kuma.io/exclude-outbound-* annotations (metadata/annotations.go at each tag).
      initTraffic: {
        proxyUid: 5678,
        uidAnnotation: 'kuma.io/sidecar-uid',
        exclude: [
          { key: 'traffic.kuma.io/exclude-outbound-ips', takes: 'the addresses it dials' },
          { key: 'traffic.kuma.io/exclude-outbound-ports', takes: 'the ports it dials' },
          { key: 'traffic.kuma.io/exclude-outbound-ports-for-uids', takes: 'ports:UID for the UID it runs as' },
        ],
        initLast: { key: 'kuma.io/init-first', value: 'false' },
        source:
          'kumahq/kuma 2.3.0 pkg/plugins/runtime/k8s/webhooks/injector/injector.go (KumaInitFirst: prepend, else append), metadata/annotations.go',
      },
      held: (m, pod) => {
        const place = proxyPlace(pod, 'kuma-sidecar');
        if (place === 'native')
          return {
            held: true,
            how: 'kuma-sidecar is a native sidecar: the kubelet starts the app after its startup probe',
          };
        if (place === 'absent') return undefined;
        const own = bool(annotationsOf(pod)[WAIT]);
        if (own !== undefined)
          return {
            held: own,
            how: `the pod says ${WAIT}=${annotationsOf(pod)[WAIT]}${own ? ': the postStart hook of kuma-sidecar waits for it' : ''}`,
          };
        const raw = env(m)[WAIT_ENV];
        // Not read: the control plane's setting is unknown, and so is the hold.
        const read = (m.mesh('kuma')?.namespaces ?? []).some((ns) => m.readIn('deployments', ns));
        if (raw === undefined && !read) return undefined;
        const cp = /^(1|t|T|TRUE|true|True)$/.test(raw ?? '');
        return {
          held: cp,
          how:
            raw === undefined
              ? `no ${WAIT} on the pod, and the control plane holds no app by default`
              : `the control plane runs with ${WAIT_ENV}=${raw}`,
        };
      },
      stuck: kumaHoldStuck(env),
      setting: `${WAIT} (Kuma 2.4 and later, off by default)`,
      since: '2.4.0',
      source: 'kumahq/kuma 348b6528 pkg/plugins/runtime/k8s/containers/factory.go, metadata/annotations.go',
      fix: (w, ns) => [
        comment`hold the app until kuma-sidecar is ready, for this workload`,
        ...setOnTemplate(w, 'annotations', WAIT, 'true'),
        comment`or for every pod of the mesh: the control plane env ${WAIT_ENV}=true, Helm controlPlane.envVars, in namespace ${ns}`,
      ],
    },
    image: (ns) => [
      comment`the images are the chart values dataPlane.image for kuma-dp and dataPlane.initImage for kuma-init with global.tag, written into the environment of the control plane`,
      cmd`kubectl get deployment kuma-control-plane -n ${ns} -o jsonpath=${'{.spec.template.spec.containers[0].image}'}`,
    ],
  };
}
