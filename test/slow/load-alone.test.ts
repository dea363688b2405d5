/**
 * Every built module loads on its own, first, in a fresh process: an import cycle that happens to
 * work in one import order (`Cannot access 'X' before initialization` in another) fails here. Needs
 * dist/ (`npm run test:slow` builds it first); the modules are loaded a few processes at a time.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DIST = join(ROOT, 'dist');
const run = promisify(execFile);

const modules = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );

/** Import one module in a new node process; its error's first line, or undefined when it loads. */
async function loadAlone(file: string): Promise<string | undefined> {
  try {
    await run(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(file).href)})`],
      { timeout: 60_000 },
    );
    return undefined;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    return (err.stderr ?? err.message).split('\n').find((l) => /Error|error/.test(l)) ?? err.message.split('\n')[0];
  }
}

describe.skipIf(!existsSync(join(DIST, 'cli.js')))(
  'every built module loads alone (dist/, built by npm run test:slow)',
  () => {
    it('imports each dist/**/*.js first in a fresh process', { timeout: 600_000 }, async () => {
      const files = modules(DIST).sort();
      expect(files.length).toBeGreaterThan(50);
      const failures: string[] = [];
      const queue = [...files];
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let f = queue.shift(); f; f = queue.shift()) {
            const why = await loadAlone(f);
            if (why) failures.push(`${relative(DIST, f)}: ${why}`);
          }
        }),
      );
      expect(failures.sort()).toEqual([]);
    });

    it('the check fails on a module that cannot load (self-test)', async () => {
      const why = await loadAlone(join(ROOT, 'test', 'fixtures', 'no-such-module.js'));
      expect(why).toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND/);
    });
  },
);
