/**
 * Honest inputs (issue 24 part 6): --mesh M reports on M alone and says when M is not installed;
 * a kubectl dump that lacks a kind has not collected it (never "not found"), and a dump that
 * proves it read a kind (a file named after it) holds "none" when it holds none.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KINDS, KIND_KEYS, kindOf } from '../src/k8s/kinds.js';
import { runCli } from './helpers/cli.js';
import { baseObjects, fixtureObjects, overlay } from './helpers/fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-honest-'));

function listFile(name: string, objects: unknown[]): string {
  const p = join(tmp, name);
  writeFileSync(p, JSON.stringify({ kind: 'List', apiVersion: 'v1', items: objects }));
  return p;
}

describe('--mesh M filters every finding', () => {
  // An Istio CronJob's Job hangs beside a healthy Kuma: job-never-completes judges pods, not webhooks.
  const hung = () =>
    listFile(
      'istio-hung-beside-kuma.json',
      overlay(baseObjects('istio+kuma'), fixtureObjects('checks/job-never-completes/fires-istio-cronjob-hung.yaml')),
    );

  it("--mesh kuma reports no Istio finding (Istio's hung Job included)", async () => {
    const f = hung();
    const all = JSON.parse((await runCli(['check', '-A', '--snapshot', f, '-o', 'json', '--fail-on', 'none'])).stdout);
    expect(all.findings.map((x: any) => `${x.id} ${x.mesh}`)).toContain('job-never-completes istio');
    const kuma = JSON.parse(
      (await runCli(['check', '-A', '--snapshot', f, '-o', 'json', '--mesh', 'kuma', '--fail-on', 'none'])).stdout,
    );
    expect(kuma.findings.filter((x: any) => x.mesh !== 'kuma')).toEqual([]);
    expect(kuma.meshesNotInstalled).toBeUndefined();
  });

  it('a mesh asked for but not installed is said in the header (and in -o json)', async () => {
    const f = listFile('linkerd-only.json', baseObjects('linkerd'));
    const head = async (mesh: string) =>
      (await runCli(['check', '-A', '--snapshot', f, '--mesh', mesh], { env: { COLUMNS: '300' } })).stdout.split(
        '\n',
      )[0];
    expect(await head('consul')).toMatch(/ · meshes: consul \(asked for with --mesh, but not installed\)$/);
    const json = JSON.parse((await runCli(['check', '-A', '--snapshot', f, '--mesh', 'consul', '-o', 'json'])).stdout);
    expect(json.meshesNotInstalled).toEqual(['consul']);
    // Installed: nothing said.
    expect(await head('linkerd')).toMatch(/ · meshes: linkerd$/);
  });
});

describe('a kubectl dump says what it read', () => {
  const dir = (name: string) => {
    const d = join(tmp, name);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const write = (d: string, file: string, objects: unknown[]) =>
    writeFileSync(join(d, file), JSON.stringify({ kind: 'List', apiVersion: 'v1', items: objects }));
  const json = async (d: string) => {
    const r = await runCli(['check', '-A', '--snapshot', d, '-o', 'json', '--fail-on', 'none']);
    return { code: r.code, report: JSON.parse(r.stdout) };
  };
  /** The kinds a report says were not read ("kind" or "kind in ns"). */
  const notRead = (report: any) =>
    (report.coverage?.unavailable ?? []).map((u: any) => (u.namespace ? `${u.kind} in ${u.namespace}` : u.kind)).sort();

  it("a dump of Linkerd's ConfigMaps beside Istio has not collected Istio's: never 'ConfigMap not found'", async () => {
    // The old README recipe: cluster-scoped kinds, workloads, and Linkerd's ConfigMaps by name.
    const objects = baseObjects('both');
    const d = dir('old-recipe');
    write(
      d,
      'cluster-scoped.json',
      objects.filter((o) => o.kind === 'Namespace' || o.kind === 'MutatingWebhookConfiguration'),
    );
    write(
      d,
      'workloads.json',
      objects.filter((o) => !['Namespace', 'MutatingWebhookConfiguration', 'ConfigMap', 'Secret'].includes(o.kind!)),
    );
    write(
      d,
      'linkerd-config.json',
      objects.filter((o) => o.kind === 'ConfigMap' && o.metadata?.namespace === 'linkerd'),
    );
    const { code, report } = await json(d);
    expect(report.findings.map((f: any) => f.id)).toEqual([]);
    expect(JSON.stringify(report)).not.toContain('not found');
    expect(notRead(report)).toEqual(expect.arrayContaining(['configmaps in istio-system', 'secrets']));
    expect(notRead(report)).not.toContain('configmaps in linkerd');
    expect(code).toBe(3);
  });

  it('a file named after a kind proves it was read: no mesh webhook in mutatingwebhookconfigurations.json is webhook-missing', async () => {
    const objects = baseObjects('istio');
    const d = dir('named-no-webhooks');
    const byKind = new Map<string, unknown[]>();
    for (const o of objects)
      if (o.kind !== 'MutatingWebhookConfiguration') byKind.set(o.kind!, [...(byKind.get(o.kind!) ?? []), o]);
    for (const [kind, list] of byKind) write(d, `${KINDS[kindOf(kind)!.key].plural}.json`, list);
    write(d, 'mutatingwebhookconfigurations.json', []);
    const { report } = await json(d);
    expect(report.findings.map((f: any) => `${f.id} ${f.mesh}`)).toContain('webhook-missing istio');
    expect(notRead(report)).not.toContain('mutatingwebhookconfigurations');
  });

  it('once a file is named after a kind, a kind with neither a file nor objects was not collected', async () => {
    const objects = baseObjects('istio');
    const d = dir('named-no-configmaps');
    write(
      d,
      'namespaces.json',
      objects.filter((o) => o.kind === 'Namespace'),
    );
    write(
      d,
      'mutatingwebhookconfigurations.json',
      objects.filter((o) => o.kind === 'MutatingWebhookConfiguration'),
    );
    write(
      d,
      'rest.json',
      objects.filter(
        (o) => !['Namespace', 'MutatingWebhookConfiguration', 'ConfigMap', 'ResourceQuota'].includes(o.kind!),
      ),
    );
    const { report } = await json(d);
    expect(report.findings.filter((f: any) => f.id === 'injector-config-excludes')).toEqual([]);
    expect(notRead(report)).toEqual(expect.arrayContaining(['configmaps', 'resourcequotas']));
  });
});

describe('the dump recipe (docs/snapshot.md)', () => {
  it('names one file after each kind meshdoctor reads, Secrets aside', () => {
    const doc = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'snapshot.md'), 'utf8');
    const recipe = /## A kubectl dump[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)![1]!;
    const kinds = [...recipe.matchAll(/for k in ([^;]+);/g)].flatMap((m) =>
      m[1]!.replace(/\\\n/g, ' ').split(/\s+/).filter(Boolean),
    );
    expect(recipe).toContain('> "$k.json"');
    expect([...kinds].sort()).toEqual(KIND_KEYS.filter((k) => k !== 'secrets').sort());
  });
});
