import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Docker, Krew, packaging and module-loading tests (minutes each, npm and many processes)
    // run apart: `npm run test:slow` (vitest.slow.config.ts), which .ci/run runs after `npm test`.
    exclude: [...configDefaults.exclude, 'test/slow/**'],
    testTimeout: 20000,
    hookTimeout: 20000,
    // The test files of a worker share its modules: src/, the helpers and the fixtures they parse
    // are loaded once per worker, not once per file (about a second of CPU each). Tests therefore
    // leave no global state behind: what they change in process.env they restore, and nothing
    // of src/ is mutated.
    isolate: false,
    // Every core (vitest keeps one for itself by default, which is one of two here): much of the
    // suite waits on child processes, shells and sockets.
    maxWorkers: availableParallelism(),
  },
});
