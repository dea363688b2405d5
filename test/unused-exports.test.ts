/**
 * Dead code stays out: every export of src/ is imported somewhere (src, test, bench, scripts), or
 * is an entry point. A name used only in its own file needs no export; a name used nowhere, no
 * code. The list below is exact, so removing one of its exports means removing it here too.
 * Under `npm test` the program is the type check's own (test/helpers/unused-exports.mjs), taken
 * only while every answer the compiler got from the file system is the same.
 */
import { describe, expect, it } from 'vitest';
import { savedFrom, savedRecord, unusedExports } from './helpers/unused-exports.mjs';

/** Entry points: exported for what runs the built CLI, or for its callers' types. */
const ENTRY_POINTS: Record<string, string> = {
  'src/cli.ts: run': 'bin/meshdoctor.js and bin/kubectl-meshdoctor.js run dist/cli.js',
  'src/cli.ts: IO': "the type of main()'s io",
};

describe('unused exports', () => {
  // Synchronous (the TypeScript compiler over src/, test/, bench/): a timeout cannot end it, only
  // fail it after the fact. 15 s on a quiet machine, over 120 s beside other suites on 2 cores.
  it('every export of src/ is used by another file, or is an entry point', { timeout: 600_000 }, () => {
    expect(unusedExports()).toEqual(Object.keys(ENTRY_POINTS).sort());
  });

  it('a saved list is taken only while every answer the compiler got is the same', () => {
    const record = savedRecord();
    if (!record) return; // nothing saved (a test run without `npm test`'s type check): nothing to take
    const saved = savedFrom(record);
    if (saved === undefined) return; // something changed since the type check: the program was built again
    // One answer different (a file read, a file probed, the compiler or this analysis): not taken.
    const i = record.calls.findIndex(([k]) => k.startsWith('["readFile"'));
    const j = record.calls.findIndex(([k]) => k.startsWith('["fileExists"'));
    expect(i).toBeGreaterThanOrEqual(0);
    expect(j).toBeGreaterThanOrEqual(0);
    for (const k of [i, j]) {
      const calls = record.calls.map((c, n): [string, string] => (n === k ? [c[0], `${c[1]}x`] : c));
      expect(savedFrom({ ...record, calls })).toBeUndefined();
    }
    expect(savedFrom({ ...record, code: 'another compiler' })).toBeUndefined();
    expect(savedFrom({ ...record, root: '/elsewhere' })).toBeUndefined();
  });
});
