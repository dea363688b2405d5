/**
 * Where namespace-not-enabled fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/issue2-checks.test.ts, test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('namespace-not-enabled', {
  fires: [
    { fixtures: 'fires-both-evidence.yaml', findings: ['Namespace tools'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Namespace shipping'] },
    { fixtures: 'mixed-linkerd.yaml', findings: ['Namespace orders'] },
    // check -n team with Consul: nothing asks, and Consul has no namespace marker.
    { fixtures: 'fires-consul-nothing-asks.yaml', namespace: 'team', findings: ['Namespace team'] },
    // A namespace labelled only to select Consul's webhook (hashicorp/consul-k8s#698): reported with -A too.
    { fixtures: 'fires-consul-namespace-selector.yaml', findings: ['Namespace foo'] },
    // Kuma 1.0 to 1.4 read only the annotation (src/mesh/kuma/releases.ts): no marker, or only the label.
    { fixtures: 'fires-kuma-1.0-no-marker.yaml', base: 'kuma-1.0', findings: ['Namespace shipping'] },
    { fixtures: 'fires-kuma-1.0-label-only.yaml', base: 'kuma-1.0', findings: ['Namespace payments'] },
    // An extension the mesh's charts mesh through its namespace's annotation (linkerd/linkerd2#7946): reported with -A too.
    {
      fixtures: 'fires-linkerd-stable-2.10-jaeger-helm-namespace.yaml',
      base: 'linkerd-stable-2.10',
      findings: ['Namespace linkerd-jaeger'],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-pod-label-opt-in.yaml' },
    { fixtures: 'ok-consul-namespace-selector-pods-ask.yaml' },
    { fixtures: 'ok-kuma-1.0-annotation.yaml', base: 'kuma-1.0' },
    { fixtures: 'ok-linkerd-stable-2.10-jaeger-namespace-annotated.yaml', base: 'linkerd-stable-2.10' },
    { fixtures: 'ok-linkerd-jaeger-template-annotated.yaml', base: 'linkerd' },
    { fixtures: 'ok-linkerd-stable-2.10-multicluster-not-listed.yaml', base: 'linkerd-stable-2.10' },
    // -A: a namespace left plain on purpose stays silent.
    { fixtures: 'fires-consul-nothing-asks.yaml' },
  ],
});

describe('namespace-not-enabled: check -n on a Consul namespace where nothing asks', () => {
  it('names the pod annotation and -default-inject instead of "no findings"', () => {
    const [f] = findings(
      cluster('consul', ['checks/namespace-not-enabled/fires-consul-nothing-asks.yaml'], {
        allNamespaces: false,
        namespace: 'team',
      }),
      ['namespace-not-enabled'],
    );
    expect(f!.message).toBe(
      'No workload in namespace team asks Consul for a proxy, so 1 workload run without one: Consul has no namespace marker, each pod template asks with annotation consul.hashicorp.com/connect-inject=true, unless the injector runs with -default-inject=true (Helm value connectInject.default: true).',
    );
    expect(f!.fix.join('\n')).toContain('"annotations":{"consul.hashicorp.com/connect-inject":"true"}');
  });
});

describe('namespace-not-enabled: a mesh without a namespace marker gets wording of its own', () => {
  it('a namespace label that only selects the webhook names both, and the pod annotation that asks', () => {
    const [f] = findings(cluster('consul', ['checks/namespace-not-enabled/fires-consul-namespace-selector.yaml']), [
      'namespace-not-enabled',
    ]);
    expect(f!.title).toBe('No pod asks Consul for injection');
    expect(f!.messageId).toBe('namespace-not-enabled/selected-no-pod-asks');
    expect(f!.params).toMatchObject({
      namespace: 'foo',
      labels: 'label connect-inject=enabled',
      meshTitle: 'Consul',
      webhook: 'consul-connect-injector.consul.hashicorp.com',
      workloads: '1 workload',
      run: 'runs',
    });
    expect(f!.evidence.selectedBy).toEqual({
      webhook: 'consul-connect-injector.consul.hashicorp.com',
      labels: ['label connect-inject=enabled'],
    });
    expect(f!.fix.join('\n')).toContain('consul.hashicorp.com/connect-inject');
  });
});

describe('namespace-not-enabled: Kuma 1.0 reads the annotation, not the label', () => {
  it('advises the annotation where the namespace has no marker', () => {
    const [f] = findings(cluster('kuma-1.0', ['checks/namespace-not-enabled/fires-kuma-1.0-no-marker.yaml']), [
      'namespace-not-enabled',
    ]);
    expect(f!.evidence.expectedMarker).toBe('annotation kuma.io/sidecar-injection=enabled');
    expect(f!.fix.join('\n')).toContain('kuma.io/sidecar-injection');
    expect(f!.fix.join('\n')).toMatch(/annotat/);
    expect(f!.fix.join('\n')).not.toMatch(/kubectl label/);
  });
  it('says the label alone is not read by that release', () => {
    const [f] = findings(cluster('kuma-1.0', ['checks/namespace-not-enabled/fires-kuma-1.0-label-only.yaml']), [
      'namespace-not-enabled',
    ]);
    expect(f!.message).toBe(
      'Namespace payments has label kuma.io/sidecar-injection=enabled, which Kuma 1.0 does not read (it reads annotation kuma.io/sidecar-injection=enabled), so 1 workload runs without a proxy while others in it are meshed.',
    );
  });
  it("still advises the label on today's Kuma", () => {
    const [f] = findings(cluster('kuma', ['checks/namespace-not-enabled/fires-kuma.yaml']), ['namespace-not-enabled']);
    expect(f!.evidence.expectedMarker).toBe('label kuma.io/sidecar-injection=enabled');
  });
});
