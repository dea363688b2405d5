/**
 * kubeconfig resolution without the Kubernetes client. Files are found and merged as kubectl
 * does (--kubeconfig; else every KUBECONFIG path, missing files skipped, the first definition of a
 * name and the first current-context winning; else ~/.kube/config; else the in-cluster service
 * account). Static credentials (tokens, token files, client certificates, basic auth, CA data or
 * files) are applied here; only credentials that must be computed (exec plugins, auth providers)
 * and proxies are left to `@kubernetes/client-node`, which gather.ts then imports. That keeps the
 * client's ~0.5 s import off the common path.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { errorMessage, UserError } from '../errors.js';
import { isObj, str } from '../util.js';

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

/** TLS and credentials for the API server of one context. */
export interface KubeContext {
  contextName: string;
  namespace: string;
  server: string;
  /** Static TLS settings (absent options are left out, never `undefined`). */
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: false; servername?: string };
  headers: Record<string, string>;
  /** user:password for basic auth. */
  auth?: string;
  /**
   * Set when the credentials need @kubernetes/client-node (exec plugin, auth provider, proxy):
   * a kubeconfig of just this context, paths made absolute, for KubeConfig.loadFromString.
   */
  clientConfig?: string;
  proxyUrl?: string;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/**
 * The service-account directory. MESHDOCTOR_SERVICEACCOUNT_DIR is a testing hook only (it lets
 * the tests run the in-cluster path against the test API server); a pod never needs it.
 */
const saDir = () => process.env.MESHDOCTOR_SERVICEACCOUNT_DIR || SA_DIR;
const firstLine = (s: string) => s.split('\n')[0]!.trim();

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
    if (isObj(u.body.exec) && typeof u.body.exec.command === 'string' && u.body.exec.command.includes('/')) fix(u.body.exec, 'command');
  }
}

async function parseFile(file: string): Promise<RawConfig> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error((e as NodeJS.ErrnoException).code === 'ENOENT' ? `${file} does not exist` : errorMessage(e));
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

function inCluster(): RawConfig {
  const host = process.env.KUBERNETES_SERVICE_HOST!;
  const port = process.env.KUBERNETES_SERVICE_PORT || '443';
  const dir = saDir();
  const ns = existsSync(join(dir, 'namespace')) ? readFileSync(join(dir, 'namespace'), 'utf8').trim() : 'default';
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    clusters: [{ name: 'in-cluster', body: { server, 'certificate-authority': join(dir, 'ca.crt') } }],
    users: [{ name: 'in-cluster', body: { tokenFile: join(dir, 'token') } }],
    contexts: [{ name: 'in-cluster', body: { cluster: 'in-cluster', user: 'in-cluster', namespace: ns } }],
    currentContext: 'in-cluster',
  };
}

async function loadConfig(kubeconfig?: string): Promise<RawConfig> {
  const envFiles = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  const home = join(homedir(), '.kube', 'config');
  if (kubeconfig) return parseFile(kubeconfig);
  if (envFiles.length) {
    const present = envFiles.filter((f) => existsSync(f));
    if (!present.length) throw new Error(`none of the KUBECONFIG files exist (${envFiles.join(', ')})`);
    return merge(await Promise.all(present.map(parseFile)));
  }
  if (existsSync(home)) return parseFile(home);
  if (process.env.KUBERNETES_SERVICE_HOST && existsSync(join(saDir(), 'token'))) return inCluster();
  throw new Error('no --kubeconfig, KUBECONFIG or ~/.kube/config, and not running in a cluster');
}

/** Data from `<key>-data` (base64) or the file `<key>`. */
function material(o: Entry, key: string): Buffer | undefined {
  const data = str(o[`${key}-data`]);
  if (data) return Buffer.from(data, 'base64');
  const file = str(o[key]);
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : errorMessage(e)}`);
  }
}

/** Resolve the context meshdoctor uses; every problem is a one-line UserError. */
export async function resolveKubeContext(opts: { kubeconfig?: string; context?: string }): Promise<KubeContext> {
  let cfg: RawConfig;
  try {
    cfg = await loadConfig(opts.kubeconfig);
  } catch (e) {
    throw new UserError(`cannot load kubeconfig: ${firstLine(errorMessage(e))}`);
  }
  const contextName = opts.context ?? cfg.currentContext;
  if (contextName === undefined) throw new UserError('the kubeconfig has no current context; pass --context NAME');
  const ctx = cfg.contexts.find((c) => c.name === contextName);
  if (!ctx) throw new UserError(`context "${contextName}" not found in kubeconfig`);
  const clusterName = str(ctx.body.cluster) ?? '';
  const cluster = cfg.clusters.find((c) => c.name === clusterName);
  if (!cluster) throw new UserError(`cluster "${clusterName}" of context "${contextName}" not found in kubeconfig`);
  const user = cfg.users.find((u) => u.name === str(ctx.body.user))?.body ?? {};
  const c = cluster.body;
  const base = { contextName, namespace: str(ctx.body.namespace) || 'default', server: str(c.server) ?? '' };

  const proxyUrl = str(c['proxy-url']);
  if (isObj(user.exec) || isObj(user['auth-provider']) || proxyUrl) {
    // Computed credentials: hand this one context to the Kubernetes client.
    const clientConfig = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: cluster.name, cluster: c }],
      users: [{ name: 'user', user }],
      contexts: [{ name: contextName, context: { ...ctx.body, user: 'user' } }],
      'current-context': contextName,
    });
    return { ...base, tls: {}, headers: {}, clientConfig, ...(proxyUrl ? { proxyUrl } : {}) };
  }

  try {
    const tls: KubeContext['tls'] = {};
    const ca = material(c, 'certificate-authority');
    if (ca) tls.ca = ca;
    const cert = material(user, 'client-certificate');
    const key = material(user, 'client-key');
    if (cert) tls.cert = cert;
    if (key) tls.key = key;
    if (c['insecure-skip-tls-verify'] === true) tls.rejectUnauthorized = false;
    if (str(c['tls-server-name'])) tls.servername = str(c['tls-server-name']);
    const headers: Record<string, string> = {};
    const tokenFile = str(user.tokenFile);
    const token = str(user.token) || (tokenFile ? readFileSync(tokenFile, 'utf8').trim() : undefined);
    if (token) headers.Authorization = `Bearer ${token}`;
    const auth = str(user.username) !== undefined ? `${str(user.username)}:${str(user.password) ?? ''}` : undefined;
    return { ...base, tls, headers, ...(auth ? { auth } : {}) };
  } catch (e) {
    throw new UserError(`cannot get credentials for context "${contextName}": ${firstLine(errorMessage(e))}`);
  }
}
