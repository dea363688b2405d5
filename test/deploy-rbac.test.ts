/**
 * deploy/ applied to a REAL kube-apiserver (v1.32 + etcd, ../shared/k8s/apiserver.sh). First the
 * default (deploy/mesh-rbac/*.yaml, no Secret): the CronJob's ServiceAccount
 * (system:serviceaccount:meshdoctor:meshdoctor) cannot get any Secret (linkerd-identity-issuer holds
 * the issuer's private key), and `check --no-secrets` as that ServiceAccount reads none and says so
 * (coverage: secrets declined, webhook-cert-mismatch not run; complete, exit 0/1), while a run
 * without the flag is refused the Secrets and exits 3 (incomplete); the namespace enforces Pod
 * Security restricted and admits the CronJob's and the watch's pods (and refuses a pod that is
 * not restricted). Then the opt-in (deploy/mesh-rbac/secrets/): the ServiceAccount reads the Secrets
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
import { until } from './helpers/until.js';

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
const yamlFiles = (dir: string) => readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.yaml'));

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
    // deploy/ as a user applies it: the cluster roles, the CronJob with its ServiceAccount, one file
    // per mesh (the default: no Secret). The opt-in files come later (the test that applies them).
    await k.admin.createAll([
      ...yamlObjects('deploy/rbac.yaml'),
      ...yamlObjects('deploy/cronjob.yaml'),
      ...yamlFiles('deploy/mesh-rbac').flatMap((f) => yamlObjects(`deploy/mesh-rbac/${f}`)),
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
    // (test/helpers/until.ts: a deadline that only ends a hang, at any load.)
    await until(() => can('get', 'configmaps', 'istio-system', 'istio'), 15_000, 'the last binding authorized');
  }, 300_000);
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

  it('the default deployment: the ServiceAccount can get no Secret, not even by name in a mesh namespace', async () => {
    for (const [ns, names] of Object.entries(SECRETS))
      for (const name of names) {
        expect(await can('get', 'secrets', ns, name), `get secrets/${name} -n ${ns}`).toBe(false);
        expect(await can('watch', 'secrets', ns, name), `watch secrets/${name} -n ${ns}`).toBe(false);
      }
    const issuer = await sa.request('GET', '/api/v1/namespaces/linkerd/secrets/linkerd-identity-issuer');
    expect(issuer.status).toBe(403);
    // What the default still reads: the ConfigMaps by name (the trust anchors), and the webhooks' caBundles.
    expect(await can('get', 'configmaps', 'linkerd', 'linkerd-identity-trust-roots')).toBe(true);
    expect(
      await can('list', 'mutatingwebhookconfigurations', undefined, undefined, 'admissionregistration.k8s.io'),
    ).toBe(true);
  });

  it("the default deployment: check --no-secrets (the CronJob's args) reads no Secret and says which checks did not run; complete, not exit 3", async () => {
    const args = (yamlObjects('deploy/cronjob.yaml').find((o) => o.kind === 'CronJob') as any).spec.jobTemplate.spec
      .template.spec.containers[0].args as string[];
    expect(args).toContain('--no-secrets');
    const r = await runCli([...args, '--kubeconfig', kubeconfig]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0); // --fail-on none: findings are the report; complete coverage: not 3
    const report = JSON.parse(r.stdout);
    expect(report.coverage.complete).toBe(true);
    expect(report.coverage.rbac).toEqual([]);
    expect(report.coverage.unavailable).toEqual([
      {
        kind: 'secrets',
        reason: expect.stringMatching(/^not read \(--no-secrets\)/),
        checks: ['component-cert-not-reloaded', 'webhook-cert-mismatch'],
        declined: true,
      },
    ]);
    expect(report.skipped).toEqual([
      { check: 'component-cert-not-reloaded', reason: 'cannot read secrets' },
      { check: 'webhook-cert-mismatch', reason: 'cannot read secrets' },
    ]);
    expect(report.findings.filter((f: any) => f.id === 'webhook-cert-mismatch')).toEqual([]);
    expect(report.meshes.sort()).toEqual([...MESH_NAMES].sort());
    // The table says it too, never "no findings: every workload ... is injected".
    const table = await runCli(['check', '-A', '--no-secrets', '--kubeconfig', kubeconfig, '--fail-on', 'none']);
    expect(table.stdout).toMatch(/secrets not read \(--no-secrets\)/);
    expect(table.stdout).toMatch(/not run: component-cert-not-reloaded, webhook-cert-mismatch/);
    expect(table.stdout).not.toMatch(/every workload in scope is injected/);
    // Without the flag the same ServiceAccount is refused the Secrets: a gap, exit 3 (README "Exit codes").
    const refused = await runCli(['check', '-A', '-o', 'json', '--fail-on', 'none', '--kubeconfig', kubeconfig]);
    expect(refused.code).toBe(3);
    const gap = JSON.parse(refused.stdout).coverage;
    expect(gap.complete).toBe(false);
    expect(gap.unavailable.find((u: any) => u.kind === 'secrets').reason).toMatch(/^forbidden/);
    // snapshot --no-secrets saves none and says why on stderr.
    const snap = await runCli(['snapshot', '-A', '--no-secrets', '--kubeconfig', kubeconfig]);
    expect(snap.code).toBe(0);
    expect(JSON.parse(snap.stdout).objects.secrets).toBeUndefined();
    expect(snap.stderr).toMatch(/secrets not saved: not read \(--no-secrets\)/);
  });

  it("Pod Security restricted: the namespace enforces it, and admits the CronJob's and the watch's pods (a pod that is not restricted is refused)", async () => {
    const ns = await k.admin.get('/api/v1/namespaces/meshdoctor');
    expect(ns.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const cron = (yamlObjects('deploy/cronjob.yaml').find((o) => o.kind === 'CronJob') as any).spec.jobTemplate.spec
      .template;
    const watch = (yamlObjects('deploy/watch.yaml').find((o) => o.kind === 'Deployment') as any).spec.template;
    const pod = (name: string, t: any) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'meshdoctor', labels: t.metadata.labels, annotations: t.metadata.annotations },
      spec: t.spec,
    });
    for (const [name, t] of [
      ['cronjob-pod', cron],
      ['watch-pod', watch],
    ]) {
      const r = await k.admin.request('POST', '/api/v1/namespaces/meshdoctor/pods?dryRun=All', pod(name, t));
      expect(r.status, `${name}: ${r.text.slice(0, 300)}`).toBe(201);
    }
    // The control: the same pod without seccomp and with privilege escalation is refused by PodSecurity.
    const loose = structuredClone(cron);
    delete loose.spec.securityContext.seccompProfile;
    loose.spec.containers[0].securityContext.allowPrivilegeEscalation = true;
    const refused = await k.admin.request('POST', '/api/v1/namespaces/meshdoctor/pods?dryRun=All', pod('loose', loose));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/violates PodSecurity "restricted:latest": allowPrivilegeEscalation/);
  });

  it('the opt-in (deploy/mesh-rbac/secrets/) applied beside the default', async () => {
    await k.admin.createAll(
      yamlFiles('deploy/mesh-rbac/secrets').flatMap((f) => yamlObjects(`deploy/mesh-rbac/secrets/${f}`)),
    );
    // Each file's binding reaches the authorizer's cache on its own: wait for every Secret the test
    // reads (waiting for one file's left the others racing the next test).
    const every = async () => {
      for (const [ns, names] of Object.entries(SECRETS))
        for (const name of names) if (!(await can('get', 'secrets', ns, name))) return false;
      return true;
    };
    await until(every, 15_000, 'every opt-in binding authorized');
    expect(await every()).toBe(true);
  });

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
