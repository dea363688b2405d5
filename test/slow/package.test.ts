/**
 * The published package works on a clean machine: `npm pack` (prepack builds dist/) ships only
 * what runs, and the tarball installed into an empty project runs both executables.
 *
 * No network by default: the dependencies are installed from npm's cache (`npm install
 * --offline`, filled when this project was installed). Where the cache lacks one, the tests that
 * run the installed package are skipped, saying so. MESHDOCTOR_TEST_NETWORK=1 (.ci/run sets it)
 * lets npm fetch what the cache lacks from the registry, and then they always run.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-pack-'));
const app = join(tmp, 'app');
// npm prints warnings (and lifecycle banners) besides --json output: take the JSON array only.
const jsonArray = (s: string) => JSON.parse(s.slice(s.search(/^\[/m)));

let files: string[] = [];
let tarball = '';
const NETWORK = process.env.MESHDOCTOR_TEST_NETWORK === '1';
/** Why the tarball is not installed (only ever: offline, npm's cache lacks a dependency). */
let notInstalled: string | undefined;

describe('npm pack → npm install → run', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const packed = await run('npm', ['pack', '--pack-destination', tmp, '--json'], { cwd: ROOT, maxBuffer: 1 << 24 });
    const [info] = jsonArray(packed.stdout);
    files = info.files.map((f: { path: string }) => f.path);
    tarball = join(tmp, info.filename);
    mkdirSync(app);
    await run('npm', ['init', '-y'], { cwd: app });
    try {
      await run('npm', ['install', tarball, '--no-audit', '--no-fund', NETWORK ? '--prefer-offline' : '--offline'], {
        cwd: app,
        maxBuffer: 1 << 24,
      });
    } catch (e) {
      const stderr = String((e as { stderr?: unknown }).stderr ?? '');
      if (NETWORK || !/ENOTCACHED/.test(stderr)) throw e;
      notInstalled = `npm's cache lacks a dependency (${stderr.match(/request to (\S+)/)?.[1] ?? 'ENOTCACHED'}); set MESHDOCTOR_TEST_NETWORK=1 to fetch it`;
      console.warn(`package.test.ts: the installed package is not run: ${notInstalled}`);
    }
  }, 180_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('ships the runtime only: bin, dist, schema, docs, deploy, README, LICENSE; no sources or tests', () => {
    expect(existsSync(tarball)).toBe(true);
    const top = new Set(files.map((f) => f.split('/')[0]));
    expect([...top].sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'deploy',
      'dist',
      'docs',
      'package.json',
      'schema',
    ]);
    expect(files.filter((f) => /^(test|src|bench|demo|scripts)\//.test(f) || f.endsWith('.ts'))).toEqual([]);
    for (const f of [
      'bin/meshdoctor.js',
      'bin/kubectl-meshdoctor.js',
      'dist/cli.js',
      'dist/checks/index.js',
      'schema/report.schema.json',
      'schema/watch-event.schema.json',
      'schema/metrics.json',
      'schema/released/report.v2.schema.json',
      'deploy/rbac.yaml',
      'deploy/cronjob.yaml',
    ]) {
      expect(files).toContain(f);
    }
  });

  it('docs/install.md shows the tarball npm pack writes', () => {
    expect(readFileSync(join(ROOT, 'docs/install.md'), 'utf8')).toContain(
      `npm notice filename: ${tarball.slice(tarball.lastIndexOf('/') + 1)}\n`,
    );
  });

  it('engines says what it needs (node >= 20)', () => {
    expect(pkg.engines.node).toBe('>=20.0.0');
    expect(pkg.scripts.prepack).toBe('npm run build');
  });

  it('`npx meshdoctor --version` in a fresh project', async (ctx) => {
    if (notInstalled) return ctx.skip(notInstalled);
    const r = await run('npx', ['--no-install', 'meshdoctor', '--version'], { cwd: app });
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('`npx meshdoctor check --snapshot ...` in a fresh project: exit 0, valid JSON, no findings', async (ctx) => {
    if (notInstalled) return ctx.skip(notInstalled);
    const r = await run(
      'npx',
      [
        '--no-install',
        'meshdoctor',
        'check',
        '-A',
        '--snapshot',
        join(ROOT, 'test/fixtures/healthy/linkerd.yaml'),
        '-o',
        'json',
      ],
      {
        cwd: app,
      },
    );
    const report = JSON.parse(r.stdout); // execFile rejects on a non-zero exit
    expect(report.tool).toEqual({ name: 'meshdoctor', version: pkg.version });
    expect(report.meshes).toEqual(['linkerd']);
    expect(report.findings).toEqual([]);
  });

  it('the kubectl plugin executable is installed too', async (ctx) => {
    if (notInstalled) return ctx.skip(notInstalled);
    const bin = join(app, 'node_modules/.bin/kubectl-meshdoctor');
    expect(existsSync(bin)).toBe(true);
    const r = await run(bin, ['--version'], { cwd: app });
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});

describe('package metadata', () => {
  it('is open source: Apache-2.0 in package.json and the license text in LICENSE', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(text).toContain('END OF TERMS AND CONDITIONS');
    // The nine sections of the license and nothing added to them.
    const terms = text.slice(0, text.indexOf('END OF TERMS AND CONDITIONS'));
    expect([...terms.matchAll(/^ {3}(\d+)\. /gm)].map((m) => Number(m[1]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('describes what it is: every mesh meshdoctor knows is named', () => {
    for (const mesh of ['Linkerd', 'Istio', 'Kuma', 'Consul']) expect(pkg.description).toContain(mesh);
  });

  it('every runtime dependency is imported by the code it ships', () => {
    const code = [
      ...readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join('src', f)),
      'bin/meshdoctor.js',
      'bin/kubectl-meshdoctor.js',
    ]
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];
    expect(deps.length).toBeGreaterThan(0);
    for (const dep of deps) expect(code, dep).toMatch(new RegExp(`(from |import\\()'${dep.replace('/', '\\/')}['/]`));
  });
});
