/**
 * Linkerd's control-plane components (issue 31, gen10cp), as its charts install them: every workload is labelled
 * `linkerd.io/control-plane-component: <name>` (linkerd/linkerd2@b24cd4059841f8cee2fb7a9c2ac23a693c583579
 * charts/linkerd-control-plane/templates/identity.yaml, destination.yaml, proxy-injector.yaml; before stable-2.10 the
 * single chart charts/linkerd2/templates/sp-validator.yaml and controller.yaml, e.g. linkerd/linkerd2@stable-2.9.0).
 * The proxy asks the identity service for its certificate before it is ready (charts/partials/templates/_proxy.tpl
 * LINKERD2_PROXY_IDENTITY_SVC_ADDR; linkerd2-proxy logs "Failed to certify identity": linkerd/linkerd2#3620, #5356);
 * destination serves discovery and, from stable-2.11, policy (the policy container of linkerd-destination);
 * sp-validator became a container of linkerd-destination in stable-2.10.
 */
import type { ControlPlaneComponent } from '../profile.js';

const C = 'linkerd.io/control-plane-component';
const CHART = 'linkerd/linkerd2@b24cd405 charts/linkerd-control-plane/templates';

export const linkerdComponents: readonly ControlPlaneComponent[] = [
  {
    id: 'identity',
    title: 'identity service',
    kind: 'Deployment',
    podLabels: [{ [C]: 'identity' }],
    provides: 'signs the certificate every meshed proxy asks for when it starts',
    without:
      'no proxy started since can get its certificate, so none of them becomes ready (its log says Failed to certify identity)',
    symptoms: ['proxy-not-ready'],
    releases: 'every release since stable-2.3: Deployment linkerd-identity',
    source: `${CHART}/identity.yaml, charts/partials/templates/_proxy.tpl (LINKERD2_PROXY_IDENTITY_SVC_ADDR); linkerd/linkerd2#5356`,
  },
  {
    id: 'destination',
    title: 'destination service',
    kind: 'Deployment',
    podLabels: [{ [C]: 'destination' }],
    provides: 'answers the proxies for service discovery and, from stable-2.11, for their inbound and outbound policy',
    without: 'meshed pods cannot resolve the services they call nor, from stable-2.11, load their policy',
    symptoms: [],
    releases: 'every release: Deployment linkerd-destination (before stable-2.6 a container of linkerd-controller)',
    source: `${CHART}/destination.yaml, charts/partials/templates/_proxy.tpl (LINKERD2_PROXY_DESTINATION_SVC_ADDR, LINKERD2_PROXY_POLICY_SVC_ADDR)`,
  },
  {
    id: 'sp-validator',
    title: 'ServiceProfile validator',
    kind: 'Deployment',
    podLabels: [{ [C]: 'sp-validator' }],
    provides: 'serves the validating webhook of ServiceProfiles',
    without: 'ServiceProfiles cannot be created or changed while its webhook is called',
    symptoms: [],
    releases:
      'stable-2.3 to stable-2.9: Deployment linkerd-sp-validator; from stable-2.10 a container of linkerd-destination',
    source: 'linkerd/linkerd2@stable-2.9.0 charts/linkerd2/templates/sp-validator.yaml',
  },
  {
    id: 'controller',
    title: 'public API controller',
    kind: 'Deployment',
    podLabels: [{ [C]: 'controller' }],
    provides: 'serves the public API the CLI and the dashboard read',
    without: 'linkerd check and the dashboard fail',
    symptoms: [],
    releases: 'until stable-2.9: Deployment linkerd-controller',
    source: 'linkerd/linkerd2@stable-2.9.0 charts/linkerd2/templates/controller.yaml',
  },
  {
    id: 'proxy-injector',
    title: 'proxy injector',
    kind: 'Deployment',
    podLabels: [{ [C]: 'proxy-injector' }],
    provides: 'injects the proxy into new pods through its webhook',
    without: 'new pods get no proxy, or are refused under failurePolicy Fail',
    symptoms: [],
    judgedBy: 'injector-unavailable',
    releases: 'every release: Deployment linkerd-proxy-injector',
    source: `${CHART}/proxy-injector.yaml`,
  },
  {
    id: 'cni',
    title: 'CNI plugin installer linkerd-cni',
    kind: 'DaemonSet',
    podLabels: [{ 'k8s-app': 'linkerd-cni' }],
    provides: 'sets up the redirection of every new pod on its node',
    without: 'new pods on a node without it fail their network validation',
    symptoms: [],
    judgedBy: 'node-agent-incomplete',
    releases: 'every release since stable-2.5, when installed',
    source: 'linkerd/linkerd2@b24cd405 charts/linkerd2-cni/templates/cni-plugin.yaml',
  },
];
