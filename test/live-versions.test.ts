/**
 * Issue 25 live, through the test API server: GET /version, Nodes, ClusterRoles and
 * ClusterRoleBindings read like any kind; the same findings live and from the saved snapshot,
 * which records the server's version; a refused /version is named in the coverage with the RBAC
 * line that grants it, and the run is still complete.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { baseObjects, fixtureObjects, overlay } from './helpers/fixtures.js';

const OBJECTS = overlay(
  baseObjects('linkerd'),
  fixtureObjects('checks/injector-rbac-missing/fires-linkerd-binding-deleted.yaml'),
  fixtureObjects('checks/native-sidecar-unsupported/fires-linkerd-node-1.28.yaml'),
  fixtureObjects('checks/webhook-stale/fires-linkerd-namespace-gone.yaml'),
  fixtureObjects('checks/proxy-outdated/fires-linkerd-one-behind.yaml'),
);
const VERSION = {
  major: '1',
  minor: '28',
  gitVersion: 'v1.28.9',
  gitCommit: 'abcdef',
  buildDate: '2026-01-01T00:00:00Z',
  platform: 'linux/amd64',
};

let server: ApiServer;
let kubeconfig: string;
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-live-versions-'));

beforeAll(async () => {
  server = await startApiServer({ objects: OBJECTS, version: VERSION });
  kubeconfig = await server.writeKubeconfig(tmp);
});
afterAll(() => server.close());

const idsOf = (stdout: string) =>
  (JSON.parse(stdout).findings as { id: string; resource: { kind: string; namespace?: string; name: string } }[])
    .map(
      (f) => `${f.id} ${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`,
    )
    .sort();
const ISSUE_25 = [
  'native-sidecar-unsupported',
  'proxy-outdated',
  'injector-rbac-missing',
  'kubernetes-version-unsupported',
  'webhook-overlap',
  'webhook-stale',
];
const ours = (ids: string[]) => ids.filter((i) => ISSUE_25.includes(i.split(' ')[0]!));

describe('issue 25 live', () => {
  it('reads /version, nodes and RBAC; the saved snapshot keeps the version and gives the same findings', async () => {
    server.requests.length = 0;
    const live = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'none']);
    expect(live.stderr).toBe('');
    expect(server.requests.filter((r) => r.path === '/version')).toHaveLength(1);
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(ours(idsOf(live.stdout))).toEqual([
      'injector-rbac-missing Deployment linkerd/linkerd-proxy-injector',
      'kubernetes-version-unsupported Deployment linkerd/linkerd-proxy-injector',
      'native-sidecar-unsupported CronJob shop/report',
      'native-sidecar-unsupported StatefulSet shop/db',
      'proxy-outdated Deployment shop/web',
      'webhook-stale MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config-legacy',
    ]);
    const report = JSON.parse(live.stdout);
    expect(report.coverage.unavailable).toEqual([]);
    const native = report.findings.find((f: any) => f.id === 'native-sidecar-unsupported');
    expect(native.evidence.apiServer).toBe('v1.28.9');

    const snap = await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig]);
    expect(snap.stderr).toBe('');
    const head = JSON.parse(snap.stdout.split('\n')[0]!.replace(/"objects":\{$/, '"objects":{}}'));
    // The one format of the server section (docs/snapshot.md): GET /version's major, minor and gitVersion, read once.
    expect(head.server.version).toEqual({ state: 'read', value: { major: 1, minor: 28, gitVersion: 'v1.28.9' } });
    const file = join(tmp, 'cluster.json');
    writeFileSync(file, snap.stdout);
    const offline = await runCli(['check', '-A', '--snapshot', file, '-o', 'json', '--fail-on', 'none']);
    expect(idsOf(offline.stdout)).toEqual(idsOf(live.stdout));
    expect(
      JSON.parse(offline.stdout).findings.find((f: any) => f.id === 'native-sidecar-unsupported').evidence.apiServer,
    ).toBe('v1.28.9');
  });

  it('a refused /version: named in the coverage with the line that grants it, the run complete, the nodes still compared', async () => {
    server.faults.push({
      match: (r) => r.path === '/version',
      status: 403,
      message: 'forbidden: User "alice" cannot get path "/version"',
    });
    try {
      const live = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'none']);
      const report = JSON.parse(live.stdout);
      expect(report.coverage.complete).toBe(true);
      expect(report.coverage.unavailable).toEqual([
        { kind: 'GET /version', reason: 'forbidden: User "alice" cannot get path "/version"', checks: [] },
      ]);
      expect(report.coverage.rbac.join('\n')).toContain('--non-resource-url=/version');
      expect(ours(idsOf(live.stdout))).toContain('native-sidecar-unsupported StatefulSet shop/db'); // from the node at 1.28
      const snap = await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig]);
      expect(snap.stderr).toContain('meshdoctor: GET /version not saved: forbidden');
    } finally {
      server.faults.length = 0;
    }
  });

  it('/version and /metrics refused: each named in the coverage and granted by its own ClusterRole line; /version asked once', async () => {
    server.faults.push(
      {
        match: (r) => r.path === '/version',
        status: 403,
        message: 'forbidden: User "alice" cannot get path "/version"',
      },
      {
        match: (r) => r.path === '/metrics',
        status: 403,
        message: 'forbidden: User "alice" cannot get path "/metrics"',
      },
    );
    server.requests.length = 0;
    try {
      const live = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'none']);
      const report = JSON.parse(live.stdout);
      expect(report.coverage.complete).toBe(true);
      expect(report.coverage.unavailable.map((u: { kind: string }) => u.kind)).toEqual([
        'GET /metrics',
        'GET /version',
      ]);
      const roles = (report.coverage.rbac as string[]).filter((l) => l.startsWith('kubectl create clusterrole '));
      expect(roles.filter((l) => l.includes('--non-resource-url=/version'))).toHaveLength(1);
      expect(roles.filter((l) => l.includes('--non-resource-url=/metrics'))).toHaveLength(1);
      expect(
        roles
          .filter((l) => l.includes('--non-resource-url='))
          .every((l) => l.split('--non-resource-url=').length === 2),
      ).toBe(true);
      // Both the version checks and admission-plugin-disabled declare it: still one GET.
      expect(server.requests.filter((q) => q.path === '/version')).toHaveLength(1);
    } finally {
      server.faults.length = 0;
    }
  });
});
