/**
 * Where identity-cert-expiring fires, and its near misses (test/helpers/check-tester.ts), from the
 * healthy Linkerd install's trust anchor and issuer (test/fixtures/certs: they end in November
 * 2036) with a warning window reaching them. The rotation fixes: test/checks/certificates.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

const WIDE = 36500;

checkCases('identity-cert-expiring', {
  fires: [
    {
      base: 'linkerd',
      certExpiryWarningDays: WIDE,
      findings: ['ConfigMap linkerd/linkerd-identity-trust-roots', 'Secret linkerd/linkerd-identity-issuer'],
    },
  ],
  silent: [
    // The default window (60 days) does not reach them.
    { base: 'linkerd' },
    // Expired is not expiring.
    { base: 'linkerd', certExpiryWarningDays: WIDE, now: new Date('2037-06-01T00:00:00Z') },
    { base: 'istio', certExpiryWarningDays: WIDE },
  ],
});
