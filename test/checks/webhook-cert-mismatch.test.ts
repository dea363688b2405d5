/**
 * Where webhook-cert-mismatch fires, and its near misses (test/helpers/check-tester.ts). Its
 * evidence and fixes, with generated certificates (another CA, a wrong SAN, a re-generated CA):
 * test/checks/certificates.test.ts, test/checks/kuma-consul.test.ts. Kuma's Secret as the control
 * plane's Deployment mounts it (a custom controlPlane.tls.general.secretName): below.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { slim } from '../../src/mesh/keep.js';
import { namedObjects } from '../../src/mesh/read-plan.js';
import { startApiServer } from '../apiserver/server.js';
import { checkCases } from '../helpers/check-tester.js';
import { runCli } from '../helpers/cli.js';
import { baseObjects, cluster, findings, fixtureObjects, overlay, snapshotFrom } from '../helpers/fixtures.js';

checkCases('webhook-cert-mismatch', {
  fires: [
    { fixtures: 'fires-kuma.yaml', findings: ['Secret kuma-system/kuma-tls-cert'] },
    // The Secret the Deployment mounts, not the chart's default name.
    { fixtures: 'fires-kuma-custom-secret.yaml', findings: ['Secret kuma-system/kuma-cp-tls'] },
  ],
  // The healthy installs' serving certificates chain to their caBundles and name their services.
  silent: [
    { base: 'linkerd' },
    { base: 'kuma' },
    { base: 'both' },
    // A stale kuma-tls-cert beside the mounted (good) Secret is not what the control plane serves.
    { fixtures: 'ok-kuma-custom-secret-stale-default.yaml' },
    // The mounted Secret was not collected: the stale default is not compared in its place.
    { fixtures: 'ok-kuma-custom-secret-not-collected.yaml' },
  ],
});

const CUSTOM = 'checks/webhook-cert-mismatch/fires-kuma-custom-secret.yaml';

describe('Kuma: the serving Secret the control plane Deployment mounts', () => {
  it('names the mounted Secret in message, resource and fix (never deleting a Secret Helm does not make)', () => {
    const [f, ...more] = findings(cluster('kuma', [CUSTOM]), ['webhook-cert-mismatch']);
    expect(more).toEqual([]);
    expect(f!.message).toContain(
      'Secret kuma-system/kuma-cp-tls does not match webhook configuration kuma-admission-mutating-webhook-configuration',
    );
    expect(f!.resource).toEqual({ kind: 'Secret', namespace: 'kuma-system', name: 'kuma-cp-tls' });
    expect((f!.evidence as any).problems.map((p: any) => p.problem)).toContain('not-signed-by-ca-bundle');
    const lines = f!.fix.join('\n');
    expect(lines).toContain('controlPlane.tls.general.caBundle');
    expect(lines).toContain('kubectl -n kuma-system rollout restart deploy/kuma-control-plane');
    expect(lines).not.toMatch(/delete secret/);
  });

  it('the read plan names the mounted Secret beside the default, only once the Deployment is read', () => {
    const objects = overlay(baseObjects('kuma'), fixtureObjects(CUSTOM));
    const of = (k: string) => objects.filter((o) => o.kind === k);
    const names = (deployments: typeof objects) =>
      namedObjects(of('Namespace'), of('MutatingWebhookConfiguration'), deployments)
        .filter((r) => r.namespace === 'kuma-system')
        .map((r) => `${r.key}/${r.name}`);
    expect(names(of('Deployment'))).toEqual(['secrets/kuma-tls-cert', 'secrets/kuma-cp-tls']);
    // Without the Deployment (not read), only the chart's default name.
    expect(names([])).toEqual(['secrets/kuma-tls-cert']);
  });

  it('a snapshot keeps the mount and the Secret volume, so an offline run finds the same Secret', () => {
    const objects = overlay(baseObjects('kuma'), fixtureObjects(CUSTOM)).map((o) =>
      o.kind === 'Deployment' ? slim('deployments', o) : o,
    );
    const dep = objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'kuma-control-plane') as any;
    expect(dep.spec.template.spec.volumes).toEqual([
      { name: 'general-tls-cert', secret: { secretName: 'kuma-cp-tls' } },
    ]);
    const got = findings(snapshotFrom(objects), ['webhook-cert-mismatch']).map((f) => f.resource.name);
    expect(got).toEqual(['kuma-cp-tls']);
  });

  it('while the Deployments of the control-plane namespace are not read, no Secret stands in for the one they name', () => {
    const objects = overlay(baseObjects('kuma'), fixtureObjects('checks/webhook-cert-mismatch/fires-kuma.yaml'));
    expect(findings(snapshotFrom(objects), ['webhook-cert-mismatch']).map((f) => f.resource.name)).toEqual([
      'kuma-tls-cert',
    ]);
    const snap = snapshotFrom(
      objects.filter((o) => !(o.kind === 'Deployment' && o.metadata?.namespace === 'kuma-system')),
    );
    snap.unavailableIn = { deployments: { 'kuma-system': 'forbidden: deployments.apps is forbidden' } };
    expect(findings(snap, ['webhook-cert-mismatch'])).toEqual([]);
  });

  it('a live run GETs the mounted Secret, in -A and -n scopes, and reports it', async () => {
    const objects = overlay(baseObjects('kuma'), fixtureObjects(CUSTOM));
    const server = await startApiServer({ objects, maxPageSize: 7 });
    try {
      const kubeconfig = await server.writeKubeconfig(mkdtempSync(join(tmpdir(), 'meshdoctor-kuma-tls-')), {
        namespace: 'default',
      });
      for (const scope of [['-A'], ['-n', 'default']]) {
        const before = server.requests.length;
        const r = await runCli(['check', ...scope, '--kubeconfig', kubeconfig, '-o', 'json']);
        // Under -n, a control-plane finding of a mesh the namespace does not use is listed apart (elsewhere).
        const report = JSON.parse(r.stdout);
        const found = [...report.findings, ...(report.elsewhere?.findings ?? [])].filter(
          (f: any) => f.id === 'webhook-cert-mismatch',
        );
        expect(
          found.map((f: any) => f.resource.name),
          scope.join(' '),
        ).toEqual(['kuma-cp-tls']);
        const gets = server.requests.slice(before).filter((q) => /\/secrets\/[^/]+$/.test(q.path));
        expect(gets.map((q) => q.path.split('/').pop()).sort(), scope.join(' ')).toEqual([
          'kuma-cp-tls',
          'kuma-tls-cert',
        ]);
      }
    } finally {
      await server.close();
    }
  });
});
