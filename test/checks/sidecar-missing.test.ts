/**
 * Where sidecar-missing fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/injection.test.ts, test/checks/outage.test.ts, test/checks/istio-injector.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('sidecar-missing', {
  fires: [
    { fixtures: 'fires-consul.yaml', findings: ['Deployment catalog/cart'] },
    { fixtures: 'fires-istio.yaml', findings: ['Pod payments/teller', 'Deployment store/search'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Deployment orders/cart'] },
    { fixtures: 'fires-linkerd-during-outage.yaml', findings: ['Deployment shop/cart'] },
    { fixtures: 'fires-linkerd.yaml', findings: ['Deployment shop/cart'] },
  ],
  silent: [{ fixtures: 'ok-istio.yaml' }, { fixtures: 'ok-linkerd.yaml' }, { fixtures: 'ok-second-injector-replica.yaml' }],
});
