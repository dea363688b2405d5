/**
 * kubeconfig resolution without the Kubernetes client. Files are found and merged as kubectl
 * does (--kubeconfig; else every KUBECONFIG path, missing files skipped, the first definition of a
 * name and the first current-context winning; else ~/.kube/config; else the in-cluster service
 * account). Static credentials (tokens, token files, client certificates, basic auth, CA data or
 * files) are applied here, and exec credential plugins are run here (execCredentials, through
 * plugin.ts), bounded in time and output; the proxy is chosen here (proxy.ts). Only auth providers
 * other than gcp and azure (auth-provider.ts) and socks proxies are left to
 * `@kubernetes/client-node`, which http.ts then imports. That keeps the client's ~0.5 s import
 * off the common path.
 *
 * Every file is read with readFileBounded (regular files only, capped), and credential material is
 * checked here, so that what Node would refuse while sending a request (a token with a CR/LF, a
 * certificate that does not match its key) is one clear line naming the context.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { errorMessage, hasControl, printable, UserError } from '../util/errors.js';
import { decodeText, readFileBounded } from '../util/io.js';
import { DEFAULT_LIMITS, type Limits } from '../util/limits.js';
import { arr, isObj, str } from '../util/objects.js';
import { didYouMean } from '../util/suggest.js';
import { authProviderOf, type AuthProvider } from './auth-provider.js';
import { runHelper } from './plugin.js';
import { proxyFromEnvironment, type Proxy } from './proxy.js';

type Entry = Record<string, any>;
interface Named {
  name: string;
  body: Entry;
}
interface RawConfig {
  clusters: Named[];
  users: Named[];
  contexts: Named[];
  currentContext?: string;
}

/** An exec credential plugin (kubeconfig `users[].user.exec`), run by execCredentials(). */
interface ExecPlugin {
  command: string;
  args: string[];
  /** The plugin's `env` entries, added to meshdoctor's environment. */
  env: Record<string, string>;
  interactiveMode?: string;
  installHint?: string;
  /** KUBERNETES_EXEC_INFO: the ExecCredential describing the request (never interactive). */
  info: string;
}

/** TLS and credentials for the API server of one context. */
export interface KubeContext {
  contextName: string;
  namespace: string;
  /**
   * The server for messages and the snapshot: https:// added when the kubeconfig has no scheme,
   * credentials written into the URL removed. Never holds a password or a control character.
   */
  server: string;
  /** The server to send requests to, without userinfo; absent when `serverError` says why. */
  url?: URL;
  /** Why the server cannot be used (not a URL, not http/https); connecting throws it. */
  serverError?: string;
  /** Static TLS settings (absent options are left out, never `undefined`). */
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: false; servername?: string };
  /** Headers of every request (WATCHes too): the token, the impersonation headers (a list: one line each). */
  headers: Record<string, string | string[]>;
  /** user:password for basic auth. */
  auth?: string;
  /** Whom the requests act as (--as, --as-group, --as-uid, or the user entry's as, as-groups, as-uid): the user the API server authorizes. */
  impersonate?: Impersonation;
  /** Set when the credentials come from an exec plugin: execCredentials() runs it. */
  exec?: ExecPlugin;
  /** Set for a gcp or azure auth provider: gather gets its token with authProviderToken(). */
  authProvider?: AuthProvider;
  /**
   * Set when the credentials or the connection need @kubernetes/client-node (an auth provider
   * other than gcp and azure, a socks proxy): a kubeconfig of just this context, material
   * inlined, for KubeConfig.loadFromString.
   */
  clientConfig?: string;
  /** The proxy requests go through: the cluster's proxy-url, else HTTPS_PROXY / HTTP_PROXY unless NO_PROXY. */
  proxy?: Proxy;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/**
 * The service-account directory. MESHDOCTOR_SERVICEACCOUNT_DIR is a testing hook only (it lets
 * the tests run the in-cluster path against the test API server); a pod never needs it.
 */
const saDir = () => process.env.MESHDOCTOR_SERVICEACCOUNT_DIR || SA_DIR;
const firstLine = (s: string) => s.split('\n')[0]!.trim();

