/**
 * The path to the injector (issue 25, items 1-3) against a REAL kube-apiserver (v1.32,
 * ../shared/k8s/apiserver.sh): a kubeadm-like mirror pod of the API server in kube-system whose
 * flags turn MutatingAdmissionWebhook off, a NetworkPolicy in the mesh's namespace that cuts the
 * injector off, the server's own GET /version and GET /metrics (allowed, and refused by RBAC).
 * Live and offline (`meshdoctor snapshot`, then `check --snapshot`) must agree; /metrics refused
 * must be said with its RBAC line and change nothing else (same findings, same exit code).
 *
 * Skipped, with a note, when ../shared/k8s/apiserver.sh is absent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { baseObjects, fixtureObjects, parseObjects } from './helpers/fixtures.js';
import {
  APISERVER_SH,
  APISERVER_SH_FOUND,
  startKubeApiServer,
  writeTokenKubeconfig,
  type KubeApiServer,
} from './helpers/kube-apiserver.js';
import { meshRbacWithSecrets } from './helpers/mesh-rbac.js';

if (!APISERVER_SH_FOUND)
  console.log(`test/path-to-injector-live.test.ts skipped: ../shared/k8s/apiserver.sh not found (no ${APISERVER_SH})`);

const ROOT = join(import.meta.dirname, '..');
const CHECKS =
  'admission-plugin-disabled,webhook-port-blocked,webhook-failing-open,webhook-rejecting,webhook-near-timeout';

/** Linkerd's control plane as the kinds these checks read (no controllers: the real server runs none), its pods' ServiceAccounts added. */
function cluster(): any[] {
  const kinds = new Set([
    'Namespace',
    'MutatingWebhookConfiguration',
    'Service',
    'Endpoints',
    'EndpointSlice',
    'Pod',
    'ServiceAccount',
  ]);
  const objs: any[] = baseObjects('linkerd').filter((o) => kinds.has(o.kind ?? ''));
  const sas = new Set(
    objs.filter((o) => o.kind === 'ServiceAccount').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  );
  for (const p of objs.filter((o) => o.kind === 'Pod')) {
    const name = p.spec.serviceAccountName ?? 'default';
    if (sas.has(`${p.metadata.namespace}/${name}`)) continue;
    sas.add(`${p.metadata.namespace}/${name}`);
    objs.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: p.metadata.namespace, name } });
  }
  return [
    ...objs,
    ...fixtureObjects('checks/admission-plugin-disabled/fires-linkerd-kubeadm.yaml'),
    ...fixtureObjects('checks/webhook-port-blocked/fires-linkerd-default-deny.yaml'),
  ];
}

/** A user that may read every kind deploy/rbac.yaml grants, but not GET /metrics. */
const NO_METRICS = () => {
  const reader = parseObjects(readFileSync(join(ROOT, 'deploy/rbac.yaml'), 'utf8')).find(
    (o) => o.kind === 'ClusterRole' && o.metadata?.name === 'meshdoctor-reader',
  )!;
  return [
    // The Role of the mesh's namespace (its ConfigMaps and Secrets by name), bound as the README says.
    ...meshRbacWithSecrets('linkerd'),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'test-no-metrics', namespace: 'linkerd' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'meshdoctor-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'nometrics', namespace: 'shop' }],
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nometrics', namespace: 'shop' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'test-no-metrics' },
      rules: (reader.rules as any[]).filter((r) => !r.nonResourceURLs),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'test-no-metrics' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'test-no-metrics' },
      subjects: [{ kind: 'ServiceAccount', name: 'nometrics', namespace: 'shop' }],
    },
  ];
};

const key = (f: any) =>
  `${f.id} ${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`;

