import { defineConfig } from 'vitest/config';

/**
 * `npm run test:slow`: the tests that take minutes (the Dockerfile's steps, the Krew archive, the
 * packed tarball installed, every built module loaded alone), kept out of `npm test`
 * (vitest.config.ts excludes test/slow/). .ci/run runs both. A file belongs here when it packs,
 * installs or spawns a process per module: `test/slow/*.test.ts`.
 */
export default defineConfig({
  test: {
    include: ['test/slow/*.test.ts'],
    // Only end hangs (vitest.config.ts); the files set minutes where they need them.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    isolate: false,
  },
});
