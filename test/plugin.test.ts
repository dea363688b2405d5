/**
 * `kubectl meshdoctor ...` through the REAL kubectl: kubectl finds `kubectl-meshdoctor` on PATH and
 * passes every argument after the plugin name through unchanged, so --context, --kubeconfig, -n
 * and -A reach meshdoctor. Skipped when kubectl is not installed. Uses dist/ (npm test builds it).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { baseObjects, fixtureObjects, overlay } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));
const hasKubectl = onPath('kubectl');

// The child talks to the in-process API server, so it must run asynchronously (not execFileSync).
const run = promisify(execFile);
async function kubectl(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run('kubectl', args, { env, timeout: 30000 });
    return { code: 0, stdout, stderr };
  } catch (e: any) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string };
  }
}

describe.skipIf(!hasKubectl)('kubectl plugin (kubectl-meshdoctor, real kubectl)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-plugin-'));
  const pluginDir = join(tmp, 'bin');
  // An empty HOME: no user kubeconfig or kubectl plugin settings leak in.
  let env: NodeJS.ProcessEnv;
  let server: ApiServer;
  let kubeconfig: string;

  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'dist/cli.js')), 'run `npx tsc -p .` first').toBe(true);
    mkdirSync(pluginDir);
    symlinkSync(join(ROOT, 'bin/kubectl-meshdoctor.js'), join(pluginDir, 'kubectl-meshdoctor'));
    env = { PATH: `${pluginDir}${delimiter}${process.env.PATH}`, HOME: tmp };
    server = await startApiServer({
      objects: overlay(baseObjects('linkerd'), fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml')),
    });
    kubeconfig = await server.writeKubeconfig(tmp);
  });
  afterAll(() => server?.close());

  it('`kubectl plugin list` shows it', async () => {
    const r = await kubectl(['plugin', 'list'], env);
    expect(r.stdout).toContain(join(pluginDir, 'kubectl-meshdoctor'));
  });

  it('`kubectl meshdoctor --version` prints the version', async () => {
    const r = await kubectl(['meshdoctor', '--version'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });

  it('`kubectl meshdoctor check -A --snapshot ...` runs offline', async () => {
    const r = await kubectl(
      ['meshdoctor', 'check', '-A', '--snapshot', join(ROOT, 'test/fixtures/healthy/linkerd.yaml'), '-o', 'json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.scope).toEqual({ allNamespaces: true });
    expect(report.findings).toEqual([]);
  });

  it('--kubeconfig, --context and -n after the plugin name reach meshdoctor (live, test API server)', async () => {
    server.requests.length = 0;
    const r = await kubectl(
      ['meshdoctor', 'check', '--kubeconfig', kubeconfig, '--context', 'fake', '-n', 'shop', '-o', 'json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.source).toMatchObject({ type: 'live', context: 'fake', server: server.url });
    expect(report.scope).toEqual({ allNamespaces: false, namespace: 'shop' });
    expect(report.findings.map((f: any) => `${f.id} ${f.resource.namespace}/${f.resource.name}`)).toEqual([
      'pod-opted-out shop/cart',
    ]);
    expect(server.requests.some((q) => q.path.startsWith('/api/v1/namespaces/shop/'))).toBe(true);
  });

  it("an unknown context: kubectl passes meshdoctor's exit code 2 and one-line error through", async () => {
    const r = await kubectl(
      ['meshdoctor', 'check', '--kubeconfig', kubeconfig, '--context', 'nope', '-o', 'json'],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^meshdoctor: context "nope" not found in kubeconfig \(contexts: [^)]+\)\n$/);
  });
});
