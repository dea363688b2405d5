/**
 * A fleet in one run (`check --all-contexts`, `--contexts`, fleet snapshots) against two REAL
 * kube-apiservers (../shared/k8s/apiserver.sh) and a dead context (a closed port):
 *   east  the healthy Linkerd cluster plus Deployment shop/cart without its proxy (sidecar-missing);
 *   west  the healthy Linkerd cluster (its one finding: Linkerd 2.14 does not support the server's 1.32, a warning).
 *   dead  https://127.0.0.1:PORT where nothing listens.
 * The kubeconfigs are merged as kubectl merges KUBECONFIG: the second file defines `east` too
 * (pointing at the dead port), and the first definition must win.
 *
 * Skipped, with a note, when ../shared/k8s/apiserver.sh is absent (a user's clone has no ../shared).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import Ajv2020 from 'ajv/dist/2020.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { fleetExitCode } from '../src/cli/exit.js';
import { mapBounded } from '../src/run/fleet.js';
import { EAST, WEST } from './helpers/fleet.js';
import {
  APISERVER_SH,
  APISERVER_SH_FOUND,
  startKubeApiServerEarly,
  type KubeApiServer,
} from './helpers/kube-apiserver.js';
import { runCli } from './helpers/cli.js';

const ROOT = join(import.meta.dirname, '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8'));
const fleetSchema = JSON.parse(readFileSync(join(ROOT, 'schema/fleet.schema.json'), 'utf8'));
// The two real kube-apiservers start while the tests that need none run (they come first).
const kube = APISERVER_SH_FOUND ? { east: startKubeApiServerEarly(), west: startKubeApiServerEarly() } : undefined;
afterAll(() => Promise.all([kube?.east.stop(), kube?.west.stop()]));

if (!APISERVER_SH_FOUND)
  console.log(
    `test/fleet.test.ts: the live fleet tests are skipped: ../shared/k8s/apiserver.sh not found (no ${APISERVER_SH}; a user's clone has no ../shared)`,
  );

describe('fleetExitCode (docs/cli.md "A fleet")', () => {
  const r = (error: number, complete = true) => ({
    findings: Array.from({ length: error }, () => ({ severity: 'error' as const })),
    skipped: [],
    errors: [],
    coverage: { complete },
  });
  it('is the worst over the clusters; an unreachable cluster is incomplete unless a finding decided', () => {
    expect(fleetExitCode([{ result: r(0) }, { result: r(0) }], 'error')).toBe(0);
    expect(fleetExitCode([{ result: r(0) }, { unreachable: 'refused' }], 'error')).toBe(3);
    expect(fleetExitCode([{ result: r(1) }, { unreachable: 'refused' }], 'error')).toBe(1);
    expect(fleetExitCode([{ result: r(1) }, { unreachable: 'refused' }], 'error', { strict: true })).toBe(3);
    expect(fleetExitCode([{ result: r(0, false) }, { result: r(0) }], 'error')).toBe(3);
    expect(fleetExitCode([{ result: r(0, false) }], 'error', { allowPartial: true })).toBe(0);
    // --allow-partial forgives what a cluster could not read, never a cluster not read at all.
    expect(fleetExitCode([{ result: r(0) }, { unreachable: 'refused' }], 'error', { allowPartial: true })).toBe(3);
    expect(fleetExitCode([{ result: { ...r(1), errors: ['check x failed'] } }, { result: r(1) }], 'error')).toBe(2);
  });
});

describe('a fleet of contexts that cannot be read (no API server needed)', () => {
  it('refused, hung (under --request-timeout), exec plugin failed: each named with its reason, none stops the others', async () => {
    // A server that accepts connections and never answers.
    const sockets: Socket[] = [];
    const hung = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const hungPort = (hung.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-fleet-dead-'));
    const kc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'closed', cluster: { server: `https://127.0.0.1:${await closedPort()}` } },
        { name: 'hung', cluster: { server: `https://127.0.0.1:${hungPort}` } },
      ],
      users: [
        { name: 'token', user: { token: 'x' } },
        {
          name: 'plugin',
          user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'false', interactiveMode: 'Never' } },
        },
      ],
      contexts: [
        { name: 'refused', context: { cluster: 'closed', user: 'token' } },
        { name: 'hanging', context: { cluster: 'hung', user: 'token' } },
        { name: 'exec-fails', context: { cluster: 'hung', user: 'plugin' } },
      ],
      'current-context': 'refused',
    };
    writeFileSync(join(dir, 'kc.yaml'), YAML.stringify(kc));
    try {
      const r = await runCli(
        ['check', '--all-contexts', '--kubeconfig', join(dir, 'kc.yaml'), '-o', 'json', '--request-timeout', '1s'],
        { env: { PATH: process.env.PATH } },
      );
      expect(r.code).toBe(3);
      const doc = JSON.parse(r.stdout);
      const why = Object.fromEntries(doc.unreachable.map((u: any) => [u.context, u.reason]));
      expect(Object.keys(why).sort()).toEqual(['exec-fails', 'hanging', 'refused']);
      expect(why.refused).toMatch(/ECONNREFUSED/);
      // Ended by --request-timeout (its 1 s named), not by a longer default: no wall clock measured.
      expect(why.hanging).toMatch(/did not answer within 1s/);
      expect(why['exec-fails']).toMatch(/exec|plugin|false/i);
      expect(doc.clusters).toEqual([]);
    } finally {
      for (const s of sockets) s.destroy();
      hung.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('--max-parallel-contexts bounds the reads in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return n * 2;
    });
    expect(out).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(most).toBe(3);
  });
});

/** A port nothing listens on (bound, then closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The admin credentials of a started server, under new names (each apiserver.sh kubeconfig calls them all `test`). */
function entries(k: KubeApiServer, name: string) {
  const kc = YAML.parse(readFileSync(k.kubeconfig, 'utf8'));
  return {
    cluster: { name, cluster: kc.clusters[0].cluster },
    user: { name, user: kc.users[0].user },
    context: { name, context: { cluster: name, user: name } },
  };
}

