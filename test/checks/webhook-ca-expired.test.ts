/**
 * Where webhook-ca-expired fires, and its near misses (test/helpers/check-tester.ts), from the
 * healthy installs' own caBundles (test/fixtures/certs: they end in November 2036) at a later
 * "now". Bundles of several certificates, RSA and ECDSA, and the fixes: test/checks/certificates.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

const LATER = new Date('2037-06-01T00:00:00Z');

checkCases('webhook-ca-expired', {
  fires: [
    {
      base: 'linkerd',
      now: LATER,
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config'],
      // What it says, as data: the message id and its params (the wording is the goldens').
      said: [
        {
          id: 'no-valid',
          params: {
            config: 'linkerd-proxy-injector-webhook-config',
            meshTitle: 'Linkerd',
            expired: /^1 expired certificate \(.*, expired 2036-/,
          },
        },
      ],
    },
    {
      base: 'istio',
      now: LATER,
      findings: ['MutatingWebhookConfiguration istio-sidecar-injector'],
      said: [{ id: 'no-valid', params: { config: 'istio-sidecar-injector', meshTitle: 'Istio' } }],
    },
    {
      base: 'kuma',
      now: LATER,
      findings: ['MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration'],
    },
    { base: 'consul', now: LATER, findings: ['MutatingWebhookConfiguration consul-connect-injector'] },
  ],
  silent: [
    { base: 'both' },
    // Expiring is not expired.
    { base: 'both', certExpiryWarningDays: 36500 },
  ],
});
