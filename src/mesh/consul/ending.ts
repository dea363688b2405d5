/**
 * How Consul's releases (consul-k8s) let a pod meant to end (restartPolicy Never or OnFailure) end while the proxy runs
 * as an ordinary container (issue 31, gen10life; the shape: src/mesh/release-table.ts EndingSupport). Consul's control
 * plane stops nothing.
 * - consul-k8s 0.x injects envoy-sidecar (or consul-connect-envoy-sidecar) and a lifecycle sidecar: Envoy's admin
 *   /quitquitquit on localhost:19000 ends envoy-sidecar, the lifecycle sidecar runs on (hashicorp/consul#6676,
 *   hashicorp/consul-k8s#162: no endpoint of its own).
 * - consul-k8s 1.0 and 1.1 inject consul-dataplane with a liveness probe on Envoy's port: /quitquitquit ends Envoy, the
 *   probe then fails and the kubelet restarts the container (hashicorp/consul-k8s#1791, hashicorp/consul-dataplane#56).
 * - consul-k8s 1.2 (hashicorp/consul-k8s#2233, consul-dataplane#115): consul-dataplane serves /graceful_shutdown on
 *   localhost:20600 (constants.DefaultGracefulPort) and ends with it.
 * - Native sidecar: consul.hashicorp.com/enable-consul-dataplane-as-sidecar from 1.9.0 (backported to 1.8.2, 1.7.5,
 *   1.6.9; src/mesh/consul/index.ts nativeAnnotationKnown).
 */
import type { ReleaseRow } from '../release-table.js';

export const CONSUL_ENDING: readonly ReleaseRow[] = [
  {
    from: '0.2',
    to: '0.49',
    source:
      'hashicorp/consul#6676, hashicorp/consul-k8s#162 (no shutdown endpoint of its own); hashicorp/consul-k8s@08981fb5 (v0.23.0) connect-inject/envoy_sidecar.go, lifecycle_sidecar.go',
    ending: {
      shutdown: {
        none: 'consul-k8s 0.x has no shutdown endpoint of its own: the Envoy admin /quitquitquit on localhost:19000 ends envoy-sidecar but not its lifecycle sidecar',
      },
      native: { none: 'consul-k8s 0.x cannot inject its proxy as a native sidecar' },
    },
  },
  {
    from: '1.0',
    to: '1.1',
    source:
      'hashicorp/consul-k8s#1791 and hashicorp/consul-dataplane#56 (consul-dataplane liveness probe, hashicorp/consul-k8s@release/1.0.x); proxy lifecycle added by hashicorp/consul-k8s#2233 in 1.2.0',
    ending: {
      shutdown: {
        none: 'consul-k8s 1.0 and 1.1 have no /graceful_shutdown: the Envoy admin /quitquitquit on localhost:19000 ends Envoy but not consul-dataplane, so upgrade to consul-k8s 1.2 or later for it',
      },
      restartedAfterShutdown:
        "consul-k8s 1.0 and 1.1 give consul-dataplane a liveness probe on Envoy: once Envoy's /quitquitquit ends Envoy the probe fails, and under restartPolicy OnFailure the kubelet restarts the container (hashicorp/consul-k8s#1791)",
      native: {
        none: 'consul-k8s before 1.6.9, 1.7.5, 1.8.2 and 1.9.0 cannot inject consul-dataplane as a native sidecar',
      },
    },
  },
  {
    from: '1.2',
    source:
      'hashicorp/consul-k8s#2233 (proxy lifecycle) hashicorp/consul-k8s@release/1.2.x control-plane/connect-inject/constants DefaultGracefulPort 20600; acceptance/tests/connect/connect_proxy_lifecycle_test.go',
    ending: {
      shutdown: { call: 'a POST to localhost:20600/graceful_shutdown when the app ends' },
      native: {
        how: 'the annotation consul.hashicorp.com/enable-consul-dataplane-as-sidecar: true, from consul-k8s 1.6.9, 1.7.5, 1.8.2 and 1.9.0, on Kubernetes 1.29 or later',
      },
    },
  },
];
