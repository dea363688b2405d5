import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../src/run/explain.js';
import { runCli } from './helpers/cli.js';

const ROOT = join(import.meta.dirname, '..');
import { FIXTURES } from './helpers/fixtures.js';

const GOLDEN = join(FIXTURES, 'golden-cluster.yaml');
const explainJson = async (...args: string[]) => {
  const r = await runCli(['explain', ...args, '--snapshot', GOLDEN, '-o', 'json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('explain', () => {
  it('parses kubectl TYPE/NAME with short names', () => {
    expect(parseTarget('deploy/web')).toEqual({ kind: 'Deployment', name: 'web' });
    expect(parseTarget('sts/db')).toEqual({ kind: 'StatefulSet', name: 'db' });
    expect(parseTarget('cronjobs.batch/report')).toEqual({ kind: 'CronJob', name: 'report' });
    expect(() => parseTarget('service/web')).toThrow(/expected KIND\/NAME/);
    expect(() => parseTarget('web')).toThrow(/expected KIND\/NAME/);
  });

  it('a meshed Linkerd workload: webhook called, every injector rule passes, injected now and on restart', async () => {
    const e = await explainJson('deployment/web', '-n', 'shop');
    const l = e.meshes.find((m: any) => m.mesh === 'linkerd');
    expect(l.namespaceMarker).toBe('annotation linkerd.io/inject=enabled');
    expect(l.webhooks).toHaveLength(1);
    expect(l.webhooks[0]).toMatchObject({
      webhook: 'linkerd-proxy-injector.linkerd.io',
      called: true,
      failurePolicy: 'Ignore',
    });
    expect(l.injector.every((s: any) => s.ok)).toBe(true);
    expect(l.wouldInject).toBe(true);
    expect(e.now).toEqual({
      pods: 2,
      meshed: { linkerd: ['web-5b7c9d8f4-aaaaa', 'web-5b7c9d8f4-bbbbb'] },
      unmeshed: [],
    });
    expect(e.onRestart).toBe('new pods get linkerd-proxy');
    // Istio is installed too, but no Istio webhook selects shop: each failing selector term is named.
    const i = e.meshes.find((m: any) => m.mesh === 'istio');
    expect(i.wouldInject).toBe(false);
    const ns = i.webhooks.find((h: any) => h.webhook === 'namespace.sidecar-injector.istio.io');
    expect(ns.namespaceSelector.terms).toEqual([{ term: 'istio-injection in (enabled)', matched: false }]);
  });

  it('an opted-out workload: the failing injector rule, the verdict, and its finding', async () => {
    const e = await explainJson('deploy/cart', '-n', 'shop', '--mesh', 'linkerd');
    expect(e.meshes.map((m: any) => m.mesh)).toEqual(['linkerd']);
    const failed = e.meshes[0].injector.filter((s: any) => !s.ok);
    expect(failed).toEqual([
      {
        rule: 'inject-annotation',
        ok: false,
        detail: expect.stringContaining('opts out with linkerd.io/inject=disabled'),
      },
    ]);
    expect(e.meshes[0].verdict).toMatch(/injector would skip it/);
    expect(e.now.unmeshed).toEqual(['cart-6f7d8c9b5-abcde']);
    expect(e.onRestart).toBe('new pods get no proxy');
    expect(e.findings.map((f: any) => f.id)).toContain('pod-opted-out');
  });

  it('a pod resolves to the workload whose template decides', async () => {
    const e = await explainJson('pod/web-5b7c9d8f4-aaaaa', '-n', 'shop');
    expect(e.workload).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'web' });
    expect(e.via).toMatch(/belongs to Deployment web/);
  });

  it('an Istio label opt-out is excluded by the objectSelector before the injector is asked', async () => {
    const e = await explainJson('deployment/search', '-n', 'store', '--mesh', 'istio');
    const hook = e.meshes[0].webhooks.find((h: any) => h.webhook === 'namespace.sidecar-injector.istio.io');
    expect(hook.namespaceSelector.matched).toBe(true);
    expect(hook.objectSelector.terms).toEqual([{ term: 'sidecar.istio.io/inject notin (false)', matched: false }]);
    expect(e.meshes[0].verdict).toMatch(/no istio webhook would be called/);
  });

  it('the table shows each step with its mark', async () => {
    const r = await runCli([
      'explain',
      'deployment/cart',
      '-n',
      'shop',
      '--snapshot',
      GOLDEN,
      '-o',
      'table',
      '--mesh',
      'linkerd',
    ]);
    expect(r.stdout).toContain(
      '✗ inject-annotation: namespace has linkerd.io/inject=enabled but the pod template opts out',
    );
    expect(r.stdout).toContain('on restart: new pods get no proxy');
  });

  it('errors: unknown workload, -A, bad target — exit 2 with one line', async () => {
    for (const args of [
      ['deployment/nope', '-n', 'shop'],
      ['deployment/web', '-A'],
      ['svc/web', '-n', 'shop'],
    ]) {
      const r = await runCli(['explain', ...args, '--snapshot', GOLDEN]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('explain shows everything that bears on the workload', () => {
  const snap = (...files: string[]) => files.flatMap((f) => ['--snapshot', join(FIXTURES, f)]);

  it('a webhook that would be called but whose service cannot answer is failing, not ticked', async () => {
    const { explain } = await import('../src/run/explain.js');
    const { renderExplanation } = await import('../src/report/explain.js');
    const { makeModel, runChecks } = await import('../src/run/run.js');
    const { CHECKS } = await import('../src/checks/index.js');
    const { cluster, NOW } = await import('./helpers/fixtures.js');
    const explainWeb = (overlays: string[]) => {
      const s = cluster('linkerd', overlays, { allNamespaces: false, namespace: 'shop' });
      const opts = { mesh: 'auto' as const, certExpiryWarningDays: 60, now: NOW };
      const m = makeModel(s, opts);
      return explain(m, { kind: 'Deployment', name: 'web' }, 'shop', runChecks(s, CHECKS, opts, m).findings);
    };
    expect(explainWeb([]).meshes[0]!.webhooks[0]).toMatchObject({ called: true, callFails: false });
    const e = explainWeb(['checks/webhook-no-endpoints/fires-linkerd-service-missing.yaml']);
    expect(e.meshes[0]!.webhooks[0]).toMatchObject({ called: true, callFails: true });
    expect(renderExplanation(e, false)).toMatch(
      /✗ webhook linkerd-proxy-injector-webhook-config \/ linkerd-proxy-injector\.linkerd\.io .*: called, but the call fails/,
    );
    // The service's finding bears on the workload: it is listed with it.
    expect(e.findings.map((f) => f.id)).toContain('webhook-no-endpoints');
  });

  it('namespace-level findings (a namespace the webhooks leave out) are listed with the workload', async () => {
    const e = JSON.parse(
      (
        await runCli([
          'explain',
          'deployment/etl',
          '-n',
          'batch',
          ...snap('healthy/linkerd.yaml', 'checks/webhook-excludes-namespace/fires-linkerd.yaml'),
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(e.findings.map((f: any) => `${f.id} ${f.resource.kind} ${f.resource.name}`)).toContain(
      'webhook-excludes-namespace Namespace batch',
    );
  });
});

describe('explain in ambient mode', () => {
  const AMBIENT = ['healthy/istio.yaml', 'healthy/istio-ambient.yaml'].flatMap((f) => [
    '--snapshot',
    join(FIXTURES, f),
  ]);

  it('says the pods are meshed by ambient mode and never asks for a sidecar', async () => {
    const r = await runCli(['explain', 'deployment/web', '-n', 'shop', ...AMBIENT, '-o', 'json']);
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e.sidecarless).toEqual({
      mesh: 'istio',
      mode: 'ambient mode',
      by: 'namespace label istio.io/dataplane-mode=ambient',
      enrolled: ['web-5d8f7c9b4-aaaaa', 'web-5d8f7c9b4-bbbbb'],
      notEnrolled: [],
    });
    expect(e.onRestart).toBe(
      'new pods join Istio ambient mode (namespace label istio.io/dataplane-mode=ambient), with no proxy container',
    );
    expect(e.findings).toEqual([]);
    const text = await runCli(['explain', 'deployment/web', '-n', 'shop', ...AMBIENT]);
    expect(text.stdout).toContain('now:        2 active pods, 2 in istio ambient mode, 0 without a proxy');
  });

  it('a sidecar workload has no sidecarless part', async () => {
    const e = await explainJson('deployment/web', '-n', 'shop');
    expect(e.sidecarless).toBeUndefined();
  });
});

describe('explain leads with the meshes the workload asks for (issue 35 item 7)', () => {
  it('an Istio workload beside a broken Linkerd: istio first and in full; linkerd one line, its findings counted', async () => {
    const r = await runCli(
      ['explain', 'deploy/frontend', '-n', 'store', '--snapshot', join(ROOT, 'demo/cluster.json')],
      {
        env: { COLUMNS: '200' },
      },
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[2]).toMatch(/^✓ istio: /);
    expect(lines.some((l) => /^✗ linkerd/.test(l))).toBe(false);
    expect(r.stdout).toMatch(
      /^ {2}also installed, not asked for: linkerd \(it does not inject it; -o json has the steps\)$/m,
    );
    expect(r.stdout).toMatch(/^ {2}3 about linkerd, not asked for by this workload: meshdoctor check -A$/m);
    expect(r.stdout).not.toMatch(/^linkerd {2}namespace marker/m);
    expect(r.stdout).toMatch(/^istio {2}namespace marker/m);
    const j = JSON.parse(
      (
        await runCli([
          'explain',
          'deploy/frontend',
          '-n',
          'store',
          '--snapshot',
          join(ROOT, 'demo/cluster.json'),
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(j.meshes.map((m: any) => [m.mesh, m.asked])).toEqual([
      ['linkerd', false],
      ['istio', true],
    ]);
  });

  it('a workload no mesh is asked for: every mesh in full (why none injects)', async () => {
    const r = await runCli([
      'explain',
      'deploy/billing',
      '-n',
      'legacy',
      '--snapshot',
      join(ROOT, 'test/fixtures/golden-cluster.yaml'),
    ]);
    expect(r.stdout).toMatch(/^✗ linkerd: /m);
    expect(r.stdout).toMatch(/^✗ istio: /m);
    expect(r.stdout).not.toMatch(/not asked for/);
  });
});
