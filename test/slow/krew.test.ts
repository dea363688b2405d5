/**
 * The Krew release (scripts/krew.mjs): the manifest passes Krew's own validation rules
 * (kubernetes-sigs/krew pkg/index/validation/validate.go @a6a42b0d, restated below), names the
 * archive by its sha256, and the archive installed as Krew installs it (internal/installation/move.go
 * @6e7a20d1: each match of a `files` glob moved into the install directory, `bin` linked as
 * kubectl-meshdoctor) runs as a kubectl plugin, completion included. Krew itself is not run: it
 * is not installed here, and it would download the uri.
 *
 * No network by default: npm installs the runtime dependencies from its cache; when it lacks one,
 * the tests are skipped, saying so (MESHDOCTOR_TEST_NETWORK=1 lets npm fetch it).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NETWORK = process.env.MESHDOCTOR_TEST_NETWORK === '1';
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-krew-test-'));
const out = join(tmp, 'out');
const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));

let manifest: any;
let skipped: string | undefined;

function build(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts/krew.mjs'), ...args],
      { cwd: tmp, env: { ...process.env, ...(NETWORK ? {} : { npm_config_offline: 'true' }) }, timeout: 600_000 },
      (err, _o, stderr) =>
        resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0, stderr }),
    );
  });
}

describe('the Krew plugin: manifest and archive (scripts/krew.mjs)', { timeout: 600_000 }, () => {
  beforeAll(async () => {
    const r = await build(['--base-url', 'https://example.org/meshdoctor/releases/v1', '--out', out]);
    if (r.code !== 0 && !NETWORK && /ENOTCACHED/.test(r.stderr)) {
      skipped = "npm's cache lacks a runtime dependency; set MESHDOCTOR_TEST_NETWORK=1 to fetch it";
      console.warn(`krew.test.ts: not verified: ${skipped}`);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    manifest = YAML.parse(readFileSync(join(out, 'meshdoctor.yaml'), 'utf8'));
  }, 600_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('without an https base URL: usage on stderr, exit 2', async () => {
    const r = await build(['--base-url', 'http://example.org']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usage: node scripts\/krew\.mjs --base-url https:/);
  });

  it("passes Krew's validation: apiVersion, kind, name, descriptions, semver version, platforms", (ctx) => {
    if (skipped) ctx.skip(skipped);
    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    expect(manifest.metadata.name).toMatch(/^[\w-]+$/);
    expect(manifest.metadata.name).toBe('meshdoctor'); // kubectl-meshdoctor, the plugin's executable
    expect(manifest.spec.shortDescription.length).toBeGreaterThan(0);
    expect(manifest.spec.version).toBe(`v${pkg.version}`);
    expect(manifest.spec.version).toMatch(/^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(manifest.spec.platforms.length).toBeGreaterThan(0);
    for (const p of manifest.spec.platforms) {
      expect(p.uri).toMatch(/^https:\/\//);
      expect(p.sha256).toMatch(/^[a-f0-9]{64}$/);
      expect(p.bin).toBeTruthy();
      for (const f of p.files ?? []) expect(f.from && f.to).toBeTruthy();
      const sel = p.selector;
      const keys = [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((e: any) => e.key)];
      expect(keys.length).toBeGreaterThan(0);
      for (const k of keys) expect(['os', 'arch']).toContain(k);
    }
  });

  it('names the archive it wrote, by file name and sha256', (ctx) => {
    if (skipped) ctx.skip(skipped);
    const [p] = manifest.spec.platforms;
    const file = join(out, p.uri.slice(p.uri.lastIndexOf('/') + 1));
    expect(p.uri).toBe(`https://example.org/meshdoctor/releases/v1/meshdoctor-v${pkg.version}.tar.gz`);
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(p.sha256);
  });

  it('installed as Krew installs it, kubectl meshdoctor runs (and completes, once linked as the caveats say)', async (ctx) => {
    if (skipped) ctx.skip(skipped);
    const [p] = manifest.spec.platforms;
    const extracted = join(tmp, 'extracted');
    const install = join(tmp, 'krew', 'store', 'meshdoctor', manifest.spec.version);
    const bin = join(tmp, 'krew', 'bin');
    mkdirSync(extracted);
    mkdirSync(install, { recursive: true });
    mkdirSync(bin, { recursive: true });
    execFileSync('tar', ['-xzf', join(out, p.uri.slice(p.uri.lastIndexOf('/') + 1)), '-C', extracted]);
    // Each file operation: the glob's matches (one level, as filepath.Glob) moved into install/to.
    for (const f of p.files) {
      const [dir, pattern] = [f.from.slice(0, f.from.lastIndexOf('/')), f.from.slice(f.from.lastIndexOf('/') + 1)];
      expect(pattern).toBe('*');
      for (const name of readdirSync(join(extracted, dir)))
        renameSync(join(extracted, dir, name), join(install, f.to, name));
    }
    const target = join(install, p.bin);
    expect(statSync(target).mode & 0o111).not.toBe(0); // executable
    symlinkSync(target, join(bin, 'kubectl-meshdoctor'));
    // Only what the archive holds: no node_modules of this checkout is reachable from there.
    expect(existsSync(join(install, 'node_modules', 'commander'))).toBe(true);
    expect(existsSync(join(install, 'node_modules', '@kubernetes', 'client-node'))).toBe(false);
    // The caveats' link for kubectl's completion of the plugin.
    const caveat =
      /ln -s "\$\{KREW_ROOT:-\$HOME\/\.krew\}\/store\/meshdoctor\/[^/]+\/(bin\/kubectl_complete-meshdoctor\.js)"/.exec(
        manifest.spec.caveats,
      );
    expect(caveat).not.toBeNull();
    symlinkSync(join(install, caveat![1]!), join(bin, 'kubectl_complete-meshdoctor'));

    const env = { PATH: `${bin}${delimiter}${process.env.PATH}`, HOME: tmp };
    const kubectl = onPath('kubectl');
    const run = (args: string[]) =>
      kubectl
        ? execFileSync('kubectl', ['meshdoctor', ...args], { env, encoding: 'utf8' })
        : execFileSync(join(bin, 'kubectl-meshdoctor'), args, { env, encoding: 'utf8' });
    expect(run(['--version']).trim()).toBe(pkg.version);
    const report = JSON.parse(
      run(['check', '-A', '--snapshot', join(ROOT, 'demo/cluster.json'), '-o', 'json', '--fail-on', 'none']),
    );
    expect(report.findings.length).toBeGreaterThan(0);
    if (kubectl) {
      const comp = execFileSync('kubectl', ['__complete', 'meshdoctor', 'ch'], {
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      expect(comp.split('\n').filter(Boolean)).toEqual(['check', 'checks', ':4']);
    }
  });
});
