/**
 * Dead code stays out: every export of src/ is imported somewhere (src, test, bench, scripts), or
 * is an entry point. A name used only in its own file needs no export; a name used nowhere, no
 * code. The list below is exact, so removing one of its exports means removing it here too.
 */
import { describe, expect, it } from 'vitest';
import { unusedExports } from './helpers/unused-exports.js';

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
});
