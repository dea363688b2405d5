/**
 * The live transport against hostile or unusual surroundings (issue "Hostile input, round 2",
 * items 5-9 and 13): credential helpers found relative to the current directory, gcp/azure
 * `cmd-path` helpers, a CA with insecure-skip-tls-verify, HTTP proxies from the environment and
 * the kubeconfig, a server that answers 404 to everything, and bodies too deep or too dense.
 * Servers and the proxy are on 127.0.0.1; the name `kubernetes` is resolved by the test proxy only.
 */
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authProviderToken, jsonPathMembers, tokenValid, type AuthProvider } from '../src/cluster/auth-provider.js';
import { resolveContext, type GatherOptions } from '../src/cluster/gather.js';
import { gather } from '../src/run/read.js';
import { loadSnapshot } from '../src/run/read.js';
import { lookPath, LookPathError } from '../src/cluster/plugin.js';
import { bypassesProxy, parseProxy, proxyFromEnvironment } from '../src/cluster/proxy.js';
import { scanJson } from '../src/cluster/json-scan.js';
import { hasControl, UserError } from '../src/util/errors.js';
import { DEFAULT_LIMITS } from '../src/util/limits.js';
import type { K8sObject } from '../src/util/types.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { generateCA, generateLeaf } from './helpers/certs.js';
import { failure } from './helpers/failure.js';
import { startProxy, type ProxyOptions, type TestProxy } from './helpers/proxy.js';

const MiB = 1024 * 1024;
const b64 = (s: string) => Buffer.from(s).toString('base64');

// ---------------------------------------------------------------------------------------------
// Helpers

const tempDirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'REQUEST_METHOD'];
let savedEnv: Record<string, string | undefined> = {};
const savedCwd = process.cwd();

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'meshdoctor-transport-'));
  tempDirs.push(dir);
  return dir;
}

beforeEach(() => {
  savedEnv = Object.fromEntries(['PATH', ...PROXY_ENV].map((k) => [k, process.env[k]]));
  for (const k of PROXY_ENV) delete process.env[k];
});
afterEach(async () => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  process.chdir(savedCwd);
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
    }),
  );
  return file;
}

async function apiServer(
  objects: K8sObject[] = [],
  opts: Parameters<typeof startApiServer>[0] = {},
): Promise<ApiServer> {
  const srv = await startApiServer({ objects, dnsNames: ['kubernetes'], ...opts });
  closers.push(() => srv.close());
  return srv;
}

async function proxy(opts: ProxyOptions = {}): Promise<TestProxy> {
  const p = await startProxy(opts);
  closers.push(() => p.close());
  return p;
}

interface Hostile {
  url: string;
  requests: string[];
}

/** A raw HTTP server on 127.0.0.1; records each request's path and query. */
async function hostile(handler: (req: IncomingMessage, res: ServerResponse, url: URL) => void): Promise<Hostile> {
  const h: Hostile = { url: '', requests: [] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    h.requests.push(url.pathname);
    handler(req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return h;
}

const send = (res: ServerResponse, code: number, body: string | Buffer) => {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};
const listBody = (items: unknown[]) => JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: {}, items });

const pod = (name: string): K8sObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop', name } });

function read(config: string, opts: Partial<GatherOptions> = {}): Promise<Snapshot> {
  return gather({
    kubeconfig: config,
    allNamespaces: true,
    kinds: ['pods'],
    ...opts,
    limits: { requestTimeoutMs: 3000, ...opts.limits },
  });
}

/** A one-line UserError, as the CLI prints it. */
async function userError(p: Promise<unknown>): Promise<string> {
  const e = await failure(p);
  expect(e).toBeInstanceOf(UserError);
  expect(e.message).not.toMatch(/[\n\r]/);
  return e.message;
}

/** An executable shell script. */
async function script(dir: string, name: string, body: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

const credential = (token: string) =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });

// ---------------------------------------------------------------------------------------------
// 5. Helpers found relative to the current directory