describe.skipIf(!APISERVER_SH_FOUND)('the path to the injector, against a real kube-apiserver', () => {
  let k: KubeApiServer;
  let tmp: string;
  let noMetrics: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-path-'));
    k = await startKubeApiServer(mkdtempSync(join(tmp, 'apiserver-')));
    await k.admin.createAll([...cluster(), ...NO_METRICS()]);
    const token = await k.admin.token('shop', 'nometrics');
    noMetrics = writeTokenKubeconfig(join(tmp, 'nometrics.kubeconfig'), {
      server: k.server,
      caPem: k.caPem,
      token,
      user: 'nometrics',
      namespace: 'shop',
    });
  }, 90_000);

  afterAll(async () => {
    await k?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 30_000);

  const check = async (args: string[]) => {
    const r = await runCli(['check', '--only', CHECKS, '-o', 'json', ...args]);
    return { ...r, json: JSON.parse(r.stdout) };
  };

  it("-A: the mirror pod's flag and the NetworkPolicy are causes; /version and /metrics read; the same offline from a snapshot", async () => {
    const live = await check(['-A', '--kubeconfig', k.kubeconfig]);
    expect(live.stderr).toBe('');
    expect(live.json.findings.map(key).sort()).toEqual([
      'admission-plugin-disabled Pod kube-system/kube-apiserver-cp1',
      'webhook-port-blocked NetworkPolicy linkerd/default-deny-ingress',
    ]);
    const plugin = live.json.findings.find((f: any) => f.id === 'admission-plugin-disabled');
    expect(plugin.evidence.version).toMatch(/^v1\.32\./); // GET /version of the real server (the image tag would say v1.32.13 too)
    expect(live.json.coverage).toEqual({ complete: true, unavailable: [], rbac: [] });
    expect(live.code).toBe(1);

    const snap = await runCli(['snapshot', '-A', '--kubeconfig', k.kubeconfig]);
    expect(snap.stderr).toBe('');
    const file = join(tmp, 'snapshot.json');
    writeFileSync(file, snap.stdout);
    const head = JSON.parse(snap.stdout.slice(0, snap.stdout.indexOf('\n')).replace(/,"objects":\{$/, '}'));
    expect(head.server.version).toMatchObject({ state: 'read', value: { major: 1, minor: 32 } });
    // The real /metrics: read, its start time kept; webhook admission is off in this server, so no webhook series.
    expect(head.server.metrics).toMatchObject({ state: 'read', value: { samples: [] } });
    expect(head.server.metrics.value.startTime).toMatch(/^20\d\d-/);
    // The kube-apiserver pod keeps its admission flags only.
    expect(snap.stdout).toContain('"--disable-admission-plugins=MutatingAdmissionWebhook"');
    expect(snap.stdout).not.toContain('--advertise-address');

    const offline = await check(['-A', '--snapshot', file]);
    expect(offline.json.findings).toEqual(live.json.findings);
    expect(offline.json.coverage).toEqual(live.json.coverage);
    expect(offline.code).toBe(live.code);
  }, 60_000);

  it('-n shop: the kube-apiserver pods are read by their labels, nothing else of kube-system', async () => {
    const live = await check(['-n', 'shop', '--kubeconfig', k.kubeconfig]);
    expect(live.json.findings.map(key)).toContain('admission-plugin-disabled Pod kube-system/kube-apiserver-cp1');
    expect(live.json.coverage.unavailable).toEqual([]);
  }, 60_000);

  it('/metrics refused: said with its RBAC line, and nothing else changes (findings, completeness, exit code)', async () => {
    const all = await check(['-A', '--kubeconfig', k.kubeconfig]);
    const refused = await check(['-A', '--kubeconfig', noMetrics]);
    expect(refused.json.findings.map(key)).toEqual(all.json.findings.map(key));
    expect(refused.code).toBe(all.code);
    expect(refused.json.coverage.complete).toBe(true);
    expect(refused.json.coverage.unavailable).toEqual([
      {
        kind: 'GET /metrics',
        reason: expect.stringMatching(
          /^forbidden: User "system:serviceaccount:shop:nometrics" cannot get path "\/metrics"/,
        ),
        checks: [],
      },
    ]);
    expect(refused.json.coverage.rbac.join('\n')).toContain('--verb=get --non-resource-url=/metrics');
    expect(refused.json.coverage.rbac.join('\n')).toContain('--serviceaccount=shop:nometrics');
  }, 60_000);
});
