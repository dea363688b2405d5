import type { RunResult } from '../types.js';
import { json } from './json.js';
import { junit } from './junit.js';
import { markdown } from './markdown.js';
import { sarif } from './sarif.js';
import { table, wide } from './table.js';

export interface ReportMeta {
  version: string;
  color: boolean;
  /** Columns of the terminal (80 when unknown): human formats wrap prose to it. */
  width?: number;
}

/** A reporter is pure: result in, the whole report text out. */
export type Reporter = (result: RunResult, meta: ReportMeta) => string;

/** Output formats, chosen by -o. */
export const REPORTERS: Record<string, Reporter> = { table, wide, json, sarif, junit, markdown };
