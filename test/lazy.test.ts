/**
 * Startup stays cheap: --help, --version, checks and --snapshot runs never load the Kubernetes
 * client (~0.6 s); a live run does. Runs the built CLI (npm test builds first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApiServer } from './apiserver/server.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/meshdoctor.js');
const PRELOAD = join(ROOT, 'test/helpers/trace-imports.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-lazy-'));

function imports(args: string[], name: string): string {
  const file = join(tmp, `${name}.txt`);
  try {
    execFileSync(process.execPath, ['--import', PRELOAD, BIN, ...args], { env: { ...process.env, TRACE_IMPORTS_FILE: file }, stdio: 'pipe' });
  } catch (e: any) {
    if (e.status !== 1) throw e; // 1 = findings
  }
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

describe.skipIf(!existsSync(join(ROOT, 'dist/cli.js')))('lazy loading of the Kubernetes client', () => {
  const snapshot = join(ROOT, 'test/fixtures/healthy/linkerd.yaml');
  it.each([
    ['version', ['--version']],
    ['help', ['--help']],
    ['checks', ['checks']],
    ['offline', ['check', '-A', '--snapshot', snapshot, '-o', 'json']],
  ])('%s does not import @kubernetes/client-node', (name, args) => {
    const trace = imports(args as string[], name as string);
    expect(trace).toContain('cli.js'); // the trace works
    expect(trace).not.toContain('@kubernetes/client-node');
    if (name === 'version') expect(trace).not.toMatch(/yaml|chalk|cli-table3/);
  });

  it('a live run does import it (the control for the test above)', async () => {
    const server = await startApiServer({ objects: [] });
    try {
      const kubeconfig = await server.writeKubeconfig(tmp);
      // execFileSync would block the in-process server: run the child asynchronously.
      const { execFile } = await import('node:child_process');
      const file = join(tmp, 'live.txt');
      await new Promise<void>((resolve) =>
        execFile(process.execPath, ['--import', PRELOAD, BIN, 'check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'], { env: { ...process.env, TRACE_IMPORTS_FILE: file } }, () => resolve()),
      );
      expect(readFileSync(file, 'utf8')).toContain('@kubernetes/client-node');
    } finally {
      await server.close();
    }
  });
});
