/**
 * The CPU each test file costs (docs/performance.md, the suite): with MESHDOCTOR_TEST_CPU=<file>,
 * vitest.config.ts adds this module to setupFiles, which (isolate: false) runs in the worker before
 * each test file; at the file's end it appends one line to <file>: the file, then the worker's
 * user+sys CPU seconds spent since, itself and its children it waited for (CLI processes, shells,
 * builds; a real kube-apiserver and the long-lived shells of test/helpers/bash.ts are not waited
 * for), the wall seconds, and how many of its shared runs (test/helpers/shared-runs.ts) it made
 * and read back. Measures only: it changes no test.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';

const TICK = 100; // getconf CLK_TCK on Linux

/** user+sys of this process and of its waited children, in seconds (/proc/self/stat, fields 14-17). */
function cpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ": state is field 3, so utime (14) is index 11.
  return fields.slice(11, 15).reduce((n, f) => n + Number(f), 0) / TICK;
}

const out = process.env.MESHDOCTOR_TEST_CPU;
// Taken when this module runs, before the test file is imported (its top-level work counts).
const start = cpu();
const wall = performance.now();
afterAll(async () => {
  const file = expect.getState().testPath ?? '?';
  // Imported here, not above: the first file of a worker pays for loading src/ itself.
  const { sharedRunStats } = await import('./shared-runs.js');
  const g = globalThis as { sharedRunsBefore?: typeof sharedRunStats };
  // A file that reset the module registry (vi.resetModules) gets a new instance, counting from 0.
  const before = g.sharedRunsBefore ?? { runs: 0, read: 0, unstorable: 0 };
  const shared = sharedRunStats.runs < before.runs ? { runs: 0, read: 0, unstorable: 0 } : before;
  g.sharedRunsBefore = { ...sharedRunStats };
  if (out)
    appendFileSync(
      out,
      `${relative(process.cwd(), file)}\t${(cpu() - start).toFixed(2)}\t${((performance.now() - wall) / 1000).toFixed(1)}` +
        `\t${sharedRunStats.runs - shared.runs} runs\t${sharedRunStats.read - shared.read} read back\n`,
    );
});
