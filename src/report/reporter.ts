import type { RunResult } from '../run/result.js';
import type { FailOn } from '../util/types.js';

export interface ReportMeta {
  version: string;
  color: boolean;
  /** Columns of the terminal (80 when unknown): human formats wrap prose to it. */
  width?: number;
  /** --fail-on (default error): formats that grade findings (JUnit failures) grade them as the exit code does. */
  failOn?: FailOn;
  /** SARIF: each check's page (docs/checks/ID.md, Markdown), its rule's help. */
  ruleHelp?: Readonly<Record<string, string>>;
}

/** A reporter is pure: result in, the whole report text out. */
export type Reporter = (result: RunResult, meta: ReportMeta) => string;
