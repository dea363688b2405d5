/**
 * Hostile input on the live path: kubeconfigs, credentials, exec plugins and API servers built to
 * crash, hang or exhaust meshdoctor. Each class of attack ends in one UserError line or a kind
 * recorded unavailable, quickly and in bounded memory. The servers are small raw node:http servers
 * on 127.0.0.1 (or the test API server); every loop a server could make endless is bounded here too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGzip } from 'node:zlib';
import { profileOf } from '../src/mesh/registry.js';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resolveContext, type GatherOptions } from '../src/cluster/gather.js';
import { gather } from '../src/run/read.js';
import { hasControl, UserError } from '../src/util/errors.js';
import type { K8sObject } from '../src/util/types.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { failure } from './helpers/failure.js';
import { until } from './helpers/until.js';
import { generateCA, generateLeaf } from './helpers/certs.js';

const MiB = 1024 * 1024;
const b64 = (s: string) => Buffer.from(s).toString('base64');

// ---------------------------------------------------------------------------------------------
// Helpers

const tempDirs: string[] = [];
const closers: (() => Promise<void>)[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'meshdoctor-hostile-'));
  tempDirs.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});
afterAll(async () => {
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A kubeconfig (JSON is YAML) of one context "c" with this cluster and user. */
async function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown> = {}): Promise<string> {
  const file = join(await tempDir(), 'config');
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'c',
      clusters: [{ name: 'k', cluster }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    }).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`), // escaped: YAML refuses raw DEL/C1
  );
  return file;
}

interface Hostile {
  url: string;
  port: number;
  requests: { path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders }[];
  maxInFlight: number;
  /** Requests not yet closed (answered, or the connection ended). */
  inFlight: number;
}

/** A raw HTTP server on 127.0.0.1; the handler gets the request's number (0-based). */
async function hostile(
  handler: (req: IncomingMessage, res: ServerResponse, n: number, url: URL) => void,
): Promise<Hostile> {
  const h: Hostile = { url: '', port: 0, requests: [], maxInFlight: 0, inFlight: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    h.requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    h.maxInFlight = Math.max(h.maxInFlight, ++h.inFlight);
    res.on('close', () => h.inFlight--);
    handler(req, res, h.requests.length - 1, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.port = (server.address() as AddressInfo).port;
  h.url = `http://127.0.0.1:${h.port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return h;
}

async function apiServer(
  objects: K8sObject[] = [],
  opts: Parameters<typeof startApiServer>[0] = {},
): Promise<ApiServer> {
  const srv = await startApiServer({ objects, ...opts });
  closers.push(() => srv.close());
  return srv;
}

const pod = (name: string, extra: Record<string, unknown> = {}): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'shop', name },
  ...extra,
});

/** A JSON list body, with a continue token when given. */
const listBody = (items: unknown[], cont?: string) =>
  JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: cont ? { continue: cont } : {}, items });

const sendJson = (res: ServerResponse, code: number, body: string) => {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};

const statusBody = (code: number, message: string) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });

function read(config: string, opts: Partial<GatherOptions> = {}): Promise<Snapshot> {
  return gather({
    kubeconfig: config,
    allNamespaces: true,
    kinds: ['pods'],
    ...opts,
    limits: { requestTimeoutMs: 2000, ...opts.limits },
  });
}

