/**
 * Where sidecarless-not-enrolled fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/ambient-and-admission.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('sidecarless-not-enrolled', {
  fires: [
    { fixtures: 'fires-ambient-no-ztunnel.yaml', findings: ['Deployment lab/probe', 'Deployment shop/web'] },
    { fixtures: 'fires-ambient-not-enrolled.yaml', findings: ['Deployment shop/web'] },
  ],
  silent: [{ fixtures: 'ok-ambient-near-misses.yaml' }],
});
