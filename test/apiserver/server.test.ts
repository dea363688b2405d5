import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { K8sObject } from '../../src/util/types.js';
import { generateCA, generateLeaf, type KeyType } from '../helpers/certs.js';
import { startApiServer, type ApiServer, type ApiServerOptions } from './server.js';

interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A GET (or other method) against the fake server, trusting its CA. */
function call(
  srv: ApiServer,
  path: string,
  opts: { token?: string | null; method?: string; headers?: Record<string, string> } = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const token = opts.token === undefined ? srv.token : opts.token;
    const headers: Record<string, string> = { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...opts.headers };
    const req = request(
      srv.url + path,
      { method: opts.method ?? 'GET', ca: srv.caPem, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          let raw = Buffer.concat(chunks);
          if (res.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
          resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(raw.toString()) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const pod = (namespace: string, name: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace, name, uid: `uid-${namespace}-${name}` },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
});

const fixtures: K8sObject[] = [
  pod('shop', 'web-2'),
  pod('shop', 'web-1'),
  pod('other', 'db-0'),
  pod('shop', 'web-3'),
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web' }, spec: { replicas: 3 } },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'linkerd-proxy-injector-webhook-config' },
    webhooks: [],
  },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'linkerd', name: 'linkerd-config' }, data: { a: 'b' } },
];

