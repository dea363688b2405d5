/**
 * Where webhook-ca-expiring fires, and its near misses (test/helpers/check-tester.ts), from the
 * healthy installs' own caBundles (test/fixtures/certs: they end in November 2036) with a warning
 * window reaching them. Bundles of several certificates, RSA and ECDSA, and the fixes:
 * test/checks/certificates.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

const WIDE = 36500;

checkCases('webhook-ca-expiring', {
  fires: [
    {
      base: 'linkerd',
      certExpiryWarningDays: WIDE,
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config'],
    },
    { base: 'istio', certExpiryWarningDays: WIDE, findings: ['MutatingWebhookConfiguration istio-sidecar-injector'] },
    {
      base: 'kuma',
      certExpiryWarningDays: WIDE,
      findings: ['MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration'],
    },
    { base: 'consul', certExpiryWarningDays: WIDE, findings: ['MutatingWebhookConfiguration consul-connect-injector'] },
  ],
  silent: [
    // The default window (60 days) does not reach them.
    { base: 'both' },
    // Expired is not expiring.
    { base: 'both', certExpiryWarningDays: WIDE, now: new Date('2037-06-01T00:00:00Z') },
  ],
});
