import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveContext, type GatherOptions } from '../src/cluster/gather.js';
import { gather } from '../src/run/read.js';
import { KIND_KEYS, KINDS, type KindKey } from '../src/k8s/kinds.js';
import { UserError } from '../src/util/errors.js';
import type { K8sObject } from '../src/util/types.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { startApiServer, type ApiServer, type ApiServerOptions, type KubeconfigOptions } from './apiserver/server.js';
import { failure } from './helpers/failure.js';
import { generateCA, generateLeaf, type GeneratedCert } from './helpers/certs.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

const MANAGED_FIELDS = [
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2024-05-01T10:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
  },
];

const pod = (namespace: string, name: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace, name, uid: `${namespace}-${name}`, labels: { app: 'web' }, managedFields: MANAGED_FIELDS },
  spec: { containers: [{ name: 'app', image: 'web:1' }] },
  status: { phase: 'Running' },
});

let issuer: GeneratedCert;
let fixtures: K8sObject[];

beforeAll(async () => {
  const root = await generateCA({ keyType: 'ecdsa', commonName: 'root.linkerd.cluster.local' });
  issuer = await generateLeaf({ ca: root, keyType: 'ecdsa', dnsNames: ['identity.linkerd.cluster.local'] });
  fixtures = [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'linkerd', labels: { 'linkerd.io/is-control-plane': 'true' } },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } },
    ...['web-1', 'web-2', 'web-3', 'web-4', 'web-5'].map((n) => pod('shop', n)),
    pod('other', 'db-0'),
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web' }, spec: { replicas: 5 } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'shop', name: 'web' },
      spec: { ports: [{ port: 80 }] },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'linkerd-proxy-injector-webhook-config' },
      webhooks: [
        {
          name: 'linkerd-proxy-injector.linkerd.io',
          clientConfig: { service: { namespace: 'linkerd', name: 'linkerd-proxy-injector' } },
        },
      ],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'linkerd', name: 'linkerd-config' },
      data: { values: 'x' },
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'linkerd', name: 'unrelated' }, data: {} },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'app-config' }, data: {} },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'linkerd', name: 'linkerd-identity-issuer' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(issuer.certPem), 'tls.key': b64(issuer.keyPem), 'ca.crt': b64(root.certPem) },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'shop', name: 'db-password' },
      data: { password: b64('hunter2') },
    },
  ];
});

let servers: ApiServer[] = [];
const tempDirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'meshdoctor-gather-'));
  tempDirs.push(dir);
  return dir;
}

/** A fake API server with the fixtures, and a kubeconfig pointing at it. */
async function setup(opts: ApiServerOptions = {}, kopts: KubeconfigOptions = {}) {
  const srv = await startApiServer({ objects: fixtures, ...opts });
  servers.push(srv);
  const kubeconfig = await srv.writeKubeconfig(undefined, kopts);
  return { srv, kubeconfig };
}

const ALL: KindKey[] = [...KIND_KEYS];

function read(kubeconfig: string, opts: Partial<GatherOptions> = {}): Promise<Snapshot> {
  return gather({ kubeconfig, allNamespaces: true, kinds: ALL, limits: { requestTimeoutMs: 5000 }, ...opts });
}