let servers: ApiServer[] = [];
async function start(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const srv = await startApiServer({ objects: fixtures, ...opts });
  servers.push(srv);
  return srv;
}
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe('test certificates', () => {
  it.each<KeyType>(['ecdsa', 'rsa'])('%s CA and leaf parse, chain and match their keys', async (keyType) => {
    const notAfter = new Date('2031-01-02T03:04:05Z');
    const ca = await generateCA({ keyType, commonName: 'Test Root' });
    const leaf = await generateLeaf({ ca, keyType, dnsNames: ['svc.ns.svc'], ipAddresses: ['127.0.0.1'], notAfter });
    const caCert = new X509Certificate(ca.certPem);
    const leafCert = new X509Certificate(leaf.certPem);

    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toBe('CN=Test Root');
    expect(leafCert.ca).toBe(false);
    expect(leafCert.issuer).toBe('CN=Test Root');
    expect(leafCert.verify(caCert.publicKey)).toBe(true);
    expect(leafCert.checkIssued(caCert)).toBe(true);
    expect(leafCert.subjectAltName).toBe('DNS:svc.ns.svc, IP Address:127.0.0.1');
    expect(leafCert.checkHost('svc.ns.svc')).toBe('svc.ns.svc');
    expect(leafCert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(new Date(leafCert.validTo).toISOString()).toBe(notAfter.toISOString());
    expect(leaf.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const key = createPrivateKey(leaf.keyPem);
    expect(key.asymmetricKeyType).toBe(keyType === 'rsa' ? 'rsa' : 'ec');
    expect(leafCert.checkPrivateKey(key)).toBe(true);
    expect(caCert.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(true);
    expect(leafCert.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(false);
  });

  it('gives the CA keyCertSign and the leaf no CA rights; a leaf only verifies against its CA', async () => {
    const ca = await generateCA({ keyType: 'ecdsa' });
    const other = await generateCA({ keyType: 'ecdsa' });
    const leaf = await generateLeaf({ ca, keyType: 'ecdsa', dnsNames: ['a'] });
    const KEY_USAGE = '2.5.29.15';
    const KEY_CERT_SIGN = 32;
    const usages = (c: typeof ca) => (c.cert.getExtension(KEY_USAGE) as unknown as { usages: number }).usages;
    expect(usages(ca) & KEY_CERT_SIGN).toBe(KEY_CERT_SIGN);
    expect(usages(leaf) & KEY_CERT_SIGN).toBe(0);
    expect(new X509Certificate(leaf.certPem).verify(new X509Certificate(other.certPem).publicKey)).toBe(false);
  });
});

describe('fake API server', () => {
  it('requires the bearer token', async () => {
    const srv = await start();
    for (const token of [null, 'wrong']) {
      const res = await call(srv, '/api/v1/pods', { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    }
    expect((await call(srv, '/api/v1/pods')).status).toBe(200);
  });

  it('lists cluster-wide and per namespace, sorted, with items stripped of kind and apiVersion', async () => {
    const srv = await start();
    const all = await call(srv, '/api/v1/pods');
    expect(all.body.kind).toBe('PodList');
    expect(all.body.apiVersion).toBe('v1');
    expect(all.body.metadata).toEqual({ resourceVersion: '123' });
    expect(all.body.items.map((p: K8sObject) => `${p.metadata!.namespace}/${p.metadata!.name}`)).toEqual([
      'other/db-0',
      'shop/web-1',
      'shop/web-2',
      'shop/web-3',
    ]);
    expect(all.body.items[0]).not.toHaveProperty('kind');
    expect(all.body.items[0]).not.toHaveProperty('apiVersion');

    const shop = await call(srv, '/api/v1/namespaces/shop/pods');
    expect(shop.body.items).toHaveLength(3);
    const deps = await call(srv, '/apis/apps/v1/namespaces/shop/deployments');
    expect(deps.body).toMatchObject({
      kind: 'DeploymentList',
      apiVersion: 'apps/v1',
      items: [{ spec: { replicas: 3 } }],
    });
    const hooks = await call(srv, '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations');
    expect(hooks.body.items).toHaveLength(1);
    expect((await call(srv, '/api/v1/namespaces')).body.items).toEqual([{ metadata: { name: 'shop' } }]);
    expect((await call(srv, '/api/v1/services')).body.items).toEqual([]);
  });

  it('gets single objects with kind and apiVersion, and 404s absent ones with a Status', async () => {
    const srv = await start();
    const cm = await call(srv, '/api/v1/namespaces/linkerd/configmaps/linkerd-config');
    expect(cm.status).toBe(200);
    expect(cm.body).toEqual(fixtures.at(-1));
    expect((await call(srv, '/api/v1/namespaces/shop')).body.kind).toBe('Namespace');

    const missing = await call(srv, '/api/v1/namespaces/shop/configmaps/linkerd-config');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'configmaps "linkerd-config" not found',
    });
    expect((await call(srv, '/apis/example.com/v1/widgets')).status).toBe(404);
    expect((await call(srv, '/api/v1/namespaces/shop/namespaces')).status).toBe(404);
  });

  it('paginates with limit, continue and maxPageSize', async () => {
    const srv = await start({ maxPageSize: 2 });
    const p1 = await call(srv, '/api/v1/pods?limit=3');
    expect(p1.body.items).toHaveLength(2);
    expect(p1.body.metadata.remainingItemCount).toBe(2);
    const token = p1.body.metadata.continue;
    expect(typeof token).toBe('string');
    const p2 = await call(srv, `/api/v1/pods?limit=3&continue=${encodeURIComponent(token)}`);
    expect(p2.body.items.map((p: K8sObject) => p.metadata!.name)).toEqual(['web-2', 'web-3']);
    expect(p2.body.metadata.continue).toBeUndefined();

    // A token is only valid for the list it came from.
    const wrong = await call(srv, `/api/v1/namespaces/shop/pods?continue=${encodeURIComponent(token)}`);
    expect(wrong.status).toBe(400);
    expect((await call(srv, '/api/v1/pods?continue=garbage')).status).toBe(400);

    const unlimited = await startApiServer({ objects: fixtures });
    servers.push(unlimited);
    expect((await call(unlimited, '/api/v1/pods')).body.items).toHaveLength(4);
    expect((await call(unlimited, '/api/v1/pods?limit=1')).body.items).toHaveLength(1);
  });

  it('injects faults with realistic Status bodies, Retry-After and a times limit', async () => {
    const srv = await start({
      faults: [
        { match: (r) => r.path === '/api/v1/pods', status: 403 },
        { match: (r) => r.path === '/api/v1/services', status: 429, retryAfterSeconds: 2, times: 1 },
        { match: (r) => r.query.continue !== undefined, status: 410 },
      ],
    });
    const forbidden = await call(srv, '/api/v1/pods');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'pods is forbidden: User "system:serviceaccount:default:meshdoctor" cannot list resource "pods" in API group "" at the cluster scope',
      reason: 'Forbidden',
      details: { kind: 'pods' },
      code: 403,
    });
    const limited = await call(srv, '/api/v1/services');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    expect(limited.body).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 2 } });
    expect((await call(srv, '/api/v1/services')).status).toBe(200);
    const expired = await call(srv, '/api/v1/namespaces?continue=x');
    expect(expired.body).toMatchObject({ code: 410, reason: 'Expired' });
    expect(expired.body.message).toMatch(/^The provided continue parameter is too old/);

    // Faults may be changed while the server runs.
    srv.faults.push({ match: () => true, status: 503, message: 'down for maintenance' });
    expect((await call(srv, '/api/v1/namespaces')).body).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'down for maintenance',
    });
  });

  it('delays, hangs and cuts bodies', async () => {
    const srv = await start({
      faults: [
        { match: (r) => r.path === '/api/v1/pods', delayMs: 300 },
        { match: (r) => r.path === '/api/v1/services', delayMs: Infinity },
        { match: (r) => r.path === '/api/v1/namespaces', cutBody: true },
      ],
    });
    const t0 = Date.now();
    expect((await call(srv, '/api/v1/pods')).body.items).toHaveLength(4);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);

    await expect(call(srv, '/api/v1/namespaces')).rejects.toThrow();

    const hung = call(srv, '/api/v1/services');
    const outcome = await Promise.race([
      hung.then(
        () => 'answered',
        () => 'failed',
      ),
      sleep(300).then(() => 'pending'),
    ]);
    expect(outcome).toBe('pending');
    await srv.close(); // ends the hung request
    await expect(hung).rejects.toThrow();
    servers = servers.filter((s) => s !== srv);
  });

  it('gzips for clients that accept it when asked to', async () => {
    const srv = await start({ gzip: true });
    const res = await call(srv, '/api/v1/pods', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body.items).toHaveLength(4);
    expect((await call(srv, '/api/v1/pods')).headers['content-encoding']).toBeUndefined();
  });

  it('records every request, and refuses methods other than GET', async () => {
    const srv = await start();
    await call(srv, '/api/v1/pods?limit=5&continue=');
    const del = await call(srv, '/api/v1/namespaces/shop/pods/web-1', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(srv.requests.map(({ method, path, query }) => ({ method, path, query }))).toEqual([
      { method: 'GET', path: '/api/v1/pods', query: { limit: '5', continue: '' } },
      { method: 'DELETE', path: '/api/v1/namespaces/shop/pods/web-1', query: {} },
    ]);
    expect(srv.requests[0]!.headers.authorization).toBe(`Bearer ${srv.token}`);
  });

  it('writes a kubeconfig with its CA, URL and token', async () => {
    const srv = await start();
    const path = await srv.writeKubeconfig(undefined, {
      context: 'main',
      namespace: 'shop',
      extraContexts: [{ name: 'other', server: 'https://127.0.0.1:1', token: 'bad' }],
    });
    const cfg = parse(await readFile(path, 'utf8'));
    expect(cfg['current-context']).toBe('main');
    expect(cfg.contexts).toEqual([
      { name: 'main', context: { cluster: 'main-cluster', user: 'main-user', namespace: 'shop' } },
      { name: 'other', context: { cluster: 'other-cluster', user: 'other-user' } },
    ]);
    expect(cfg.clusters[0].cluster.server).toBe(srv.url);
    expect(Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).toBe(srv.caPem);
    expect(cfg.clusters[1].cluster.server).toBe('https://127.0.0.1:1');
    expect(cfg.users).toEqual([
      { name: 'main-user', user: { token: srv.token } },
      { name: 'other-user', user: { token: 'bad' } },
    ]);
    const none = parse(await readFile(await srv.writeKubeconfig(undefined, { currentContext: null }), 'utf8'));
    expect(none).not.toHaveProperty('current-context');
  });
});

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