/**
 * kubeconfig files and the files they name (token, CA, client certificate and key, the in-cluster
 * namespace) are kilobytes: they are read up to 16 MiB, or --max-bytes if that is lower, so that a
 * device, a FIFO or a runaway file is refused at once instead of filling memory.
 */
const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;
const fileCap = (limits: Limits) => Math.min(limits.maxBytes, MAX_CONFIG_FILE_BYTES);
const FILE_HINT = 'kubeconfig and credential files are read up to 16 MiB';

/**
 * A kubeconfig or credential file, bounded. A stat comes first: opening a FIFO blocks until some
 * writer opens it, before readFileBounded could refuse it as not a regular file.
 */
function readConfigFile(path: string, cap: number, what: string): Buffer {
  let special = false;
  try {
    const st = statSync(path);
    special = !st.isFile() && !st.isDirectory();
  } catch {
    // readFileBounded names the reason (no such file, a dangling link, permission denied)
  }
  if (special) throw new UserError(`cannot read ${what} ${path}: not a regular file (a device, FIFO or socket)`);
  return readFileBounded(path, cap, what, FILE_HINT);
}

function named(list: unknown, field: string): Named[] {
  return (Array.isArray(list) ? list : [])
    .filter((e): e is Entry => isObj(e) && typeof e.name === 'string')
    .map((e) => ({ name: e.name, body: isObj(e[field]) ? e[field] : {} }));
}

/** Paths in a kubeconfig are relative to the file that holds them. */
function absolutize(cfg: RawConfig, dir: string): void {
  const fix = (o: Entry, key: string) => {
    if (typeof o[key] === 'string' && o[key] && !isAbsolute(o[key])) o[key] = resolve(dir, o[key]);
  };
  for (const c of cfg.clusters) fix(c.body, 'certificate-authority');
  for (const u of cfg.users) {
    for (const k of ['client-certificate', 'client-key', 'tokenFile']) fix(u.body, k);
    // An exec command with a path separator is relative to the kubeconfig (kubectl's rule).
    if (isObj(u.body.exec) && typeof u.body.exec.command === 'string' && u.body.exec.command.includes('/'))
      fix(u.body.exec, 'command');
  }
}

async function parseFile(file: string, cap: number): Promise<RawConfig> {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  let text: string;
  try {
    text = decodeText(readConfigFile(file, cap, 'kubeconfig'));
  } catch (e) {
    throw new Error(errorMessage(e).replace(/^cannot read kubeconfig /, '')); // "cannot load kubeconfig: FILE: why"
  }
  if (!text.trim()) return { clusters: [], users: [], contexts: [] }; // an empty file is an empty config
  const YAML = await import('yaml');
  let doc: unknown;
  try {
    doc = YAML.parse(text, { prettyErrors: false });
  } catch (e) {
    throw new Error(`${file}: ${firstLine(errorMessage(e))}`);
  }
  if (!isObj(doc)) throw new Error(`${file}: not a kubeconfig`);
  const cfg: RawConfig = {
    clusters: named(doc.clusters, 'cluster'),
    users: named(doc.users, 'user'),
    contexts: named(doc.contexts, 'context'),
    ...(str(doc['current-context']) ? { currentContext: str(doc['current-context']) } : {}),
  };
  absolutize(cfg, dirname(file));
  return cfg;
}

/** kubectl's merge: the first file to define a name wins, and so does the first current-context. */
function merge(parts: RawConfig[]): RawConfig {
  const out: RawConfig = { clusters: [], users: [], contexts: [] };
  for (const p of parts) {
    out.currentContext ||= p.currentContext;
    for (const key of ['clusters', 'users', 'contexts'] as const) {
      for (const e of p[key]) if (!out[key].some((x) => x.name === e.name)) out[key].push(e);
    }
  }
  return out;
}

