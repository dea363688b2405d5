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
  ],
  silent: [
    { fixtures: 'ok-istio-pod-label-opt-in.yaml' },
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
