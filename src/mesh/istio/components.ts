/**
 * Istio's control-plane components (issue 31, gen10cp). From 1.5, istiod (label `app: istiod`, a revision's
 * `istiod-<rev>`) is the injector, the xDS server and the CA (istio/istio@86c9f01f
 * manifests/charts/istio-control/istio-discovery/templates/deployment.yaml). Before it (1.0 to 1.4, and 1.5 installs
 * keeping the old layout), the Helm chart install/kubernetes/helm/istio/charts/COMPONENT/templates/deployment.yaml installs one
 * Deployment per component, each pod template labelled `istio: <component>` (istio/istio@1.4.0: security ->
 * istio-citadel `istio: citadel`, pilot -> istio-pilot `istio: pilot`, galley -> istio-galley `istio: galley`,
 * sidecarInjectorWebhook -> istio-sidecar-injector `istio: sidecar-injector`). Citadel writes a Secret
 * `istio.<serviceaccount>` of type istio.io/key-and-cert for every ServiceAccount (security/pkg/k8s/controller/
 * workloadsecret.go: secretNamePrefix "istio."), which the control plane's pods (volume certs) and, without SDS, the
 * sidecars (volume istio-certs) mount: without Citadel those pods never start (istio/istio#18840, #19029, #19302, #7174).
 * The node agents (istio-cni-node, ztunnel) are node-agent-incomplete's.
 */
import type { ControlPlaneComponent } from '../profile.js';

const OLD = 'istio/istio@1.4.0 install/kubernetes/helm/istio/charts';

export const istioComponents: readonly ControlPlaneComponent[] = [
  {
    id: 'istiod',
    title: 'istiod',
    kind: 'Deployment',
    podLabels: [{ app: 'istiod' }],
    provides: 'injects the sidecars, serves their configuration and signs their certificates',
    without: 'new pods get no sidecar, and the sidecars started since get no certificate or configuration',
    symptoms: ['proxy-not-ready'],
    judgedBy: 'injector-unavailable',
    releases: 'from 1.5: Deployment istiod, istiod-<revision>',
    source: 'istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/templates/deployment.yaml',
  },
  {
    id: 'citadel',
    title: 'Citadel',
    kind: 'Deployment',
    podLabels: [{ istio: 'citadel' }],
    provides:
      'writes the Secret istio.<serviceaccount> holding the key and certificate of every ServiceAccount, which the control plane pods and the sidecars mount',
    without: 'no pod that mounts one of those Secrets can start: the kubelet cannot mount it',
    symptoms: ['secret-missing'],
    secrets: '^istio\\.[a-z0-9]([-a-z0-9.]{0,240}[a-z0-9])?$',
    releases: '1.0 to 1.4, and 1.5 installs keeping it: Deployment istio-citadel',
    enable:
      'the install must include the security component: Helm value security.enabled=true, istioctl values.security.enabled=true',
    source: `${OLD}/security/templates/deployment.yaml; security/pkg/k8s/controller/workloadsecret.go (secretNamePrefix istio.); istio/istio#18840, #19029`,
  },
  {
    id: 'pilot',
    title: 'Pilot',
    kind: 'Deployment',
    podLabels: [{ istio: 'pilot' }],
    provides: 'serves the configuration of every sidecar',
    without: 'the sidecars started since get no configuration, and none of them becomes ready',
    symptoms: ['proxy-not-ready'],
    releases: '1.0 to 1.4: Deployment istio-pilot',
    source: `${OLD}/pilot/templates/deployment.yaml`,
  },
  {
    id: 'galley',
    title: 'Galley',
    kind: 'Deployment',
    podLabels: [{ istio: 'galley' }],
    provides: 'validates Istio configuration through its webhook and feeds it to Pilot',
    without: 'Istio configuration cannot be created or changed, and Pilot gets none',
    symptoms: [],
    releases: '1.1 to 1.4: Deployment istio-galley',
    source: `${OLD}/galley/templates/deployment.yaml`,
  },
  {
    id: 'sidecar-injector',
    title: 'sidecar injector',
    kind: 'Deployment',
    podLabels: [{ istio: 'sidecar-injector' }],
    provides: 'injects the sidecars through its webhook',
    without: 'new pods get no sidecar, or are refused under failurePolicy Fail',
    symptoms: [],
    judgedBy: 'injector-unavailable',
    releases: '0.5 to 1.4, and 1.5 installs keeping it: Deployment istio-sidecar-injector',
    source: `${OLD}/sidecarInjectorWebhook/templates/deployment.yaml`,
  },
  {
    id: 'cni',
    title: 'istio-cni node agent',
    kind: 'DaemonSet',
    podLabels: [{ 'k8s-app': 'istio-cni-node' }],
    provides: 'sets up the redirection of every new pod on its node, and enrols ambient pods',
    without: 'new pods on a node without it fail istio-validation, or are not enrolled',
    symptoms: [],
    judgedBy: 'node-agent-incomplete',
    releases: 'from 1.1, when installed: DaemonSet istio-cni-node',
    source: 'istio/istio@86c9f01f manifests/charts/istio-cni/templates/daemonset.yaml',
  },
  {
    id: 'ztunnel',
    title: 'ztunnel',
    kind: 'DaemonSet',
    podLabels: [{ app: 'ztunnel' }],
    provides: 'carries the traffic of the ambient pods on its node',
    without: 'ambient pods on a node without it have no data plane',
    symptoms: [],
    judgedBy: 'node-agent-incomplete',
    releases: 'from 1.18, in ambient mode: DaemonSet ztunnel',
    source: 'istio/istio@86c9f01f manifests/charts/ztunnel/templates/daemonset.yaml',
  },
];
