/**
 * Where pod-spec-starves-proxy fires, and its near misses (test/helpers/check-tester.ts): a template the mesh will
 * inject whose own spec takes away what the injected containers need (src/facts/pod-needs.ts over the profiles'
 * network.podSpec tables), on every mesh: DNS (Linkerd dnsPolicy None, Consul hostNetwork with ClusterFirst), the
 * ServiceAccount token (Kuma, on the pod and on its ServiceAccount), the node's OS (Istio spec.os.name and the
 * pre-1.14 nodeSelector label). The injected pods' side is proxy-cannot-start's (test/reports-gen10spec.test.ts).
 */
import { expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('pod-spec-starves-proxy', {
  fires: [
    {
      fixtures: 'fires-linkerd-dnspolicy-none.yaml',
      base: 'linkerd',
      findings: ['Deployment dnsnone/bare-none', 'Deployment dnsnone/resolver'],
    },
    {
      fixtures: 'fires-kuma-token-off.yaml',
      base: 'kuma',
      findings: ['Deployment secured/audit', 'Deployment secured/ledger'],
    },
    { fixtures: 'fires-consul-hostnetwork-clusterfirst.yaml', base: 'consul', findings: ['Deployment edge/gateway'] },
    { fixtures: 'fires-kuma-dnspolicy-none-no-search.yaml', base: 'kuma', findings: ['Deployment shortname/pricing'] },
    {
      fixtures: 'fires-istio-dnspolicy-none-kube-dns-no-search.yaml',
      base: 'istio',
      findings: ['Deployment customdns/no-search'],
    },
    {
      fixtures: 'fires-istio-windows.yaml',
      base: 'istio',
      findings: ['Deployment winstore/catalog', 'Deployment winstore/legacy'],
    },
  ],
  silent: [
    { fixtures: 'ok-near-misses.yaml', base: 'both' },
    { fixtures: 'ok-kuma-hostnet-clusterfirstwithhostnet.yaml', base: 'kuma' },
    { fixtures: 'ok-consul-0.x-dnspolicy-default.yaml', base: 'consul-0.x' },
  ],
});

it('names the field, what the container dials or reads, and the fix; says when the cluster DNS could not be compared', () => {
  const fs = findings(cluster('linkerd', ['checks/pod-spec-starves-proxy/fires-linkerd-dnspolicy-none.yaml']), [
    'pod-spec-starves-proxy',
  ]);
  const resolver = fs.find((f) => f.message.includes('dnsnone/resolver'))!;
  expect(resolver.message).toContain('dnsPolicy: None');
  expect(resolver.message).toContain('8.8.8.8, 1.1.1.1');
  expect(resolver.message).toContain('linkerd-identity-headless.linkerd.svc.cluster.local');
  expect(resolver.message).toContain('could not be compared');
  expect(resolver.fix.join('\n')).toContain('"dnsPolicy":"ClusterFirst"');
  const kuma = findings(cluster('kuma', ['checks/pod-spec-starves-proxy/fires-kuma-token-off.yaml']), [
    'pod-spec-starves-proxy',
  ]).find((f) => f.message.includes('secured/audit'))!;
  expect(kuma.message).toContain('ServiceAccount secured/locked sets automountServiceAccountToken: false');
  expect(kuma.fix.join('\n')).toContain('"automountServiceAccountToken":true');
});
