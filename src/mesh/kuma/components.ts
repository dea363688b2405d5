/**
 * Kuma's control-plane components (issue 31, gen10cp): kuma-cp is the whole control plane in one Deployment, pods
 * labelled `app: kuma-control-plane` (kumahq/kuma@348b6528bc234b3c4bd7f22ad7c5bf950d6149fc
 * deployments/charts/kuma/templates/cp-deployment.yaml): the injector webhook, the dp-server every kuma-dp fetches its
 * bootstrap and configuration from (5678) and the CA; judged as the injector (injector-unavailable), the proxies it
 * leaves not ready being its symptom (kumahq/kuma#1013: its image not pulled). kuma-cni is node-agent-incomplete's.
 */
import type { ControlPlaneComponent } from '../profile.js';

export const kumaComponents: readonly ControlPlaneComponent[] = [
  {
    id: 'control-plane',
    title: 'control plane kuma-cp',
    kind: 'Deployment',
    podLabels: [{ app: 'kuma-control-plane' }],
    provides: 'injects kuma-dp, and serves every kuma-dp its bootstrap, configuration and certificates',
    without: 'new pods get no sidecar, and the sidecars started since get no bootstrap and are never ready',
    symptoms: ['proxy-not-ready'],
    judgedBy: 'injector-unavailable',
    releases: 'every release: Deployment kuma-control-plane',
    source: 'kumahq/kuma@348b6528 deployments/charts/kuma/templates/cp-deployment.yaml; kumahq/kuma#1013',
  },
  {
    id: 'cni',
    title: 'kuma-cni node agent',
    kind: 'DaemonSet',
    podLabels: [{ app: 'kuma-cni' }],
    provides: 'sets up the redirection of every new pod on its node',
    without: 'new pods on a node without it fail kuma-validation',
    symptoms: [],
    judgedBy: 'node-agent-incomplete',
    releases: 'from 1.1, when installed: DaemonSet kuma-cni-node',
    source: 'kumahq/kuma@348b6528 deployments/charts/kuma/templates/cni-daemonset.yaml',
  },
];