describe.skipIf(!APISERVER_SH_FOUND)('a fleet: two real kube-apiservers and a dead context', () => {
  let east: KubeApiServer;
  let west: KubeApiServer;
  let tmp: string;
  let deadServer: string;
  let env: string;
  const saved = process.env.KUBECONFIG;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-fleet-'));
    [east, west] = await Promise.all([kube!.east.get(), kube!.west.get()]);
    await Promise.all([east.admin.createAll(EAST), west.admin.createAll(WEST)]);
    deadServer = `https://127.0.0.1:${await closedPort()}`;
    const e = entries(east, 'east');
    const w = entries(west, 'west');
    const first = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [e.cluster, { name: 'dead', cluster: { server: deadServer } }],
      users: [e.user, { name: 'dead', user: { token: 'never-sent' } }],
      contexts: [e.context, { name: 'dead', context: { cluster: 'dead', user: 'dead' } }],
      'current-context': 'east',
    };
    // The second file defines `east` too, at the dead port: kubectl's merge keeps the first file's.
    const second = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [w.cluster, { name: 'east', cluster: { server: deadServer } }],
      users: [w.user],
      contexts: [w.context, { name: 'east', context: { cluster: 'east', user: 'west' } }],
      'current-context': 'west',
    };
    writeFileSync(join(tmp, 'one.yaml'), YAML.stringify(first), { mode: 0o600 });
    writeFileSync(join(tmp, 'two.yaml'), YAML.stringify(second), { mode: 0o600 });
    env = `${join(tmp, 'one.yaml')}:${join(tmp, 'two.yaml')}`;
  }, 240_000);

  afterAll(async () => {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
    await Promise.all([east?.stop(), west?.stop()]);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  /** meshdoctor in-process with KUBECONFIG set to the two files, or `files` (restored after). */
  async function fleet(args: string[], files = env) {
    const before = process.env.KUBECONFIG;
    process.env.KUBECONFIG = files;
    try {
      return await runCli(args, { env: {} });
    } finally {
      if (before === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = before;
    }
  }
  const key = (f: any) => `${f.id} ${f.resource.kind} ${f.resource.namespace ?? ''}/${f.resource.name}`;

  it('--all-contexts: the dead one named with its reason, the others complete, findings in the right cluster, exit 1', async () => {
    const r = await fleet(['check', '--all-contexts', '-A', '-o', 'json', '--request-timeout', '5s']);
    expect(r.stderr).toContain(`context dead not read: cannot reach the API server at ${deadServer}`);
    expect(r.code).toBe(1); // a finding decides, even with a cluster unreachable
    const doc = JSON.parse(r.stdout);
    expect(doc.kind).toBe('MeshdoctorFleetReport');
    expect(doc.summary).toMatchObject({ clusters: 3, read: 2, unreachable: 1 });
    expect(doc.unreachable).toEqual([
      { context: 'dead', server: deadServer, reason: expect.stringMatching(/ECONNREFUSED/) },
    ]);
    const by = Object.fromEntries(doc.clusters.map((c: any) => [c.context, c]));
    expect(Object.keys(by).sort()).toEqual(['east', 'west']);
    expect(by.east.server).toBe(east.server); // the first file's east, not the second's dead one
    expect(by.west.server).toBe(west.server);
    expect(by.east.findings.map(key)).toContain('sidecar-missing Deployment shop/cart');
    expect(by.east.meshes).toEqual(['linkerd']);
    expect(by.west.findings.map((f: any) => f.id)).toEqual(['kubernetes-version-unsupported']);
    expect(by.east.findings.map((f: any) => f.id)).toContain('kubernetes-version-unsupported');
    expect(by.west.meshes).toEqual(['linkerd']);
    for (const c of doc.clusters) expect(c.coverage.complete, c.context).toBe(true);
    // Each entry is a single-cluster report a consumer of report.schema.json reads unchanged.
    const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
    ajv.addSchema(schema);
    for (const c of doc.clusters) expect(ajv.validate(schema.$id, c), JSON.stringify(ajv.errors)).toBe(true);
    expect(ajv.validate(fleetSchema, doc), JSON.stringify(ajv.errors)).toBe(true);
  }, 60_000);

  it('the table starts with a line per cluster, then each cluster’s findings under its name', async () => {
    const r = await fleet(['check', '--all-contexts', '-A', '--request-timeout', '5s']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toContain('fleet of 3 clusters: 2 read, 1 unreachable');
    expect(lines[2]).toMatch(/^CONTEXT +SERVER +MESHES +ERRORS +WARNINGS +COVERAGE$/);
    // Most important first: east (errors), then dead (unreachable), then west.
    expect(lines[3]).toMatch(new RegExp(`^east +${east.server} +linkerd +[1-9]\\d* +\\d+ +complete$`));
    expect(lines[4]).toMatch(/^dead .* UNREACHABLE: cannot reach the API server at .*ECONNREFUSED/);
    expect(lines[5]).toMatch(new RegExp(`^west +${west.server} +linkerd +0 +1 +complete$`));
    const eastAt = r.stdout.indexOf(`=== east (${east.server}) ===`);
    const westAt = r.stdout.indexOf(`=== west (${west.server}) ===`);
    expect(eastAt).toBeGreaterThan(0);
    expect(westAt).toBeGreaterThan(eastAt);
    expect(r.stdout.slice(eastAt, westAt)).toContain('sidecar-missing');
    expect(r.stdout.slice(westAt)).not.toContain('sidecar-missing');
  }, 60_000);

  it('--contexts: only those; an unreachable one makes the run incomplete (3) when no finding decides', async () => {
    const r = await fleet(['check', '--contexts', 'west,dead', '-A', '-o', 'json', '--request-timeout', '5s']);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout);
    expect(doc.clusters.map((c: any) => c.context)).toEqual(['west']);
    expect(doc.unreachable.map((c: any) => c.context)).toEqual(['dead']);
    expect((await fleet(['check', '--contexts', 'west', '-A', '-o', 'json'])).code).toBe(0);
    const typo = await fleet(['check', '--contexts', 'west,nope']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('context "nope" not found in kubeconfig');
  }, 60_000);

  it('a context the real server refuses (401) is named as unauthorized; the others go on', async () => {
    const kc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'east-again', cluster: entries(east, 'x').cluster.cluster }],
      users: [{ name: 'stranger', user: { token: 'not-a-token-the-server-knows' } }],
      contexts: [{ name: 'stranger', context: { cluster: 'east-again', user: 'stranger' } }],
    };
    writeFileSync(join(tmp, 'three.yaml'), YAML.stringify(kc), { mode: 0o600 });
    const r = await fleet(
      ['check', '--contexts', 'stranger,west', '-A', '-o', 'json'],
      `${env}:${join(tmp, 'three.yaml')}`,
    );
    const doc = JSON.parse(r.stdout);
    expect(doc.clusters.map((c: any) => c.context)).toEqual(['west']);
    expect(doc.unreachable).toEqual([
      { context: 'stranger', server: east.server, reason: expect.stringMatching(/401|[Uu]nauthorized/) },
    ]);
    expect(r.code).toBe(3);
  }, 60_000);

  it('--suppress, --only and -n apply to every cluster', async () => {
    const s = await fleet([
      'check',
      '--contexts',
      'east,west',
      '-A',
      '-o',
      'json',
      '--suppress',
      'sidecar-missing=Deployment/shop/cart',
    ]);
    const doc = JSON.parse(s.stdout);
    const eastDoc = doc.clusters.find((c: any) => c.context === 'east');
    expect(eastDoc.findings.map(key)).not.toContain('sidecar-missing Deployment shop/cart');
    expect(eastDoc.suppressed.map((x: any) => x.id)).toContain('sidecar-missing');
    const only = JSON.parse(
      (await fleet(['check', '--contexts', 'east,west', '-A', '-o', 'json', '--only', 'sidecar-missing'])).stdout,
    );
    for (const c of only.clusters) expect(c.findings.every((f: any) => f.id === 'sidecar-missing')).toBe(true);
    const ns = await fleet(['check', '--contexts', 'east,west', '-n', 'east-only', '-o', 'json']);
    const nsDoc = JSON.parse(ns.stdout);
    // west has no namespace east-only: said of west, the run goes on with east.
    expect(nsDoc.clusters.map((c: any) => [c.context, c.scope.namespace])).toEqual([['east', 'east-only']]);
    expect(nsDoc.unreachable).toEqual([
      { context: 'west', server: west.server, reason: 'namespace "east-only" not found' },
    ]);
    expect(ns.code).toBe(3);
  }, 60_000);

  it('SARIF and JUnit name the context; markdown has a section per cluster', async () => {
    const sarif = JSON.parse((await fleet(['check', '--contexts', 'east,west,dead', '-A', '-o', 'sarif'])).stdout);
    const run = sarif.runs[0];
    const miss = run.results.find((x: any) => x.ruleId === 'sidecar-missing');
    expect(miss.locations[0].physicalLocation.artifactLocation.uri).toBe('east/Deployment/shop/cart');
    expect(miss.locations[0].logicalLocations[0].fullyQualifiedName).toBe('east/Deployment/shop/cart');
    expect(run.invocations[0].executionSuccessful).toBe(false);
    expect(run.invocations[0].toolExecutionNotifications.map((n: any) => n.message.text).join('\n')).toContain(
      'context dead not read',
    );
    const junit = (await fleet(['check', '--contexts', 'east,west,dead', '-A', '-o', 'junit'])).stdout;
    expect(junit).toContain('<testsuite name="meshdoctor east"');
    expect(junit).toContain('name="[east] Deployment shop/cart"');
    expect(junit).toContain('<testsuite name="meshdoctor dead" tests="1" failures="0" errors="1"');
    const md = (await fleet(['check', '--contexts', 'east,west', '-A', '-o', 'markdown'])).stdout;
    expect(md).toMatch(/^## east \(https:/m);
    expect(md).toMatch(/^## west /m);
  }, 60_000);

  it('snapshot --all-contexts writes one snapshot per context; check --snapshot DIR reads them back as the fleet', async () => {
    const dir = join(tmp, 'fleet-snap');
    const s = await fleet(['snapshot', '--all-contexts', '-A', '--output-dir', dir, '--request-timeout', '5s']);
    expect(s.code).toBe(3); // one context could not be saved
    expect(s.stderr).toContain('context dead not saved: cannot reach the API server');
    expect(readdirSync(dir).sort()).toEqual(['east.json', 'meshdoctor-fleet.json', 'west.json']);
    const live = JSON.parse((await fleet(['check', '--all-contexts', '-A', '-o', 'json'])).stdout);
    const off = await runCli(['check', '--snapshot', dir, '-A', '-o', 'json']);
    expect(off.code).toBe(1);
    const offDoc = JSON.parse(off.stdout);
    const keys = (d: any) => d.clusters.map((c: any) => [c.context, c.server, c.findings.map(key)]);
    expect(keys(offDoc)).toEqual(keys(live));
    expect(offDoc.unreachable.map((c: any) => c.context)).toEqual(['dead']);
    const one = JSON.parse(
      (await runCli(['check', '--snapshot', dir, '--contexts', 'west', '-A', '-o', 'json'])).stdout,
    );
    expect(one.clusters.map((c: any) => c.context)).toEqual(['west']);
  }, 90_000);
});
