/**
 * Where pod-security-blocks-init fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/ambient-and-admission.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('pod-security-blocks-init', {
  fires: [
    { fixtures: 'fires-consul-confirmed.yaml', findings: ['Deployment catalog/products', 'Job catalog/sync-prices'] },
    { fixtures: 'fires-istio-predicted.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-predicted.yaml', findings: ['Deployment orders/api', 'Job orders/reindex'] },
    // A value that is not a level (Baseline, privilege, empty) is enforced as restricted (issue 36 class 12).
    { fixtures: 'fires-istio-invalid-level.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-istio-empty-level.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-invalid-level.yaml', findings: ['Deployment orders/api', 'Job orders/reindex'] },
    {
      fixtures: 'fires-linkerd-confirmed.yaml',
      findings: ['Deployment shop/web', 'CronJob shop/report', 'StatefulSet shop/db'],
    },
  ],
  silent: [
    { fixtures: 'ok-consul-cni.yaml' },
    { fixtures: 'ok-consul-cni-restricted-seccomp.yaml' },
    { fixtures: 'ok-consul-transparent-proxy-off.yaml' },
    { fixtures: 'ok-istio-cni.yaml' },
    { fixtures: 'ok-kuma-cni.yaml' },
    { fixtures: 'ok-istio-privileged-invalid-version.yaml' },
    { fixtures: 'ok-kuma-invalid-warn-audit.yaml' },
    { fixtures: 'ok-kuma-privileged.yaml' },
    { fixtures: 'ok-linkerd-cni.yaml' },
  ],
});
