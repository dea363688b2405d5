import type { RunResult } from '../run/result.js';

export interface ReportMeta {
  version: string;
  color: boolean;
  /** Columns of the terminal (80 when unknown): human formats wrap prose to it. */
  width?: number;
}

/** A reporter is pure: result in, the whole report text out. */
export type Reporter = (result: RunResult, meta: ReportMeta) => string;
