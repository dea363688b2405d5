/**
 * `check -n NS` (issue 35 item 2): another mesh's broken control plane is not the namespace's
 * problem. For a namespace of each mesh, beside another mesh whose injector is down (the check
 * fixtures), the run exits 0 on a healthy namespace and says what it left out on one line
 * ("elsewhere: ...", and `elsewhere` in JSON, schema-valid); the broken mesh's own namespaces
 * still fail. -A is unchanged.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { NOW, baseObjects, fixtureObjects, overlay, snapshotFrom, type Base } from './helpers/fixtures.js';
import { snapshotText } from '../src/cluster/snapshot-file.js';

const ROOT = join(import.meta.dirname, '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8'));
const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false }).compile(schema);
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-scope-'));

const LINKERD_DOWN = 'checks/injector-unavailable/fires-linkerd-crashloop.yaml';
const ISTIO_DOWN = 'checks/injector-unavailable/fires-istio-scaled-zero.yaml';

function snapshotFile(name: string, base: Base, layer: string): string {
  const snap = snapshotFrom(overlay(baseObjects(base), fixtureObjects(layer)));
  snap.source.readAt = NOW.toISOString();
  const p = join(tmp, `${name}.json`);
  writeFileSync(p, [...snapshotText(snap)].join(''));
  return p;
}

// [a namespace of the healthy mesh, the base, the broken other mesh, its checks that fire, a namespace of the broken mesh]
const CASES: [string, Base, string, string, string][] = [
  ['store', 'both', LINKERD_DOWN, 'linkerd', 'shop'],
  ['shop', 'both', ISTIO_DOWN, 'istio', 'store'],
  ['orders', 'linkerd+kuma', LINKERD_DOWN, 'linkerd', 'shop'],
  ['catalog', 'istio+consul', ISTIO_DOWN, 'istio', 'store'],
];

describe('check -n: another mesh broken beside the namespace', () => {
  for (const [ns, base, layer, broken, brokenNs] of CASES) {
    it(`-n ${ns} (${base}, ${broken} injector down): exit 0, one elsewhere line; -n ${brokenNs}: exit 1`, async () => {
      const file = snapshotFile(`${ns}-${base}`, base, layer);
      const all = await runCli(['check', '-A', '--snapshot', file, '-o', 'json']);
      expect(all.code).toBe(1);
      const allIds = JSON.parse(all.stdout).findings.filter((f: any) => f.mesh === broken && f.severity === 'error');
      expect(allIds.length).toBeGreaterThan(0);
      expect(JSON.parse(all.stdout).elsewhere).toBeUndefined();

      const r = await runCli(['check', '-n', ns, '--snapshot', file], { env: { COLUMNS: '400' } });
      expect(r.code, r.stdout).toBe(0);
      const lines = r.stdout.split('\n').filter((l) => l.startsWith('elsewhere:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^elsewhere: \\d+ errors? .*\\(${broken}\\), not about namespace ${ns}: .*injector-unavailable`),
      );
      expect(r.stdout).not.toMatch(/^ERROR /m);

      const j = await runCli(['check', '-n', ns, '--snapshot', file, '-o', 'json']);
      expect(j.code).toBe(0);
      const doc = JSON.parse(j.stdout);
      expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
      expect(doc.findings.filter((f: any) => f.mesh === broken)).toEqual([]);
      expect(doc.elsewhere).toMatchObject({ namespace: ns, meshes: [broken], error: allIds.length });
      expect(doc.elsewhere.findings.map((f: any) => f.id)).toContain('injector-unavailable');

      // The broken mesh's own namespace (and its control plane's) still fails on it, with nothing elsewhere.
      for (const own of [brokenNs]) {
        const b = await runCli(['check', '-n', own, '--snapshot', file, '-o', 'json']);
        expect(b.code).toBe(1);
        const bd = JSON.parse(b.stdout);
        expect(bd.findings.map((f: any) => f.id)).toContain('injector-unavailable');
        expect(bd.elsewhere).toBeUndefined();
      }
    });
  }

  it('-n default and -n kube-system beside a broken Linkerd: exit 0, the errors said elsewhere; -n linkerd: exit 1', async () => {
    const file = snapshotFile('default', 'both', LINKERD_DOWN);
    for (const ns of ['default', 'kube-system']) {
      const r = await runCli(['check', '-n', ns, '--snapshot', file], { env: { COLUMNS: '400' } });
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^elsewhere: .*\\(linkerd\\), not about namespace ${ns}:`, 'm'));
    }
    const cp = await runCli(['check', '-n', 'linkerd', '--snapshot', file, '-o', 'json']);
    expect(cp.code).toBe(1);
    expect(JSON.parse(cp.stdout).elsewhere).toBeUndefined();
  });

  it('markdown says the elsewhere line too; --fail-on none and the exit code ignore it', async () => {
    const file = snapshotFile('md', 'both', LINKERD_DOWN);
    const r = await runCli(['check', '-n', 'store', '--snapshot', file, '-o', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^elsewhere: .*\(linkerd\), not about namespace store:/m);
  });
});
