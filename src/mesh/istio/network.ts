/**
 * What Istio's injected sidecar dials over the pod network before it is ready (issue 31): istiod's
 * Service `istiod[-<revision>]` on 15012, the secure xDS and the certificate authority
 * (istio/istio@86c9f01fd735fb01d8192f5bcaf0d424afb7f14c
 * manifests/charts/istio-control/istio-discovery/templates/service.yaml: port 15012 `https-dns`,
 * "mTLS with k8s-signed cert", selector `app: istiod`; files/injection-template.yaml: CA_ADDR
 * `istiod[-<rev>].<istioNamespace>.svc:15012`, the default discoveryAddress). 15010 (plaintext xDS)
 * and 15014 (monitoring) are not dialled by a default sidecar; 15017 is the webhook, reached by the
 * API server. Without 15012 pilot-agent logs `dial tcp <istiod>:15012: i/o timeout` and the
 * readiness probe keeps failing: "Envoy proxy is NOT ready" (istio/istio#35569, #31717, #32945).
 */
import type { ProxyNetwork } from '../profile.js';
import { istioPodNeeds } from './pod-needs.js';

const SOURCE =
  'istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/templates/service.yaml, files/injection-template.yaml (CA_ADDR)';

export const istioNetwork: ProxyNetwork = {
  endpoints: [
    {
      role: 'xDS configuration and workload certificates',
      service: 'istiod',
      servicePrefix: true,
      ports: [15012],
      podLabels: { app: 'istiod' },
      from: 'the istio-proxy sidecar',
      source: SOURCE,
    },
  ],
  symptom: 'istio-proxy never becomes ready ("Envoy proxy is NOT ready", "dial tcp ...:15012: i/o timeout" in its log)',
  podSpec: istioPodNeeds,
};