function inCluster(cap: number): RawConfig {
  const host = process.env.KUBERNETES_SERVICE_HOST!;
  const port = process.env.KUBERNETES_SERVICE_PORT || '443';
  const dir = saDir();
  const nsFile = join(dir, 'namespace');
  const ns = existsSync(nsFile) ? decodeText(readConfigFile(nsFile, cap, 'namespace file')).trim() : 'default';
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    clusters: [{ name: 'in-cluster', body: { server, 'certificate-authority': join(dir, 'ca.crt') } }],
    users: [{ name: 'in-cluster', body: { tokenFile: join(dir, 'token') } }],
    contexts: [{ name: 'in-cluster', body: { cluster: 'in-cluster', user: 'in-cluster', namespace: ns || 'default' } }],
    currentContext: 'in-cluster',
  };
}

async function loadConfig(kubeconfig: string | undefined, cap: number): Promise<RawConfig> {
  const envFiles = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  const home = join(homedir(), '.kube', 'config');
  if (kubeconfig) return parseFile(kubeconfig, cap);
  if (envFiles.length) {
    const present = envFiles.filter((f) => existsSync(f));
    if (!present.length) throw new Error(`none of the KUBECONFIG files exist (${envFiles.join(', ')})`);
    return merge(await Promise.all(present.map((f) => parseFile(f, cap))));
  }
  if (existsSync(home)) return parseFile(home, cap);
  if (process.env.KUBERNETES_SERVICE_HOST && existsSync(join(saDir(), 'token'))) return inCluster(cap);
  throw new Error('no --kubeconfig, KUBECONFIG or ~/.kube/config, and not running in a cluster');
}

/** Data from `<key>-data` (base64) or the file `<key>` (bounded, regular files only). */
function material(o: Entry, key: string, cap: number): Buffer | undefined {
  const data = str(o[`${key}-data`]);
  if (data) return Buffer.from(data, 'base64');
  const file = str(o[key]);
  if (!file) return undefined;
  return readConfigFile(file, cap, key);
}

/** A URL's userinfo removed (`https://user:pw@host` -> `https://host`), also from a string that is no URL. */
const withoutUserinfo = (s: string) => s.replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)?)[^/?#\\]*@/i, '$1');

/**
 * The server as kubectl reads it: without a scheme ("localhost:6443", "1.2.3.4:443", "host") it is
 * https://; only https and http are spoken. Credentials written into the URL are never shown, but
 * they are basic auth as for kubectl (Go's HTTP client sends them unless another Authorization is set).
 */
function parseServer(
  contextName: string,
  raw: string,
): Pick<KubeContext, 'server' | 'url' | 'serverError'> & { userinfo?: string } {
  const full = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  const server = printable(withoutUserinfo(full));
  if (!raw) return { server, serverError: `the cluster of context "${contextName}" has no server` };
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    return {
      server,
      serverError: `the server of context "${contextName}" is not a URL: ${printable(withoutUserinfo(raw))}`,
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      server,
      serverError: `the server of context "${contextName}" has the scheme "${printable(url.protocol.slice(0, -1))}": only https:// and http:// are supported`,
    };
  }
  if (!url.username && !url.password) return { server, url };
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const userinfo = `${dec(url.username)}:${dec(url.password)}`;
  url.username = '';
  url.password = '';
  return { server, url, userinfo };
}

/**
 * A token goes into the Authorization header: a control character (a CR/LF would split the
 * header) or one beyond Latin-1 cannot be sent, and Node would throw while setting up the request.
 */
function checkToken(token: string, what: string): void {
  if (hasControl(token) || /[^\u0000-\u00ff]/.test(token)) {
    throw new Error(
      `${what} holds a control character or a character outside Latin-1, which an HTTP header cannot carry`,
    );
  }
}

/** TLS material Node would refuse only when connecting, checked now (as kubectl does on loading). */
function checkTls(tls: KubeContext['tls']): void {
  if (!tls.cert !== !tls.key)
    throw new Error('a client certificate needs a client key, and a client key a certificate');
  if (tls.ca && !tls.ca.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error('the certificate authority holds no PEM certificate');
  }
  try {
    createSecureContext({ ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}) });
  } catch (e) {
    throw new Error(`the certificate authority or client certificate cannot be used: ${firstLine(errorMessage(e))}`);
  }
}

