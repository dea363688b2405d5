/** The exit code of a run (README "Exit codes"), the same for every output format. */
import { EXIT } from '../util/errors.js';
import { atOrAbove, type Severity } from '../util/types.js';

export const FAIL_ON = ['error', 'warning', 'info', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/**
 * 2: a check failed internally; 1: findings at or above --fail-on; 3: some checks could not run,
 * or could not see everything (a kind refused in a namespace), and no finding decided (--strict:
 * also when one did; --allow-partial: never); else 0.
 */
export function exitCode(
  result: {
    findings: { severity: Severity }[];
    skipped: unknown[];
    errors?: string[];
    coverage?: { complete: boolean };
  },
  failOn: FailOn,
  partial: { allowPartial?: boolean; strict?: boolean } = {},
): number {
  if (result.errors?.length) return EXIT.ERROR;
  // Incomplete: checks skipped, or (coverage) a kind not read in some namespace they look at.
  // (Checks not run by choice, --no-secrets, leave coverage complete: coverage decides when given.)
  const incomplete = (result.coverage ? !result.coverage.complete : result.skipped.length > 0) && !partial.allowPartial;
  if (incomplete && partial.strict) return EXIT.INCOMPLETE;
  if (result.findings.some((f) => atOrAbove(f.severity, failOn))) return EXIT.FINDINGS;
  return incomplete ? EXIT.INCOMPLETE : EXIT.OK;
}
