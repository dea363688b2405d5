/** Types of test/helpers/unused-exports.mjs (plain JavaScript: scripts/typecheck.mjs runs it with node). */

/** A record saved by `checkTestsAndRecord`: the list, and every answer the compiler got. */
export interface SavedRecord {
  root: string;
  code: string;
  calls: [string, string][];
  result: string[];
}

/** `tsc -p tsconfig.test.json`, then the unused exports of its program saved; exits the process as tsc does. */
export function checkTestsAndRecord(): void;
/** "src/x.ts: name" for every export of src/ no other file uses, sorted. */
export function unusedExports(): string[];
/** The list a saved record holds, if every answer it records is the same now; else undefined. */
export function savedFrom(cache: SavedRecord): string[] | undefined;
/** The record `npm test`'s type check saved, as read (undefined when there is none). */
export function savedRecord(): SavedRecord | undefined;
