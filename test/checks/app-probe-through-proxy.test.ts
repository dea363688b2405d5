/**
 * Where app-probe-through-proxy fires, and its near misses (test/helpers/check-tester.ts): an app probe the proxy meets
 * unrewritten and refuses, per mesh and release (src/mesh/<mesh>/probes.ts), with the kubelet's failure text that
 * refusal gives; silent where the probe was rewritten, its port is not intercepted, the failure is the app's answer,
 * the handler never fails through a proxy, the release authorizes the probe, or the unmeshed pods fail it too. Then,
 * from every row of every mesh's table: a probe each release leaves alone fires, the same probe rewritten is silent.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('app-probe-through-proxy', {
  fires: [
    { fixtures: 'fires-istio-annotation-off.yaml', findings: ['Deployment store/stock'] },
    { fixtures: 'fires-istio-1.6-startup-not-rewritten.yaml', findings: ['Deployment store/search'] },
    { fixtures: 'fires-kuma-1.x-startup-not-rewritten.yaml', findings: ['Deployment orders/payments'] },
    { fixtures: 'fires-kuma-grpc-before-probe-proxy.yaml', findings: ['Deployment orders/ledger'] },
    { fixtures: 'fires-consul-overwrite-probes-off.yaml', findings: ['Deployment catalog/pricing'] },
    // No kubelet event read: the container's status is the evidence (istio/istio#36314, #24203, linkerd/linkerd2#7050).
    { fixtures: 'fires-istio-grpc-readiness-status-only.yaml', findings: ['Deployment store/etcd'] },
    { fixtures: 'fires-istio-1.5-startup-status-only.yaml', findings: ['Deployment store/api'] },
    {
      fixtures: 'fires-linkerd-stable-2.10-2.11-authenticated-status-only.yaml',
      findings: ['Deployment billing/billing'],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-rewritten-probe-app-fails.yaml' },
    { fixtures: 'ok-istio-unrewritten-app-answers.yaml' },
    { fixtures: 'ok-istio-probe-port-excluded.yaml' },
    { fixtures: 'ok-istio-unmeshed-pod-fails-too.yaml' },
    { fixtures: 'ok-tcp-and-exec-probes.yaml' },
    { fixtures: 'ok-linkerd-deny-probes-authorized.yaml' },
    { fixtures: 'ok-linkerd-2.11-unauthenticated-policy.yaml' },
    { fixtures: 'ok-istio-grpc-readiness-within-budget.yaml' },
    { fixtures: 'ok-istio-grpc-readiness-unmeshed-pod-too.yaml' },
    { fixtures: 'ok-istio-1.5-startup-proxy-not-ready.yaml' },
    { fixtures: 'ok-kuma-1.x-startup-rewritten-status-only.yaml' },
    { fixtures: 'ok-linkerd-stable-2.10-2.11-policy-not-read-status-only.yaml' },
  ],
});

const F = (name: string) => `checks/app-probe-through-proxy/${name}.yaml`;
const one = (base: Parameters<typeof cluster>[0], name: string) => {
  const [f, ...rest] = findings(cluster(base, [F(name)]), ['app-probe-through-proxy']);
  expect(rest).toEqual([]);
  return f!;
};

describe('app-probe-through-proxy', () => {
  it('names the probe, why it was not rewritten, the kubelet words and the fix', () => {
    const k = one('kuma-1.x', 'fires-kuma-1.x-startup-not-rewritten');
    expect(k.message).toContain('the startup probe of container payments (startup httpGet 8080/health/started)');
    expect(k.message).toContain('This release does not rewrite a httpGet startup probe');
    expect(k.message).toContain('Its proxy runs 1.5.1');
    expect(k.fix.join('\n')).toContain('Kuma 1.6 and later let this probe through');
    expect(k.fix.join('\n')).toContain('traffic.kuma.io/exclude-inbound-ports');

    const c = one('consul', 'fires-consul-overwrite-probes-off');
    expect(c.message).toContain(
      'consul.hashicorp.com/transparent-proxy-overwrite-probes: false turned the rewrite off',
    );
    expect(c.fix.join('\n')).toContain('"consul.hashicorp.com/transparent-proxy-overwrite-probes":"true"');

    const i = one('istio-1.6', 'fires-istio-1.6-startup-not-rewritten');
    expect(i.message).toContain('the startup probe of container search (startup httpGet 8080/started)');
    expect(i.fix.join('\n')).toContain('Istio 1.7 and later let this probe through');

    const g = one('kuma', 'fires-kuma-grpc-before-probe-proxy');
    expect(g.fix.join('\n')).toContain('Kuma 2.9 and later let this probe through');
  });

  it('without a kubelet event, says what the container status shows and that the refusal is not confirmed', () => {
    const r = one('istio', 'fires-istio-grpc-readiness-status-only');
    expect(r.messageId).toBe('app-probe-through-proxy/by-status');
    expect(r.message).toContain('the readiness probe of container etcd (readiness grpc 2379) has not passed');
    expect(r.message).toContain('past its readiness budget of 40s and is not ready');
    expect(r.message).toContain('no kubelet event of it was read');
    expect(r.message).toContain('This release does not rewrite a grpc readiness probe');
    expect(r.fix.join('\n')).toContain('Istio 1.13 and later let this probe through');
    const probes = (r.evidence as { probes: { status?: string; unhealthy?: unknown }[] }).probes;
    expect(probes[0]!.unhealthy).toBeUndefined();
    expect(probes[0]!.status).toContain('is not ready');

    const s = one('istio-1.5', 'fires-istio-1.5-startup-status-only');
    expect(s.message).toContain('without passing its startup probe (started: false, 7 restarts)');
    expect(s.fix.join('\n')).toContain('Istio 1.7 and later let this probe through');

    const l = one('linkerd-stable-2.10', 'fires-linkerd-stable-2.10-2.11-authenticated-status-only');
    expect(l.message).toContain('all-authenticated, on the namespace,');
    expect(l.message).toContain('403');
  });
});
