/**
 * `@kubernetes/client-node` is an optional dependency: an install without it (`npm install
 * --omit=optional`) runs everything but the contexts that need it (auth providers other than gcp
 * and azure, socks proxies), and those stop with one line saying why. The built CLI is copied
 * beside a node_modules holding only the required dependencies, as such an install has it.
 * Runs the built CLI (npm test builds first).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { PATH: process.env.PATH, HOME: tmpdir() }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0, stdout, stderr });
      },
    );
  });
}

const kubeconfig = (user: object, cluster: object = {}) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'corp', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'corp',
  });

describe.skipIf(!existsSync(join(ROOT, 'dist/cli.js')))(
  'an install without the optional @kubernetes/client-node',
  () => {
    const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-optional-'));
    const bin = join(tmp, 'app/bin/meshdoctor.js');
    beforeAll(() => {
      const app = join(tmp, 'app');
      for (const d of ['bin', 'dist', 'schema', 'docs']) cpSync(join(ROOT, d), join(app, d), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(app, 'package.json'));
      mkdirSync(join(app, 'node_modules'));
      for (const dep of Object.keys(pkg.dependencies))
        symlinkSync(join(ROOT, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
      writeFileSync(
        join(tmp, 'oidc.json'),
        kubeconfig({ 'auth-provider': { name: 'oidc', config: { 'id-token': 'x', 'client-id': 'y' } } }),
      );
      writeFileSync(join(tmp, 'socks.json'), kubeconfig({ token: 't' }, { 'proxy-url': 'socks5://127.0.0.1:1' }));
      writeFileSync(join(tmp, 'token.json'), kubeconfig({ token: 't' }));
    });
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));

    it('is not a required dependency, and is an optional peer one (npm installs it only when asked)', () => {
      expect(Object.keys(pkg.dependencies)).not.toContain('@kubernetes/client-node');
      expect(Object.keys(pkg.peerDependencies)).toEqual(['@kubernetes/client-node']);
      expect(pkg.peerDependenciesMeta['@kubernetes/client-node']).toEqual({ optional: true });
      expect(existsSync(join(tmp, 'app/node_modules/@kubernetes'))).toBe(false);
    });

    it('runs offline checks as a full install does', async () => {
      const r = await run(bin, [
        'check',
        '-A',
        '--snapshot',
        join(ROOT, 'demo/cluster.json'),
        '-o',
        'json',
        '--fail-on',
        'none',
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).findings.length).toBeGreaterThan(0);
    });

    it('a context with a static token goes on to the server (which is not there): the client is not needed', async () => {
      const r = await run(bin, ['check', '-A', '--kubeconfig', join(tmp, 'token.json'), '--request-timeout', '5']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^meshdoctor: cannot (reach|read from) the API server at https:\/\/127\.0\.0\.1:1/);
    });

    it('an oidc auth provider: one line naming it, exit 2', async () => {
      const r = await run(bin, ['check', '-A', '--kubeconfig', join(tmp, 'oidc.json')]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'meshdoctor: context "corp" needs the optional package @kubernetes/client-node for its auth provider "oidc", and it is not installed: install it beside meshdoctor (npm install -g @kubernetes/client-node@~1.4.0 for a global install)\n',
      );
    });

    it('a socks5 proxy: one line naming it, exit 2', async () => {
      const r = await run(bin, ['check', '-A', '--kubeconfig', join(tmp, 'socks.json')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        'meshdoctor: context "corp" needs the optional package @kubernetes/client-node for its socks5 proxy, and it is not installed: install it beside meshdoctor (npm install -g @kubernetes/client-node@~1.4.0 for a global install)\n',
      );
    });
  },
);
