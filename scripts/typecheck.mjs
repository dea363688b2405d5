#!/usr/bin/env node
/**
 * `npm test`'s first step: the build (tsc -p tsconfig.json, dist/ that the CLI tests run) and the
 * type check of the tests (tsc -p tsconfig.test.json) at once, each on a core of its own: the
 * second does not wait for the first (about 7 s of a 2-core machine's wall time). Their output is
 * printed as each ends; the exit code is the first failure's (0 when both pass). The second is
 * scripts/typecheck-tests.mjs: `tsc -p tsconfig.test.json` through the compiler's own command line,
 * which also hands its program's unused exports to test/unused-exports.test.ts (a third program
 * of the same files, 15-17 CPU s, not built again).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const tests = fileURLToPath(new URL('typecheck-tests.mjs', import.meta.url));
const run = (config) =>
  new Promise((resolve) => {
    const argv = config === 'tsconfig.test.json' ? [tests] : [tsc, '-p', config];
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', (e) => resolve({ config, code: 1, out: `${out}${e.message}\n` }));
    child.on('close', (code, signal) => resolve({ config, code: code ?? (signal ? 1 : 0), out }));
  });

let status = 0;
await Promise.all(
  ['tsconfig.json', 'tsconfig.test.json'].map((c) =>
    run(c).then(({ config, code, out }) => {
      if (out) process.stdout.write(out);
      if (code !== 0) {
        console.error(`tsc -p ${config} failed (exit ${code})`);
        status ||= code;
      }
    }),
  ),
);
process.exit(status);
