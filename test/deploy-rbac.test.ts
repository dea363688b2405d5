/**
 * deploy/ applied to a REAL kube-apiserver (v1.32 + etcd, ../shared/k8s/apiserver.sh): the
 * CronJob's ServiceAccount (system:serviceaccount:meshdoctor:meshdoctor) reads the Secrets
 * meshdoctor needs only by name and only in the mesh namespaces, lists no Secret or ConfigMap
 * anywhere, and reads everything its checks need on a cluster running all four meshes (complete
 * coverage). Asked three ways: SubjectAccessReview (what `kubectl auth can-i --as` sends),
 * `kubectl auth can-i` itself when kubectl is installed, and real requests with the
 * ServiceAccount's token (a tenant's Secret named like a mesh's stays unreadable).
 *
 * Skipped, with a note, when ../shared/k8s/apiserver.sh is absent (a user's clone has no ../shared).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESH_NAMES } from '../src/mesh/names.js';
import { runCli } from './helpers/cli.js';
import { baseObjects, parseObjects } from './helpers/fixtures.js';
import {
  APISERVER_SH,
  APISERVER_SH_FOUND,
  KubeClient,
  startKubeApiServer,
  writeTokenKubeconfig,
  type KubeApiServer,
} from './helpers/kube-apiserver.js';

const ROOT = join(import.meta.dirname, '..');
const SA = 'system:serviceaccount:meshdoctor:meshdoctor';
const MESH_NAMESPACES = ['linkerd', 'istio-system', 'kuma-system', 'consul'];
/** The Secrets meshdoctor reads (deploy/mesh-rbac/), by namespace. */
const SECRETS: Record<string, string[]> = {
  linkerd: ['linkerd-identity-issuer', 'linkerd-proxy-injector-k8s-tls'],
  'kuma-system': ['kuma-tls-cert'],
  consul: ['consul-connect-inject-webhook-cert'],
};

if (!APISERVER_SH_FOUND) {
  console.log(
    `test/deploy-rbac.test.ts skipped: ../shared/k8s/apiserver.sh not found (no ${APISERVER_SH}; a user's clone has no ../shared)`,
  );
}

const yamlObjects = (path: string) => parseObjects(readFileSync(join(ROOT, path), 'utf8')) as any[];

/**
 * The four meshes' objects meshdoctor looks at first (namespaces, webhook configurations, the
 * ConfigMaps and Secrets it reads by name), as the real server accepts them: a kubernetes.io/tls
 * Secret without both tls.crt and tls.key becomes Opaque. Plus namespace `tenant` holding Secrets
 * named like the meshes' (the CA key a tenant must not read back).
 */
function clusterObjects(): { first: any[]; webhooks: any[] } {
  const all = baseObjects('linkerd+istio+kuma+consul' as never) as any[];
  const first = all
    .filter((o) => ['Namespace', 'ConfigMap', 'Secret'].includes(o.kind))
    .map((o) => {
      const c = structuredClone(o);
      if (c.kind === 'Secret' && c.type === 'kubernetes.io/tls' && !(c.data?.['tls.crt'] && c.data?.['tls.key']))
        c.type = 'Opaque';
      return c;
    });
  for (const ns of MESH_NAMESPACES)
    if (!first.some((o) => o.kind === 'Namespace' && o.metadata.name === ns))
      first.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  first.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant' } });
  for (const name of ['istio-ca-secret', 'linkerd-identity-issuer', 'other']) {
    first.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'tenant' },
      type: 'Opaque',
      data: { 'ca-key.pem': Buffer.from('TENANT-KEY').toString('base64') },
    });
  }
  first.push({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'other', namespace: 'linkerd' },
    type: 'Opaque',
    data: { k: 'eA==' },
  });
  // Webhook configurations last: nothing created after them may be sent to an injector that does not run.
  return { first, webhooks: all.filter((o) => o.kind === 'MutatingWebhookConfiguration') };
}