/** The exec plugin of a user entry, with the KUBERNETES_EXEC_INFO kubectl would give it. */
function execPlugin(exec: Entry, cluster: Entry, rawServer: string, ca: Buffer | undefined): ExecPlugin {
  const command = str(exec.command);
  if (!command) throw new Error('the exec plugin has no command');
  const apiVersion = str(exec.apiVersion) ?? 'client.authentication.k8s.io/v1beta1';
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo === true) {
    // client.authentication.k8s.io Cluster: what the plugin needs to know the cluster it serves.
    const ext = arr(cluster.extensions).find((e) => isObj(e) && e.name === 'client.authentication.k8s.io/exec');
    spec.cluster = {
      server: rawServer,
      ...(str(cluster['tls-server-name']) ? { 'tls-server-name': cluster['tls-server-name'] } : {}),
      ...(cluster['insecure-skip-tls-verify'] === true ? { 'insecure-skip-tls-verify': true } : {}),
      ...(ca ? { 'certificate-authority-data': ca.toString('base64') } : {}),
      ...(str(cluster['proxy-url']) ? { 'proxy-url': cluster['proxy-url'] } : {}),
      ...(cluster['disable-compression'] === true ? { 'disable-compression': true } : {}),
      ...(isObj(ext) && ext.extension !== undefined ? { config: ext.extension } : {}),
    };
  }
  const env: Record<string, string> = {};
  for (const e of arr(exec.env))
    if (isObj(e) && typeof e.name === 'string' && typeof e.value === 'string') env[e.name] = e.value;
  return {
    command,
    args: arr(exec.args).filter((a): a is string => typeof a === 'string'),
    env,
    ...(str(exec.interactiveMode) ? { interactiveMode: str(exec.interactiveMode) } : {}),
    ...(str(exec.installHint) ? { installHint: str(exec.installHint) } : {}),
    info: JSON.stringify({ apiVersion, kind: 'ExecCredential', spec }),
  };
}

/**
 * The proxy for the cluster: its `proxy-url` for every request (client-go's rest.Config.Proxy, which
 * wins over the environment), else the environment's for this server (proxy.ts). http, https and
 * socks5 are the schemes client-go takes for proxy-url (tools/clientcmd client_config.go
 * parseProxyURL); socks4 is kept too, as @kubernetes/client-node (which speaks socks for
 * meshdoctor) took it.
 */
function proxyOf(contextName: string, proxyUrl: string | undefined, server: URL | undefined): Proxy | undefined {
  const where = `the proxy-url of context "${contextName}"`;
  if (proxyUrl) {
    let url: URL;
    try {
      url = new URL(proxyUrl);
    } catch {
      throw new UserError(`${where} is not a URL: ${printable(withoutUserinfo(proxyUrl), 200)}`);
    }
    if (!/^(https?|socks[45][ah]?):$/.test(url.protocol)) {
      throw new UserError(
        `${where} has the scheme "${printable(url.protocol.slice(0, -1), 50)}": only http://, https:// and socks5:// proxies are supported`,
      );
    }
    return { url, source: 'proxy-url' };
  }
  if (!server) return undefined;
  try {
    return proxyFromEnvironment(server);
  } catch (e) {
    throw new UserError(`cannot connect to the server of context "${contextName}": ${printable(errorMessage(e))}`);
  }
}

