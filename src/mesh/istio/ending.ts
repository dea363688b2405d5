/**
 * How Istio's releases let a pod meant to end (restartPolicy Never or OnFailure) end while istio-proxy runs as an
 * ordinary container (issue 31, gen10life; the shape: src/mesh/release-table.ts EndingSupport). istiod stops nothing:
 * the app calls pilot-agent's `/quitquitquit`, or the proxy is a native sidecar.
 * - istio/istio#15406 (pilot-agent: POST /quitquitquit on the status port 15020, in 1.3.0): ends pilot-agent and Envoy;
 *   the whole table (1.5 and later) has it. istio-proxy's probes are readiness only (no liveness probe in the injection
 *   template, manifests/charts/istio-control/istio-discovery/files/injection-template.yaml), so nothing restarts it.
 * - Native sidecars: istiod's ENABLE_NATIVE_SIDECARS (pilot/pkg/features/pilot.go, from 1.19, false by default; from
 *   1.27.0 "auto": native where the kubelets run 1.33 or later, istio/istio@7359d8be), the pod annotation
 *   sidecar.istio.io/nativeSidecar from 1.24 (the key table of src/mesh/istio/releases.ts).
 */
import type { ReleaseRow } from '../release-table.js';

const QUIT = { call: 'a POST to localhost:15020/quitquitquit when the app ends' };

export const ISTIO_ENDING: readonly ReleaseRow[] = [
  {
    from: '1.5',
    to: '1.18',
    source:
      'istio/istio#15406 (pilot-agent /quitquitquit, in 1.3.0); istio/istio@release-1.18 pilot/pkg/features/pilot.go (no ENABLE_NATIVE_SIDECARS)',
    ending: {
      shutdown: QUIT,
      native: {
        none: 'Istio before 1.19 cannot inject istio-proxy as a native sidecar: upgrade Istio first, or use one of the ways below',
      },
    },
  },
  {
    from: '1.19',
    to: '1.23',
    source:
      'istio/istio@release-1.19 pilot/pkg/features/pilot.go (EnableNativeSidecars, ENABLE_NATIVE_SIDECARS, default false)',
    ending: {
      shutdown: QUIT,
      native: {
        annotation: null,
        how: 'Istio 1.19 to 1.23 have no pod annotation for a native sidecar: only istiod with ENABLE_NATIVE_SIDECARS=true, for every pod it injects, on Kubernetes 1.29 or later',
      },
    },
  },
  {
    from: '1.24',
    source:
      'istio/istio@release-1.24 annotation sidecar.istio.io/nativeSidecar; pilot/pkg/features/pilot.go @86c9f01f (ENABLE_NATIVE_SIDECARS auto from 1.27.0)',
    ending: {
      shutdown: QUIT,
      native: {
        how: 'the annotation sidecar.istio.io/nativeSidecar: true on the pod template, or istiod with ENABLE_NATIVE_SIDECARS, on Kubernetes 1.29 or later',
      },
    },
  },
];
