/**
 * Where serviceaccount-missing fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/workload-lifecycle.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('serviceaccount-missing', {
  fires: [
    { fixtures: 'fires-consul-sa-token.yaml', findings: ['Deployment catalog/ledger'] },
    { fixtures: 'fires-consul-token.yaml', findings: ['Deployment catalog/auditlog'] },
    { fixtures: 'fires-default-with-event.yaml', findings: ['Deployment legacy/billing'] },
    { fixtures: 'fires-istio.yaml', findings: ['StatefulSet store/cache'] },
    { fixtures: 'fires-linkerd-token.yaml', findings: ['Deployment shop/audit', 'Deployment shop/exporter'] },
    // Before stable-2.12 there are no projected tokens, whatever the values say (issue 31.7).
    {
      fixtures: 'fires-linkerd-stable-2.10-token-off.yaml',
      base: 'linkerd-stable-2.10',
      findings: ['Deployment shop/audit', 'Deployment shop/exporter'],
    },
    { fixtures: 'fires-linkerd.yaml', findings: ['Deployment shop/orders'] },
  ],
  silent: [
    { fixtures: 'ok-consul-projected-token.yaml' },
    { fixtures: 'ok-default-missing-no-event.yaml' },
    { fixtures: 'ok-istio-token-off.yaml' },
    { fixtures: 'ok-token-off-projected.yaml' },
  ],
});
