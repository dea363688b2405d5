/**
 * What Kuma's injected kuma-dp dials over the pod network before it is ready (issue 31): the
 * control plane's dp-server on 5678 (xDS, certificates, its bootstrap)
 * (kumahq/kuma@348b6528bc234b3c4bd7f22ad7c5bf950d6149fc deployments/charts/kuma/templates/cp-service.yaml:
 * Service `kuma-control-plane` port 5678 `dp-server`, selector `app: kuma-control-plane`;
 * pkg/config/dp-server/config.go: Port 5678; pkg/plugins/runtime/k8s/containers/factory.go:
 * KUMA_CONTROL_PLANE_URL). Without it kuma-dp cannot fetch its bootstrap and Envoy's readiness
 * (:9901/ready) keeps failing (kumahq/kuma#5360).
 */
import type { ProxyNetwork, ProxyRanges } from '../profile.js';
import { excludedOutboundAnnotation } from '../ranges.js';
import { kumaPodNeeds } from './pod-needs.js';

/**
 * The outbound CIDRs a pod's annotation traffic.kuma.io/exclude-outbound-ips leaves out of the redirection to the proxy (issue 31,
 * gen10net; kumahq/kuma@348b6528 pkg/plugins/runtime/k8s/metadata/annotations.go KumaTrafficExcludeOutboundIPs, pkg/plugins/runtime/k8s/webhooks/injector/injector.go (kuma-init --exclude-outbound-ips)): a destination inside them leaves the pod without the proxy. No mesh-wide setting is read: pods
 * without the annotation are not judged.
 */
const EXCLUDE = 'traffic.kuma.io/exclude-outbound-ips';
export const kumaRanges: ProxyRanges = excludedOutboundAnnotation(
  EXCLUDE,
  'kumahq/kuma@348b6528 pkg/plugins/runtime/k8s/metadata/annotations.go KumaTrafficExcludeOutboundIPs, pkg/plugins/runtime/k8s/webhooks/injector/injector.go (kuma-init --exclude-outbound-ips)',
  'connections to those addresses leave the pod without the proxy: plain text, none of the mesh routing, policy or mTLS',
);

export const kumaNetwork: ProxyNetwork = {
  endpoints: [
    {
      role: 'its bootstrap, xDS configuration and certificates',
      service: 'kuma-control-plane',
      ports: [5678],
      podLabels: { app: 'kuma-control-plane' },
      from: 'the kuma-sidecar',
      source: 'kumahq/kuma@348b6528 deployments/charts/kuma/templates/cp-service.yaml, pkg/config/dp-server/config.go',
    },
  ],
  symptom: 'kuma-sidecar never becomes ready (it cannot connect to the control plane; readiness probe on :9901 fails)',
  podSpec: kumaPodNeeds,
};
