/**
 * How Kuma's releases let a pod meant to end (restartPolicy Never or OnFailure) end while kuma-sidecar runs as an
 * ordinary container (issue 31, gen10life; the shape: src/mesh/release-table.ts EndingSupport). Unlike the other
 * meshes, Kuma's control plane stops the proxy itself: pkg/plugins/runtime/k8s/controllers/pod_status_controller.go
 * POSTs Envoy's /quitquitquit once every other container of the pod has terminated.
 * - kumahq/kuma#1497 (feat(*) support Kubernetes Jobs, February 2021, in 1.1.0): the PodStatusReconciler, for pods
 *   whose owner is a Job only (the owner check kumahq/kuma#2848 points at, @fdc5f1a9 line 60).
 * - kumahq/kuma#4079 (shutdown kuma-dp container for any owner kind, March 2022, in 1.6.0; fixes #2848): any owner.
 * - kumahq/kuma#4649: 1.7.0 no longer stops it (the graceful shutdown of 1.7.0), fixed by kumahq/kuma#4582 in 1.7.1.
 * - Native sidecars (KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS, Helm experimental.sidecarContainers; default true from
 *   2.14.0): the reconciler does not run for them (pod_status_controller.go @17b95d42 comment, kumahq/kuma#13617).
 */
import type { ReleaseRow } from '../release-table.js';

const CP_STOPS =
  "Kuma's control plane POSTs Envoy's /quitquitquit once every other container of the pod has terminated";

export const KUMA_ENDING: readonly ReleaseRow[] = [
  {
    from: '1.0',
    to: '1.8',
    source:
      'kumahq/kuma@release-1.8 pkg/plugins/runtime/k8s/plugin.go: kuma-sidecar is always an ordinary container in 1.x',
    ending: { native: { none: 'Kuma 1.x cannot inject kuma-sidecar as a native sidecar' } },
  },
  {
    from: '1.0',
    to: '1.0',
    source: 'kumahq/kuma@release-1.0: no pod_status_controller.go (added by kumahq/kuma#1497 in 1.1.0)',
    ending: { shutdown: { call: 'a POST to the Envoy admin /quitquitquit on localhost:9901 when the app ends' } },
  },
  {
    from: '1.1',
    to: '1.5',
    source:
      'kumahq/kuma#1497 (in 1.1.0) pkg/plugins/runtime/k8s/controllers/pod_status_controller.go @fdc5f1a9 (owner kind Job only, kumahq/kuma#2848)',
    ending: { stopsProxy: { owners: 'job', how: CP_STOPS } },
  },
  {
    from: '1.6',
    source:
      'kumahq/kuma#4079 (shutdown kuma-dp container for any owner kind) kumahq/kuma@release-1.6 pod_status_controller.go',
    ending: { stopsProxy: { owners: 'any', how: CP_STOPS } },
  },
  {
    from: '1.7',
    to: '1.7',
    source: 'kumahq/kuma#4649, fixed by kumahq/kuma#4582 in kumahq/kuma@release-1.7 (1.7.1)',
    ending: {
      broken: {
        id: 'kumahq/kuma#4649',
        text: "Kuma 1.7.0's graceful shutdown of kuma-dp keeps kuma-sidecar running after the Job's app exits: the control plane's stop does not end it",
        affected: { from: '1.7.0', to: '1.7.0' },
        fixedIn: '1.7.1',
      },
    },
  },
  {
    from: '2.0',
    source:
      'kumahq/kuma@51c6d381 (v2.14.0) charts/kuma/values.yaml experimental.sidecarContainers (KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS; true by default from 2.14.0)',
    ending: {
      native: {
        annotation: null,
        how: 'the control plane with KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS=true, Helm experimental.sidecarContainers, on Kubernetes 1.29 or later',
      },
    },
  },
];
