/**
 * Where webhook-call-failed fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/control-plane.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('webhook-call-failed', {
  fires: [
    { fixtures: 'fires-consul.yaml', findings: ['Deployment catalog/products'] },
    { fixtures: 'fires-istio.yaml', findings: ['Job payments/backfill', 'Deployment store/frontend'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Deployment orders/api'] },
    { fixtures: 'fires-istio-gke-timeout.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-eks-timeout.yaml', findings: ['Deployment orders/api'] },
    { fixtures: 'fires-linkerd-cronjob.yaml', findings: ['CronJob shop/report'] },
  ],
  silent: [{ fixtures: 'ok-istio.yaml' }, { fixtures: 'ok-linkerd-injection-skipped.yaml' }],
});
