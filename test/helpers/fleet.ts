/** The two clusters of the fleet tests (test/fleet.test.ts, test/fleet-prometheus.test.ts), as a real kube-apiserver takes them. */
import { baseObjects, fixtureObjects, overlay, realServerObjects } from './fixtures.js';

/** The healthy cluster with the chart's injector RBAC, which the healthy fixture leaves out (not read offline). */
const HEALTHY = overlay(
  baseObjects('linkerd'),
  fixtureObjects('checks/injector-rbac-missing/ok-linkerd-chart-rbac.yaml'),
);
export const EAST = realServerObjects([
  ...overlay(HEALTHY, fixtureObjects('checks/sidecar-missing/fires-linkerd.yaml')),
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'east-only', labels: { 'kubernetes.io/metadata.name': 'east-only' } },
  },
]);
export const WEST = realServerObjects(HEALTHY);
