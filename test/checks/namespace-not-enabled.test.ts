/**
 * Where namespace-not-enabled fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/issue2-checks.test.ts, test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('namespace-not-enabled', {
  fires: [
    { fixtures: 'fires-both-evidence.yaml', findings: ['Namespace tools'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Namespace shipping'] },
    { fixtures: 'mixed-linkerd.yaml', findings: ['Namespace orders'] },
  ],
  silent: [{ fixtures: 'ok-istio-pod-label-opt-in.yaml' }],
});
