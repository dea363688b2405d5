/**
 * Where host-network-pod fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/workload-lifecycle.test.ts, test/checks/kuma-consul.test.ts. Below: a
 * hostNetwork workload asking for injection is reported under `-n NS` exactly as under `-A` (issue 24).
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings, type Base } from '../helpers/fixtures.js';

checkCases('host-network-pod', {
  // A hostNetwork workload that asks a mesh for injection (its namespace's marker or its own template) is never injected.
  fires: [
    { fixtures: 'fires.yaml', namespace: 'shop', findings: ['DaemonSet shop/node-agent'] },
    { fixtures: 'fires.yaml', namespace: 'store', findings: ['DaemonSet store/log-shipper'] },
    {
      name: 'fires.yaml with -A',
      fixtures: 'fires.yaml',
      findings: ['DaemonSet shop/node-agent', 'DaemonSet store/log-shipper'],
    },
    { fixtures: 'fires-template-asks.yaml', findings: ['DaemonSet agents/flow-agent', 'DaemonSet agents/trace-agent'] },
    {
      fixtures: 'fires-template-asks.yaml',
      namespace: 'agents',
      findings: ['DaemonSet agents/flow-agent', 'DaemonSet agents/trace-agent'],
    },
  ],
  silent: [
    { fixtures: 'ok.yaml', base: 'linkerd', namespace: 'legacy' },
    { fixtures: 'ok.yaml', base: 'linkerd', namespace: 'shop' },
    { name: 'ok.yaml with -A', fixtures: 'ok.yaml', base: 'linkerd' },
    { base: 'linkerd', namespace: 'kube-system' },
    { fixtures: 'ok-kuma.yaml', namespace: 'orders' },
    // -n on another namespace: the hostNetwork workloads of shop and store are not in its scope.
    { fixtures: 'fires.yaml', namespace: 'orders' },
  ],
});

describe('hostNetwork workloads asking for injection: -n NS reports what -A reports for NS', () => {
  const cases: [Base, string, string][] = [
    ['both', 'checks/host-network-pod/fires.yaml', 'shop'],
    ['both', 'checks/host-network-pod/fires.yaml', 'store'],
    ['both', 'checks/host-network-pod/fires-template-asks.yaml', 'agents'],
    ['kuma', 'checks/host-network-pod/ok-kuma.yaml', 'orders'],
  ];
  for (const [base, fixture, ns] of cases) {
    it(`${fixture} over ${base}, namespace ${ns}`, () => {
      const of = (scope?: { allNamespaces: boolean; namespace?: string }) =>
        findings(cluster(base, [fixture], scope), ['host-network-pod', 'namespace-not-enabled', 'sidecar-missing'])
          .filter((f) => f.resource.namespace === ns || (f.resource.kind === 'Namespace' && f.resource.name === ns))
          .map((f) => ({ id: f.id, resource: f.resource, message: f.message, evidence: f.evidence }));
      const all = of();
      expect(of({ allNamespaces: false, namespace: ns })).toEqual(all);
      // Where a workload asks, the finding is there in both scopes (not equal by being empty).
      if (fixture.includes('fires')) expect(all.map((f) => f.id)).toContain('host-network-pod');
    });
  }

  it('says what asks: the namespace marker, or the pod template', () => {
    const [flow, trace] = findings(cluster('both', ['checks/host-network-pod/fires-template-asks.yaml']), [
      'host-network-pod',
    ]);
    expect(flow!.message).toBe(
      'DaemonSet agents/flow-agent uses hostNetwork, so Linkerd never injects it (by design), although its pod template asks for injection.',
    );
    expect(flow!.evidence).toEqual({ hostNetwork: true, templateAsks: true, pods: ['flow-agent-7xk2p'] });
    expect(trace!).toMatchObject({ mesh: 'istio', affectedPods: 1 });
  });
});
