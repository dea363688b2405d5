/**
 * How Linkerd's releases let a pod meant to end (a Job's, a Workflow's, a bare pod's: restartPolicy Never or OnFailure)
 * end while linkerd-proxy runs as an ordinary container (issue 31, gen10life; the shape: src/mesh/release-table.ts
 * EndingSupport). Nothing in Linkerd's control plane stops the proxy of such a pod: the app calls the proxy's admin
 * `/shutdown` (loopback only) or the proxy is a native sidecar.
 * - linkerd/linkerd2-proxy#811 (admin: Add a /shutdown endpoint, December 2020, in the proxy of stable-2.10.0):
 *   POST localhost:4191/shutdown from the pod ends the proxy; linkerd-await --shutdown makes the call when the app ends.
 * - linkerd/linkerd2-proxy#3014 (Add env var to disable admin shutdown endpoint, June 2024, in 2.16 / edge-24.6):
 *   the endpoint answers only with LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED, which the injector sets from the pod
 *   annotation config.linkerd.io/proxy-admin-shutdown: enabled or the chart value proxy.enableShutdownEndpoint
 *   (linkerd/linkerd2#12951); otherwise it answers "shutdown endpoint is not enabled".
 * - Native sidecars: config.alpha.linkerd.io/proxy-enable-native-sidecar from 2.15 (edge-23.11), the beta and GA
 *   prefixes later (the key table of src/mesh/linkerd/releases.ts), proxy.nativeSidecar in the chart.
 */
import type { ReleaseRow } from '../release-table.js';

const CALL = 'a POST to localhost:4191/shutdown, or linkerd-await --shutdown around the command of the app';

export const LINKERD_ENDING: readonly ReleaseRow[] = [
  {
    from: '2.10',
    to: '2.15',
    source:
      'linkerd/linkerd2-proxy#811 (admin /shutdown, in the proxy of linkerd/linkerd2@b10356a8 stable-2.10.0), answered without a setting before 2.16',
    ending: { shutdown: { call: CALL } },
  },
  {
    from: '2.16',
    source:
      'linkerd/linkerd2-proxy#3014 (LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED, in 2.16); linkerd/linkerd2@332c4efa (edge-24.8.2) pkg/k8s/labels.go ProxyAdminShutdownAnnotation',
    ending: {
      shutdown: {
        call: CALL,
        needs:
          'from Linkerd 2.16 the proxy answers /shutdown only with config.linkerd.io/proxy-admin-shutdown: enabled on the pod template or proxy.enableShutdownEndpoint in the chart',
      },
    },
  },
  {
    from: '2.10',
    to: '2.14',
    source: 'linkerd/linkerd2@a4bec904 (stable-2.14.0) charts/partials/templates/proxy.tpl: no native sidecar',
    ending: {
      native: {
        none: 'Linkerd before 2.15 cannot inject linkerd-proxy as a native sidecar: upgrade Linkerd first, or use one of the ways below',
      },
    },
  },
  {
    from: '2.15',
    to: '2.19',
    source:
      'linkerd/linkerd2@f0d861ea (edge-24.2.4) pkg/k8s/labels.go ProxyEnableNativeSidecarAnnotation, alpha; the config.linkerd.io key from 2.20',
    ending: {
      native: {
        annotation: 'config.alpha.linkerd.io/proxy-enable-native-sidecar',
        how: 'the annotation config.alpha.linkerd.io/proxy-enable-native-sidecar: true, on Kubernetes 1.29 or later',
      },
    },
  },
  {
    from: '2.20',
    source: 'linkerd/linkerd2@eadc1acf (version-2.20) pkg/k8s/labels.go config.linkerd.io/proxy-enable-native-sidecar',
    ending: {
      native: {
        annotation: 'config.linkerd.io/proxy-enable-native-sidecar',
        how: 'the annotation config.linkerd.io/proxy-enable-native-sidecar: true or proxy.nativeSidecar in the chart, on Kubernetes 1.29 or later',
      },
    },
  },
];
