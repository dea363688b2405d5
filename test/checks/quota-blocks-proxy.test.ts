/**
 * Where quota-blocks-proxy fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/workload-lifecycle.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('quota-blocks-proxy', {
  fires: [
    { fixtures: 'fires-consul-must-specify.yaml', findings: ['Deployment catalog/web'] },
    { fixtures: 'fires-istio-exceeded.yaml', findings: ['Deployment catalog/search'] },
    { fixtures: 'fires-istio-partial-annotation.yaml', findings: ['Deployment payments/ledger'] },
    { fixtures: 'fires-kuma-must-specify.yaml', findings: ['Deployment orders/web'] },
    { fixtures: 'fires-linkerd-must-specify.yaml', findings: ['Deployment ledger/api'] },
    { fixtures: 'fires-linkerd-no-room.yaml', findings: ['Deployment books/shelf'] },
    // The API server's refusal is the verdict: a refusal naming no container for values every app container sets,
    // and one naming the mesh's containers while the app lacks a value a LimitRange may fill.
    { fixtures: 'fires-istio-refusal-contradicts-config.yaml', findings: ['Deployment payments/invoices'] },
    {
      fixtures: 'fires-linkerd-app-lacks-storage-refusal-names-proxy.yaml',
      findings: ['Deployment ledger/statements'],
    },
  ],
  silent: [
    { fixtures: 'ok-app-unset.yaml' },
    { fixtures: 'ok-istio-defaults.yaml' },
    { fixtures: 'ok-istio-exhausted.yaml' },
    { fixtures: 'ok-istio-room.yaml' },
    { fixtures: 'ok-linkerd-annotated.yaml' },
    { fixtures: 'ok-linkerd-config-values.yaml' },
    { fixtures: 'ok-old-refusal-app-lacks-value.yaml' },
  ],
});
