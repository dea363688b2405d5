/**
 * Istio as clusters run it, live (issue 14): the injector ConfigMap's policy and selectors, the
 * istiod version, revision tags, read through the test API server exactly as from a real cluster,
 * and the same findings from the snapshot file of the same objects and from `meshdoctor snapshot`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { baseObjects, fixtureObjects, overlay } from './helpers/fixtures.js';

const OBJECTS = overlay(
  baseObjects('istio'),
  fixtureObjects('checks/injector-config-excludes/fires-istio-never-selector.yaml'),
  fixtureObjects('checks/injection-marker-invalid/fires-istio-1-27-inject-values.yaml'),
  fixtureObjects('checks/webhook-excludes-namespace/fires-istio-tags.yaml'),
).map((o) =>
  // A real injector ConfigMap holds the injection templates too, and keys no check reads.
  o.kind === 'ConfigMap' && o.metadata?.name === 'istio-sidecar-injector'
    ? {
        ...o,
        data: {
          ...(o.data as Record<string, string>),
          config: `${(o.data as Record<string, string>).config}templates:\n  sidecar: |\n    PLANTED-TEMPLATE\n`,
          mesh: 'PLANTED-MESH',
        },
      }
    : o,
);

let server: ApiServer;
let kubeconfig: string;
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-live-istio-'));
const file = join(tmp, 'cluster.json');

beforeAll(async () => {
  server = await startApiServer({ objects: OBJECTS, maxPageSize: 50 });
  kubeconfig = await server.writeKubeconfig(tmp, { namespace: 'jobs' });
  writeFileSync(file, JSON.stringify({ kind: 'List', items: OBJECTS }));
});
afterAll(() => server.close());

const comparable = (stdout: string) => {
  const r = JSON.parse(stdout);
  return { meshes: r.meshes, summary: r.summary, findings: r.findings, skipped: r.skipped };
};
const idsOf = (stdout: string) =>
  (JSON.parse(stdout).findings as { id: string; resource: { kind: string; namespace?: string; name: string } }[])
    .map(
      (f) => `${f.id} ${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`,
    )
    .sort();

describe('Istio live', () => {
  it('the same findings live, from the file, and from a saved snapshot, which keeps only policy and selectors of config', async () => {
    const live = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(live.stderr).toBe('');
    const offline = await runCli(['check', '-A', '--snapshot', file, '-o', 'json']);
    expect(comparable(live.stdout)).toEqual(comparable(offline.stdout));
    expect(idsOf(live.stdout)).toEqual([
      'injection-marker-invalid Deployment vals27/shouty',
      'injector-config-excludes Deployment jobs/reporter',
      'pod-opted-out Deployment vals27/exact',
      // istiod runs 1.27 here (fires-istio-1-27-inject-values.yaml), the base's pods the 1.24 proxy.
      'proxy-outdated Deployment jobs/exporter',
      'proxy-outdated Deployment jobs/web',
      'proxy-outdated Deployment payments/ledger',
      'proxy-outdated Deployment shop2/web',
      'proxy-outdated Deployment store/frontend',
      'webhook-excludes-namespace Deployment tools/runner',
      'webhook-excludes-namespace Namespace orders',
    ]);
    const snap = await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig]);
    expect(snap.code).toBe(0);
    expect(snap.stdout).not.toContain('PLANTED');
    const cm = JSON.parse(snap.stdout).objects.configmaps.find(
      (c: any) => c.metadata.name === 'istio-sidecar-injector',
    );
    expect(Object.keys(cm.data).sort()).toEqual(['config', 'values']);
    expect(JSON.parse(cm.data.config)).toEqual({
      policy: 'enabled',
      alwaysInjectSelector: [],
      neverInjectSelector: [
        {},
        { matchLabels: { app: 'legacy-batch' } },
        { matchExpressions: [{ key: 'tier', operator: 'In', values: ['batch'] }] },
      ],
      // The annotation keys the template mentions, not the template (this one mentions none).
      templateKeys: [],
    });
    const saved = join(tmp, 'saved.json');
    writeFileSync(saved, snap.stdout);
    const fromSaved = await runCli(['check', '-A', '--snapshot', saved, '-o', 'json']);
    expect(comparable(fromSaved.stdout)).toEqual(comparable(live.stdout));
  });

  it('explain shows the injector step that keeps the pods out, live', async () => {
    const r = await runCli(['explain', 'deployment/reporter', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(r.stderr).toBe('');
    const istio = JSON.parse(r.stdout).meshes.find((m: any) => m.mesh === 'istio');
    expect(istio.wouldInject).toBe(false);
    expect(istio.injector.map((s: any) => `${s.ok ? '✓' : '✗'} ${s.rule}`)).toEqual([
      '✓ hostNetwork',
      '✓ version',
      '✗ never-inject-selector',
    ]);
    expect(JSON.parse(r.stdout).findings.map((f: any) => f.id)).toEqual(['injector-config-excludes']);
  });
});
