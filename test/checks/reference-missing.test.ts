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
    // Addresses naming a Service (gen12refs).
    { fixtures: 'fires-istio-proxy-config-zipkin-without-namespace.yaml', findings: ['Deployment store/frontend'] },
    {
      fixtures: 'fires-istio-revisions-mesh-config-istiod-without-revision.yaml',
      base: 'istio-revisions',
      findings: ['ConfigMap istio-system/istio-1-27'],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-namespace-trace-collector-no-namespace.yaml',
      findings: ['Deployment shop/web'],
    },
    { fixtures: 'fires-istio-ext-authz-provider-service-missing.yaml', findings: ['ConfigMap istio-system/istio'] },
  ],
  silent: [
    { fixtures: 'ok-istio-bootstrap-override-ready.yaml' },
    { fixtures: 'ok-consul-0.x-acls-service-matches.yaml' },
    { fixtures: 'ok-consul-0.x-no-acls-mismatch.yaml' },
    { fixtures: 'ok-kuma-1.x-mesh-meshed.yaml' },
    // Mesh default: the control plane creates it.
    { fixtures: 'ok-kuma-1.x-mesh-default-no-pods.yaml' },
    { fixtures: 'ok-istio-mesh-config-istiod-exists-dns-fails.yaml' },
    { fixtures: 'ok-istio-1.5-remote-istiod-remote-exists.yaml' },
    { fixtures: 'ok-istio-proxy-config-external-and-ip-addresses.yaml' },
    { fixtures: 'ok-linkerd-trace-collector-after-jaeger-removed.yaml', base: 'linkerd' },
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

describe('reference-missing: addresses naming a Service (gen12refs)', () => {
  const one = (base: Parameters<typeof cluster>[0], file: string) =>
    findings(cluster(base, [`checks/reference-missing/${file}`]), ['reference-missing']);

  it('resolves a name without a namespace in the pod namespace and names where the Service is', () => {
    const [f] = one('istio', 'fires-istio-proxy-config-zipkin-without-namespace.yaml');
    expect(f!.severity).toBe('warning');
    expect(f!.message).toContain('Service zipkin in namespace store');
    expect(f!.message).toContain('a Service zipkin is in namespace istio-system');
  });

  it('judges the mesh ConfigMap of a revision once, naming the istiod it should name', () => {
    const fs = one('istio-revisions', 'fires-istio-revisions-mesh-config-istiod-without-revision.yaml');
    expect(fs).toHaveLength(1);
    expect(fs[0]!.severity).toBe('error');
    expect(fs[0]!.message).toContain('istiod.istio-system.svc:15012');
    expect(fs[0]!.message).toMatch(/never becomes ready/);
  });

  it('says a namespace named by an address does not exist', () => {
    const fs = one('linkerd-stable-2.10', 'fires-linkerd-stable-2.10-namespace-trace-collector-no-namespace.yaml');
    expect(fs[0]!.message).toContain('namespace linkerd-jaeger does not exist');
  });

  it('an external authorization provider is an error, a telemetry one a warning', () => {
    const [f] = one('istio', 'fires-istio-ext-authz-provider-service-missing.yaml');
    expect(f!.severity).toBe('error');
    expect(f!.message).toContain('Service opa in namespace payments');
  });
});