describe.skipIf(!APISERVER_SH_FOUND)('deploy/ on a real kube-apiserver', () => {
  let k: KubeApiServer;
  let token: string;
  let kubeconfig: string;
  let sa: KubeClient;

  beforeAll(async () => {
    k = await startKubeApiServer();
    const { first, webhooks } = clusterObjects();
    await k.admin.createAll(first);
    // deploy/ as a user applies it: the cluster roles, the CronJob with its ServiceAccount, one file per mesh.
    await k.admin.createAll([
      ...yamlObjects('deploy/rbac.yaml'),
      ...yamlObjects('deploy/cronjob.yaml'),
      ...readdirSync(join(ROOT, 'deploy/mesh-rbac')).flatMap((f) => yamlObjects(`deploy/mesh-rbac/${f}`)),
    ]);
    await k.admin.createAll(webhooks);
    token = await k.admin.token('meshdoctor', 'meshdoctor');
    const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-deploy-rbac-'));
    kubeconfig = writeTokenKubeconfig(join(tmp, 'kubeconfig'), {
      server: k.server,
      caPem: k.caPem,
      token,
      user: 'meshdoctor',
    });
    sa = new KubeClient(k.server, { ca: k.caPem }, token);
    // RBAC reaches the authorizer's cache asynchronously: wait for the last binding to count.
    const end = Date.now() + 15_000;
    while (!(await can('get', 'secrets', 'consul', 'consul-connect-inject-webhook-cert')) && Date.now() < end)
      await new Promise((r) => setTimeout(r, 100));
  }, 120_000);
  afterAll(async () => {
    sa?.close();
    await k?.stop();
  });

  /** SubjectAccessReview for the CronJob's ServiceAccount: what `kubectl auth can-i --as=...` asks. */
  async function can(verb: string, resource: string, namespace?: string, name?: string, group = ''): Promise<boolean> {
    const r = await k.admin.ok('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: SA,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:meshdoctor', 'system:authenticated'],
        resourceAttributes: { verb, group, resource, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) },
      },
    });
    return r.status?.allowed === true;
  }

  it('Secrets: get by name in the mesh namespaces only; never listed; no Secret of Istio; none in a tenant namespace', async () => {
    for (const [ns, names] of Object.entries(SECRETS)) {
      for (const name of names) {
        expect(await can('get', 'secrets', ns, name), `get secrets/${name} -n ${ns}`).toBe(true);
        // watch by name (meshdoctor watch: fieldSelector metadata.name), as narrow as get
        expect(await can('watch', 'secrets', ns, name), `watch secrets/${name} -n ${ns}`).toBe(true);
        expect(await can('get', 'secrets', 'tenant', name), `get secrets/${name} -n tenant`).toBe(false);
      }
      expect(await can('get', 'secrets', ns, 'other'), `get secrets/other -n ${ns}`).toBe(false);
      expect(await can('get', 'secrets', ns), `get secrets (any name) -n ${ns}`).toBe(false);
    }
    for (const ns of ['tenant', 'istio-system'])
      expect(await can('get', 'secrets', ns, 'istio-ca-secret'), `get secrets/istio-ca-secret -n ${ns}`).toBe(false);
    for (const ns of [...MESH_NAMESPACES, 'tenant', 'meshdoctor', undefined]) {
      for (const verb of ['list', 'watch'])
        expect(await can(verb, 'secrets', ns), `${verb} secrets -n ${ns ?? '(all)'}`).toBe(false);
    }
  });

  it('ConfigMaps: get by name in the mesh namespaces only; the listed kinds: get and list; nothing written', async () => {
    expect(await can('get', 'configmaps', 'linkerd', 'linkerd-config')).toBe(true);
    expect(await can('get', 'configmaps', 'istio-system', 'istio-sidecar-injector')).toBe(true);
    expect(await can('get', 'configmaps', 'tenant', 'linkerd-config')).toBe(false);
    for (const ns of [...MESH_NAMESPACES, 'tenant', undefined]) expect(await can('list', 'configmaps', ns)).toBe(false);
    for (const [resource, group] of [
      ['pods', ''],
      ['events', ''],
      ['deployments', 'apps'],
      ['mutatingwebhookconfigurations', 'admissionregistration.k8s.io'],
    ]) {
      expect(await can('list', resource!, undefined, undefined, group)).toBe(true);
      for (const verb of ['create', 'update', 'patch', 'delete'])
        expect(await can(verb, resource!, 'tenant', undefined, group), `${verb} ${resource}`).toBe(false);
    }
  });

  it('kubectl auth can-i says the same (when kubectl is installed)', async () => {
    const kubectl = (args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(
          'kubectl',
          ['--kubeconfig', k.kubeconfig, 'auth', 'can-i', ...args, `--as=${SA}`],
          { timeout: 20_000 },
          (err, stdout) =>
            resolve({
              code: err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0,
              stdout: stdout.trim(),
            }),
        ),
      );
    const probe = await kubectl(['get', 'pods']);
    if (probe.code === -1 || (probe.stdout !== 'yes' && probe.stdout !== 'no')) {
      console.log(
        'deploy-rbac: kubectl not installed, kubectl auth can-i not run (the SubjectAccessReviews above ask the same)',
      );
      return;
    }
    expect(probe.stdout).toBe('yes');
    expect(await kubectl(['get', 'secrets/istio-ca-secret', '-n', 'tenant'])).toEqual({ code: 1, stdout: 'no' });
    expect(await kubectl(['get', 'secrets/istio-ca-secret', '-n', 'istio-system'])).toEqual({ code: 1, stdout: 'no' });
    expect(await kubectl(['get', 'secrets/linkerd-identity-issuer', '-n', 'linkerd'])).toEqual({
      code: 0,
      stdout: 'yes',
    });
    expect(await kubectl(['get', 'secrets/linkerd-identity-issuer', '-n', 'tenant'])).toEqual({
      code: 1,
      stdout: 'no',
    });
    expect(await kubectl(['list', 'secrets', '-n', 'linkerd'])).toEqual({ code: 1, stdout: 'no' });
    expect(await kubectl(['list', 'secrets', '-A'])).toEqual({ code: 1, stdout: 'no' });
  });

  it("with the ServiceAccount's token: the tenant's Secrets are refused, the mesh's named one is read", async () => {
    for (const name of ['istio-ca-secret', 'linkerd-identity-issuer']) {
      const r = await sa.request('GET', `/api/v1/namespaces/tenant/secrets/${name}`);
      expect(r.status, name).toBe(403);
      expect(r.text).not.toContain(Buffer.from('TENANT-KEY').toString('base64'));
    }
    expect((await sa.request('GET', '/api/v1/namespaces/linkerd/secrets')).status).toBe(403);
    expect((await sa.request('GET', '/api/v1/secrets')).status).toBe(403);
    expect((await sa.request('GET', '/api/v1/namespaces/linkerd/secrets/linkerd-identity-issuer')).status).toBe(200);
  });

  it('meshdoctor as that ServiceAccount reads everything its checks need: all four meshes, complete coverage', async () => {
    const r = await runCli(['check', '-A', '-o', 'json', '--kubeconfig', kubeconfig]);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.coverage).toEqual({ complete: true, unavailable: [], rbac: [] });
    expect(report.skipped).toEqual([]);
    expect(report.meshes.sort()).toEqual([...MESH_NAMES].sort());
    expect([0, 1]).toContain(r.code);
    // What it read by name is what deploy/mesh-rbac/ grants, and the certificates of the Secrets came through.
    const snap = await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig]);
    expect(snap.code).toBe(0);
    const objects = JSON.parse(snap.stdout).objects;
    const secrets = (objects.secrets as any[]).map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort();
    expect(secrets).toEqual(
      Object.entries(SECRETS)
        .flatMap(([ns, names]) => names.map((n) => `${ns}/${n}`))
        .sort(),
    );
    for (const s of objects.secrets) expect(Object.keys(s.certificates).length, s.metadata.name).toBeGreaterThan(0);
    expect(snap.stdout).not.toContain('PRIVATE KEY');
    expect((objects.configmaps as any[]).map((c) => c.metadata.name)).toEqual(
      expect.arrayContaining(['linkerd-config', 'linkerd-identity-trust-roots', 'istio-sidecar-injector']),
    );
  });
});
