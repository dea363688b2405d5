/**
 * Where pod-predates-enablement fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/injection.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('pod-predates-enablement', {
  fires: [
    { fixtures: 'fires-consul.yaml', findings: ['StatefulSet catalog/importer'] },
    { fixtures: 'fires-istio.yaml', findings: ['Deployment catalog/books'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Deployment orders/legacy'] },
    { fixtures: 'fires-linkerd-template.yaml', findings: ['Pod legacy/debug', 'StatefulSet legacy/cache'] },
    { fixtures: 'fires-linkerd.yaml', findings: ['Deployment orders/api'] },
  ],
  silent: [{ fixtures: 'ok-linkerd-no-managed-fields.yaml' }],
});