const names = (objs: K8sObject[] | undefined) =>
  (objs ?? []).map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`);
const requestsTo = (srv: ApiServer, path: string) => srv.requests.filter((r) => r.path === path);

afterEach(async () => {
  // meshdoctor is read-only: whatever a test did, only GETs reached a server.
  for (const srv of servers) expect(srv.requests.every((r) => r.method === 'GET')).toBe(true);
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  vi.unstubAllEnvs();
});

afterAll(async () => {
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('gather: reading', () => {
  it('reads every kind cluster-wide, exactly as served', async () => {
    const { srv, kubeconfig } = await setup({}, { context: 'prod' });
    const before = Date.now();
    const snap = await read(kubeconfig);

    expect(snap.source).toMatchObject({ type: 'live', context: 'prod', server: srv.url });
    expect(Date.parse(snap.source.readAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(snap.scope).toEqual({ allNamespaces: true });
    expect(snap.unavailable).toEqual({});
    expect(Object.keys(snap.objects).sort()).toEqual([...ALL].sort());
    expect(names(snap.objects.pods)).toEqual([
      'other/db-0',
      'shop/web-1',
      'shop/web-2',
      'shop/web-3',
      'shop/web-4',
      'shop/web-5',
    ]);
    expect(names(snap.objects.namespaces)).toEqual(['/linkerd', '/other', '/shop']);
    expect(snap.objects.services).toHaveLength(1);
    expect(snap.objects.events).toEqual([]);

    // Lists strip kind/apiVersion; gather puts them back from the kind table.
    for (const key of ALL) {
      for (const o of snap.objects[key]!) {
        expect(o.kind).toBe(KINDS[key].kind);
        expect(o.apiVersion).toBe(KINDS[key].group ? `${KINDS[key].group}/v1` : 'v1');
      }
    }
    // Objects are kept whole, managedFields included.
    const web1 = snap.objects.pods!.find((p) => p.metadata?.name === 'web-1');
    expect(web1).toEqual(pod('shop', 'web-1'));
    expect(web1!.metadata!.managedFields).toEqual(MANAGED_FIELDS);

    // One list per listable kind, with the page size as limit.
    for (const key of ALL.filter((k) => !KINDS[k].byName)) {
      const path = KINDS[key].group ? `/apis/${KINDS[key].group}/v1/${key}` : `/api/v1/${key}`;
      expect(requestsTo(srv, path).map((r) => r.query)).toEqual([{ limit: '500' }]);
    }
  });

  it('fetches only the named ConfigMaps and Secrets, and keeps only certificates of Secrets', async () => {
    const { srv, kubeconfig } = await setup();
    const snap = await read(kubeconfig);

    // linkerd-identity-trust-roots and linkerd-proxy-injector-k8s-tls are asked for but absent (404).
    expect(names(snap.objects.configmaps)).toEqual(['linkerd/linkerd-config']);
    expect(snap.objects.configmaps![0]).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { values: 'x' } });
    expect(requestsTo(srv, '/api/v1/namespaces/linkerd/configmaps/linkerd-identity-trust-roots')).toHaveLength(1);
    expect(requestsTo(srv, '/api/v1/namespaces/linkerd/secrets/linkerd-proxy-injector-k8s-tls')).toHaveLength(1);
    // Never listed, never anything outside the mesh namespace.
    const byName = srv.requests.filter((r) => /\/(configmaps|secrets)/.test(r.path));
    expect(byName.every((r) => /^\/api\/v1\/namespaces\/linkerd\/(configmaps|secrets)\/[^/]+$/.test(r.path))).toBe(
      true,
    );

    expect(snap.objects.secrets).toHaveLength(1);
    const secret = snap.objects.secrets![0]!;
    expect(secret).not.toHaveProperty('data');
    expect(secret.metadata).toMatchObject({ namespace: 'linkerd', name: 'linkerd-identity-issuer' });
    expect(secret.certificates).toEqual({
      'tls.crt': issuer.certPem,
      'ca.crt': expect.stringContaining('BEGIN CERTIFICATE'),
    });
    const text = JSON.stringify(snap);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(b64(issuer.keyPem));
    expect(text).not.toContain(b64('hunter2'));
  });

  it('follows continue tokens page by page (server caps pages at 2)', async () => {
    const { srv, kubeconfig } = await setup({ maxPageSize: 2 });
    const snap = await read(kubeconfig, { kinds: ['pods', 'namespaces'] });
    expect(snap.objects.pods).toHaveLength(6);
    expect(new Set(names(snap.objects.pods)).size).toBe(6);
    const pages = requestsTo(srv, '/api/v1/pods');
    expect(pages).toHaveLength(3);
    expect(pages[0]!.query).toEqual({ limit: '500' });
    expect(pages[1]!.query.continue).toBeTruthy();
    expect(pages[2]!.query.continue).not.toBe(pages[1]!.query.continue);
    expect(requestsTo(srv, '/api/v1/namespaces')).toHaveLength(2);
  });

  it('asks for pageSize items per page', async () => {
    const { srv, kubeconfig } = await setup();
    const snap = await read(kubeconfig, { kinds: ['pods'], pageSize: 4 });
    expect(snap.objects.pods).toHaveLength(6);
    expect(requestsTo(srv, '/api/v1/pods').map((r) => r.query.limit)).toEqual(['4', '4']);
  });

  it('reads one namespace: the context namespace by default, cluster-scoped kinds still cluster-wide', async () => {
    const { srv, kubeconfig } = await setup({}, { namespace: 'shop' });
    const snap = await read(kubeconfig, { allNamespaces: false });
    expect(snap.scope).toEqual({ allNamespaces: false, namespace: 'shop' });
    expect(names(snap.objects.pods)).toEqual(['shop/web-1', 'shop/web-2', 'shop/web-3', 'shop/web-4', 'shop/web-5']);
    expect(requestsTo(srv, '/api/v1/namespaces/shop/pods')).toHaveLength(1);
    expect(requestsTo(srv, '/apis/apps/v1/namespaces/shop/deployments')).toHaveLength(1);
    expect(requestsTo(srv, '/api/v1/pods')).toHaveLength(0);
    expect(requestsTo(srv, '/api/v1/namespaces')).toHaveLength(1);
    expect(requestsTo(srv, '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations')).toHaveLength(1);
    expect(names(snap.objects.namespaces)).toHaveLength(3);
    // The control-plane objects are still read from the mesh namespace.
    expect(names(snap.objects.configmaps)).toEqual(['linkerd/linkerd-config']);
    expect(names(snap.objects.secrets)).toEqual(['linkerd/linkerd-identity-issuer']);

    const other = await read(kubeconfig, { allNamespaces: false, namespace: 'other', kinds: ['pods'] });
    expect(other.scope.namespace).toBe('other');
    expect(names(other.objects.pods)).toEqual(['other/db-0']);
  });

  it("uses the 'default' namespace when the context has none", async () => {
    const { srv, kubeconfig } = await setup();
    const snap = await read(kubeconfig, { allNamespaces: false, kinds: ['pods'] });
    expect(snap.scope.namespace).toBe('default');
    expect(snap.objects.pods).toEqual([]);
    expect(requestsTo(srv, '/api/v1/namespaces/default/pods')).toHaveLength(1);
  });

  it('reports progress up to all kinds and all objects', async () => {
    const { kubeconfig } = await setup({ maxPageSize: 2 });
    const calls: { kindsDone: number; kindsTotal: number; objects: number }[] = [];
    const snap = await read(kubeconfig, { onProgress: (p) => calls.push(p) });
    const total = Object.values(snap.objects).reduce((n, list) => n + list.length, 0);
    expect(calls.at(-1)).toEqual({ kindsDone: ALL.length, kindsTotal: ALL.length, objects: total });
    for (let i = 1; i < calls.length; i++) {
      expect(calls[i]!.kindsDone).toBeGreaterThanOrEqual(calls[i - 1]!.kindsDone);
      expect(calls[i]!.objects).toBeGreaterThanOrEqual(calls[i - 1]!.objects);
    }
  });

  it('accepts gzip responses', async () => {
    const { srv, kubeconfig } = await setup({ gzip: true });
    const snap = await read(kubeconfig, { kinds: ['pods'] });
    expect(snap.objects.pods).toHaveLength(6);
    expect(srv.requests[0]!.headers['accept-encoding']).toContain('gzip');
  });

  it('reads from a plain-HTTP server (kubectl proxy)', async () => {
    const { srv, kubeconfig } = await setup({ plainHttp: true });
    expect(srv.url).toMatch(/^http:/);
    const snap = await read(kubeconfig, { kinds: ['pods'] });
    expect(snap.objects.pods).toHaveLength(6);
  });

  it('marks ConfigMaps and Secrets unavailable when the mesh namespaces cannot be known', async () => {
    const { srv, kubeconfig } = await setup();
    const snap = await read(kubeconfig, { kinds: ['configmaps', 'secrets'] });
    expect(snap.objects).toEqual({});
    expect(snap.unavailable.configmaps).toMatch(/mesh namespaces are unknown/);
    expect(snap.unavailable.secrets).toMatch(/mesh namespaces are unknown/);
    expect(srv.requests).toHaveLength(0);
  });
});

describe('gather: kinds the server refuses', () => {
  it('403 on one list: that kind is unavailable with the reason, the rest is read', async () => {
    const { kubeconfig } = await setup({ faults: [{ match: (r) => r.path === '/api/v1/pods', status: 403 }] });
    const snap = await read(kubeconfig);
    expect(snap.objects).not.toHaveProperty('pods');
    expect(snap.unavailable).toEqual({
      pods: 'forbidden: pods is forbidden: User "system:serviceaccount:default:meshdoctor" cannot list resource "pods" in API group "" at the cluster scope',
    });
    expect(snap.objects.deployments).toHaveLength(1);
    expect(snap.objects.secrets).toHaveLength(1);
  });

  it('404 on a list (API group not served): unavailable, also with a plain-text body', async () => {
    const { kubeconfig } = await setup({
      faults: [
        {
          match: (r) => r.path === '/apis/discovery.k8s.io/v1/endpointslices',
          status: 404,
          body: '404 page not found\n',
        },
        { match: (r) => r.path === '/apis/batch/v1/cronjobs', status: 404 },
      ],
    });
    const snap = await read(kubeconfig);
    expect(snap.unavailable).toEqual({
      endpointslices: 'not found: 404 page not found',
      cronjobs: 'not found: the server could not find the requested resource',
    });
    expect(snap.objects.pods).toHaveLength(6);
  });

  it('403 on a named Secret: Secrets unavailable, ConfigMaps still read', async () => {
    const { kubeconfig } = await setup({ faults: [{ match: (r) => r.path.includes('/secrets/'), status: 403 }] });
    const snap = await read(kubeconfig);
    expect(snap.objects).not.toHaveProperty('secrets');
    expect(snap.unavailable.secrets).toMatch(
      /^forbidden: secrets "linkerd-\S+" is forbidden: .* cannot get resource "secrets"/,
    );
    expect(names(snap.objects.configmaps)).toEqual(['linkerd/linkerd-config']);
  });

  it('every kind forbidden is still a snapshot (the server answered)', async () => {
    const { kubeconfig } = await setup({ faults: [{ match: () => true, status: 403 }] });
    const snap = await read(kubeconfig, { kinds: ['pods', 'services'] });
    expect(Object.keys(snap.unavailable).sort()).toEqual(['pods', 'services']);
  });
});

describe('gather: retries and broken answers', () => {
  it('410 on a continue token restarts the list once', async () => {
    const { srv, kubeconfig } = await setup({
      maxPageSize: 2,
      faults: [{ match: (r) => r.path === '/api/v1/pods' && r.query.continue !== undefined, status: 410, times: 1 }],
    });
    const snap = await read(kubeconfig, { kinds: ['pods'] });
    expect(names(snap.objects.pods)).toHaveLength(6);
    expect(new Set(names(snap.objects.pods)).size).toBe(6);
    // page 1, page 2 (410), then from scratch: pages 1, 2, 3.
    expect(requestsTo(srv, '/api/v1/pods').map((r) => r.query.continue !== undefined)).toEqual([
      false,
      true,
      false,
      true,
      true,
    ]);
  });

  it('410 again after the restart: the kind is unavailable', async () => {
    const { srv, kubeconfig } = await setup({
      maxPageSize: 2,
      faults: [{ match: (r) => r.path === '/api/v1/pods' && r.query.continue !== undefined, status: 410 }],
    });
    const snap = await read(kubeconfig, { kinds: ['pods', 'services'] });
    expect(snap.unavailable.pods).toMatch(/^expired: The provided continue parameter is too old/);
    expect(snap.objects.services).toHaveLength(1);
    expect(requestsTo(srv, '/api/v1/pods')).toHaveLength(4);
  });

  it('429 is retried after Retry-After', async () => {
    const { srv, kubeconfig } = await setup({
      faults: [{ match: (r) => r.path === '/api/v1/pods', status: 429, retryAfterSeconds: 1, times: 1 }],
    });
    const snap = await read(kubeconfig, { kinds: ['pods'] });
    expect(snap.objects.pods).toHaveLength(6);
    expect(srv.requests).toHaveLength(2);
    expect(srv.requests[1]!.at - srv.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('429 with a Retry-After beyond the request timeout gives up within the timeout', async () => {
    const { srv, kubeconfig } = await setup({
      faults: [{ match: (r) => r.path === '/api/v1/pods', status: 429, retryAfterSeconds: 30 }],
    });
    // The wait it asks for (30 s, capped at 5 s) ends after the request timeout (4.9 s, the most
    // below the cap, so that a busy machine's slow answer is not taken for a timeout): given up at
    // once, on the 429 (not on the timeout, whose reason would be "timed out"), without a retry.
    const snap = await read(kubeconfig, { kinds: ['pods', 'services'], limits: { requestTimeoutMs: 4900 } });
    expect(snap.unavailable.pods).toBe('too many requests (429): Too many requests, please try again later.');
    expect(requestsTo(srv, '/api/v1/pods')).toHaveLength(1);
  });

  it('503 is retried with backoff', async () => {
    const { srv, kubeconfig } = await setup({
      faults: [{ match: (r) => r.path === '/api/v1/pods', status: 503, times: 2 }],
    });
    const t0 = Date.now();
    const snap = await read(kubeconfig, { kinds: ['pods'] });
    expect(snap.objects.pods).toHaveLength(6);
    expect(srv.requests).toHaveLength(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(550); // 200 ms + 400 ms
  });

  it('500 on one kind after the retries: unavailable, the rest is read', async () => {
    const { srv, kubeconfig } = await setup({ faults: [{ match: (r) => r.path === '/api/v1/pods', status: 500 }] });
    const snap = await read(kubeconfig);
    expect(snap.unavailable).toEqual({
      pods: 'internal server error (500): Internal error occurred: etcdserver: request timed out (/api/v1/pods)',
    });
    expect(requestsTo(srv, '/api/v1/pods')).toHaveLength(4);
    expect(snap.objects.deployments).toHaveLength(1);
  });

  it('500 on every request is an error', async () => {
    const { srv, kubeconfig } = await setup({ faults: [{ match: () => true, status: 500, message: 'etcd is down' }] });
    const err = await failure(read(kubeconfig));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(
      `the API server at ${srv.url} failed every request: internal server error (500): etcd is down`,
    );
  });

  it('a cut body is retried', async () => {
    const { srv, kubeconfig } = await setup({
      faults: [{ match: (r) => r.path === '/api/v1/pods', cutBody: true, times: 1 }],
    });
    const snap = await read(kubeconfig, { kinds: ['pods'] });
    expect(snap.objects.pods).toHaveLength(6);
    expect(srv.requests).toHaveLength(2);
  });

  it('a body always cut or not JSON: the kind is unavailable', async () => {
    const { kubeconfig } = await setup({
      faults: [
        { match: (r) => r.path === '/api/v1/pods', cutBody: true },
        { match: (r) => r.path === '/api/v1/services', body: '{"kind":"ServiceList","items":[' },
      ],
    });
    const snap = await read(kubeconfig, { kinds: ['pods', 'services', 'namespaces'] });
    expect(snap.unavailable.pods).toMatch(/^the response was cut off/);
    expect(snap.unavailable.services).toBe('the API server sent invalid JSON');
    expect(snap.objects.namespaces).toHaveLength(3);
  });
});

describe('gather: fatal errors', () => {
  it('401: the credentials are rejected', async () => {
    const { srv } = await setup();
    const kubeconfig = await srv.writeKubeconfig(await tempDir(), {
      extraContexts: [{ name: 'stale', token: 'expired' }],
    });
    const err = await failure(read(kubeconfig, { context: 'stale' }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(`the API server at ${srv.url} rejected the credentials (401 Unauthorized)`);
  });

  it('nothing listening: cannot reach the server', async () => {
    const { srv } = await setup();
    const port = await freePort();
    const server = `https://127.0.0.1:${port}`;
    const kubeconfig = await srv.writeKubeconfig(await tempDir(), { extraContexts: [{ name: 'gone', server }] });
    // A request timeout of an hour: only giving up at once (unreachable is fatal) ends this read
    // within the test's own timeout.
    const err = await failure(read(kubeconfig, { context: 'gone', limits: { requestTimeoutMs: 3_600_000 } }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(`cannot reach the API server at ${server}: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('a server certificate the kubeconfig CA did not sign: cannot reach the server', async () => {
    const { srv } = await setup();
    const { srv: impostor } = await setup();
    const kubeconfig = await srv.writeKubeconfig(await tempDir(), {
      extraContexts: [{ name: 'mitm', server: impostor.url }],
    });
    const err = await failure(read(kubeconfig, { context: 'mitm' }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(new RegExp(`^cannot reach the API server at ${impostor.url}: .*certificate`));
    expect(impostor.requests).toHaveLength(0);
  });

  it('one kind hanging: unavailable after the timeout, the rest is read', async () => {
    const { kubeconfig } = await setup({ faults: [{ match: (r) => r.path === '/api/v1/pods', delayMs: Infinity }] });
    // The other kinds must answer within the timeout on a busy machine too: 3 s. The hanging kind
    // never answers, so only the timeout can end this read (else the test's own timeout fails it).
    const snap = await read(kubeconfig, { limits: { requestTimeoutMs: 3000 } });
    expect(snap.unavailable).toEqual({ pods: 'timed out: no answer within 3s' });
    expect(snap.objects.deployments).toHaveLength(1);
  });

  it('the server hanging: an error after the timeout', async () => {
    const { srv, kubeconfig } = await setup({ faults: [{ match: () => true, delayMs: Infinity }] });
    // Nothing answers: only the timeout can end this read.
    const err = await failure(read(kubeconfig, { limits: { requestTimeoutMs: 400 } }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(`the API server at ${srv.url} did not answer within 0.4s`);
  });

  it('a slow answer within the timeout is fine', async () => {
    const { kubeconfig } = await setup({ faults: [{ match: () => true, delayMs: 300 }] });
    // A timeout far beyond the delay: a busy machine cannot make the answer late.
    const snap = await read(kubeconfig, { kinds: ['pods'], limits: { requestTimeoutMs: 60_000 } });
    expect(snap.objects.pods).toHaveLength(6);
  });
});

describe('kubeconfig resolution', () => {
  it('resolves the current context, its namespace and server', async () => {
    const { srv, kubeconfig } = await setup(
      {},
      { context: 'prod', namespace: 'shop', extraContexts: [{ name: 'dev' }] },
    );
    expect(await resolveContext({ kubeconfig })).toEqual({ contextName: 'prod', namespace: 'shop', server: srv.url });
    expect(await resolveContext({ kubeconfig, context: 'dev' })).toEqual({
      contextName: 'dev',
      namespace: 'default',
      server: srv.url,
    });
    expect(srv.requests).toHaveLength(0);
  });

  it('unknown context', async () => {
    const { kubeconfig } = await setup();
    for (const p of [resolveContext({ kubeconfig, context: 'nope' }), read(kubeconfig, { context: 'nope' })]) {
      const err = await failure(p);
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toBe('context "nope" not found in kubeconfig (contexts: fake)');
    }
  });

  it('no current context', async () => {
    const { srv } = await setup();
    const kubeconfig = await srv.writeKubeconfig(await tempDir(), { currentContext: null });
    const err = await failure(resolveContext({ kubeconfig }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/no current context/);
  });

  it('missing or broken kubeconfig files', async () => {
    const dir = await tempDir();
    const missing = join(dir, 'missing');
    let err = await failure(resolveContext({ kubeconfig: missing }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(`cannot load kubeconfig: ${missing} does not exist`);

    const broken = join(dir, 'broken');
    await writeFile(broken, 'clusters: [\n  - name: x\n   bad indent');
    err = await failure(resolveContext({ kubeconfig: broken }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(new RegExp(`^cannot load kubeconfig: ${broken}: `));
    expect(err.message).not.toContain('\n');
  });

  it('credentials or server that cannot be used', async () => {
    const dir = await tempDir();
    const kubeconfig = join(dir, 'config');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: certs',
        'clusters:',
        '- {name: c, cluster: {server: "https://127.0.0.1:1"}}',
        '- {name: bad, cluster: {server: "not a url"}}',
        'users:',
        '- {name: u, user: {client-certificate: missing.crt, client-key: missing.key}}',
        '- {name: t, user: {token: x}}',
        'contexts:',
        '- {name: certs, context: {cluster: c, user: u}}',
        '- {name: bad, context: {cluster: bad, user: t}}',
      ].join('\n'),
    );
    let err = await failure(read(kubeconfig));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(
      new RegExp(`^cannot get credentials for context "certs": .*${join(dir, 'missing.crt')}`),
    );
    err = await failure(read(kubeconfig, { context: 'bad' }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe('the server of context "bad" is not a URL: not a url');
  });

  it('merges the files of KUBECONFIG like kubectl: missing files skipped, first definition wins', async () => {
    const { srv } = await setup();
    const first = await srv.writeKubeconfig(await tempDir(), { context: 'main', namespace: 'first' });
    // Same context/cluster/user names again (client-node's own merge would throw), plus 'second'.
    const second = await srv.writeKubeconfig(await tempDir(), {
      context: 'main',
      namespace: 'ignored',
      extraContexts: [{ name: 'second', namespace: 'shop' }],
      currentContext: 'second',
    });
    vi.stubEnv('KUBECONFIG', [join(await tempDir(), 'missing'), first, second].join(':'));

    expect(await resolveContext({})).toEqual({ contextName: 'main', namespace: 'first', server: srv.url });
    expect((await resolveContext({ context: 'second' })).namespace).toBe('shop');
    const snap = await gather({
      context: 'second',
      allNamespaces: false,
      kinds: ['pods'],
      limits: { requestTimeoutMs: 5000 },
    });
    expect(snap.source.context).toBe('second');
    expect(snap.objects.pods).toHaveLength(5);

    vi.stubEnv('KUBECONFIG', join(await tempDir(), 'missing'));
    const err = await failure(resolveContext({}));
    expect(err.message).toMatch(/^cannot load kubeconfig: none of the KUBECONFIG files exist/);
    // --kubeconfig wins over KUBECONFIG.
    expect((await resolveContext({ kubeconfig: first })).contextName).toBe('main');
  });

  it('falls back to ~/.kube/config, and says so when there is no kubeconfig at all', async () => {
    const { srv } = await setup();
    const home = await tempDir();
    vi.stubEnv('KUBECONFIG', '');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
    vi.stubEnv('HOME', home);
    const err = await failure(resolveContext({}));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/^cannot load kubeconfig: no --kubeconfig, KUBECONFIG or ~\/.kube\/config/);

    await mkdir(join(home, '.kube'));
    await srv.writeKubeconfig(join(home, '.kube'), { context: 'home', fileName: 'config' });
    expect(await resolveContext({})).toMatchObject({ contextName: 'home', server: srv.url });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
