/** The two clusters of the fleet tests (test/fleet.test.ts, test/fleet-prometheus.test.ts), as a real kube-apiserver takes them. */
import { baseObjects, completeReplicaSet, fixtureObjects, overlay } from './fixtures.js';

/** What the real server's validation demands of the fixtures (as test/kube-apiserver.test.ts fixUp). */
function fixUp(objects: any[]): any[] {
  const out = structuredClone(objects);
  for (const o of out) {
    if (o.kind === 'ReplicaSet' && !o.spec?.selector) completeReplicaSet(o, out);
    if (o.kind === 'Secret' && o.type === 'kubernetes.io/tls' && !(o.data?.['tls.crt'] && o.data?.['tls.key']))
      o.type = 'Opaque';
    if (o.kind === 'Job' && o.status?.conditions?.some((c: any) => c.type === 'Complete' && c.status === 'True')) {
      o.status.startTime ??= o.metadata.creationTimestamp ?? o.status.completionTime;
      o.status.completionTime ??= o.status.startTime;
      if (!o.status.conditions.some((c: any) => c.type === 'SuccessCriteriaMet'))
        o.status.conditions.unshift({ type: 'SuccessCriteriaMet', status: 'True' });
    }
  }
  const sas = new Set(
    out.filter((o) => o.kind === 'ServiceAccount').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  );
  for (const p of out.filter((o) => o.kind === 'Pod')) {
    const name = p.spec.serviceAccountName ?? 'default';
    const key = `${p.metadata.namespace}/${name}`;
    if (sas.has(key)) continue;
    sas.add(key);
    out.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: p.metadata.namespace, name } });
  }
  return out;
}

/** The healthy cluster with the chart's injector RBAC, which the healthy fixture leaves out (not read offline). */
const HEALTHY = overlay(
  baseObjects('linkerd'),
  fixtureObjects('checks/injector-rbac-missing/ok-linkerd-chart-rbac.yaml'),
);
export const EAST = fixUp([
  ...overlay(HEALTHY, fixtureObjects('checks/sidecar-missing/fires-linkerd.yaml')),
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'east-only', labels: { 'kubernetes.io/metadata.name': 'east-only' } },
  },
]);
export const WEST = fixUp(HEALTHY);
