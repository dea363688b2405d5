/** Where webhook-near-timeout fires, and its near misses (test/helpers/check-tester.ts); its message and evidence. */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('webhook-near-timeout', {
  fires: [
    {
      fixtures: 'fires-consul.yaml',
      findings: ['MutatingWebhookConfiguration consul-connect-injector'],
      said: [{ id: 'near-timeout-some-over', params: { share: '12%', overTimeout: 3, failurePolicy: 'Fail' } }],
    },
  ],
  silent: [{ fixtures: 'ok-linkerd-fast-or-few.yaml' }, { fixtures: 'ok-kuma-few-calls.yaml' }],
});

/** The fixture with every webhook's timeoutSeconds set. */
const withTimeout = (seconds: number) => {
  const snap = cluster('consul', ['checks/webhook-near-timeout/fires-consul.yaml']);
  const mwc = snap.objects.mutatingwebhookconfigurations!.find((c) => c.metadata?.name === 'consul-connect-injector')!;
  for (const w of mwc.webhooks as { name: string; timeoutSeconds?: number }[]) w.timeoutSeconds = seconds;
  return snap;
};

describe('webhook-near-timeout: message, evidence', () => {
  it('the share over half the timeout, and the calls over the timeout itself', () => {
    const [f] = findings(cluster('consul', ['checks/webhook-near-timeout/fires-consul.yaml']), [
      'webhook-near-timeout',
    ]);
    expect(f!.messageId).toBe('webhook-near-timeout/near-timeout-some-over');
    expect(f!.params).toMatchObject({
      share: '12%',
      calls: 100,
      meshTitle: 'Consul',
      webhook: 'consul-connect-injector.consul.hashicorp.com',
      slowerThan: 2.5,
      timeoutSeconds: 10,
      overTimeout: 3,
    });
    // The rendered text, once.
    expect(f!.message).toMatch(
      /^12% of the 100 calls to Consul webhook consul-connect-injector\.consul\.hashicorp\.com took longer than 2\.5 s, half or more of its timeoutSeconds 10, and 3 took longer than the timeout itself/,
    );
    expect(f!.evidence).toMatchObject({
      timeoutSeconds: 10,
      calls: 100,
      slowerThanSeconds: 2.5,
      slowCalls: 12,
      overTimeout: 3,
    });
  });

  it('a timeout that is no bucket bound: the share over half of it, and no count over the timeout claimed', () => {
    // 8 s: half is 4, the largest bound under it 2.5 s (12 of 100 slower); 8 is no bound, so no count over it.
    const [f] = findings(withTimeout(8), ['webhook-near-timeout']);
    expect(f!.messageId).toBe('webhook-near-timeout/near-timeout');
    expect(f!.params).toMatchObject({ share: '12%', slowerThan: 2.5, timeoutSeconds: 8 });
    expect(f!.message).not.toContain('longer than the timeout itself');
    expect(f!.evidence.overTimeout).toBeUndefined();
  });

  it('a longer timeoutSeconds moves the bar: 30 s, half is 15, the largest bound under it 10 s', () => {
    expect(findings(withTimeout(30), ['webhook-near-timeout'])).toEqual([]); // 3 of 100 over 10 s: under 5%
  });
});
