/**
 * What Kuma's injected containers need from the pod's own spec (issue 31, gen10spec):
 * - DNS: kuma-dp dials its control plane by name, KUMA_CONTROL_PLANE_URL `https://kuma-control-plane.<ns>:5678`
 *   (kumahq/kuma@348b6528bc234b3c4bd7f22ad7c5bf950d6149fc pkg/plugins/runtime/k8s/containers/factory.go; the same
 *   address in kuma-dp's effective configuration of kumahq/kuma#3079, 1.3.1).
 * - The ServiceAccount token: kuma-dp authenticates to the control plane with the mounted token,
 *   KUMA_DATAPLANE_RUNTIME_TOKEN_PATH `/var/run/secrets/kubernetes.io/serviceaccount/token` (factory.go, every release
 *   in the tables; injector.go before 1.0); without it: "could not read file
 *   /var/run/secrets/kubernetes.io/serviceaccount/token: ... no such file or directory" (kumahq/kuma#4029). Kuma's
 *   injector adds no projected token of its own.
 * - The node: kuma-dp and kuma-init images are Linux images (kumahq/kuma tools/releases/dockerfiles/kuma-dp.Dockerfile).
 */
import type { PodSpecNeeds } from '../profile.js';

const FACTORY = 'kumahq/kuma@348b6528 pkg/plugins/runtime/k8s/containers/factory.go';

const PORTS =
  'kumahq/kuma pkg/config/app/kuma-cp/kuma-cp.defaults.yaml (sidecarContainer redirectPortInbound, redirectPortOutbound, adminPort)';

export const kumaPodNeeds: PodSpecNeeds = {
  dns: [
    {
      container: 'kuma-sidecar',
      address: 'kuma-control-plane.<ns>',
      role: 'its bootstrap, certificates and xDS',
      source: `${FACTORY} (KUMA_CONTROL_PLANE_URL)`,
    },
  ],
  token: [
    {
      container: 'kuma-sidecar',
      role: 'to authenticate to the control plane',
      source: `${FACTORY} (KUMA_DATAPLANE_RUNTIME_TOKEN_PATH); kumahq/kuma#4029`,
    },
  ],
  os: { images: 'linux', source: 'kumahq/kuma tools/releases/dockerfiles/kuma-dp.Dockerfile (Linux images)' },
  // kuma-dp's listeners: pkg/config/app/kuma-cp/kuma-cp.defaults.yaml runtime.kubernetes.injector.sidecarContainer
  // (redirectPortInbound 15006, redirectPortOutbound 15001, adminPort 9901; kuma.io/envoy-admin-port moves the admin
  // port from 1.5).
  ports: [
    {
      container: 'kuma-sidecar',
      port: 9901,
      serves: "Envoy's admin server",
      annotation: 'kuma.io/envoy-admin-port',
      source: PORTS,
    },
    { container: 'kuma-sidecar', port: 15001, serves: "Envoy's outbound listener", source: PORTS },
    { container: 'kuma-sidecar', port: 15006, serves: "Envoy's inbound listener", source: PORTS },
  ],
};
