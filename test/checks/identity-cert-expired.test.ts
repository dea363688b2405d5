/**
 * Where identity-cert-expired fires, and its near misses (test/helpers/check-tester.ts), from the
 * healthy Linkerd install's trust anchor and issuer (test/fixtures/certs: they end in November
 * 2036) at a later "now". Multi-certificate bundles, not-yet-valid issuers and the rotation fixes:
 * test/checks/certificates.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

const LATER = new Date('2037-06-01T00:00:00Z');

checkCases('identity-cert-expired', {
  fires: [
    {
      base: 'linkerd',
      now: LATER,
      findings: ['ConfigMap linkerd/linkerd-identity-trust-roots', 'Secret linkerd/linkerd-identity-issuer'],
    },
  ],
  silent: [
    { base: 'linkerd' },
    // Expiring is not expired.
    { base: 'linkerd', certExpiryWarningDays: 36500 },
    // A mesh without these identity objects.
    { base: 'istio', now: LATER },
  ],
});
