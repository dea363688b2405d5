/**
 * explain states nothing about what it did not read (issue "Hostile input, round 2", item 16).
 * Under a namespace-only Role it said "no linkerd injection webhook is installed", "namespace
 * marker: none" and "on restart: new pods get no proxy", exit 0: all false, it could not read them.
 *
 * The class: for every workload of several clusters, seen with kinds missing (forbidden
 * cluster-wide, not in a snapshot, refused in a mesh's namespace), each statement of the
 * explanation is either what reading everything says, or "not examined"; and the CLI prints
 * check's coverage and exits 3 (0 with --allow-partial).
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { meshNamespaces } from '../src/mesh/read-plan.js';
import { snapshotText } from '../src/cluster/snapshot-file.js';
import { explain, type Explanation } from '../src/run/explain.js';
import { makeModel, runChecks } from '../src/run/run.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { runCli } from './helpers/cli.js';
import { NOW, cluster, type Base } from './helpers/fixtures.js';
import { LISTED_NAMESPACED, namespaceOnly, refuse, without } from './helpers/views.js';

const OPTS = { mesh: 'auto' as const, certExpiryWarningDays: 60, now: NOW };
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-explain-'));

function explainAll(snap: Snapshot, ns: string): Map<string, Explanation | string> {
  const scoped = { ...snap, scope: { allNamespaces: false, namespace: ns } };
  const m = makeModel(scoped, OPTS);
  const r = runChecks(scoped, CHECKS, OPTS, m);
  const out = new Map<string, Explanation | string>();
  for (const w of m.workloads.filter((x) => x.namespace === ns && x.kind !== 'Pod')) {
    try {
      out.set(`${w.kind}/${w.name}`, explain(m, { kind: w.kind, name: w.name }, ns, r.findings, r));
    } catch (e) {
      out.set(`${w.kind}/${w.name}`, String(e));
    }
  }
  return out;
}

const notExamined = (s: string) => /^not examined\b/.test(s) || /was not examined/.test(s);

/** Every statement of `p` (a partial view) that is not "not examined" equals the full view's `f`. */
function falseStatements(f: Explanation, p: Explanation): string[] {
  const out: string[] = [];
  if (p.onRestart !== f.onRestart && !notExamined(p.onRestart))
    out.push(`on restart: "${p.onRestart}" (read everything: "${f.onRestart}")`);
  if (!p.now.notExamined && JSON.stringify({ ...p.now }) !== JSON.stringify(f.now))
    out.push(`now: ${JSON.stringify(p.now)} (read everything: ${JSON.stringify(f.now)})`);
  for (const pm of p.meshes) {
    const fm = f.meshes.find((x) => x.mesh === pm.mesh);
    if (!fm) {
      out.push(`mesh ${pm.mesh} explained, but not installed`);
      continue;
    }
    if (pm.wouldInject !== null && (pm.wouldInject !== fm.wouldInject || pm.verdict !== fm.verdict))
      out.push(`${pm.mesh} verdict: "${pm.verdict}" (read everything: "${fm.verdict}")`);
    if (pm.wouldInject === null && !pm.notExamined)
      out.push(`${pm.mesh}: a verdict not examined without saying what was not read`);
    if (pm.webhooks.some((h) => h.callFails === null) && !pm.notExamined?.service)
      out.push(`${pm.mesh}: a call not examined without saying why`);
    if (pm.namespaceMarker !== fm.namespaceMarker && !(pm.namespaceMarker === null && pm.notExamined?.namespace))
      out.push(`${pm.mesh} namespace marker: ${pm.namespaceMarker} (read everything: ${fm.namespaceMarker})`);
    for (const h of pm.webhooks) {
      const fh = fm.webhooks.find((x) => x.configuration === h.configuration && x.webhook === h.webhook);
      if (!fh) out.push(`${pm.mesh} webhook ${h.webhook}: shown, but not installed`);
      else {
        if (h.called !== fh.called || (h.callFails !== null && h.callFails !== fh.callFails))
          out.push(
            `${pm.mesh} webhook ${h.webhook}: called ${h.called}/fails ${h.callFails} (read everything: ${fh.called}/${fh.callFails})`,
          );
        if (h.backend && JSON.stringify(h.backend) !== JSON.stringify(fh.backend))
          out.push(
            `${pm.mesh} webhook ${h.webhook}: backend ${JSON.stringify(h.backend)} (read everything: ${JSON.stringify(fh.backend)})`,
          );
      }
    }
    // A step stated as failed is a fact; one not examined says so.
    for (const s of pm.injector.filter((x) => !x.ok && !x.unknown)) {
      if (!fm.injector.some((x) => x.rule === s.rule && x.ok === s.ok && x.detail === s.detail))
        out.push(`${pm.mesh} step ${s.rule}: "${s.detail}" (not so when everything is read)`);
    }
  }
  for (const fm of f.meshes)
    if (!p.meshes.some((x) => x.mesh === fm.mesh) && !p.meshesNotExamined)
      out.push(`mesh ${fm.mesh} left out without saying which meshes were not examined`);
  if (p.meshes.length === 0 && f.meshes.length > 0 && !p.meshesNotExamined)
    out.push('"no mesh is installed" while one is');
  return out;
}

