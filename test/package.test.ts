/**
 * The published package works on a clean machine: `npm pack` (prepack builds dist/) ships only
 * what runs, and the tarball installed into an empty project runs both executables. The install
 * fetches the dependencies from the npm registry, so this is slow (and needs the network).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-pack-'));
const app = join(tmp, 'app');
// npm prints warnings (and lifecycle banners) besides --json output: take the JSON array only.
const jsonArray = (s: string) => JSON.parse(s.slice(s.search(/^\[/m)));

let files: string[] = [];
let tarball = '';

describe('npm pack → npm install → run', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const packed = await run('npm', ['pack', '--pack-destination', tmp, '--json'], { cwd: ROOT, maxBuffer: 1 << 24 });
    const [info] = jsonArray(packed.stdout);
    files = info.files.map((f: { path: string }) => f.path);
    tarball = join(tmp, info.filename);
    mkdirSync(app);
    await run('npm', ['init', '-y'], { cwd: app });
    await run('npm', ['install', tarball, '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 1 << 24 });
  }, 180_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('ships the runtime only: bin, dist, schema, docs, deploy, README; no sources or tests', () => {
    expect(existsSync(tarball)).toBe(true);
    const top = new Set(files.map((f) => f.split('/')[0]));
    expect([...top].sort()).toEqual(['README.md', 'bin', 'deploy', 'dist', 'docs', 'package.json', 'schema']);
    expect(files.filter((f) => /^(test|src|bench|demo|scripts)\//.test(f) || f.endsWith('.ts'))).toEqual([]);
    for (const f of [
      'bin/meshdoctor.js',
      'bin/kubectl-meshdoctor.js',
      'dist/cli.js',
      'dist/checks/index.js',
      'schema/report.schema.json',
      'deploy/rbac.yaml',
      'deploy/cronjob.yaml',
    ]) {
      expect(files).toContain(f);
    }
  });

  it('engines says what it needs (node >= 20)', () => {
    expect(pkg.engines.node).toBe('>=20.0.0');
    expect(pkg.scripts.prepack).toBe('npm run build');
  });

  it('`npx meshdoctor --version` in a fresh project', async () => {
    const r = await run('npx', ['--no-install', 'meshdoctor', '--version'], { cwd: app });
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('`npx meshdoctor check --snapshot ...` in a fresh project: exit 0, valid JSON, no findings', async () => {
    const r = await run('npx', ['--no-install', 'meshdoctor', 'check', '-A', '--snapshot', join(ROOT, 'test/fixtures/healthy/linkerd.yaml'), '-o', 'json'], {
      cwd: app,
    });
    const report = JSON.parse(r.stdout); // execFile rejects on a non-zero exit
    expect(report.tool).toEqual({ name: 'meshdoctor', version: pkg.version });
    expect(report.meshes).toEqual(['linkerd']);
    expect(report.findings).toEqual([]);
  });

  it('the kubectl plugin executable is installed too', async () => {
    const bin = join(app, 'node_modules/.bin/kubectl-meshdoctor');
    expect(existsSync(bin)).toBe(true);
    const r = await run(bin, ['--version'], { cwd: app });
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});