/** Impersonation, as client-go's rest.ImpersonationConfig holds it. */
export interface Impersonation {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The contexts a kubeconfig names, for a message: at most 20, each printable. */
function contextList(cfg: RawConfig): string {
  const names = cfg.contexts.map((c) => printable(c.name, 100));
  if (!names.length) return 'the kubeconfig defines no context';
  const shown = names.slice(0, 20).join(', ');
  return `contexts: ${names.length > 20 ? `${shown} and ${names.length - 20} more` : shown}`;
}

/**
 * A character a header key may hold as it is (RFC 7230 tchar); the rest are %-encoded, as client-go's
 * headerKeyEscape does for Impersonate-Extra-KEY (transport/round_trippers.go, kubernetes/kubernetes
 * @04b240ac), '%' too so that the server's unescaping gives the key back.
 */
const headerKey = (key: string) =>
  [...Buffer.from(key, 'utf8')]
    .map((b) =>
      /[!#$&'*+\-.^_`|~0-9A-Za-z]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/**
 * The impersonation headers client-go's impersonatingRoundTripper sets (transport/round_trippers.go,
 * kubernetes/kubernetes @04b240ac): Impersonate-User, Impersonate-Uid, one Impersonate-Group line per
 * group, one Impersonate-Extra-KEY line per value. Flags win over the user entry field by field, as
 * clientcmd merges its overrides; a uid, groups or extra without a user is refused as clientcmd's
 * validateAuthInfo refuses it (tools/clientcmd/validation.go @008b3652).
 */
function impersonation(user: Entry, flags: Impersonation | undefined): Impersonation | undefined {
  const groups = flags?.groups?.length
    ? flags.groups
    : arr(user['as-groups']).filter((g): g is string => typeof g === 'string');
  const extra: Record<string, string[]> = {};
  if (isObj(user['as-user-extra']))
    for (const [k, v] of Object.entries(user['as-user-extra']))
      extra[k] = arr(v).filter((x): x is string => typeof x === 'string');
  const imp: Impersonation = {
    ...((flags?.user ?? str(user.as)) ? { user: flags?.user ?? str(user.as) } : {}),
    ...((flags?.uid ?? str(user['as-uid'])) ? { uid: flags?.uid ?? str(user['as-uid']) } : {}),
    ...(groups.length ? { groups } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
  if (!imp.user && (imp.uid || imp.groups || imp.extra)) {
    throw new UserError(
      flags?.groups?.length || flags?.uid
        ? '--as-group and --as-uid need --as (a user to impersonate), as kubectl requires'
        : 'the kubeconfig user asks for impersonated groups, uid or extra without a user (as), which kubectl refuses too',
    );
  }
  return imp.user ? imp : undefined;
}

/**
 * A header value as kubectl sends it: Go writes a header's string as its bytes, UTF-8, and refuses
 * only the control characters (golang.org/x/net/http/httpguts ValidHeaderFieldValue: CTLs but tab).
 * Node writes a header string as latin-1 (`--as josé` would arrive as `jos\xe9`, another user) and
 * throws on any character above U+00FF (`--as 用户`), so the UTF-8 bytes are handed to it as a
 * latin-1 string: one character per byte, written as those bytes.
 */
function headerValue(v: string, flag: string): string {
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(v))
    throw new UserError(
      `${flag} "${printable(v, 100)}" holds a control character, which no HTTP header can carry (kubectl refuses it too)`,
    );
  return Buffer.from(v, 'utf8').toString('latin1');
}

function impersonationHeaders(imp: Impersonation): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = { 'Impersonate-User': headerValue(imp.user!, '--as') };
  if (imp.uid) h['Impersonate-Uid'] = headerValue(imp.uid, '--as-uid');
  if (imp.groups?.length) h['Impersonate-Group'] = imp.groups.map((g) => headerValue(g, '--as-group'));
  for (const [k, v] of Object.entries(imp.extra ?? {}))
    if (v.length) h[`Impersonate-Extra-${headerKey(k)}`] = v.map((x) => headerValue(x, `as-user-extra ${k}`));
  return h;
}

/**
 * The contexts of the merged kubeconfig (kubectl's merge: the first file to define a name wins),
 * in the order kubectl config get-contexts lists them (by name), each with the server of its
 * cluster as messages show it (no credentials); for `--all-contexts` and `--contexts`.
 */
export async function kubeContexts(
  opts: { kubeconfig?: string },
  limits: Limits = DEFAULT_LIMITS,
): Promise<{ name: string; server?: string }[]> {
  let cfg: RawConfig;
  try {
    cfg = await loadConfig(opts.kubeconfig, fileCap(limits));
  } catch (e) {
    throw new UserError(`cannot load kubeconfig: ${firstLine(errorMessage(e))}`);
  }
  return cfg.contexts
    .map((c) => {
      const cluster = cfg.clusters.find((x) => x.name === str(c.body.cluster));
      const raw = cluster ? str(cluster.body.server) : undefined;
      return { name: c.name, ...(raw ? { server: parseServer(c.name, raw).server } : {}) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Resolve the context meshdoctor uses; every problem is a one-line UserError. */
export async function resolveKubeContext(
  opts: { kubeconfig?: string; context?: string; impersonate?: Impersonation },
  limits: Limits = DEFAULT_LIMITS,
): Promise<KubeContext> {
  const cap = fileCap(limits);
  let cfg: RawConfig;
  try {
    cfg = await loadConfig(opts.kubeconfig, cap);
  } catch (e) {
    throw new UserError(`cannot load kubeconfig: ${firstLine(errorMessage(e))}`);
  }
  const contextName = opts.context ?? cfg.currentContext;
  if (contextName === undefined)
    throw new UserError(`the kubeconfig has no current context; pass --context NAME (${contextList(cfg)})`);
  const ctx = cfg.contexts.find((c) => c.name === contextName);
  if (!ctx) {
    const hint = didYouMean(
      contextName,
      cfg.contexts.map((c) => c.name),
    );
    throw new UserError(
      `context "${printable(contextName, 200)}" not found in kubeconfig${printable(hint, 300)} (${contextList(cfg)})`,
    );
  }
  const clusterName = str(ctx.body.cluster) ?? '';
  const cluster = cfg.clusters.find((c) => c.name === clusterName);
  if (!cluster) throw new UserError(`cluster "${clusterName}" of context "${contextName}" not found in kubeconfig`);
  const user = cfg.users.find((u) => u.name === str(ctx.body.user))?.body ?? {};
  const impersonate = impersonation(user, opts.impersonate);
  const c = cluster.body;
  const rawServer = str(c.server) ?? '';
  const { userinfo, ...srv } = parseServer(contextName, rawServer);
  const base = { contextName, namespace: str(ctx.body.namespace) || 'default', ...srv };

  // client-go refuses a CA together with insecure-skip-tls-verify before sending anything
  // (transport/transport.go TLSConfigFor, kubernetes/client-go at ea6d8978): the credentials would
  // go to a server nobody verified although the kubeconfig says whom to trust.
  if (
    c['insecure-skip-tls-verify'] === true &&
    (str(c['certificate-authority-data']) || str(c['certificate-authority']))
  ) {
    throw new UserError(
      `the cluster of context "${contextName}" has a certificate authority and insecure-skip-tls-verify: true, which kubectl refuses too ("specifying a root certificates file with the insecure flag is not allowed"): remove one of them`,
    );
  }
  const proxy = proxyOf(contextName, str(c['proxy-url']), srv.url);

  try {
    const tls: KubeContext['tls'] = {};
    const ca = material(c, 'certificate-authority', cap);
    if (ca) tls.ca = ca;
    const cert = material(user, 'client-certificate', cap);
    const key = material(user, 'client-key', cap);
    if (cert) tls.cert = cert;
    if (key) tls.key = key;
    checkTls(tls);
    if (c['insecure-skip-tls-verify'] === true) tls.rejectUnauthorized = false;
    if (str(c['tls-server-name'])) tls.servername = str(c['tls-server-name']);
    const headers: Record<string, string | string[]> = {};
    const tokenFile = str(user.tokenFile);
    const token =
      str(user.token) || (tokenFile ? decodeText(readConfigFile(tokenFile, cap, 'token file')).trim() : undefined);
    if (token) {
      checkToken(token, tokenFile && !str(user.token) ? `the token file ${tokenFile}` : 'the token');
      headers.Authorization = `Bearer ${token}`;
    }
    let auth = str(user.username) !== undefined ? `${str(user.username)}:${str(user.password) ?? ''}` : undefined;
    if (!auth && !token && userinfo) auth = userinfo;
    const exec = isObj(user.exec) ? execPlugin(user.exec, c, rawServer, ca) : undefined;
    if (impersonate) Object.assign(headers, impersonationHeaders(impersonate));

    const authProvider = authProviderOf(user['auth-provider']);
    const socks = proxy?.url.protocol.startsWith('socks') ? proxy.url.href : undefined;
    let clientConfig: string | undefined;
    if ((isObj(user['auth-provider']) && !authProvider) || socks) {
      // The client computes only the auth provider's header (oidc, ...) and the socks proxy agent:
      // the material read above is inlined (it never reads a file itself), and the static
      // credentials are ours. gcp and azure never reach it: its execSync would block (auth-provider.ts).
      clientConfig = JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: cluster.name,
            cluster: {
              server: srv.url?.href ?? '',
              ...(ca ? { 'certificate-authority-data': ca.toString('base64') } : {}),
              ...(c['insecure-skip-tls-verify'] === true ? { 'insecure-skip-tls-verify': true } : {}),
              ...(tls.servername ? { 'tls-server-name': tls.servername } : {}),
              ...(socks ? { 'proxy-url': socks } : {}),
            },
          },
        ],
        users: [
          {
            name: 'user',
            user: isObj(user['auth-provider']) && !authProvider ? { 'auth-provider': user['auth-provider'] } : {},
          },
        ],
        contexts: [{ name: contextName, context: { cluster: cluster.name, user: 'user' } }],
        'current-context': contextName,
      });
    }
    return {
      ...base,
      tls,
      headers,
      ...(auth ? { auth } : {}),
      ...(exec ? { exec } : {}),
      ...(authProvider ? { authProvider } : {}),
      ...(clientConfig ? { clientConfig } : {}),
      ...(proxy ? { proxy } : {}),
      ...(impersonate ? { impersonate } : {}),
    };
  } catch (e) {
    throw new UserError(
      `cannot get credentials for context "${contextName}": ${printable(firstLine(errorMessage(e)))}`,
    );
  }
}

/**
 * Run the context's exec credential plugin as kubectl does (client.authentication.k8s.io
 * ExecCredential): `command` with `args`, the `env` entries added to our environment,
 * KUBERNETES_EXEC_INFO describing a non-interactive request, stdin not a terminal; the credential
 * is `status.token` or `status.clientCertificateData` + `status.clientKeyData` on stdout. Found on
 * PATH and bounded by runHelper (plugin.ts): never from the current directory through a relative
 * PATH entry, killed after --request-timeout (or when `signal` aborts) or once it prints more than
 * MAX_EXEC_OUTPUT_BYTES, its stderr made printable. Returns the context with the credential applied.
 */
export async function execCredentials(r: KubeContext, limits: Limits, signal?: AbortSignal): Promise<KubeContext> {
  const p = r.exec;
  if (!p) return r;
  const fail = (why: string) =>
    new UserError(
      `cannot get credentials for context "${r.contextName}": the exec plugin "${printable(p.command, 200)}" ${why}`,
    );
  if (p.interactiveMode === 'Always')
    throw fail('needs a terminal (interactiveMode: Always); meshdoctor never runs plugins interactively');

  const stdout = await runHelper({
    command: p.command,
    args: p.args,
    env: { ...process.env, ...p.env, KUBERNETES_EXEC_INFO: p.info },
    limits,
    signal,
    fail,
    notFoundHint: p.installHint ? ` (${printable(firstLine(p.installHint), 200)})` : '',
  });

  let cred: unknown;
  try {
    cred = JSON.parse(decodeText(stdout));
  } catch {
    throw fail('printed no ExecCredential JSON');
  }
  const status = isObj(cred) && isObj(cred.status) ? cred.status : {};
  const token = str(status.token);
  const cert = str(status.clientCertificateData);
  const key = str(status.clientKeyData);
  if (!token && !(cert && key))
    throw fail('returned no credentials (no status.token, nor status.clientCertificateData and clientKeyData)');
  const headers = { ...r.headers };
  const tls = { ...r.tls };
  try {
    if (token) {
      checkToken(token, 'its token');
      headers.Authorization = `Bearer ${token}`;
    }
    if (cert && key) {
      tls.cert = Buffer.from(cert);
      tls.key = Buffer.from(key);
      checkTls(tls);
    }
  } catch (e) {
    throw fail(`returned unusable credentials: ${printable(firstLine(errorMessage(e)))}`);
  }
  return { ...r, headers, tls };
}
