/**
 * Consul's control-plane components on Kubernetes (issue 31, gen10cp), as the consul-k8s chart installs them, pods
 * labelled `app: consul` and `component: <name>` (names follow the Helm release: `<release>-consul-server`):
 * hashicorp/consul-k8s@a507b1d1e3061996dbed00cde73bba2bf068379f charts/consul/templates/server-statefulset.yaml
 * (component server), connect-inject-deployment.yaml (connect-injector), webhook-cert-manager-deployment.yaml
 * (webhook-cert-manager), client-daemonset.yaml (client, before consul-k8s 1.0), cni-daemonset.yaml (cni). The servers
 * hold the catalog, the ACL auth method and the service-mesh CA: the injected init container consul-connect-inject-init
 * logs in and registers through them (through the node's client agent before 1.0), and consul-dataplane (from 1.0)
 * keeps an xDS stream to them. Servers the scheduler cannot place (their volume claims unbound: hashicorp/consul-helm#284,
 * hashicorp/consul-k8s#1496) leave every injected pod in Init. The webhook-cert-manager writes the injector's serving
 * certificate and the caBundle of its webhook configurations. A client agent is ready only once the servers have a
 * leader (client-daemonset.yaml readinessProbe: /v1/status/leader), so servers that do not run leave every client not ready.
 */
import type { ControlPlaneComponent } from '../profile.js';

const CHART = 'hashicorp/consul-k8s@a507b1d1 charts/consul/templates';

export const consulComponents: readonly ControlPlaneComponent[] = [
  {
    id: 'server',
    title: 'server cluster',
    kind: 'StatefulSet',
    podLabels: [{ app: 'consul', component: 'server' }],
    provides:
      'holds the catalog, the ACL auth method and the service mesh CA every injected pod logs into and registers with',
    without:
      'no injected pod can log in or register: consul-connect-inject-init never finishes, and consul-dataplane is never ready',
    symptoms: ['init-not-finished', 'proxy-not-ready'],
    releases: 'every release, unless externalServers: StatefulSet <release>-consul-server',
    source: `${CHART}/server-statefulset.yaml; hashicorp/consul-helm#284, hashicorp/consul-k8s#1496`,
  },
  {
    id: 'webhook-cert-manager',
    title: 'webhook certificate manager',
    kind: 'Deployment',
    podLabels: [{ app: 'consul', component: 'webhook-cert-manager' }],
    provides: 'writes the serving certificate of the injector and the caBundle of its webhook configurations',
    without: 'the caBundle stays empty or outdated, and the API server cannot call the injector',
    symptoms: [],
    releases:
      'from consul-k8s 0.28 until the injector manages its own certificate: Deployment <release>-webhook-cert-manager',
    source: `${CHART}/webhook-cert-manager-deployment.yaml`,
  },
  {
    id: 'connect-injector',
    title: 'connect injector',
    kind: 'Deployment',
    podLabels: [{ app: 'consul', component: 'connect-injector' }],
    provides: 'injects the dataplane through its webhook and registers the injected pods',
    without: 'new pods get no dataplane, or are refused under failurePolicy Fail',
    symptoms: [],
    judgedBy: 'injector-unavailable',
    releases: 'every release: Deployment <release>-connect-injector',
    source: `${CHART}/connect-inject-deployment.yaml`,
  },
  {
    id: 'client',
    title: 'client agents',
    kind: 'DaemonSet',
    podLabels: [{ app: 'consul', component: 'client' }],
    provides: 'register the injected pods of their node with the servers',
    without: 'injected pods on a node without one cannot register',
    symptoms: [],
    // Its readiness probe asks the local agent for the servers' leader (client-daemonset.yaml readinessProbe
    // /v1/status/leader): without servers no client agent is ready.
    needs: 'server',
    judgedBy: 'node-agent-incomplete',
    releases: 'before consul-k8s 1.0: DaemonSet <release>-consul',
    source: `${CHART}/client-daemonset.yaml`,
  },
  {
    id: 'cni',
    title: 'CNI plugin installer',
    kind: 'DaemonSet',
    podLabels: [{ app: 'consul', component: 'cni' }],
    provides: 'sets up the redirection of every new pod on its node',
    without: 'new pods on a node without it are not redirected',
    symptoms: [],
    judgedBy: 'node-agent-incomplete',
    releases: 'from consul-k8s 0.45, when installed: DaemonSet <release>-consul-cni',
    source: `${CHART}/cni-daemonset.yaml`,
  },
];
