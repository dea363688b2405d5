/**
 * What Istio's injected containers need from the pod's own spec (issue 31, gen10spec), per release:
 * - DNS: pilot-agent in istio-proxy dials istiod by name for its certificate and xDS: CA_ADDR and the default
 *   discoveryAddress `istiod[-<rev>].<istioNamespace>.svc:15012` (istio/istio@86c9f01fd735fb01d8192f5bcaf0d424afb7f14c
 *   manifests/charts/istio-control/istio-discovery/files/injection-template.yaml; istio/istio 1.5.0
 *   pkg/config/mesh/mesh.go DefaultProxyConfig). A pod with the node's resolver crash-loops: "dial tcp: lookup
 *   istiod.istio-system.svc on 185.12.64.1:53: no such host" (hetznercloud/hcloud-cloud-controller-manager#559,
 *   dnsPolicy: Default).
 * - The ServiceAccount token: pilot-agent authenticates to istiod's CA with a token. With `global.jwtPolicy:
 *   third-party-jwt` the injector adds a projected volume `istio-token` (audience istio-ca) mounted at
 *   /var/run/secrets/tokens; with `first-party-jwt` it reads the mounted
 *   `/var/run/secrets/kubernetes.io/serviceaccount/token` (injection-template.yaml
 *   `{{- if eq .Values.global.jwtPolicy "third-party-jwt" }}`, 1.3 to 1.2x; the chart's istioJWTPolicy helper picks
 *   third-party-jwt on Kubernetes 1.21 and later). A first-party pod with automountServiceAccountToken false never
 *   gets its certificate (istio/istio#22193, #14311, #18221, #25138).
 * - The node: Istio's proxyv2 image is built for Linux only (istio/istio#27893; #39788, the maintainer: "Its not
 *   supported").
 */
import type { PodSpecNeeds } from '../profile.js';

const PORTS = 'istio/istio.io content/en/docs/ops/deployment/application-requirements/index.md (Ports used by Istio)';
const TEMPLATE = 'istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/files/injection-template.yaml';

export const istioPodNeeds: PodSpecNeeds = {
  dns: [
    {
      container: 'istio-proxy',
      address: 'istiod.<ns>.svc',
      role: 'its certificate and its xDS configuration',
      source: `${TEMPLATE} (CA_ADDR, discoveryAddress); hetznercloud/hcloud-cloud-controller-manager#559`,
    },
  ],
  token: [
    {
      container: 'istio-proxy',
      role: 'to request its certificate from istiod',
      ownMount: 'istio-token',
      setting: 'global.jwtPolicy third-party-jwt',
      source: `${TEMPLATE} (jwtPolicy); istio/istio#22193, #25138`,
    },
  ],
  os: { images: 'linux', source: 'istio/istio#27893, #39788 (Windows nodes are not supported)' },
  // The sidecar's listeners every release binds (istio/istio.io content/en/docs/ops/deployment/application-requirements
  // "Ports used by Istio": "applications should not use any of the ports used by Envoy"): the agent's status port moves
  // with status.sidecar.istio.io/port (injection-template.yaml `statusPort`).
  ports: [
    { container: 'istio-proxy', port: 15000, serves: "Envoy's admin server", source: PORTS },
    { container: 'istio-proxy', port: 15001, serves: "Envoy's outbound listener", source: PORTS },
    { container: 'istio-proxy', port: 15006, serves: "Envoy's inbound listener", source: PORTS },
    {
      container: 'istio-proxy',
      port: 15020,
      serves: "the agent's status and merged metrics server",
      annotation: 'status.sidecar.istio.io/port',
      source: `${PORTS}; ${TEMPLATE} (statusPort)`,
    },
    { container: 'istio-proxy', port: 15090, serves: "Envoy's Prometheus telemetry", source: PORTS },
  ],
};
