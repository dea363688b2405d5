/**
 * Where pod-opted-out fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/issue2-checks.test.ts, test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('pod-opted-out', {
  fires: [
    { fixtures: 'fires-both-meshes.yaml', findings: ['Deployment twin/batch'] },
    { fixtures: 'fires-consul-default-inject.yaml', findings: ['Deployment catalog/reports'] },
    { fixtures: 'fires-istio.yaml', findings: ['Deployment store/search'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Deployment orders/auditor'] },
    { fixtures: 'fires-linkerd.yaml', findings: ['Deployment shop/cart'] },
  ],
  silent: [
    { fixtures: 'ok-consul.yaml' },
    { fixtures: 'ok-istio-annotation-overridden.yaml' },
    { fixtures: 'ok-not-enabled-namespace.yaml' },
    // Kuma's builtin gateway runs the data plane itself (kuma-gateway): not an opted-out workload.
    { fixtures: 'ok-kuma-builtin-gateway.yaml' },
  ],
});
