/**
 * The demo cluster in its two forms: demo/cluster.json (`npm run demo`, offline) and
 * demo/manifests/ loaded by demo/apply.mjs into a real cluster. Both are generated from the same
 * objects (scripts/build-demo.ts), and a real kube-apiserver (v1.32 + etcd, no controllers) that
 * the manifests are applied to gives `meshdoctor check -A` the same findings, with the same
 * evidence and fixes, as the snapshot does offline: only the timestamps in messages differ (the
 * live objects are dated by the API server; the statuses are moved to the time they were loaded).
 *
 * The live part needs kubectl and ../shared/k8s/apiserver.sh; it is skipped, saying so, without.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import {
  APISERVER_SH,
  APISERVER_SH_FOUND,
  objectPath,
  startKubeApiServerEarly,
  type KubeApiServer,
} from './helpers/kube-apiserver.js';

const ROOT = join(import.meta.dirname, '..');
const APPLY = join(ROOT, 'demo/apply.mjs');
const hasKubectl = (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, 'kubectl')));
// The real kube-apiserver starts while the generated demo is compared (its tests come first).
const kube = APISERVER_SH_FOUND && hasKubectl ? startKubeApiServerEarly() : undefined;
afterAll(() => kube?.stop());

function apply(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [APPLY, ...args], { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0, stdout, stderr });
    });
  });
}

/** Everything of a finding but the times in its message (ISO timestamps, as the demo shows them). */
const comparable = (f: any) => ({
  ...f,
  message: f.message.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'),
});

describe('the demo, generated', () => {
  it('demo/cluster.json and demo/manifests/ are what scripts/build-demo.ts writes today', () => {
    const out = mkdtempSync(join(tmpdir(), 'meshdoctor-demo-'));
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-demo.ts', out], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      for (const f of [
        'cluster.json',
        'manifests/1-objects.yaml',
        'manifests/2-status.yaml',
        'manifests/3-later.yaml',
      ]) {
        expect(readFileSync(join(ROOT, 'demo', f), 'utf8'), f).toBe(readFileSync(join(out, f), 'utf8'));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('demo/apply.mjs wants the cluster named (--context or --kubeconfig): exit 2, usage, nothing applied', async () => {
    const r = await apply([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usage: node demo\/apply\.mjs --context NAME \| --kubeconfig FILE/);
  });
});

if (!APISERVER_SH_FOUND || !hasKubectl) {
  console.log(
    `test/demo.test.ts: the live demo is skipped: ${!hasKubectl ? 'kubectl is not installed' : `../shared/k8s/apiserver.sh not found (no ${APISERVER_SH})`}`,
  );
}

describe.skipIf(!APISERVER_SH_FOUND || !hasKubectl)(
  'the demo loaded into a real kube-apiserver by demo/apply.mjs',
  { timeout: 120_000 },
  () => {
    let k: KubeApiServer;
    let first: Awaited<ReturnType<typeof apply>>;
    beforeAll(async () => {
      k = await kube!.get();
      first = await apply(['--kubeconfig', k.kubeconfig]);
    }, 180_000);
    afterAll(async () => {
      await k?.stop();
    });

    it('applies every object, then the statuses, quotas, events, late markers and webhooks', () => {
      expect(first.stderr).not.toMatch(/failed/);
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(
        /status \(--subresource=status\)[\s\S]*namespace markers the pods predate \(catalog\)[\s\S]*injection webhook configurations/,
      );
      // ledger's quota keeps its ReplicaSet's pods out: it must exist before a ReplicaSet controller sees the ReplicaSet.
      expect(first.stderr).toMatch(/resource quotas of namespaces without pods\n[\s\S]*replica sets and jobs/);
    });

    it('check -A live gives the findings, evidence, fixes and exit code of check -A on demo/cluster.json', async () => {
      const live = await runCli(['check', '-A', '--kubeconfig', k.kubeconfig, '-o', 'json']);
      const offline = await runCli(['check', '-A', '--snapshot', join(ROOT, 'demo/cluster.json'), '-o', 'json']);
      expect(live.stderr).toBe('');
      const l = JSON.parse(live.stdout);
      const o = JSON.parse(offline.stdout);
      expect(l.coverage.complete).toBe(true);
      expect(l.findings.length).toBeGreaterThanOrEqual(10);
      // Evidence dates pods by the API server (creationTimestamp) and the statuses moved to load
      // time: compared without those, the rest is equal.
      const strip = (f: any) => {
        const c = comparable(f);
        return JSON.parse(
          JSON.stringify(c, (key, v) => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? '<time>' : v)),
        );
      };
      // The demo snapshot records no API server version (it cannot know the cluster it is loaded
      // into): the checks that compare the server's version judge it live only, and only there.
      const serverVersionChecks = new Set(['kubernetes-version-unsupported', 'native-sidecar-unsupported']);
      expect(o.findings.filter((f: any) => serverVersionChecks.has(f.id))).toEqual([]);
      const liveOnly = l.findings.filter((f: any) => serverVersionChecks.has(f.id));
      for (const f of liveOnly) expect(f.evidence.apiServer).toMatch(/^v\d+\.\d+/);
      expect(l.findings.filter((f: any) => !serverVersionChecks.has(f.id)).map(strip)).toEqual(o.findings.map(strip));
      expect(live.code).toBe(offline.code);
      expect(live.code).toBe(1);
    });

    it('loading it again changes nothing and succeeds', async () => {
      const again = await apply(['--kubeconfig', k.kubeconfig]);
      expect(again.stderr).not.toMatch(/failed/);
      expect(again.code).toBe(0);
    });

    it("refuses a cluster where one of the demo's namespaces is someone else's: exit 1, one line, nothing applied", async () => {
      const ns = await k.admin.get('/api/v1/namespaces/orders');
      await k.admin.ok(
        'PATCH',
        objectPath(ns),
        { metadata: { annotations: { 'meshdoctor.io/demo': null } } },
        'application/merge-patch+json',
      );
      const r = await apply(['--kubeconfig', k.kubeconfig]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        "demo/apply.mjs: namespace orders exists and is not the demo's: load the demo into a cluster you can throw away (kind create cluster --name meshdoctor-demo)",
      );
    });
  },
);
