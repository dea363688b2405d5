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

/**
 * A fleet's exit code (docs/cli.md "A fleet"): the worst over its clusters, each as exitCode
 * grades it, a cluster that could not be read counting as incomplete (3), --allow-partial or not:
 * nothing of it was examined. 2 if one cluster's check failed internally; else 1 if a finding
 * decided in any cluster (--strict: 3 first); else 3 if any is incomplete or unreachable; else 0.
 */
export function fleetExitCode(
  clusters: { result?: Parameters<typeof exitCode>[0]; unreachable?: string }[],
  failOn: FailOn,
  partial: { allowPartial?: boolean; strict?: boolean } = {},
): number {
  const codes = clusters.map((c) => (c.result ? exitCode(c.result, failOn, partial) : EXIT.INCOMPLETE));
  const order: number[] = partial.strict
    ? [EXIT.ERROR, EXIT.INCOMPLETE, EXIT.FINDINGS]
    : [EXIT.ERROR, EXIT.FINDINGS, EXIT.INCOMPLETE];
  return order.find((code) => codes.includes(code)) ?? EXIT.OK;
}
