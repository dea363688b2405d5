/**
 * What Consul's injected containers need from the pod's own spec (issue 31, gen10spec), per release:
 * - DNS: from consul-k8s 1.0 consul-dataplane and the init container consul-connect-inject-init dial the servers by
 *   the address the chart gives, `<fullname>-server.<ns>.svc` (hashicorp/consul-k8s@a507b1d1e3061996dbed00cde73bba2bf068379f
 *   control-plane/connect-inject/webhook/consul_dataplane_sidecar.go `-addresses`, container_init.go CONSUL_ADDRESSES;
 *   charts/consul/templates/connect-inject-deployment.yaml). Before 1.0 (envoy-sidecar) both talked to the client
 *   agent on the node, `${HOST_IP}` (hashicorp/consul-k8s#27, #302): no name to resolve, so no row for envoy-sidecar.
 *   With `externalServers.hosts` the address is whatever the user gave (a name or an address): the row says the
 *   in-cluster one.
 * - The ServiceAccount token: with ACLs the init container and consul-dataplane log in with the mounted token; the
 *   injector itself denies a pod without one (src/mesh/consul/injector.ts, serviceaccount-missing), so an injected pod
 *   always had it: no row here.
 * - The node: consul-dataplane and consul-k8s-control-plane images are Linux images (hashicorp/consul-dataplane
 *   Dockerfile).
 */
import type { PodSpecNeeds } from '../profile.js';

const SOURCE =
  'hashicorp/consul-k8s@a507b1d1 control-plane/connect-inject/webhook/consul_dataplane_sidecar.go (-addresses), container_init.go';

const PORTS =
  'hashicorp/consul-k8s@v1.0.0 control-plane/connect-inject/webhook/consul_dataplane_sidecar.go (ProxyDefaultInboundPort, -envoy-admin-bind-port)';

export const consulPodNeeds: PodSpecNeeds = {
  dns: [
    {
      container: 'consul-dataplane',
      address: 'consul-server.<ns>.svc',
      role: 'its xDS stream to the servers',
      source: SOURCE,
    },
    {
      container: 'consul-connect-inject-init',
      // 0.x injects the same init container, which talks to the node's agent: only beside consul-dataplane (1.0+).
      beside: 'consul-dataplane',
      address: 'consul-server.<ns>.svc',
      role: 'login and service registration',
      source: SOURCE,
    },
  ],
  token: [],
  os: { images: 'linux', source: 'hashicorp/consul-dataplane Dockerfile (Linux images)' },
  // consul-dataplane's Envoy: its public listener on 20000 (control-plane/connect-inject/constants ProxyDefaultInboundPort,
  // one more per service of a multi-port pod) and its admin server on 19000 (-envoy-admin-bind-port), consul-k8s 1.0 on.
  ports: [
    { container: 'consul-dataplane', port: 20000, serves: "Envoy's public (inbound) listener", source: PORTS },
    { container: 'consul-dataplane', port: 19000, serves: "Envoy's admin server", source: PORTS },
  ],
};