describe('5. a credential helper found through a relative PATH entry is refused, as Go (ErrDot) and kubectl do', () => {
  it('exec plugin `kubelogin` with PATH=":$PATH" and ./kubelogin in the current directory: one line, never run', async () => {
    const srv = await apiServer([pod('web')]);
    const repo = await tempDir(); // a cloned repository, the current directory
    const ran = join(repo, 'ran');
    await script(repo, 'kubelogin', `touch ${JSON.stringify(ran)}\necho '${credential(srv.token)}'`);
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'kubelogin' } },
    );
    process.chdir(repo);
    process.env.PATH = `:${savedEnv.PATH}`;
    const msg = await userError(read(config));
    expect(msg).toMatch(
      /^cannot get credentials for context "c": the exec plugin "kubelogin" was found as kubelogin through a PATH entry relative to the current directory; it is not run/,
    );
    expect(existsSync(ran)).toBe(false);
    expect(srv.requests).toHaveLength(0);
  });

  it('the first PATH entry holding the command decides: absolute runs, relative is an error (not a fallback), none is "not found" (property)', async () => {
    const base = await tempDir();
    process.chdir(base);
    // Directories with and without an executable `helper`, absolute and relative to the cwd.
    const dirs: Record<string, { entry: string; has: boolean; absolute: boolean }> = {};
    for (const [name, has] of [
      ['a-with', true],
      ['b-without', false],
      ['c-with', true],
    ] as const) {
      const dir = join(base, name);
      await import('node:fs/promises').then((fs) => fs.mkdir(dir));
      if (has) await script(dir, 'helper', 'exit 0');
      dirs[`abs-${name}`] = { entry: dir, has, absolute: true };
      dirs[`rel-${name}`] = { entry: relative(base, dir), has, absolute: false };
    }
    await script(base, 'helper', 'exit 0'); // in the current directory: "" and "." find it
    dirs.empty = { entry: '', has: true, absolute: false };
    dirs.dot = { entry: '.', has: true, absolute: false };
    await fc.assert(
      fc.property(fc.array(fc.constantFrom(...Object.keys(dirs)), { maxLength: 5 }), (keys) => {
        const path = keys.map((k) => dirs[k]!.entry).join(':');
        const first = keys.map((k) => dirs[k]!).find((d) => d.has);
        let got: string | Error;
        try {
          got = lookPath('helper', path);
        } catch (e) {
          got = e as Error;
        }
        if (path === '' || !first) {
          // An empty PATH has no entries (Go's SplitList): "" alone is not the current directory.
          expect(got).toBeInstanceOf(LookPathError);
          expect((got as LookPathError).notFound).toBe(true);
        } else if (first.absolute) {
          expect(got).toBe(join(first.entry, 'helper'));
        } else {
          expect(got).toBeInstanceOf(LookPathError);
          expect((got as LookPathError).message).toMatch(/relative to the current directory/);
        }
      }),
      { numRuns: 200 },
    );
    // A command with a slash is not looked up.
    expect(lookPath('./helper', '')).toBe('./helper');
  });
});

// ---------------------------------------------------------------------------------------------
// 6. gcp / azure auth providers

const provider = (name: 'gcp' | 'azure', config: Record<string, string>): AuthProvider => ({ name, config });

