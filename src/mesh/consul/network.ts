/**
 * What Consul's injected containers dial over the pod network (issue 31): consul-dataplane keeps
 * one gRPC connection to the servers on 8502 (TLS or not: the chart moves `grpc_tls` to 8502 with
 * TLS), and the init container consul-connect-inject-init logs in and registers through the
 * servers' HTTP API, 8500 (8501 with TLS)
 * (hashicorp/consul-k8s@a507b1d1e3061996dbed00cde73bba2bf068379f charts/consul/templates/server-service.yaml:
 * Service `<fullname>-server` ports http 8500, https 8501, grpc 8502, labels `app: consul`,
 * `component: server`; server-config-configmap.yaml (grpc / grpc_tls 8502);
 * control-plane/connect-inject/webhook/consul_dataplane_sidecar.go `-grpc-port`;
 * container_init.go CONSUL_GRPC_PORT, CONSUL_HTTP_PORT). Without them consul-dataplane logs
 * "server-connection-manager: connection error ... i/o timeout" (hashicorp/consul-k8s#1814, #2354).
 * External servers (`externalServers.hosts`) run outside the cluster: no pod is there to match.
 */
import type { ProxyNetwork, ProxyRanges } from '../profile.js';
import { excludedOutboundAnnotation } from '../ranges.js';
import { consulPodNeeds } from './pod-needs.js';

/**
 * The outbound CIDRs a pod's annotation consul.hashicorp.com/transparent-proxy-exclude-outbound-cidrs leaves out of the redirection to the proxy (issue 31,
 * gen10net; hashicorp/consul-k8s@a507b1d1 control-plane/connect-inject/constants/annotations_and_labels.go AnnotationTProxyExcludeOutboundCIDRs, control-plane/connect-inject/webhook/redirect_traffic.go (ExcludeOutboundCIDRs)): a destination inside them leaves the pod without the proxy. No mesh-wide setting is read: pods
 * without the annotation are not judged.
 */
const EXCLUDE = 'consul.hashicorp.com/transparent-proxy-exclude-outbound-cidrs';
export const consulRanges: ProxyRanges = excludedOutboundAnnotation(
  EXCLUDE,
  'hashicorp/consul-k8s@a507b1d1 control-plane/connect-inject/constants/annotations_and_labels.go AnnotationTProxyExcludeOutboundCIDRs, control-plane/connect-inject/webhook/redirect_traffic.go (ExcludeOutboundCIDRs)',
  'connections to those addresses leave the pod without the proxy: plain text, none of the mesh routing, policy or mTLS',
);

const SOURCE =
  'hashicorp/consul-k8s@a507b1d1 charts/consul/templates/server-service.yaml, control-plane/connect-inject/webhook/consul_dataplane_sidecar.go, container_init.go';
const SERVER = { app: 'consul', component: 'server' };

export const consulNetwork: ProxyNetwork = {
  endpoints: [
    {
      role: 'the xDS stream to the servers',
      service: 'consul-server',
      ports: [8502],
      podLabels: SERVER,
      from: 'consul-dataplane',
      source: SOURCE,
    },
    {
      role: 'login and service registration (HTTP API)',
      service: 'consul-server',
      ports: [8500, 8501],
      podLabels: SERVER,
      from: 'the init container consul-connect-inject-init',
      source: SOURCE,
    },
  ],
  symptom:
    'consul-dataplane never becomes ready ("server-connection-manager: connection error ... i/o timeout" in its log)',
  podSpec: consulPodNeeds,
};