/** A one-line UserError, as the CLI prints it. */
async function userError(p: Promise<unknown>): Promise<string> {
  const e = await failure(p);
  expect(e).toBeInstanceOf(UserError);
  expect(e.message).not.toMatch(/[\n\r]/);
  return e.message;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Characters Node refuses in a header value, or a terminal would act on. */
const BAD_HEADER_CHAR = fc.constantFrom(
  '\r\n',
  '\n',
  '\r',
  '\u0000',
  '\u001b',
  '\u007f',
  '\u0100',
  '\u2028',
  '\u{1F600}',
  '\u0085',
);

// ---------------------------------------------------------------------------------------------
// 1. Errors while a request is set up

describe('1. credentials that cannot be set up: one line naming the context, no request, no crash', () => {
  it('a token with a CR/LF, a control character or a character beyond Latin-1 (property)', async () => {
    const h = await hostile((_req, res) => sendJson(res, 200, listBody([])));
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 20 }),
        BAD_HEADER_CHAR,
        fc.string({ maxLength: 20 }),
        async (pre, bad, post) => {
          const token = `${pre}${bad}${post}`;
          const config = await kubeconfig({ server: h.url }, { token });
          const msg = await userError(read(config, { limits: { requestTimeoutMs: 50 } }));
          expect(msg).toMatch(
            /^cannot get credentials for context "c": the token holds a control character or a character outside Latin-1/,
          );
          expect(hasControl(msg)).toBe(false);
          expect(msg).not.toContain(token);
        },
      ),
      { numRuns: 25 },
    );
    await sleep(100); // the old code crashed when the request timer fired, after the rejection
    expect(h.requests).toHaveLength(0);
  });

  it('a token file holding a newline inside the token', async () => {
    const h = await hostile((_req, res) => sendJson(res, 200, listBody([])));
    const file = join(await tempDir(), 'token');
    await writeFile(file, 'abc\r\ndef\n');
    const msg = await userError(
      read(await kubeconfig({ server: h.url }, { tokenFile: file }), { limits: { requestTimeoutMs: 50 } }),
    );
    expect(msg).toBe(
      `cannot get credentials for context "c": the token file ${file} holds a control character or a character outside Latin-1, which an HTTP header cannot carry`,
    );
    await sleep(100);
  });

  it('a client certificate that does not match its key, is not PEM, or comes without its key', async () => {
    const srv = await apiServer();
    const ca = await generateCA({ keyType: 'ecdsa' });
    const a = await generateLeaf({ ca, keyType: 'ecdsa', dnsNames: ['a'] });
    const b = await generateLeaf({ ca, keyType: 'ecdsa', dnsNames: ['b'] });
    const cluster = { server: srv.url, 'certificate-authority-data': b64(srv.caPem) };
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { 'client-certificate-data': b64(a.certPem), 'client-key-data': b64(b.keyPem) },
        /cannot be used: .*(mismatch|values)/i,
      ],
      [{ 'client-certificate-data': b64('not a certificate'), 'client-key-data': b64(a.keyPem) }, /cannot be used: /],
      [{ 'client-certificate-data': b64(a.certPem), 'client-key-data': b64('not a key') }, /cannot be used: /],
      [{ 'client-certificate-data': b64(a.certPem) }, /a client certificate needs a client key/],
    ];
    for (const [user, why] of cases) {
      const msg = await userError(
        read(await kubeconfig(cluster, { token: srv.token, ...user }), { limits: { requestTimeoutMs: 50 } }),
      );
      expect(msg).toMatch(/^cannot get credentials for context "c": /);
      expect(msg).toMatch(why);
    }
    await sleep(100);
    expect(srv.requests).toHaveLength(0);
  });

  it('a certificate authority that holds no PEM certificate', async () => {
    const srv = await apiServer();
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64('garbage') },
      { token: srv.token },
    );
    expect(await userError(read(config))).toBe(
      'cannot get credentials for context "c": the certificate authority holds no PEM certificate',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Server URLs

describe('2. server URLs as kubectl reads them', () => {
  it('a server without a scheme is https', async () => {
    const srv = await apiServer([pod('web')]);
    const port = new URL(srv.url).port;
    const config = await kubeconfig(
      { server: `127.0.0.1:${port}`, 'certificate-authority-data': b64(srv.caPem) },
      { token: srv.token },
    );
    const snap = await read(config);
    expect(snap.objects.pods).toHaveLength(1);
    expect(snap.source.server).toBe(`https://127.0.0.1:${port}`);

    for (const [server, shown] of [
      ['localhost:6443', 'https://localhost:6443'],
      ['1.2.3.4:443', 'https://1.2.3.4:443'],
      ['host', 'https://host'],
      ['[::1]:6443', 'https://[::1]:6443'],
    ]) {
      expect((await resolveContext({ kubeconfig: await kubeconfig({ server }) })).server).toBe(shown);
    }
  });

  it('an unknown scheme is one line', async () => {
    for (const server of ['ftp://127.0.0.1:21', 'unix:///var/run/kube.sock', 'file:///etc/passwd', 'javascript://x']) {
      const scheme = server.split(':')[0];
      const msg = await userError(read(await kubeconfig({ server })));
      expect(msg).toBe(`the server of context "c" has the scheme "${scheme}": only https:// and http:// are supported`);
    }
    expect(await userError(read(await kubeconfig({})))).toBe('the cluster of context "c" has no server');
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Response bodies

/** gzip of `size` zero bytes, made in 1 MiB steps (the test itself never holds the plain bytes). */
async function gzipBomb(size: number): Promise<Buffer> {
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => gz.on('end', resolve));
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < size / MiB; i++) if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
  gz.end();
  await done;
  return Buffer.concat(out);
}

describe('3. response bodies are capped at --max-bytes while they stream', () => {
  it('a body larger than --max-bytes: the kind is unavailable, not retried, the rest is read', async () => {
    const big = listBody([pod('big', { data: 'x'.repeat(2 * MiB) })]);
    const h = await hostile((_req, res, _n, url) =>
      sendJson(res, 200, url.pathname === '/api/v1/pods' ? big : listBody([])),
    );
    const snap = await read(await kubeconfig({ server: h.url }), {
      kinds: ['pods', 'services'],
      limits: { maxBytes: MiB },
    });
    expect(snap.unavailable).toEqual({ pods: 'the response is larger than 1 MiB (--max-bytes)' });
    expect(snap.objects.services).toEqual([]);
    expect(h.requests.filter((r) => r.path === '/api/v1/pods')).toHaveLength(1);
  });

  it('an endless body is cut off at once; on every kind it is one line', async () => {
    // Measured in bytes, not time: the server writes only while the client reads, so what it
    // managed to send is what meshdoctor read before it hung up (plus the sockets' buffers).
    let sent = 0;
    const h = await hostile((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let mine = 0;
      const pump = () => {
        // Bounded: 256 MiB at most, and only while the client still reads.
        while (!res.destroyed && mine < 256 * MiB) {
          mine += chunk.length;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const msg = await userError(
      read(await kubeconfig({ server: h.url }), { kinds: ['pods', 'services'], limits: { maxBytes: MiB } }),
    );
    expect(msg).toBe(
      `the API server at ${h.url} failed every request: the response is larger than 1 MiB (--max-bytes)`,
    );
    // Both responses are closed by meshdoctor (the wait only ends a hang), after 1 MiB each and
    // what the loopback sockets buffer: far below the 2 x 256 MiB a reader to the end would take.
    await until(() => h.inFlight === 0, 10_000, 'the responses closed');
    expect(sent).toBeLessThan(2 * 32 * MiB);
  });

  it('a gzip bomb (64 MiB unpacked) with --max-bytes 1 MiB: unavailable, and memory stays flat', async () => {
    const bomb = await gzipBomb(64 * MiB);
    expect(bomb.length).toBeLessThan(MiB);
    const h = await hostile((_req, res, _n, url) => {
      if (url.pathname !== '/api/v1/pods') return sendJson(res, 200, listBody([]));
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Content-Length': bomb.length,
      });
      res.end(bomb);
    });
    const config = await kubeconfig({ server: h.url });
    await read(config, { kinds: ['services'] }); // warm up: modules loaded, agent code compiled
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    try {
      const snap = await read(config, { kinds: ['pods', 'services'], limits: { maxBytes: MiB } });
      expect(snap.unavailable).toEqual({ pods: 'the response is larger than 1 MiB (--max-bytes)' });
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage.rss());
    expect(peak - before).toBeLessThan(50 * MiB);
  });

  it('gzip bodies within the limit are read (the cap counts the unpacked size)', async () => {
    const srv = await apiServer([pod('a'), pod('b')], { gzip: true });
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      { token: srv.token },
    );
    expect((await read(config, { limits: { maxBytes: 64 * 1024 } })).objects.pods).toHaveLength(2);
  });
});

describe('3b. bodies of the wrong shape', () => {
  it('a named Secret or ConfigMap that is JSON but not an object: unavailable, no crash', async () => {
    const h = await hostile((_req, res, _n, url) => {
      if (url.pathname === '/api/v1/namespaces')
        return sendJson(res, 200, listBody([{ metadata: { name: 'linkerd' } }]));
      if (/\/(configmaps|secrets)\//.test(url.pathname))
        return sendJson(res, 200, url.pathname.includes('secrets') ? 'null' : '[1]');
      sendJson(res, 200, listBody([]));
    });
    const snap = await read(await kubeconfig({ server: h.url }), {
      kinds: ['namespaces', 'mutatingwebhookconfigurations', 'configmaps', 'secrets'],
    });
    expect(snap.unavailable).toEqual({
      configmaps: 'the API server sent a ConfigMap that is not an object',
      secrets: 'the API server sent a Secret that is not an object',
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Pagination

describe('4. pagination a server never ends', () => {
  it('continue tokens cycling a, b, a, ...: stopped at the first repeat', async () => {
    const h = await hostile((_req, res, n) => {
      // Bounded: the 200th page ends the list (the old code looped until then).
      sendJson(
        res,
        200,
        listBody([{ metadata: { namespace: 'shop', name: `p${n}` } }], n < 200 ? ['a', 'b'][n % 2] : undefined),
      );
    });
    const snap = await read(await kubeconfig({ server: h.url }), { kinds: ['pods'] });
    expect(snap.unavailable).toEqual({ pods: 'the API server repeated a continue token for pods' });
    expect(h.requests.map((r) => r.query.get('continue'))).toEqual([null, 'a', 'b']);
  });

  it('more objects than --max-objects: unavailable, never a silently truncated list', async () => {
    const h = await hostile((_req, res, n) => {
      const items = [0, 1, 2].map((i) => ({ metadata: { namespace: 'shop', name: `p${n}-${i}` } }));
      sendJson(res, 200, listBody(items, n < 100 ? `t${n}` : undefined));
    });
    const snap = await read(await kubeconfig({ server: h.url }), { kinds: ['pods'], limits: { maxObjects: 5 } });
    expect(snap.objects.pods).toBeUndefined();
    expect(snap.unavailable).toEqual({ pods: 'more than 5 pods (--max-objects)' });
    expect(h.requests).toHaveLength(2);
  });

  it('endless empty pages with fresh tokens: at most --max-objects + 1 pages', async () => {
    const h = await hostile((_req, res, n) => sendJson(res, 200, listBody([], n < 500 ? `t${n}` : undefined)));
    const snap = await read(await kubeconfig({ server: h.url }), { kinds: ['pods'], limits: { maxObjects: 10 } });
    expect(snap.unavailable).toEqual({ pods: 'the API server sent more than 11 pages of pods (--max-objects)' });
    expect(h.requests).toHaveLength(11);
  });

  it('a list of exactly --max-objects objects is read whole', async () => {
    const h = await hostile((_req, res, n) =>
      sendJson(res, 200, listBody([{ metadata: { namespace: 'shop', name: `p${n}` } }], n < 4 ? `t${n}` : undefined)),
    );
    const snap = await read(await kubeconfig({ server: h.url }), { kinds: ['pods'], limits: { maxObjects: 5 } });
    expect(snap.objects.pods).toHaveLength(5);
  });
});

// ---------------------------------------------------------------------------------------------
// 5. The deadline of the whole read

describe('5. one deadline for the whole read', () => {
  it('--timeout stops everything in flight with one line', async () => {
    const h = await hostile(() => {}); // never answers
    // The request timeout is far beyond the test's own: only the deadline can end this read.
    const msg = await userError(
      read(await kubeconfig({ server: h.url }), {
        kinds: ['pods', 'services', 'namespaces'],
        limits: { requestTimeoutMs: 3_600_000, deadlineMs: 300 },
      }),
    );
    expect(msg).toBe('reading the cluster took longer than the --timeout of 0.3s');
    // Every request in flight was aborted: the server sees each one closed (the wait ends a hang).
    await until(() => h.inFlight === 0, 10_000, 'every request closed');
    expect(h.requests.length).toBeLessThanOrEqual(3);
  });

  it('--timeout also ends the retries of a server that answers 503 with Retry-After', async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(503, { 'Retry-After': '1', 'Content-Type': 'application/json' });
      res.end(statusBody(503, 'busy'));
    });
    const msg = await userError(
      read(await kubeconfig({ server: h.url }), { limits: { requestTimeoutMs: 3_600_000, deadlineMs: 300 } }),
    );
    expect(msg).toBe('reading the cluster took longer than the --timeout of 0.3s');
    // No retry was sent: the deadline (0.3 s) ends them before the Retry-After (1 s) on any load,
    // since timers fire in the order they are due. Each path was asked once.
    const paths = h.requests.map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('timeouts beyond a Node timer (2^31 ms) do not fire at once', async () => {
    const srv = await apiServer([pod('web')], { faults: [{ match: () => true, delayMs: 100 }] });
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      { token: srv.token },
    );
    const snap = await read(config, { limits: { requestTimeoutMs: 2 ** 31 + 5, deadlineMs: 2 ** 33 } });
    expect(snap.objects.pods).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. Concurrency

describe('6. at most 16 requests in flight', () => {
  it('a webhook configuration with 600 webhooks in 300 namespaces: bounded fan-out, each object asked once', async () => {
    const webhooks = Array.from({ length: 600 }, (_, i) => ({
      name: 'linkerd-proxy-injector.linkerd.io', // Linkerd's webhook, once per namespace
      clientConfig: { service: { namespace: `ns-${i % 300}`, name: 'x' } },
    }));
    const h = await hostile((_req, res, _n, url) => {
      if (url.pathname === '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations') {
        return sendJson(res, 200, listBody([{ metadata: { name: 'evil' }, webhooks }]));
      }
      if (url.pathname === '/api/v1/namespaces') return sendJson(res, 200, listBody([]));
      setTimeout(() => sendJson(res, 404, statusBody(404, 'not found')), 2);
    });
    const snap = await read(await kubeconfig({ server: h.url }), {
      kinds: ['namespaces', 'mutatingwebhookconfigurations', 'configmaps', 'secrets'],
    });
    expect(snap.objects.configmaps).toEqual([]);
    expect(snap.objects.secrets).toEqual([]);
    const named = h.requests.filter((r) => /\/(configmaps|secrets)\//.test(r.path));
    // Linkerd's objects read by name, once per namespace: its ConfigMaps and its Secrets (src/mesh/linkerd/data.ts).
    const perNamespace = profileOf('linkerd').controlPlane.reads.named(['ns-0'], [], []).length;
    expect(named).toHaveLength(300 * perNamespace);
    expect(named.length).toBeGreaterThanOrEqual(300 * 4);
    expect(new Set(named.map((r) => r.path)).size).toBe(named.length);
    expect(h.maxInFlight).toBeLessThanOrEqual(16);
  });
});

// ---------------------------------------------------------------------------------------------
// 7. Exec credential plugins

/** A kubeconfig whose user runs a node script as its exec plugin. */
async function execConfig(server: ApiServer, script: string, exec: Record<string, unknown> = {}): Promise<string> {
  const dir = await tempDir();
  const file = join(dir, 'plugin.mjs');
  await writeFile(file, script);
  return kubeconfig(
    { server: server.url, 'certificate-authority-data': b64(server.caPem) },
    {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [file],
        interactiveMode: 'Never',
        ...exec,
      },
    },
  );
}

const credential = (status: unknown) =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status });
const execPrefix = `cannot get credentials for context "c": the exec plugin "${process.execPath}"`;

/** A file a plugin writes its pid to, first thing. */
const pidFile = async () => join(await tempDir(), 'pid');
/** A plugin that writes its pid, then never ends. */
const hangs = (pidFile: string) =>
  `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
/**
 * The plugin is gone. meshdoctor SIGKILLs it when it gives up; a plugin that never got to write
 * its pid was killed before its first statement. The wait only ends a hang (a zombie is reaped at once).
 */
async function killed(file: string): Promise<void> {
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8'));
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await until(() => !alive(), 10_000, `plugin process ${pid} killed`);
}

describe('7. exec credential plugins, run natively and bounded', () => {
  it('run as kubectl runs them: args, env, KUBERNETES_EXEC_INFO, stdin not a terminal; the token is used', async () => {
    const srv = await apiServer([pod('web')]);
    const seen = join(await tempDir(), 'seen.json');
    const script = `
      import { writeFileSync } from 'node:fs';
      writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ info: JSON.parse(process.env.KUBERNETES_EXEC_INFO), extra: process.env.EXTRA, argv: process.argv.slice(2), tty: !!process.stdin.isTTY }));
      console.log(${JSON.stringify(credential({ token: srv.token }))});`;
    let config = await execConfig(srv, script, { env: [{ name: 'EXTRA', value: 'yes' }] });
    // The script path is args[0]; one more argument.
    config = await kubeconfigWithArgs(config, ['--flag']);
    const snap = await read(config);
    expect(snap.objects.pods).toHaveLength(1);
    const { readFileSync } = await import('node:fs');
    const got = JSON.parse(readFileSync(seen, 'utf8'));
    expect(got).toEqual({
      info: { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false } },
      extra: 'yes',
      argv: ['--flag'],
      tty: false,
    });

    // provideClusterInfo: the cluster, its CA included, is in spec.cluster.
    const withCluster = await execConfig(srv, script, { provideClusterInfo: true });
    await read(withCluster);
    const info = JSON.parse(readFileSync(seen, 'utf8')).info;
    expect(info.spec).toEqual({
      interactive: false,
      cluster: { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
    });
  });

  it('a plugin that hangs is killed after --request-timeout', async () => {
    const srv = await apiServer();
    const pid = await pidFile();
    // The plugin never ends by itself: only the timeout can end this read (else the test's own).
    const msg = await userError(read(await execConfig(srv, hangs(pid)), { limits: { requestTimeoutMs: 300 } }));
    expect(msg).toBe(`${execPrefix} did not finish within 0.3s (--request-timeout)`);
    expect(srv.requests).toHaveLength(0);
    await killed(pid);
  });

  it('a plugin that hangs is killed at the --timeout deadline too', async () => {
    const srv = await apiServer();
    const pid = await pidFile();
    const msg = await userError(
      read(await execConfig(srv, hangs(pid)), {
        limits: { requestTimeoutMs: 3_600_000, deadlineMs: 300 },
      }),
    );
    expect(msg).toBe('reading the cluster took longer than the --timeout of 0.3s');
    await killed(pid);
  });

  it('a plugin that prints without end is stopped after 1 MiB', async () => {
    const srv = await apiServer();
    const pid = await pidFile();
    // Endless: only the 1 MiB bound can end this read.
    const script = `${hangs(pid)} const b = 'x'.repeat(65536); (function w() { for (;;) if (!process.stdout.write(b)) return process.stdout.once('drain', w); })();`;
    const msg = await userError(read(await execConfig(srv, script)));
    expect(msg).toBe(`${execPrefix} printed more than 1 MiB`);
    await killed(pid);
  });

  it('{} or an ExecCredential without credentials: "returned no credentials"', async () => {
    const srv = await apiServer();
    for (const out of ['{}', credential({}), credential({ clientCertificateData: 'x' }), credential({ token: '' })]) {
      const msg = await userError(read(await execConfig(srv, `console.log(${JSON.stringify(out)})`)));
      expect(msg).toMatch(new RegExp(`^${escape(execPrefix)} returned no credentials`));
    }
    expect(await userError(read(await execConfig(srv, 'console.log("not json")')))).toBe(
      `${execPrefix} printed no ExecCredential JSON`,
    );
  });

  it('a credential Node could not send (token with CR/LF, certificate not matching its key) is one line', async () => {
    const srv = await apiServer();
    const ca = await generateCA({ keyType: 'ecdsa' });
    const a = await generateLeaf({ ca, keyType: 'ecdsa', dnsNames: ['a'] });
    const b = await generateLeaf({ ca, keyType: 'ecdsa', dnsNames: ['b'] });
    for (const status of [{ token: 'a\r\nX-Evil: 1' }, { clientCertificateData: a.certPem, clientKeyData: b.keyPem }]) {
      const msg = await userError(
        read(await execConfig(srv, `console.log(${JSON.stringify(credential(status))})`), {
          limits: { requestTimeoutMs: 10_000 },
        }),
      );
      expect(msg).toMatch(new RegExp(`^${escape(execPrefix)} returned unusable credentials: `));
    }
    await sleep(100);
    expect(srv.requests).toHaveLength(0);
  });

  it('a failing plugin: its exit code and the first line of its stderr, terminal escapes escaped', async () => {
    const srv = await apiServer();
    const stderr = '\u001b]52;c;aGVsbG8=\u0007token expired\u001b[2J\nsecond line\n';
    const msg = await userError(
      read(await execConfig(srv, `process.stderr.write(${JSON.stringify(stderr)}); process.exit(3);`)),
    );
    expect(msg).toBe(`${execPrefix} failed (exit code 3): \\x1b]52;c;aGVsbG8=\\x07token expired\\x1b[2J`);
    expect(hasControl(msg)).toBe(false);
  });

  it('whatever a failing plugin prints on stderr, the message holds no control character (property)', async () => {
    const srv = await apiServer();
    const dir = await tempDir();
    const errFile = join(dir, 'stderr.bin');
    const config = await execConfig(
      srv,
      `import { readFileSync } from 'node:fs'; process.stderr.write(readFileSync(${JSON.stringify(errFile)})); process.exit(1);`,
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 2000 }), async (text) => {
        await writeFile(errFile, text);
        const msg = await userError(read(config));
        expect(msg.startsWith(`${execPrefix} failed (exit code 1)`)).toBe(true);
        expect(hasControl(msg)).toBe(false);
      }),
      { numRuns: 8 },
    );
  });

  it('a command that is not there: one line, with the install hint', async () => {
    const srv = await apiServer();
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: '/nonexistent/kubelogin',
          installHint: 'install kubelogin\u001b[31m\nfrom somewhere',
        },
      },
    );
    expect(await userError(read(config))).toBe(
      'cannot get credentials for context "c": the exec plugin "/nonexistent/kubelogin" was not found (install kubelogin\\x1b[31m)',
    );
  });
});

/** Append arguments to the exec plugin of a kubeconfig written by execConfig. */
async function kubeconfigWithArgs(file: string, extra: string[]): Promise<string> {
  const { readFileSync } = await import('node:fs');
  const cfg = JSON.parse(readFileSync(file, 'utf8'));
  cfg.users[0].user.exec.args.push(...extra);
  await writeFile(file, JSON.stringify(cfg));
  return file;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// ---------------------------------------------------------------------------------------------
// 8. Server text is printable

describe("8. the server's words are escaped before they reach a reason or a message", () => {
  it('Status messages and plain bodies of any content give reasons without control characters (property)', async () => {
    let message = '';
    const h = await hostile((_req, res, _n, url) => {
      if (url.pathname === '/api/v1/pods') return sendJson(res, 403, statusBody(403, message));
      if (url.pathname === '/api/v1/services') {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        return res.end(message);
      }
      sendJson(res, 200, listBody([]));
    });
    const config = await kubeconfig({ server: h.url });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 400 }), fc.constant('\u001b]52;c;aGk=\u0007\u001b[2Jgone')),
        async (m) => {
          message = m;
          const snap = await read(config, { kinds: ['pods', 'services', 'namespaces'] });
          expect(snap.unavailable.pods).toMatch(/^forbidden: /);
          expect(snap.unavailable.services).toMatch(/^not found: /);
          for (const reason of Object.values(snap.unavailable)) expect(hasControl(reason!)).toBe(false);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('an escape sequence in the message of a server that fails every request', async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(503, { 'Retry-After': '0', 'Content-Type': 'application/json' });
      res.end(statusBody(503, '\u001b]52;c;aGk=\u0007pwned'));
    });
    const msg = await userError(read(await kubeconfig({ server: h.url })));
    expect(msg).toBe(
      `the API server at ${h.url} failed every request: service unavailable (503): \\x1b]52;c;aGk=\\x07pwned`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 9. Credentials in the server URL

describe('9. credentials written into the server URL', () => {
  it('are never shown, but are basic auth as for kubectl', async () => {
    const h = await hostile((req, res) => {
      if (req.headers.authorization !== `Basic ${b64('admin:s3cret pass')}`)
        return sendJson(res, 401, statusBody(401, 'Unauthorized'));
      sendJson(res, 200, listBody([{ metadata: { namespace: 'shop', name: 'web' } }]));
    });
    const config = await kubeconfig({ server: `http://admin:s3cret%20pass@127.0.0.1:${h.port}/` });
    const snap = await read(config);
    expect(snap.objects.pods).toHaveLength(1);
    expect(snap.source.server).toBe(`http://127.0.0.1:${h.port}/`);
    expect(JSON.stringify(snap)).not.toContain('s3cret');
    expect((await resolveContext({ kubeconfig: config })).server).toBe(`http://127.0.0.1:${h.port}/`);
  });

  it('a token wins over them, as in kubectl', async () => {
    const h = await hostile((req, res) =>
      sendJson(res, req.headers.authorization === 'Bearer tok' ? 200 : 401, listBody([])),
    );
    const snap = await read(await kubeconfig({ server: `http://admin:s3cret@127.0.0.1:${h.port}` }, { token: 'tok' }));
    expect(snap.objects.pods).toEqual([]);
  });

  it('are in no error message', async () => {
    const port = await freePort();
    const servers = [
      `https://admin:s3cret@127.0.0.1:${port}`,
      `admin:s3cret@127.0.0.1:${port}`,
      'ftp://admin:s3cret@host',
      'https://admin:s3cret@bad host',
      `https://admin:s3cret@h@127.0.0.1:${port}`,
    ];
    for (const server of servers) {
      const msg = await userError(read(await kubeconfig({ server })));
      expect(msg).not.toContain('s3cret');
      expect(msg).not.toContain('admin');
    }
    const h = await hostile((_req, res) => sendJson(res, 401, statusBody(401, 'Unauthorized')));
    const msg = await userError(read(await kubeconfig({ server: `http://admin:s3cret@127.0.0.1:${h.port}` })));
    expect(msg).toBe(`the API server at http://127.0.0.1:${h.port} rejected the credentials (401 Unauthorized)`);
  });
});

// ---------------------------------------------------------------------------------------------
// 10. Files named by the kubeconfig

describe.skipIf(!existsSync('/dev/zero'))('10. kubeconfig, token and certificate files are read bounded', () => {
  it('/dev/zero as --kubeconfig is refused at once', async () => {
    // Refused before a byte is read (the message says why); a read of /dev/zero would never end
    // (the test's own timeout ends that) or grow the memory.
    const before = process.memoryUsage.rss();
    expect(await userError(read('/dev/zero'))).toBe(
      'cannot load kubeconfig: /dev/zero: not a regular file (a device, FIFO or socket)',
    );
    expect(await userError(resolveContext({ kubeconfig: '/dev/zero' }))).toMatch(/not a regular file/);
    expect(process.memoryUsage.rss() - before).toBeLessThan(50 * MiB);
  });

  it('/dev/zero as token file, certificate or CA file is refused at once', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{}, { tokenFile: '/dev/zero' }, 'token file'],
      [{}, { 'client-certificate': '/dev/zero', 'client-key': '/dev/zero' }, 'client-certificate'],
      [{ 'certificate-authority': '/dev/zero' }, {}, 'certificate-authority'],
    ];
    for (const [cluster, user, what] of cases) {
      const msg = await userError(read(await kubeconfig({ server: 'https://127.0.0.1:1', ...cluster }, user)));
      expect(msg).toBe(
        `cannot get credentials for context "c": cannot read ${what} /dev/zero: not a regular file (a device, FIFO or socket)`,
      );
    }
  });

  it('a FIFO as --kubeconfig or token file is refused at once (opening it would wait for a writer)', async () => {
    const fifo = join(await tempDir(), 'fifo');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here
    }
    expect(await userError(read(fifo))).toBe(
      `cannot load kubeconfig: ${fifo}: not a regular file (a device, FIFO or socket)`,
    );
    const msg = await userError(read(await kubeconfig({ server: 'https://127.0.0.1:1' }, { tokenFile: fifo })));
    expect(msg).toBe(
      `cannot get credentials for context "c": cannot read token file ${fifo}: not a regular file (a device, FIFO or socket)`,
    );
  });

  it('a kubeconfig or token file larger than --max-bytes is refused', async () => {
    const config = await kubeconfig({ server: 'https://127.0.0.1:1' });
    const { readFileSync } = await import('node:fs');
    await writeFile(config, readFileSync(config, 'utf8') + `\n# ${'x'.repeat(4096)}\n`);
    expect(await userError(read(config, { limits: { maxBytes: 1024 } }))).toMatch(
      /^cannot load kubeconfig: .*config: larger than .*\(--max-bytes\)/,
    );

    const token = join(await tempDir(), 'token');
    await writeFile(token, 'x'.repeat(4096));
    const msg = await userError(
      read(await kubeconfig({ server: 'https://127.0.0.1:1' }, { tokenFile: token }), { limits: { maxBytes: 1024 } }),
    );
    expect(msg).toMatch(/^cannot get credentials for context "c": cannot read token file .*: larger than/);
  });
});
