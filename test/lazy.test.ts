/**
 * Startup stays cheap: --help, --version, checks, --snapshot runs and live runs with static
 * credentials or exec plugins (run natively, bounded) never load the Kubernetes client (~0.6 s);
 * only auth providers and proxies need it. Runs the built CLI (npm test builds first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
    execFileSync(process.execPath, ['--import', PRELOAD, BIN, ...args], {
      env: { ...process.env, TRACE_IMPORTS_FILE: file },
      stdio: 'pipe',
    });
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
    // The trace works; --version alone loads its one module, not the CLI (bin/meshdoctor.js).
    expect(trace).toContain(name === 'version' ? 'cli/version.js' : 'cli.js');
    expect(trace).not.toContain('@kubernetes/client-node');
    if (name === 'version') expect(trace).not.toMatch(/yaml|chalk|commander|dist\/cli\.js/);
  });

  it('checks and completion list the checks from the catalog alone: no check, model or mesh profile is loaded', () => {
    for (const [name, args] of [
      ['checks-list', ['checks']],
      ['checks-json', ['checks', '-o', 'json']],
      ['completion', ['completion', 'bash']],
    ] as const) {
      const trace = imports([...args], name);
      expect(trace, name).toContain('catalog.js');
      expect(trace, name).not.toMatch(/model\.js|registry\.js|checks\/index\.js|mesh\/(?!names\.js)/);
    }
  });

  it('a live run with static credentials does not either, nor one with an exec plugin (run natively)', async () => {
    const server = await startApiServer({ objects: [] });
    try {
      const kubeconfig = await server.writeKubeconfig(tmp);
      // The exec plugin prints the server's token as an ExecCredential (kubectl's protocol).
      const plugin = join(tmp, 'token-plugin.mjs');
      writeFileSync(
        plugin,
        `console.log(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: ${JSON.stringify(server.token)} } }))`,
      );
      const execConfig = join(tmp, 'exec.yaml');
      writeFileSync(
        execConfig,
        readFileSync(kubeconfig, 'utf8').replace(
          /token: \S+/,
          `exec: {apiVersion: client.authentication.k8s.io/v1, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(plugin)}], interactiveMode: Never}`,
        ),
      );
      // execFileSync would block the in-process server: run the children asynchronously.
      const { execFile } = await import('node:child_process');
      const run = (config: string, file: string) =>
        new Promise<string>((resolve) =>
          execFile(
            process.execPath,
            ['--import', PRELOAD, BIN, 'check', '-A', '--kubeconfig', config, '-o', 'json'],
            { env: { ...process.env, TRACE_IMPORTS_FILE: file } },
            (_e, stdout) => resolve(stdout),
          ),
        );
      const staticOut = await run(kubeconfig, join(tmp, 'live-static.txt'));
      expect(JSON.parse(staticOut).source.type).toBe('live');
      expect(readFileSync(join(tmp, 'live-static.txt'), 'utf8')).not.toContain('@kubernetes/client-node');
      const execOut = await run(execConfig, join(tmp, 'live-exec.txt'));
      expect(JSON.parse(execOut).source.type).toBe('live'); // the exec plugin's token was accepted
      expect(readFileSync(join(tmp, 'live-exec.txt'), 'utf8')).not.toContain('@kubernetes/client-node');
    } finally {
      await server.close();
    }
  });
});