describe('6. gcp and azure auth-provider cmd-path: run like an exec plugin, never through execSync', () => {
  it('the kubeconfig access-token is used while valid, as client-node decides it (injected now; property)', () => {
    const now = Date.UTC(2025, 5, 1);
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.boolean(),
        fc.constantFrom('gcp' as const, 'azure' as const),
        (delta, asSeconds, name) => {
          const at = now + delta;
          const config: Record<string, string> =
            name === 'azure' && asSeconds
              ? { 'access-token': 't', 'expires-on': String(Math.floor(at / 1000)) }
              : { 'access-token': 't', expiry: new Date(at).toISOString() };
          const whole = name === 'azure' && asSeconds ? Math.floor(at / 1000) * 1000 : at;
          expect(tokenValid(provider(name, config), now)).toBe(whole >= now);
        },
      ),
    );
    expect(tokenValid(provider('gcp', { 'access-token': 't' }), now)).toBe(true); // no expiry: never expires
    expect(tokenValid(provider('gcp', { 'access-token': 't', expiry: 'not a date' }), now)).toBe(true); // NaN < now is false
    expect(tokenValid(provider('gcp', { expiry: '2999-01-01T00:00:00Z' }), now)).toBe(false); // no token
    expect(tokenValid(provider('gcp', { 'access-token': 't', 'expires-on': '1' }), now)).toBe(true); // expires-on is azure's only
  });

  it('token-key: member names with dots or brackets; anything else is refused, never evaluated', () => {
    expect(jsonPathMembers('{.credential.access_token}')).toEqual(['credential', 'access_token']);
    expect(jsonPathMembers(`{.a['b.c']["d"].e}`)).toEqual(['a', 'b.c', 'd', 'e']);
    for (const bad of ['{..a}', '{.a[*]}', '{.a[?(@.x)]}', '.a', '{}', '{.a b}', '{$.a}'])
      expect(jsonPathMembers(bad)).toBeUndefined();
  });

  it('an expired token: cmd-path runs with cmd-args split at whitespace (no shell), the token at token-key is sent', async () => {
    const srv = await apiServer([pod('web')]);
    const dir = await tempDir();
    const argv = join(dir, 'argv');
    const pwned = join(dir, 'pwned');
    const gcloud = await script(
      dir,
      'gcloud',
      `printf '%s\\n' "$@" > ${JSON.stringify(argv)}\necho '{"credential":{"access_token":"${srv.token}","token_expiry":"2999-01-01T00:00:00Z"}}'`,
    );
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      {
        token: 'stale-static-token', // the provider's token wins, as with client-node
        'auth-provider': {
          name: 'gcp',
          config: {
            'access-token': 'expired',
            expiry: '2000-01-01T00:00:00Z',
            'cmd-path': gcloud,
            'cmd-args': `config config-helper  --format=json $(touch ${pwned})`,
            'token-key': '{.credential.access_token}',
            'expiry-key': '{.credential.token_expiry}',
          },
        },
      },
    );
    const snap = await read(config);
    expect(snap.objects.pods).toHaveLength(1);
    expect(readFileSync(argv, 'utf8').split('\n').filter(Boolean)).toEqual([
      'config',
      'config-helper',
      '--format=json',
      '$(touch',
      `${pwned})`,
    ]);
    expect(existsSync(pwned)).toBe(false);
    expect(srv.requests.every((r) => r.headers.authorization === `Bearer ${srv.token}`)).toBe(true);
  });

  it('a valid access-token: cmd-path is not run', async () => {
    const srv = await apiServer([pod('web')]);
    const dir = await tempDir();
    const ran = join(dir, 'ran');
    const helper = await script(dir, 'helper', `touch ${JSON.stringify(ran)}; echo '{}'`);
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      {
        'auth-provider': {
          name: 'azure',
          config: { 'access-token': srv.token, 'expires-on': '32503680000', 'cmd-path': helper },
        },
      },
    );
    expect((await read(config)).objects.pods).toHaveLength(1);
    expect(existsSync(ran)).toBe(false);
  });

  it('a cmd-path that does not end: killed after --request-timeout, the event loop never blocked', async () => {
    const srv = await apiServer();
    const dir = await tempDir();
    const slow = await script(dir, 'slow', `sleep 3; echo '{"access_token":"${srv.token}"}'`);
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      { 'auth-provider': { name: 'gcp', config: { 'cmd-path': slow } } },
    );
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      const msg = await userError(read(config, { limits: { requestTimeoutMs: 400 } }));
      expect(msg).toBe(
        `cannot get credentials for context "c": the gcp auth provider's cmd-path "${slow}" did not finish within 0.4s (--request-timeout)`,
      );
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(3); // execSync would have frozen every timer until the command ended
    expect(srv.requests).toHaveLength(0);
  });

  it('a failing cmd-path: exit code and the first stderr line, escapes made printable, nothing raw on our stderr', async () => {
    const srv = await apiServer();
    const dir = await tempDir();
    const bad = await script(dir, 'bad', `printf '\\033]52;c;aGk=\\007denied\\033[2J\\nmore\\n' >&2; exit 4`);
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      { 'auth-provider': { name: 'azure', config: { 'cmd-path': bad } } },
    );
    const msg = await userError(read(config));
    expect(msg).toBe(
      `cannot get credentials for context "c": the azure auth provider's cmd-path "${bad}" failed (exit code 4): \\x1b]52;c;aGk=\\x07denied\\x1b[2J`,
    );
    expect(hasControl(msg)).toBe(false);
  });

  it('cmd-path found through a relative PATH entry is refused like an exec plugin', async () => {
    const srv = await apiServer();
    const repo = await tempDir();
    const ran = join(repo, 'ran');
    await script(repo, 'gcloud', `touch ${JSON.stringify(ran)}; echo '{"access_token":"x"}'`);
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem) },
      { 'auth-provider': { name: 'gcp', config: { 'cmd-path': 'gcloud' } } },
    );
    process.chdir(repo);
    process.env.PATH = `:${savedEnv.PATH}`;
    expect(await userError(read(config))).toMatch(
      /^cannot get credentials for context "c": the gcp auth provider's cmd-path "gcloud" was found as gcloud through a PATH entry relative to the current directory/,
    );
    expect(existsSync(ran)).toBe(false);
  });

  it('an expired token without cmd-path, output without the token, a token-key it does not read: one line each', async () => {
    const dir = await tempDir();
    const empty = await script(dir, 'empty', `echo '{"other":1}'`);
    const limits = { ...DEFAULT_LIMITS, requestTimeoutMs: 2000 };
    const cases: [AuthProvider, RegExp][] = [
      [
        provider('gcp', { 'access-token': 't', expiry: '2000-01-01T00:00:00Z' }),
        /^the gcp auth provider has an expired access-token and no cmd-path to get one$/,
      ],
      [provider('gcp', { 'cmd-path': empty }), /printed no token at \{\.access_token\}$/],
      [
        provider('gcp', { 'cmd-path': empty, 'token-key': '{.items[?(@.x)]}' }),
        /token-key \{\.items\[\?\(@\.x\)\]\} is not a JSONPath meshdoctor reads/,
      ],
    ];
    for (const [p, why] of cases) {
      const e = await failure(authProviderToken(p, limits, undefined, Date.UTC(2025, 0, 1)));
      expect(e.message).toMatch(why);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 7. CA with insecure-skip-tls-verify

describe('7. a certificate authority with insecure-skip-tls-verify: true is refused, as client-go refuses it', () => {
  it('certificate-authority-data or certificate-authority: one line, exit 2, no request', async () => {
    const srv = await apiServer([pod('web')]);
    const caFile = join(await tempDir(), 'ca.crt');
    await writeFile(caFile, srv.caPem);
    for (const ca of [{ 'certificate-authority-data': b64(srv.caPem) }, { 'certificate-authority': caFile }]) {
      const config = await kubeconfig(
        { server: srv.url, 'insecure-skip-tls-verify': true, ...ca },
        { token: srv.token },
      );
      const msg = await userError(read(config));
      expect(msg).toBe(
        'the cluster of context "c" has a certificate authority and insecure-skip-tls-verify: true, which kubectl refuses too ("specifying a root certificates file with the insecure flag is not allowed"): remove one of them',
      );
      const r = await runCli(['check', '-A', '--kubeconfig', config], { env: {} });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(srv.requests).toHaveLength(0);
    // Either alone is fine.
    expect(
      (
        await read(
          await kubeconfig({ server: srv.url, 'certificate-authority-data': b64(srv.caPem) }, { token: srv.token }),
        )
      ).objects.pods,
    ).toHaveLength(1);
    expect(
      (await read(await kubeconfig({ server: srv.url, 'insecure-skip-tls-verify': true }, { token: srv.token })))
        .objects.pods,
    ).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// 8. Proxies

describe('8a. HTTPS_PROXY / HTTP_PROXY / NO_PROXY as Go reads them (golang.org/x/net/http/httpproxy)', () => {
  const env = (e: Record<string, string>) => e as NodeJS.ProcessEnv;

  it('https URLs take HTTPS_PROXY only, http URLs HTTP_PROXY; upper case first; "host:port" is http://host:port', () => {
    const https = new URL('https://api.example:6443');
    const plain = new URL('http://api.example:8080');
    expect(proxyFromEnvironment(https, env({ HTTP_PROXY: 'http://p:1' }))).toBeUndefined();
    expect(proxyFromEnvironment(plain, env({ HTTPS_PROXY: 'http://p:1' }))).toBeUndefined();
    expect(proxyFromEnvironment(https, env({ HTTPS_PROXY: 'http://up:1', https_proxy: 'http://low:2' }))).toMatchObject(
      { source: 'HTTPS_PROXY' },
    );
    expect(proxyFromEnvironment(https, env({ https_proxy: 'http://low:2' }))?.url.href).toBe('http://low:2/');
    expect(proxyFromEnvironment(plain, env({ http_proxy: 'proxy.corp:3128' }))?.url.href).toBe(
      'http://proxy.corp:3128/',
    );
    expect(parseProxy('socks5://s:1080')?.protocol).toBe('socks5:');
  });

  it('REQUEST_METHOD set (CGI): HTTP_PROXY is refused, HTTPS_PROXY is used', () => {
    expect(() =>
      proxyFromEnvironment(new URL('http://a:80'), env({ HTTP_PROXY: 'http://p:1', REQUEST_METHOD: 'GET' })),
    ).toThrow(/CGI/);
    expect(
      proxyFromEnvironment(new URL('https://a'), env({ HTTPS_PROXY: 'http://p:1', REQUEST_METHOD: 'GET' })),
    ).toBeDefined();
  });

  it('NO_PROXY entries: *, domains and .domains, IPs, CIDRs, ports; localhost and loopback never proxied', () => {
    const cases: [host: string, port: string, noProxy: string, bypass: boolean][] = [
      ['localhost', '6443', '', true],
      ['127.0.0.1', '6443', '', true],
      ['127.9.9.9', '6443', '', true],
      ['::1', '6443', '', true],
      ['10.1.2.3', '443', '', false],
      ['anything', '443', '*', true],
      ['foo.com', '443', 'foo.com', true],
      ['bar.foo.com', '443', 'foo.com', true],
      ['barfoo.com', '443', 'foo.com', false],
      ['foo.com', '443', '.foo.com', false],
      ['x.foo.com', '443', '.foo.com', true],
      ['x.foo.com', '443', '*.foo.com', true],
      ['foo.com', '443', 'foo.com:80', false],
      ['foo.com', '80', 'foo.com:80', true],
      ['10.1.2.3', '443', '10.0.0.0/8', true],
      ['11.1.2.3', '443', '10.0.0.0/8', false],
      ['10.1.2.3', '443', '10.1.2.3', true],
      ['10.1.2.3', '443', '10.1.2.3:80', false],
      ['2001:db8::1', '443', '2001:db8::/32', true],
      ['2001:db8::1', '443', '[2001:db8::1]:443', true],
      ['kubernetes', '6443', ' Kubernetes , other', true],
      ['kubernetes', '6443', 'kubernetes.default.svc', false],
    ];
    for (const [host, port, noProxy, bypass] of cases)
      expect([host, port, noProxy, bypassesProxy(host, port, noProxy)]).toEqual([host, port, noProxy, bypass]);
  });

  it('a domain entry matches the name and its subdomains, a dotted one only subdomains (property)', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const name = fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.'));
    fc.assert(
      fc.property(name, name, fc.boolean(), (host, domain, dotted) => {
        fc.pre(host !== 'localhost');
        const got = bypassesProxy(host, '443', dotted ? `.${domain}` : domain);
        const sub = host.endsWith(`.${domain}`);
        expect(got).toBe(dotted ? sub : sub || host === domain);
      }),
      { numRuns: 300 },
    );
  });
});

describe('8b. requests go through the proxy the environment or the kubeconfig names', () => {
  /** The test API server addressed by a name only the proxy resolves (its certificate holds it). */
  async function viaName(objects: K8sObject[] = [pod('web')], opts: Parameters<typeof startApiServer>[0] = {}) {
    const srv = await apiServer(objects, opts);
    const port = new URL(srv.url).port;
    const server = `${opts.plainHttp ? 'http' : 'https'}://kubernetes:${port}`;
    const config = await kubeconfig(
      { server, ...(opts.plainHttp ? {} : { 'certificate-authority-data': b64(srv.caPem) }) },
      { token: srv.token },
    );
    return { srv, server, port, config };
  }

  it('HTTPS_PROXY: a CONNECT tunnel, TLS to the API server inside it (CA and name checked), connections reused', async () => {
    const p = await proxy();
    const { srv, port, config } = await viaName([pod('a'), pod('b'), pod('c')]);
    process.env.HTTPS_PROXY = p.url;
    const snap = await read(config, { kinds: ['pods', 'services', 'namespaces'], pageSize: 1 });
    expect(snap.unavailable).toEqual({});
    expect(snap.objects.pods).toHaveLength(3);
    expect(p.log.length).toBeGreaterThan(0);
    expect(p.log.every((e) => e.method === 'CONNECT' && e.target === `kubernetes:${port}`)).toBe(true);
    // Keep-alive through the tunnel: fewer tunnels than requests (pods alone are 3 pages, one after another).
    expect(p.log.length).toBeLessThan(srv.requests.length);
  });

  it('NO_PROXY naming the server: direct (the name then does not resolve), the proxy never asked', async () => {
    const p = await proxy();
    for (const noProxy of ['kubernetes', '.example.com,kubernetes:1234,kubernetes', '*']) {
      const { server, config } = await viaName();
      process.env.HTTPS_PROXY = p.url;
      process.env.NO_PROXY = noProxy;
      const msg = await userError(read(config));
      expect(msg).toMatch(
        new RegExp(
          `^cannot reach the API server at ${server.replace(/[.:/]/g, '\\$&')}: getaddrinfo (ENOTFOUND|EAI_AGAIN) kubernetes`,
        ),
      );
    }
    expect(p.log).toEqual([]);
    // A NO_PROXY that does not match: through the proxy.
    const { config } = await viaName();
    delete process.env.NO_PROXY;
    process.env.no_proxy = '.svc,10.0.0.0/8,kubernetes:1';
    expect((await read(config)).objects.pods).toHaveLength(1);
    expect(p.log.length).toBeGreaterThan(0);
  });

  it('proxy credentials from the URL: Proxy-Authorization Basic; wrong ones are one line naming the proxy without them', async () => {
    const p = await proxy({ credentials: 'alice:s3cr3t/!' });
    const { config } = await viaName();
    process.env.HTTPS_PROXY = `http://alice:${encodeURIComponent('s3cr3t/!')}@127.0.0.1:${p.port}`;
    expect((await read(config)).objects.pods).toHaveLength(1);
    expect(p.log[0]!.auth).toBe(`Basic ${b64('alice:s3cr3t/!')}`);

    process.env.HTTPS_PROXY = `http://alice:wrong@127.0.0.1:${p.port}`;
    const { server, config: again } = await viaName();
    const msg = await userError(read(again));
    expect(msg).toBe(
      `cannot reach the API server at ${server} through the proxy http://127.0.0.1:${p.port} (HTTPS_PROXY): the proxy refused the tunnel: 407 Proxy Authentication Required`,
    );
    expect(msg).not.toContain('wrong');
    const r = await runCli(['check', '-A', '--kubeconfig', again], { env: {} });
    expect(r.code).toBe(2);
  });

  it('an unreachable proxy, or one that cannot reach the server (502): one line naming the proxy', async () => {
    const dead = await proxy();
    await dead.close();
    const { server, config } = await viaName();
    process.env.HTTPS_PROXY = dead.url;
    expect(await userError(read(config))).toMatch(
      new RegExp(
        `^cannot reach the API server at ${server.replace(/[.:/]/g, '\\$&')} through the proxy http://127\\.0\\.0\\.1:${dead.port} \\(HTTPS_PROXY\\): cannot reach the proxy: .*ECONNREFUSED`,
      ),
    );
    const bad = await proxy({ connectStatus: 502 });
    process.env.HTTPS_PROXY = bad.url;
    expect(await userError(read(config))).toBe(
      `cannot reach the API server at ${server} through the proxy ${bad.url} (HTTPS_PROXY): the proxy refused the tunnel: 502 Bad Gateway`,
    );
  });

  it("the kubeconfig's proxy-url wins over the environment, for every host (even one NO_PROXY names)", async () => {
    const p = await proxy();
    const dead = await proxy();
    await dead.close();
    const { srv, port } = await viaName();
    const config = await kubeconfig(
      { server: `https://kubernetes:${port}`, 'certificate-authority-data': b64(srv.caPem), 'proxy-url': p.url },
      { token: srv.token },
    );
    process.env.HTTPS_PROXY = dead.url;
    process.env.NO_PROXY = 'kubernetes';
    expect((await read(config)).objects.pods).toHaveLength(1);
    expect(p.log.map((e) => e.target)).toContain(`kubernetes:${port}`);
    // A proxy-url of another scheme is one line (client-go: http, https, socks5).
    const ftp = await kubeconfig({ server: 'https://kubernetes:1', 'proxy-url': 'ftp://p:21' });
    expect(await userError(read(ftp))).toBe(
      'the proxy-url of context "c" has the scheme "ftp": only http://, https:// and socks5:// proxies are supported',
    );
  });

  it('HTTP_PROXY for a plain-http server: absolute-form requests through the proxy; 407 is one line', async () => {
    const p = await proxy({ credentials: 'u:p' });
    const { srv, port, config } = await viaName([pod('web')], { plainHttp: true });
    process.env.HTTP_PROXY = `http://u:p@127.0.0.1:${p.port}`;
    process.env.HTTPS_PROXY = 'http://127.0.0.1:1'; // not for http URLs
    expect((await read(config)).objects.pods).toHaveLength(1);
    expect(p.log[0]).toEqual({
      method: 'GET',
      target: `http://kubernetes:${port}/api/v1/pods?limit=500`,
      auth: `Basic ${b64('u:p')}`,
    });
    expect(srv.requests[0]!.headers.host).toBe(`kubernetes:${port}`);
    process.env.HTTP_PROXY = `http://127.0.0.1:${p.port}`;
    expect(await userError(read(config))).toBe(
      `cannot reach the API server at http://kubernetes:${port} through the proxy http://127.0.0.1:${p.port} (HTTP_PROXY): the proxy answered 407 Proxy Authentication Required`,
    );
    await p.close();
    expect(await userError(read(config))).toMatch(
      new RegExp(
        `^cannot reach the API server at http://kubernetes:${port} through the proxy http://127\\.0\\.0\\.1:${p.port} \\(HTTP_PROXY\\): cannot reach the proxy: .*ECONNREFUSED`,
      ),
    );
  });

  it('localhost and 127.0.0.1 are never proxied, whatever HTTPS_PROXY says', async () => {
    const p = await proxy();
    const srv = await apiServer([pod('web')]);
    process.env.HTTPS_PROXY = p.url;
    for (const server of [srv.url, srv.url.replace('127.0.0.1', 'localhost')]) {
      const config = await kubeconfig({ server, 'certificate-authority-data': b64(srv.caPem) }, { token: srv.token });
      expect((await read(config)).objects.pods).toHaveLength(1);
    }
    expect(p.log).toEqual([]);
  });

  it('an https:// proxy is spoken over TLS, verified like any server (here: a certificate nobody trusts)', async () => {
    const ca = await generateCA({ keyType: 'ecdsa' });
    const leaf = await generateLeaf({ ca, keyType: 'ecdsa', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const p = await proxy({ tls: { key: leaf.keyPem, cert: leaf.certPem } });
    const { server, config } = await viaName();
    process.env.HTTPS_PROXY = p.url;
    expect(await userError(read(config))).toMatch(
      new RegExp(
        `^cannot reach the API server at ${server.replace(/[.:/]/g, '\\$&')} through the proxy https://127\\.0\\.0\\.1:${p.port} \\(HTTPS_PROXY\\): cannot reach the proxy: .*certificate`,
      ),
    );
    expect(p.log).toEqual([]); // the TLS handshake with the proxy failed before any CONNECT
  });

  it('a socks5 proxy-url is still spoken by @kubernetes/client-node (not as an http proxy)', async () => {
    const dead = await proxy();
    await dead.close();
    const srv = await apiServer();
    const config = await kubeconfig(
      { server: srv.url, 'certificate-authority-data': b64(srv.caPem), 'proxy-url': `socks5://127.0.0.1:${dead.port}` },
      { token: srv.token },
    );
    expect(await resolveContext({ kubeconfig: config })).toMatchObject({ server: srv.url });
    // client-node's socks agent dialled the socks port (our http proxy agent would name the proxy).
    expect(await userError(read(config))).toMatch(
      new RegExp(
        `^cannot (reach|read from) the API server at ${srv.url.replace(/[.:/]/g, '\\$&')}: connect ECONNREFUSED 127\\.0\\.0\\.1:${dead.port}$`,
      ),
    );
    expect(srv.requests).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------
// 9. A server that answers 404 to everything

describe('9. a server that answers 404 to everything is not a Kubernetes API server: exit 2', () => {
  const LISTED = ['namespaces', 'pods', 'services', 'mutatingwebhookconfigurations', 'deployments'] as const;

  it('whatever kinds are read, the run fails with one line (property)', async () => {
    const h = await hostile((_req, res) => send(res, 404, '404 page not found'));
    const config = await kubeconfig({ server: h.url });
    await fc.assert(
      // At least one listed kind (ConfigMaps alone are never asked for without namespaces or webhooks).
      fc.asyncProperty(
        fc.subarray([...LISTED], { minLength: 1 }),
        fc.boolean(),
        fc.boolean(),
        async (kinds, all, configmaps) => {
          const asked = [...kinds, ...(configmaps ? (['configmaps'] as const) : [])];
          const msg = await userError(read(config, { kinds: asked, allNamespaces: all, namespace: 'shop' }));
          expect(msg).toBe(
            `the server at ${h.url} is not a Kubernetes API server: it answered 404 (not found) to every request (GET /api/v1/namespaces: not found)`,
          );
        },
      ),
      { numRuns: 15 },
    );
    const r = await runCli(['check', '-A', '--allow-partial', '--kubeconfig', config], { env: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a Kubernetes API server/);
  });

  it('a real API server that 404s the kinds asked for (an unserved group, named objects) but lists namespaces (200 or 403) is one', async () => {
    for (const nsStatus of [200, 403]) {
      const h = await hostile((_req, res, url) => {
        if (url.pathname === '/api/v1/namespaces')
          return nsStatus === 200
            ? send(res, 200, listBody([]))
            : send(res, 403, '{"kind":"Status","message":"forbidden"}');
        send(res, 404, '{"kind":"Status","message":"the server could not find the requested resource"}');
      });
      const snap = await read(await kubeconfig({ server: h.url }), { kinds: ['deployments'] });
      expect(snap.unavailable).toEqual({ deployments: 'not found: the server could not find the requested resource' });
      expect(h.requests.filter((p) => p === '/api/v1/namespaces')).toHaveLength(1); // asked once, to tell
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 13. Live bodies bounded in nesting and density, as files are

describe('13. live bodies: the nesting and density bounds of files, checked before parsing, never retried', () => {
  /** A server whose pods list is `page`, every other list empty, named objects `named`. */
  async function serving(page: string | Buffer, named?: string | Buffer) {
    return hostile((_req, res, url) => {
      if (url.pathname === '/api/v1/pods') return send(res, 200, page);
      if (url.pathname === '/api/v1/namespaces') return send(res, 200, listBody([{ metadata: { name: 'linkerd' } }]));
      if (/\/(configmaps|secrets)\//.test(url.pathname))
        return named === undefined ? send(res, 404, '{}') : send(res, 200, named);
      send(res, 200, listBody([]));
    });
  }

  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const deepPage = (depth: number) =>
    `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"p","namespace":"shop"},"spec":{"x":${nested(depth)}}}]}`;

  it('an item nested 100,000 deep: pods unavailable with the reason, asked once; snapshot does not crash', async () => {
    const h = await serving(deepPage(100_000));
    const config = await kubeconfig({ server: h.url });
    const snap = await read(config, { kinds: ['pods', 'services'] });
    expect(snap.unavailable).toEqual({ pods: 'the API server sent JSON nested more than 200 levels deep' });
    expect(snap.objects.services).toEqual([]);
    expect(h.requests.filter((p) => p === '/api/v1/pods')).toHaveLength(1);
    const r = await runCli(['snapshot', '-A', '--kubeconfig', config], { env: {} });
    expect(r.stderr).not.toMatch(/internal error|call stack/i);
    expect(JSON.parse(r.stdout).unavailable.pods).toBe('the API server sent JSON nested more than 200 levels deep');
  });

  it('a named object (parsed whole) too deep: unavailable, asked once', async () => {
    const h = await serving(listBody([]), `{"kind":"ConfigMap","metadata":{"name":"x"},"data":${nested(300)}}`);
    const snap = await read(await kubeconfig({ server: h.url }), {
      kinds: ['namespaces', 'mutatingwebhookconfigurations', 'configmaps'],
    });
    expect(snap.unavailable.configmaps).toBe('the API server sent JSON nested more than 200 levels deep');
  });

  it('live accepts exactly the nesting a file accepts (property)', async () => {
    const dir = await tempDir();
    let page = ''; // read by the server at request time
    const server = await hostile((_req, res, url) =>
      send(res, 200, url.pathname === '/api/v1/pods' ? page : listBody([])),
    );
    const config = await kubeconfig({ server: server.url });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 190, max: 205 }), async (depth) => {
        page = deepPage(depth);
        const file = join(dir, 'pods.json');
        await writeFile(file, page);
        const offline = await loadSnapshot([file]).then(
          () => true,
          () => false,
        );
        const snap = await read(config, { kinds: ['pods', 'services'] });
        expect(snap.unavailable.pods === undefined).toBe(offline);
      }),
      { numRuns: 16 },
    );
  });

  it('a 20 MiB page of ~7 million `{}`: refused by density before any item is parsed, once, in bounded memory', async () => {
    const n = Math.floor((20 * MiB) / 3);
    const items = Buffer.alloc(n * 3 - 1, 0x2c);
    for (let i = 0; i < n; i++) {
      items[i * 3] = 0x7b;
      items[i * 3 + 1] = 0x7d;
    }
    const page = Buffer.concat([
      Buffer.from('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":['),
      items,
      Buffer.from(']}'),
    ]);
    const h = await serving(page);
    const config = await kubeconfig({ server: h.url });
    await read(config, { kinds: ['services'] }); // warm up
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    let snap: Snapshot;
    try {
      snap = await read(config, { kinds: ['pods', 'services'] });
    } finally {
      clearInterval(sampler);
    }
    expect(snap.unavailable.pods).toMatch(
      /^the API server sent \d+ JSON values in 20 MiB: denser than Kubernetes objects, refused to bound memory$/,
    );
    expect(h.requests.filter((p) => p === '/api/v1/pods')).toHaveLength(1);
    expect(Math.max(peak, process.memoryUsage.rss()) - before).toBeLessThan(200 * MiB); // the old code took ~700 MiB
  });

  it('a page with more items than --max-objects: refused before its items are parsed', async () => {
    const h = await serving(
      listBody(Array.from({ length: 11 }, (_, i) => ({ metadata: { name: `p${i}`, namespace: 'shop' } }))),
    );
    const snap = await read(await kubeconfig({ server: h.url }), {
      kinds: ['pods', 'services'],
      limits: { maxObjects: 10 },
    });
    expect(snap.unavailable).toEqual({ pods: 'more than 10 pods in one page (--max-objects)' });
  });

  it('scanJson keeps no offsets past maxItems nor past the density bound', () => {
    const page = Buffer.from(listBody([{}, {}, {}]));
    expect(scanJson(page).list?.items).toHaveLength(6);
    expect(scanJson(page, 0, 2).tooManyItems).toBe(true);
    expect(scanJson(page, 0, 2).list).toBeUndefined();
    expect(scanJson(page, 0, 3).list?.items).toHaveLength(6);
  });
});