interface View {
  name: string;
  of: (s: Snapshot, ns: string) => Snapshot;
}

const VIEWS: View[] = [
  { name: 'namespace-only Role', of: (s, ns) => namespaceOnly(s, ns) },
  { name: 'Namespaces forbidden', of: (s) => without(s, ['namespaces']) },
  { name: 'webhook configurations forbidden', of: (s) => without(s, ['mutatingwebhookconfigurations']) },
  { name: 'pods forbidden', of: (s) => without(s, ['pods']) },
  { name: 'services and endpoints forbidden', of: (s) => without(s, ['services', 'endpoints', 'endpointslices']) },
  { name: 'ConfigMaps and Secrets forbidden', of: (s) => without(s, ['configmaps', 'secrets']) },
];

const CLUSTERS: [string, () => Snapshot][] = [
  ['golden-cluster.yaml', () => cluster('none', ['golden-cluster.yaml'])],
  ...(
    [
      ['linkerd', 'checks/sidecar-missing/fires-linkerd-during-outage.yaml'],
      ['linkerd', 'checks/webhook-no-endpoints/fires-linkerd-not-ready.yaml'],
      ['both', 'checks/webhook-no-endpoints/fires-linkerd-service-missing.yaml'],
      ['istio', 'checks/sidecar-missing/fires-istio.yaml'],
      ['istio', 'checks/injector-unavailable/fires-istio-scaled-zero.yaml'],
      ['kuma', 'checks/sidecar-missing/fires-kuma.yaml'],
      ['linkerd+kuma', 'checks/webhook-no-endpoints/fires-kuma-not-ready.yaml'],
      ['consul', 'checks/sidecar-missing/fires-consul.yaml'],
      ['istio+consul', 'checks/serviceaccount-missing/fires-consul-token.yaml'],
    ] as [Base, string][]
  ).map(([b, f]): [string, () => Snapshot] => [`${f} over ${b}`, () => cluster(b, [f])]),
];

describe('explain says "not examined" where it could not read, never a guess', () => {
  for (const [name, make] of CLUSTERS) {
    it(
      name,
      () => {
        const full = make();
        const namespaces = [...new Set((full.objects.pods ?? []).map((p) => p.metadata!.namespace!))].sort();
        const cp = new Set(
          Object.values(
            meshNamespaces(full.objects.namespaces ?? [], full.objects.mutatingwebhookconfigurations ?? []),
          ).flat(),
        );
        const problems: string[] = [];
        let compared = 0;
        for (const ns of namespaces.filter((n) => !cp.has(n))) {
          const truth = explainAll(full, ns);
          const views = [
            ...VIEWS,
            ...[...cp].map((x): View => ({
              name: `every namespaced kind refused in ${x}`,
              of: (s) => refuse(s, x, [...LISTED_NAMESPACED, 'configmaps', 'secrets']),
            })),
          ];
          for (const v of views) {
            const seen = explainAll(v.of(full, ns), ns);
            for (const [w, p] of seen) {
              const f = truth.get(w);
              if (typeof p === 'string' || typeof f !== 'object') continue; // not found without pods / controllers: an error, no statement
              compared++;
              for (const x of falseStatements(f, p)) problems.push(`${v.name}, -n ${ns} ${w}: ${x}`);
              if (p.coverage?.complete !== false) problems.push(`${v.name}, -n ${ns} ${w}: coverage says complete`);
            }
          }
        }
        expect(compared).toBeGreaterThan(0);
        expect(problems).toEqual([]);
      },
      120_000,
    );
  }
});

