/**
 * What Kuma's injected kuma-dp dials over the pod network before it is ready (issue 31): the
 * control plane's dp-server on 5678 (xDS, certificates, its bootstrap)
 * (kumahq/kuma@348b6528bc234b3c4bd7f22ad7c5bf950d6149fc deployments/charts/kuma/templates/cp-service.yaml:
 * Service `kuma-control-plane` port 5678 `dp-server`, selector `app: kuma-control-plane`;
 * pkg/config/dp-server/config.go: Port 5678; pkg/plugins/runtime/k8s/containers/factory.go:
 * KUMA_CONTROL_PLANE_URL). Without it kuma-dp cannot fetch its bootstrap and Envoy's readiness
 * (:9901/ready) keeps failing (kumahq/kuma#5360).
 */
import type { ProxyNetwork } from '../profile.js';
import { kumaPodNeeds } from './pod-needs.js';

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
