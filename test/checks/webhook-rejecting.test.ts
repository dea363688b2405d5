/** Where webhook-rejecting fires, and its near misses (test/helpers/check-tester.ts); its message and evidence. */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('webhook-rejecting', {
  fires: [
    {
      fixtures: 'fires-istio.yaml',
      findings: ['MutatingWebhookConfiguration istio-sidecar-injector'],
      said: [{ id: 'rejected', params: { admissions: '9 admissions', meshTitle: 'Istio' } }],
    },
    {
      fixtures: 'fires-kuma-denied.yaml',
      findings: ['MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration'],
      said: [{ id: 'rejected', params: { admissions: '4 admissions', webhooks: 'pods-kuma-injector.kuma.io' } }],
    },
  ],
  silent: [{ fixtures: 'ok-consul-validating-and-zero.yaml' }],
});

describe('webhook-rejecting: message, evidence', () => {
  it('sums by error type over the webhooks of one configuration', () => {
    const [f] = findings(cluster('istio', ['checks/webhook-rejecting/fires-istio.yaml']), ['webhook-rejecting']);
    expect(f!.messageId).toBe('webhook-rejecting/rejected');
    expect(f!.params).toMatchObject({
      admissions: '9 admissions',
      webhooks: 'rev.namespace.sidecar-injector.istio.io, rev.object.sidecar-injector.istio.io',
      byErrorType: '9 could not be made (failurePolicy Fail refused the pod)',
      startedAt: '', // the fixture's metrics do not say when the instance started
    });
    // The rendered text, once.
    expect(f!.message).toContain(
      'rejected 9 admissions at Istio webhook rev.namespace.sidecar-injector.istio.io, rev.object.sidecar-injector.istio.io: 9 could not be made',
    );
    expect(f!.evidence).toMatchObject({
      webhooks: [
        { rejections: [{ errorType: 'calling_webhook_error', count: 7, codes: ['500'] }] },
        { rejections: [{ count: 2 }] },
      ],
    });
  });

  it('a denial (no_error) is told apart from a failed call', () => {
    const [f] = findings(cluster('kuma', ['checks/webhook-rejecting/fires-kuma-denied.yaml']), ['webhook-rejecting']);
    expect(f!.params?.byErrorType).toBe('4 were denied by the injector');
  });
});
