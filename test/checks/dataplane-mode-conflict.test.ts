/**
 * Where dataplane-mode-conflict fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/ambient-and-admission.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('dataplane-mode-conflict', {
  fires: [
    { fixtures: 'fires-ambient-injection.yaml', findings: ['Namespace shop'] },
    { fixtures: 'fires-ambient-rev.yaml', findings: ['Namespace payments'] },
  ],
  silent: [{ fixtures: 'ok-ambient-near-misses.yaml' }],
});
