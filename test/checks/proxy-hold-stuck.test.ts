/**
 * Where proxy-hold-stuck fires (the proxy's postStart hold hook did not complete: the proxy killed and being started
 * again, or the kubelet's FailedPostStartHook event) and its near misses (a proxy restarted once and running now, a
 * proxy without a hook); the mesh's cause where its settings or the pod show it, else the kubelet quoted.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('proxy-hold-stuck', {
  fires: [
    {
      fixtures: 'fires-kuma-cni-wait-deadlock.yaml',
      findings: ['Deployment finance/ledger'],
      said: [{ id: 'stuck', params: { cause: /kumahq\/kuma#9431/, seen: /no IP in its status/ } }],
    },
    {
      fixtures: 'fires-linkerd-admin-port-await.yaml',
      findings: ['Deployment linkerd-tcp/tcp-client'],
      said: [{ id: 'stuck', params: { cause: /port 5191/, seen: /FailedPostStartHook, 2x/ } }],
    },
    {
      fixtures: 'fires-linkerd-cni-no-init-await.yaml',
      findings: ['Deployment reports/tap'],
      said: [{ id: 'stuck', params: { cause: /no init container/ } }],
    },
    {
      fixtures: 'fires-istio-hold-timeout-unknown.yaml',
      findings: ['Deployment builds/runner'],
      said: [{ id: 'stuck', params: { cause: /the cause is not known/, seen: /timeout waiting for Envoy proxy/ } }],
    },
  ],
  silent: [
    { fixtures: 'ok-kuma-wait-restarted-now-running.yaml' },
    { fixtures: 'ok-istio-proxy-restart-no-hook.yaml' },
  ],
});

describe('proxy-hold-stuck evidence and fix', () => {
  it('gives the mesh fix where the cause is known, the proxy log where it is not', () => {
    const kuma = findings(cluster('kuma', ['checks/proxy-hold-stuck/fires-kuma-cni-wait-deadlock.yaml'])).find(
      (x) => x.id === 'proxy-hold-stuck',
    )!;
    expect(kuma.evidence).toMatchObject({ container: 'kuma-sidecar', causeKnown: true });
    expect(JSON.stringify(kuma.fix)).toContain('kuma.io/wait-for-dataplane-ready');
    const istio = findings(cluster('istio', ['checks/proxy-hold-stuck/fires-istio-hold-timeout-unknown.yaml'])).find(
      (x) => x.id === 'proxy-hold-stuck',
    )!;
    expect(istio.evidence).toMatchObject({ causeKnown: false });
    expect(JSON.stringify(istio.fix)).toContain('--previous');
  });
});
