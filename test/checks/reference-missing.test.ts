/**
 * Where reference-missing fires, and its near misses (test/helpers/check-tester.ts): a Consul service name that is
 * not the pods' ServiceAccount under ACLs (consul-k8s 0.25), a Kuma Mesh and ContainerPatches named by markers while
 * the workload has no pods (Kuma 1.8 and 2.14: neither kind is read, so the findings say not examined), an Istio
 * bootstrap ConfigMap while the pod is not ready (ConfigMaps are read only by name: not examined). Real reports:
 * test/reports-gen9refs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('reference-missing', {
  fires: [
    { fixtures: 'fires-istio-bootstrap-override-not-ready.yaml', findings: ['Deployment store/search'] },
    { fixtures: 'fires-consul-0.x-acls-service-annotation.yaml', findings: ['Deployment catalog/billing'] },
    { fixtures: 'fires-kuma-1.x-mesh-no-pods.yaml', findings: ['Deployment payments/ledger'] },
    {
      fixtures: 'fires-kuma-container-patch-no-pods.yaml',
      findings: ['Deployment orders/exporter', 'Deployment orders/exporter'],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-bootstrap-override-ready.yaml' },
    { fixtures: 'ok-consul-0.x-acls-service-matches.yaml' },
    { fixtures: 'ok-consul-0.x-no-acls-mismatch.yaml' },
    { fixtures: 'ok-kuma-1.x-mesh-meshed.yaml' },
    // Mesh default: the control plane creates it.
    { fixtures: 'ok-kuma-1.x-mesh-default-no-pods.yaml' },
  ],
});

describe('reference-missing: what it says', () => {
  it('names the Consul service, the ServiceAccount in use and what the release does', () => {
    const f = findings(
      cluster('consul-0.x', ['checks/reference-missing/fires-consul-0.x-acls-service-annotation.yaml']),
      ['reference-missing'],
    )[0]!;
    expect(f.severity).toBe('error');
    expect(f.message).toContain('consul.hashicorp.com/connect-service=billing-api');
    expect(f.message).toContain('ServiceAccount billing');
    expect(f.message).toMatch(/injector refuses/);
  });
  it('never says missing where the kind was not read', () => {
    const fs = findings(cluster('kuma', ['checks/reference-missing/fires-kuma-container-patch-no-pods.yaml']), [
      'reference-missing',
    ]);
    expect(fs.map((f) => f.severity)).toEqual(['warning', 'warning']);
    for (const f of fs) expect(f.message).toMatch(/was not examined/);
    expect(fs.map((f) => f.message).join('\n')).toContain('ContainerPatch init-debug in namespace kuma-system');
  });
});
