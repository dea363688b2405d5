/**
 * Where webhook-cert-mismatch fires, and its near misses (test/helpers/check-tester.ts). Its
 * evidence and fixes, with generated certificates (another CA, a wrong SAN, a re-generated CA):
 * test/checks/certificates.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('webhook-cert-mismatch', {
  fires: [{ fixtures: 'fires-kuma.yaml', findings: ['Secret kuma-system/kuma-tls-cert'] }],
  // The healthy installs' serving certificates chain to their caBundles and name their services.
  silent: [{ base: 'linkerd' }, { base: 'kuma' }, { base: 'both' }],
});