describe('explain under a namespace-only Role (offline snapshot lacking the cluster-scoped kinds)', () => {
  const file = join(tmp, 'namespace-only.json');
  writeFileSync(
    file,
    [...snapshotText(namespaceOnly(cluster('linkerd', ['checks/sidecar-missing/fires-linkerd.yaml']), 'shop'))].join(
      '',
    ),
  );

  it('-o json: every unread part "not examined", with the reason; the coverage of check; exit 3', async () => {
    const r = await runCli(['explain', 'deploy/cart', '-n', 'shop', '--snapshot', file, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    const e = JSON.parse(r.stdout);
    expect(e.onRestart).toMatch(/^not examined/);
    expect(e.onRestart).not.toMatch(/no proxy/);
    for (const m of e.meshes) {
      expect(m.wouldInject).toBeNull();
      expect(m.verdict).toMatch(/^not examined \(cannot read (mutatingwebhookconfigurations|namespaces): forbidden/);
      expect(m.namespaceMarker).toBeNull();
      expect(m.notExamined.namespace).toMatch(/^cannot read namespaces: forbidden/);
      expect(m.webhooks).toEqual([]);
    }
    const check = JSON.parse((await runCli(['check', '-n', 'shop', '--snapshot', file, '-o', 'json'])).stdout);
    expect(e.coverage).toEqual(check.coverage);
    expect(e.skipped).toEqual(check.skipped);
  });

  it('the table: no "no webhook installed", no "marker: none", no "no proxy"; the INCOMPLETE block of check', async () => {
    const r = await runCli(['explain', 'deploy/cart', '-n', 'shop', '--snapshot', file], { env: { COLUMNS: '200' } });
    expect(r.code).toBe(3);
    expect(r.stdout).not.toMatch(
      /injection webhook is installed|no injection webhook installed|namespace marker: none|new pods get no proxy|No mesh is installed/,
    );
    expect(r.stdout).toMatch(/namespace marker: not examined \(cannot read namespaces: forbidden/);
    expect(r.stdout).toMatch(/on restart: not examined/);
    const check = await runCli(['check', '-n', 'shop', '--snapshot', file, '-o', 'table'], { env: { COLUMNS: '200' } });
    const block = check.stdout.slice(
      check.stdout.indexOf('INCOMPLETE:'),
      check.stdout.indexOf('\n\n', check.stdout.indexOf('INCOMPLETE:')),
    );
    expect(block.length).toBeGreaterThan(50);
    expect(r.stdout).toContain(block);
  });

  it('--allow-partial: exit 0, the same explanation', async () => {
    const r = await runCli([
      'explain',
      'deploy/cart',
      '-n',
      'shop',
      '--snapshot',
      file,
      '--allow-partial',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).onRestart).toMatch(/^not examined/);
  });

  it('everything read: exit 0 and no coverage block (not vacuous)', async () => {
    const full = join(tmp, 'full.json');
    writeFileSync(full, [...snapshotText(cluster('linkerd', ['checks/sidecar-missing/fires-linkerd.yaml']))].join(''));
    const r = await runCli(['explain', 'deploy/cart', '-n', 'shop', '--snapshot', full]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('INCOMPLETE');
    expect(r.stdout).toMatch(/namespace marker: annotation linkerd.io\/inject=enabled/);
  });
});
