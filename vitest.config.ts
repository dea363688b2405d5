import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take most of the suite's time (the first three a minute or more each on 2 cores:
 * every fixture in every view, live and offline; the rest 10-40 s), started first, longest first
 * (their durations in a full run on a quiet machine, less what round 9 cut from them,
 * docs/performance.md "Round 9, the suite"): a worker that picks one of them
 * last would run it alone while the other core idles. The rest follow vitest's own order (its
 * cache of the last run's durations, else the larger files first; a fresh clone has no cache).
 */
const HEAVY = [
  'test/snapshot-redaction.test.ts',
  'test/parity.test.ts',
  'test/hostile-keys.test.ts',
  'test/declared-inputs.test.ts',
  'test/watch/evaluate.test.ts',
  'test/watch/kube-watch.test.ts',
  'test/partial-read.test.ts',
  'test/kube-apiserver.test.ts',
  'test/kept.test.ts',
  'test/advice.test.ts',
  'test/completion.test.ts',
  'test/hostile-input.test.ts',
  'test/watch/watch.test.ts',
  'test/fix-safety.test.ts',
  'test/fleet-prometheus.test.ts',
  'test/output-errors.test.ts',
  'test/gather.test.ts',
  'test/fleet.test.ts',
  'test/demo.test.ts',
];

class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = HEAVY.indexOf(relative(this.ctx.config.root, f.moduleId).replaceAll('\\', '/'));
      return i < 0 ? HEAVY.length : i;
    };
    return (await super.sort(files))
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Docker, Krew, packaging and module-loading tests (minutes each, npm and many processes)
    // run apart: `npm run test:slow` (vitest.slow.config.ts), which .ci/run runs after `npm test`.
    exclude: [...configDefaults.exclude, 'test/slow/**'],
    // Timeouts that only end hangs: no test is timed. A test's duration counts against them
    // (vitest fails a synchronous test that took longer too), and a CPU-bound test on a loaded
    // 2-core machine takes several times its quiet duration (the fast-check property over every
    // check took 27 s beside 8 other suites, and failed by the 20 s this was). A test that waits
    // for a behaviour to end a hang makes every other timeout longer than this one. 300 s since
    // three workers share two cores (below): at load 25-28, five tests under the 120 s this was
    // took 32-55 s and advice's every-fixture test 184 s (docs/performance.md "Round 11, the suite").
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // The test files of a worker share its modules: src/, the helpers and the fixtures they parse
    // are loaded once per worker, not once per file (about a second of CPU each). Tests therefore
    // leave no global state behind: what they change in process.env they restore, and nothing
    // of src/ is mutated.
    isolate: false,
    // One worker more than there are cores (vitest keeps one for itself by default, which is one
    // of two here): much of the suite waits on child processes, shells, sockets and real
    // kube-apiservers (about a sixth of the file time, docs/performance.md "Round 11, the suite"),
    // and a third worker runs another file meanwhile. No test is timed (above), so sharing the
    // cores between three files changes durations, not outcomes.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: HeavyFirst },
    // One run of every check per (cluster, view, options) shared by the files of this run
    // (test/helpers/shared-runs.ts): the directory they share, made and removed here.
    globalSetup: ['test/helpers/shared-runs-setup.ts'],
    // MESHDOCTOR_TEST_CPU=<file>: each test file's CPU and wall seconds appended to <file>
    // (test/helpers/cpu-per-file.ts; measures only).
    ...(process.env.MESHDOCTOR_TEST_CPU ? { setupFiles: ['test/helpers/cpu-per-file.ts'] } : {}),
  },
});
