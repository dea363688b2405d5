import type { Check } from '../types.js';

export const DOCS_BASE = 'https://github.com/meshdoctor/meshdoctor/blob/main/README.md';

/** Declare a check (identity function that keeps the type exact). */
export function defineCheck(check: Check): Check {
  return check;
}

/** The README anchor documenting a check. */
export const docsUrl = (id: string): string => `${DOCS_BASE}#${id}`;
