/**
 * One run session, the same for `check`, `explain` and `watch` (issue 32): the selected checks, the
 * read plan derived from them (src/run/plan.ts), and the options every evaluation of them takes
 * (mesh, certificate window, suppressions, docs base). A command reads with session.plan and runs
 * session.checks with session.options; none has its own copy of a default.
 */
import type { Check } from '../checks/define.js';
import { readPlanOf, type ReadPlanData } from './plan.js';
import { selectChecks, type MeshOption } from './run.js';
import type { SuppressRule } from './suppress.js';

interface SessionOptions {
  only?: string[];
  skip?: string[];
  mesh: MeshOption;
  /** --cert-expiry-warning (its default is the flag's, src/cli/options.ts). */
  certExpiryWarningDays: number;
  suppress?: SuppressRule[];
  docsBase?: string;
}

interface RunSession {
  readonly checks: readonly Check[];
  readonly plan: ReadPlanData;
  /** What every run of the checks in this session takes (runChecks, makeModel, the watch's Evaluator). */
  readonly options: {
    mesh: MeshOption;
    certExpiryWarningDays: number;
    suppress?: SuppressRule[];
    docsBase?: string;
  };
}

/** The session of a command: an unknown --only/--skip id is an error here, before anything is read. */
export function openSession(o: SessionOptions): RunSession {
  const checks = selectChecks(o.only, o.skip);
  return {
    checks,
    plan: readPlanOf(checks),
    options: {
      mesh: o.mesh,
      certExpiryWarningDays: o.certExpiryWarningDays,
      ...(o.suppress?.length ? { suppress: o.suppress } : {}),
      ...(o.docsBase ? { docsBase: o.docsBase } : {}),
    },
  };
}
