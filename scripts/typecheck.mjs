#!/usr/bin/env node
/**
 * `npm test`'s first step: the build (tsc -p tsconfig.json, dist/ that the CLI tests run) and the
 * type check of the tests (tsc -p tsconfig.test.json) at once, each on a core of its own: the
 * second does not wait for the first (about 7 s of a 2-core machine's wall time). Their output is
 * printed as each ends; the exit code is the first failure's (0 when both pass).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (config) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '-p', config], { stdio: ['ignore', 'pipe', 'pipe'] });
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
