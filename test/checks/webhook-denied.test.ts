/**
 * Where webhook-denied fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/ambient-and-admission.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('webhook-denied', {
  fires: [
    { fixtures: 'fires-consul-invalid-annotation.yaml', findings: ['Deployment catalog/exporter'] },
    { fixtures: 'fires-consul-token.yaml', findings: ['Deployment catalog/ledger'] },
    { fixtures: 'fires-istio-annotation.yaml', findings: ['Deployment store/api'] },
    { fixtures: 'fires-kuma-invalid-label.yaml', findings: ['Deployment orders/auditor'] },
    { fixtures: 'fires-linkerd-without-explanation.yaml', findings: ['Job shop/report'] },
    { fixtures: 'fires-istio-1.5-own-template-remote-chart.yaml', findings: ['Deployment remote-apps/sleep'] },
    { fixtures: 'fires-istio-own-template-prefixed.yaml', findings: ['Deployment billing/invoices'] },
    { fixtures: 'fires-linkerd-own-values.yaml', findings: ['Deployment payments/ledger'] },
  ],
  silent: [{ fixtures: 'ok-istio-near-misses.yaml' }],
});
