/**
 * Where injector-config-excludes fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('injector-config-excludes', {
  fires: [
    {
      fixtures: 'fires-istio-never-selector-controller-labels.yaml',
      findings: ['CronJob batch/nightly', 'StatefulSet batch/db', 'Job batch/migrate'],
    },
    { fixtures: 'fires-istio-never-selector.yaml', findings: ['Deployment jobs/reporter'] },
    {
      fixtures: 'fires-istio-policy-disabled.yaml',
      findings: ['Deployment optin/api', 'Deployment payments/ledger', 'Deployment store/frontend'],
    },
    { fixtures: 'fires-istio-policy-invalid.yaml', findings: ['ConfigMap istio-system/istio-sidecar-injector'] },
    // OpenShift Service Mesh 2.5: the fix is its ServiceMeshControlPlane's (test/checks/istio-injector.test.ts).
    {
      fixtures: 'fires-istio-ossm-2-policy-invalid.yaml',
      base: 'istio-ossm-2.5',
      findings: ['ConfigMap istio-system/istio-sidecar-injector-basic'],
    },
    {
      fixtures: 'fires-istio-ossm-2-config-missing.yaml',
      base: 'istio-ossm-2.5',
      findings: ['ConfigMap istio-system/istio-sidecar-injector-basic'],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-invalid-selectors.yaml' },
    // A loose "no" in namespace optout is its owner's opt-out (the rest of the file sets up the policy).
    { fixtures: 'ok-istio-loose-opt-out.yaml', namespace: 'optout' },
    { fixtures: 'ok-istio.yaml' },
  ],
});
