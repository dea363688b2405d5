/**
 * vitest's global setup (vitest.config.ts): the directory where one `vitest run` keeps the results
 * of the runs its test files share (test/helpers/shared-runs.ts), made when the run starts and
 * removed when it ends, so that no result outlives the run that made it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-shared-runs-'));
  project.provide('sharedRuns', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
