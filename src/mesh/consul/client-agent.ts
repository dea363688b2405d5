/**
 * Consul's client agents (consul-k8s before 1.0, consul-helm): a DaemonSet of Consul agents, one per node, and the
 * injected pods register with the agent of their own node: consul-connect-inject-init dials HOST_IP:8500 (the
 * agent's hostPort; hashicorp/consul-k8s 0c6dede6 connect-inject/container_init.go, CONSUL_HTTP_ADDR from the
 * downward API's status.hostIP), so a node without a ready client agent leaves its pods' init container failing
 * ("Unable to get Agent services ... connect: connection refused", hashicorp/consul-k8s#27, #945, #1435). The chart
 * names the DaemonSet after the release (consul-helm templates/client-daemonset.yaml: metadata.name is
 * consul.fullname, spec.selector.matchLabels app: consul.name, component: client), tolerations only from
 * client.tolerations (hashicorp/consul-helm#19). consul-k8s 1.0 dropped the client agents for consul-dataplane.
 */
import type { K8sObject } from '../../util/types.js';
import type { NodeClientAgent } from '../profile.js';
import { containers, initContainers, podSpec } from '../../k8s/pods.js';

export const CONSUL_CLIENT_AGENT: NodeClientAgent = {
  title: 'client agent',
  selector: { app: 'consul', component: 'client' },
  // A pod injected before consul-dataplane (consul-k8s 1.0): it registers through the agent of its node.
  needs: (pod: K8sObject) => {
    const spec = podSpec(pod);
    return (
      initContainers(spec).some((c) => c.name === 'consul-connect-inject-init') &&
      !containers(spec).some((c) => c.name === 'consul-dataplane')
    );
  },
  without:
    "cannot register with Consul: their consul-connect-inject-init dials the client agent on the node's address (HOST_IP:8500)",
  source:
    'hashicorp/consul-helm templates/client-daemonset.yaml; hashicorp/consul-k8s 0c6dede6 connect-inject/container_init.go',
};
