/**
 * Hostile input, round 3 (issue 36, classes 7-13): each `describe` is one class of input, tested as
 * a class (every path that input takes), not as the one instance that was reported.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-hostile-input-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The real entry point (run(): process.stdin, process.exit codes) in a child process under tsx. */
const ENTRY = join(tmp, 'entry.mjs');
writeFileSync(ENTRY, `import(${JSON.stringify(join(ROOT, 'src/cli.ts'))}).then((c) => c.run());\n`);

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * The CLI with a stdin pipe this test keeps open (as `kubectl get -w |` or an inherited pipe
 * does), after writing `input` to it. `killAfter` only ends a hang: the assertions are on what the
 * CLI did by itself.
 */
function withOpenStdin(args: string[], input: string, killAfter = 20_000): Promise<Spawned> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {}); // the CLI may close its end first
    child.stdin.write(input);
    const kill = setTimeout(() => child.kill('SIGKILL'), killAfter);
    child.on('close', (code) => {
      clearTimeout(kill);
      child.stdin.destroy();
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe('class 7: a stdin that stays open ends at --timeout', () => {
  const half = '{"apiVersion":"v1","kind":"List","items":[';
  const cases: [string, string[], string][] = [
    ['check --snapshot - (nothing written)', ['check', '--snapshot', '-'], ''],
    ['check --snapshot - (half a document)', ['check', '--snapshot', '-'], half],
    ['check -f - (nothing written)', ['check', '-f', '-'], ''],
    [
      'check -f - with --snapshot FILE',
      ['check', '-f', '-', '--snapshot', join(FIXTURES, 'healthy/linkerd.yaml')],
      half,
    ],
    ['explain --snapshot -', ['explain', 'deployment/web', '--snapshot', '-'], ''],
  ];
  it.each(cases)('%s: exit 2 and one line at the deadline', async (_, args, input) => {
    const r = await withOpenStdin([...args, '--timeout', '2'], input);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('meshdoctor: reading stdin took longer than the --timeout of 2s\n');
    expect(r.ms).toBeLessThan(15_000);
  });
});
