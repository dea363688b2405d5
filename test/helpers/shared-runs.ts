/**
 * One run of every check per input within a `vitest run`, shared across test files and workers
 * (docs/performance.md, "Round 12, the suite"). The same cluster in the same view is run by
 * several every-fixture files: a check fixture over its base, all namespaces or one, every check,
 * the default options, in snapshot-redaction (its raw views), partial-read (its full views),
 * hostile-keys (its control), advice, evidence-schema and others through `findings()`. The first
 * file to ask runs the checks and leaves the result in the run's directory; a later one, in any
 * worker, reads it back.
 *
 * Why a result read back is the result a run would give: `runChecks` is a function of the
 * snapshot, the options and the code (src/ reads no clock when `now` is given, no environment, no
 * randomness: grep src/run, src/checks, src/facts). The key is a digest of all three: the
 * snapshot and the options as v8 serializes them (every own property and value, `undefined` and
 * key order included; two inputs that differ anywhere have different keys, or share a key only
 * by a SHA-256 collision), and the digest of every file under src/ as this worker read them when
 * it loaded this module (the worker's src/ modules are loaded once, isolate: false). Only the
 * options below are taken (any other option, or no `now`, runs the checks directly), and only
 * with every check. A result is stored only if it reads back deep-strictly equal to itself
 * (plain data, no class instance lost). The directory is made by the run's global setup
 * (test/helpers/shared-runs-setup.ts) and removed at its end: nothing outlives the run. Outside
 * it (no directory provided), every call runs the checks.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { inject } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import type { MeshName } from '../../src/mesh/names.js';
import { runChecks } from '../../src/run/run.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of this run's shared results (test/helpers/shared-runs-setup.ts). */
    sharedRuns: string;
  }
}

export interface SharedOptions {
  mesh: 'auto' | MeshName;
  certExpiryWarningDays: number;
  now: Date;
  expectMeshed?: boolean;
}

const TAKEN = new Set(['mesh', 'certExpiryWarningDays', 'now', 'expectMeshed']);

/** The digest of every file under src/ (names and contents), as read now. */
function sourceDigest(): string {
  const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else hash.update(`${path}\0`).update(readFileSync(path)).update('\0');
    }
  };
  walk(src);
  return hash.digest('hex');
}

let dir: string | undefined;
try {
  dir = inject('sharedRuns');
} catch {
  dir = undefined;
}
const SOURCE = dir ? sourceDigest() : '';

/** What this worker's calls did (for docs/performance.md's figures). */
export const sharedRunStats = { runs: 0, read: 0, unstorable: 0 };

type Result = ReturnType<typeof runChecks>;

/** runChecks(snap, CHECKS, opts), read back from this run's results when another file ran it already. */
export function sharedRun(snap: Snapshot, opts: SharedOptions): Result {
  if (!dir || !(opts.now instanceof Date) || Object.keys(opts).some((k) => !TAKEN.has(k)))
    return runChecks(snap, CHECKS, opts);
  const key = createHash('sha256')
    .update(SOURCE)
    .update(CHECKS.map((c) => c.id).join(','))
    .update(
      serialize([
        snap,
        {
          mesh: opts.mesh,
          certExpiryWarningDays: opts.certExpiryWarningDays,
          now: opts.now.toISOString(),
          expectMeshed: !!opts.expectMeshed,
        },
      ]),
    )
    .digest('hex');
  const file = join(dir, key);
  if (existsSync(file)) {
    sharedRunStats.read++;
    return deserialize(readFileSync(file)) as Result;
  }
  sharedRunStats.runs++;
  const result = runChecks(snap, CHECKS, opts);
  const bytes = serialize(result);
  if (!isDeepStrictEqual(deserialize(bytes), result)) {
    sharedRunStats.unstorable++;
    return result;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
  return result;
}
