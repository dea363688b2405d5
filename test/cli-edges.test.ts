/**
 * Small CLI edges (issue 15), each once broken: bare `meshdoctor`, `explain --help` offering -A,
 * `explain rs/...`, a workload looked for in the wrong namespace, `--only md1001`, the kubectl
 * plugin's name in its help, a --suppress that matches nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { FIXTURES } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const GOLDEN = join(FIXTURES, 'golden-cluster.yaml');

describe('CLI edges', () => {
  it('bare meshdoctor prints the help on stdout and exits 0, as kubectl does', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: meshdoctor \[options\] \[command\]/);
    expect(r.stderr).toBe('');
  });

  it('explain offers no -A (it takes one workload) and refuses it as an unknown option', async () => {
    const help = await runCli(['explain', '--help']);
    expect(help.stdout).not.toMatch(/-A, --all-namespaces/);
    const r = await runCli(['explain', 'deploy/web', '-A', '--snapshot', GOLDEN]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('explain rs/NAME explains the Deployment whose template decides', async () => {
    const r = await runCli(['explain', 'rs/web-5b7c9d8f4', '-n', 'shop', '--snapshot', GOLDEN, '-o', 'json']);
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e.workload).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'web' });
    expect(e.via).toBe('replicaset web-5b7c9d8f4 belongs to Deployment web: its template decides');
  });

  it('a workload in another namespace: the error says where it is', async () => {
    const r = await runCli(['explain', 'deploy/web', '-n', 'default', '--snapshot', GOLDEN]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'meshdoctor: deployment "web" not found in namespace "default"; it exists in namespace "shop" (use -n shop)\n',
    );
  });

  it('--only and --skip take codes in any case', async () => {
    const r = JSON.parse(
      (await runCli(['check', '-A', '--snapshot', GOLDEN, '--only', 'md1001,Md1002', '-o', 'json'])).stdout,
    );
    expect(r.summary.checksRun).toBe(2);
    expect((await runCli(['check', '-A', '--snapshot', GOLDEN, '--only', 'md9999'])).code).toBe(2);
  });

  it('a --suppress that matches no finding is named on stderr (stdout stays the report)', async () => {
    const r = await runCli([
      'check',
      '-A',
      '--snapshot',
      GOLDEN,
      '-o',
      'json',
      '--suppress',
      'pod-opted-out=Deployment/nope/x',
      '--suppress',
      'pod-opted-out=Deployment/shop/cart',
    ]);
    expect(r.stderr).toBe('meshdoctor: --suppress pod-opted-out=Deployment/nope/x matched no finding\n');
    expect(JSON.parse(r.stdout).summary.suppressed).toBe(1);
  });

  it.skipIf(!existsSync(join(ROOT, 'dist/cli.js')))(
    'through kubectl-meshdoctor the help says `kubectl meshdoctor`',
    async () => {
      const { stdout } = await promisify(execFile)(process.execPath, [
        join(ROOT, 'bin/kubectl-meshdoctor.js'),
        '--help',
      ]);
      expect(stdout).toMatch(/^Usage: kubectl meshdoctor \[options\] \[command\]/);
      const direct = await promisify(execFile)(process.execPath, [join(ROOT, 'bin/meshdoctor.js'), '--help']);
      expect(direct.stdout).toMatch(/^Usage: meshdoctor \[options\] \[command\]/);
    },
  );
});

describe('check documentation without the network', () => {
  it('meshdoctor checks ID prints the shipped doc of every check (by id or code)', async () => {
    const { CHECKS } = await import('../src/checks/index.js');
    for (const c of CHECKS) {
      const r = await runCli(['checks', c.id]);
      expect(r.code, c.id).toBe(0);
      expect(r.stdout.startsWith(`# ${c.id} (${c.code}, `), c.id).toBe(true);
    }
    expect((await runCli(['checks', 'md1002'])).stdout).toMatch(/^# pod-opted-out \(MD1002/);
    const unknown = await runCli(['checks', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('meshdoctor: unknown check "nope" (see: meshdoctor checks)\n');
  });

  it('meshdoctor checks ID says which releases of each mesh the rule applies to, from the release tables', async () => {
    const { PROFILE_LIST } = await import('../src/mesh/registry.js');
    const rbac = await runCli(['checks', 'injector-rbac-missing']);
    expect(rbac.stdout).toContain("## Releases (generated from each mesh's release table");
    for (const p of PROFILE_LIST) {
      const t = p.versions!.releases!;
      expect(rbac.stdout).toContain(`${p.title}: ${t.order[0]} to ${t.order[t.order.length - 1]}`);
      // Every row of the table, by its release range and source.
      for (const r of t.rows)
        expect(rbac.stdout).toContain(
          `  - ${r.to === undefined ? `${r.from} and later` : r.from === r.to ? r.from : `${r.from} to ${r.to}`}: `,
        );
    }
    // consul-k8s 0.x: no cluster-wide permission judged (a data row), in text and in JSON.
    expect(rbac.stdout).toContain('  - 0.2 to 0.9: none judged, the injector needs no cluster-wide permission');
    const json = JSON.parse((await runCli(['checks', 'injector-rbac-missing', '-o', 'json'])).stdout);
    expect(json.releases.map((r: { mesh: string }) => r.mesh)).toEqual(PROFILE_LIST.map((p) => p.title));
    // A rule that does not differ by release: only the covered releases.
    const missing = JSON.parse((await runCli(['checks', 'webhook-missing', '-o', 'json'])).stdout);
    for (const r of missing.releases) expect(r.lines).toHaveLength(1);
    // A change in the data shows in the output: the containers of consul-k8s 0.24, from its row.
    expect((await runCli(['checks', 'sidecar-missing'])).stdout).toContain(
      '0.24 to 0.25: injects envoy-sidecar (proxy)',
    );
  });
});

describe('a snapshot report says when the snapshot was read', () => {
  it('in the table header and the markdown footer', async () => {
    const demo = join(ROOT, 'demo/cluster.json');
    const t = await runCli(['check', '-A', '--snapshot', demo, '--fail-on', 'none'], { env: { COLUMNS: '300' } });
    expect(t.stdout.split('\n')[0]).toMatch(
      /snapshot .*demo\/cluster\.json \(read \d{4}-\d\d-\d\dT[\d:.]+Z; ages are from then\)/,
    );
    const md = await runCli(['check', '-A', '--snapshot', demo, '--fail-on', 'none', '-o', 'markdown']);
    expect(md.stdout).toMatch(/snapshot read \d{4}-\d\d-\d\dT/);
  });
});

describe('docs links only where they resolve', () => {
  it('no docsUrl or SARIF helpUri unless MESHDOCTOR_DOCS_URL says where the pages are published', async () => {
    const args = ['check', '-A', '--snapshot', GOLDEN, '--only', 'pod-opted-out'];
    const plain = JSON.parse((await runCli([...args, '-o', 'json'])).stdout);
    expect(plain.findings.length).toBeGreaterThan(0);
    for (const f of plain.findings) expect(f.docsUrl).toBeUndefined();
    const sarif = JSON.parse((await runCli([...args, '-o', 'sarif'])).stdout);
    expect(JSON.stringify(sarif)).not.toMatch(/helpUri|informationUri|github\.com\/meshdoctor/);
    const md = (await runCli([...args, '-o', 'markdown'])).stdout;
    expect(md).toContain('About pod-opted-out: `meshdoctor checks pod-opted-out`');

    const env = { MESHDOCTOR_DOCS_URL: 'https://git.example.com/meshdoctor/blob/main/docs/checks/' };
    const linked = JSON.parse((await runCli([...args, '-o', 'json'], { env })).stdout);
    expect(linked.findings[0].docsUrl).toBe(
      'https://git.example.com/meshdoctor/blob/main/docs/checks/pod-opted-out.md',
    );
    const s2 = JSON.parse((await runCli([...args, '-o', 'sarif'], { env })).stdout);
    expect(s2.runs[0].tool.driver.rules[0].helpUri).toBe(
      'https://git.example.com/meshdoctor/blob/main/docs/checks/pod-opted-out.md',
    );

    const bad = await runCli([...args], { env: { MESHDOCTOR_DOCS_URL: 'javascript:alert(1)' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('meshdoctor: MESHDOCTOR_DOCS_URL must be an http(s) URL, not "javascript:alert(1)"\n');
  });
});

describe('a kubectl dump that leaves out a kind is not an all-clear', () => {
  it('no MutatingWebhookConfiguration in the dump: incomplete, never "webhook missing" (found by a review)', async () => {
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-dump-'));
    const own = readFileSync(join(ROOT, 'demo/cluster.json'), 'utf8');
    const { loadSnapshot } = await import('../src/run/read.js');
    const snap = await loadSnapshot([join(ROOT, 'demo/cluster.json')]);
    const items = Object.entries(snap.objects).flatMap(([k, list]) =>
      k === 'mutatingwebhookconfigurations' ? [] : (list ?? []),
    );
    expect(own.length).toBeGreaterThan(0);
    const dump = join(dir, 'dump.json');
    writeFileSync(dump, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const r = await runCli(['check', '-A', '--snapshot', dump, '-o', 'json']);
    const report = JSON.parse(r.stdout);
    expect(report.findings.map((f: any) => f.id)).not.toContain('webhook-missing');
    expect(report.coverage.complete).toBe(false);
    expect(report.coverage.unavailable.map((u: any) => u.kind)).toContain('mutatingwebhookconfigurations');
    expect(r.code).toBe(1); // the other findings still decide

    const onlyNs = join(dir, 'ns.yaml');
    writeFileSync(
      onlyNs,
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, annotations: {linkerd.io/inject: enabled}}\n',
    );
    const lone = await runCli(['check', '-A', '--snapshot', onlyNs]);
    expect(lone.code).toBe(3);
    expect(lone.stdout).not.toContain('No findings');
  });
});
