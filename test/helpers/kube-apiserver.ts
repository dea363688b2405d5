/**
 * A real kube-apiserver (v1.32 + etcd, started by ../shared/k8s/apiserver.sh) for integration
 * tests, and a tiny admin client for it over node:https: create objects, set their status through
 * the `status` subresource, mint ServiceAccount tokens (TokenRequest API), read /metrics. No
 * kubectl: a fresh machine may not have it.
 *
 * The script lives outside the repository (../shared): a user's clone has none, so callers check
 * `APISERVER_SH_FOUND` and skip.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import { KINDS } from '../../src/k8s/kinds.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** ../shared/k8s/apiserver.sh relative to the repository root (MESHDOCTOR_APISERVER_SH names it elsewhere: a git worktree). */
export const APISERVER_SH = process.env.MESHDOCTOR_APISERVER_SH || resolve(ROOT, '..', 'shared', 'k8s', 'apiserver.sh');
export const APISERVER_SH_FOUND = existsSync(APISERVER_SH);

export interface Reply {
  status: number;
  json: any;
  text: string;
}

/**
 * The paths of a kind: plural, whether namespaced. Every kind meshdoctor reads (src/k8s/kinds.ts
 * KINDS, the one table: a kind added there needs no edit here), and the kinds these tests create
 * besides (RBAC of a namespace, API priority and fairness).
 */
const RESOURCES: Record<string, [plural: string, namespaced: boolean]> = {
  ...Object.fromEntries(Object.values(KINDS).map((k) => [k.kind, [k.plural, k.namespaced]])),
  Role: ['roles', true],
  RoleBinding: ['rolebindings', true],
  FlowSchema: ['flowschemas', false],
  PriorityLevelConfiguration: ['prioritylevelconfigurations', false],
};

/** Creation order: what others refer to (namespaces, service accounts, owners) first. */
const ORDERED = [
  'Namespace',
  'Node',
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'PriorityLevelConfiguration',
  'FlowSchema',
  'MutatingWebhookConfiguration',
  'NetworkPolicy',
  'ConfigMap',
  'Secret',
  'Service',
  'Endpoints',
  'EndpointSlice',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'CronJob',
  'ReplicaSet',
  'Job',
  'Pod',
  // After the pods: the ResourceQuota admission plugin rejects pods while a quota has no status
  // (no controller-manager computes it here).
  'ResourceQuota',
];
/**
 * ORDERED, then every other kind of RESOURCES (a kind added to KINDS: after the pods, so that no
 * admission object of its, a LimitRange or a validating webhook, changes or refuses them), Events last.
 */
export const CREATE_ORDER = [
  ...ORDERED,
  ...Object.keys(RESOURCES).filter((k) => !ORDERED.includes(k) && k !== 'Event'),
  'Event',
];

/** The collection path of an object's kind (in its namespace when namespaced). */
export function collectionPath(obj: { apiVersion: string; kind: string; metadata?: { namespace?: string } }): string {
  const r = RESOURCES[obj.kind];
  if (!r) throw new Error(`kube-apiserver helper: unknown kind ${obj.kind}`);
  const [plural, namespaced] = r;
  const base = obj.apiVersion.includes('/') ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
  if (!namespaced) return `${base}/${plural}`;
  const ns = obj.metadata?.namespace;
  if (!ns) throw new Error(`kube-apiserver helper: ${obj.kind} ${(obj as any).metadata?.name} has no namespace`);
  return `${base}/namespaces/${encodeURIComponent(ns)}/${plural}`;
}

export const objectPath = (obj: { apiVersion: string; kind: string; metadata: { namespace?: string; name: string } }) =>
  `${collectionPath(obj)}/${encodeURIComponent(obj.metadata.name)}`;

/** What the real server rejects on create or sets itself; `status` is returned apart (set later). */
export function forCreate(obj: any): { body: any; status?: any } {
  const body = structuredClone(obj);
  const md = body.metadata ?? {};
  for (const f of [
    'resourceVersion',
    'uid',
    'creationTimestamp',
    'managedFields',
    'generation',
    'selfLink',
    'deletionTimestamp',
  ])
    delete md[f];
  const status = body.status;
  delete body.status;
  return { body, status };
}

export class KubeClient {
  private agent: https.Agent;

  constructor(
    readonly server: string,
    tls: { ca: string; cert?: string; key?: string },
    private bearer?: string,
  ) {
    this.agent = new https.Agent({ ...tls, keepAlive: true, maxSockets: 8 });
  }

  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
    const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    return new Promise((resolvePromise, reject) => {
      const req = https.request(
        this.server + path,
        {
          method,
          agent: this.agent,
          headers: {
            Accept: 'application/json',
            'User-Agent': 'meshdoctor-test-admin',
            ...(data ? { 'Content-Type': contentType, 'Content-Length': data.length } : {}),
            ...(this.bearer ? { Authorization: `Bearer ${this.bearer}` } : {}),
          },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolvePromise({ status: res.statusCode ?? 0, json, text });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
      req.on('error', reject);
      req.end(data);
    });
  }

  /** A request that must succeed (2xx): the parsed body, else an error with the server's message. */
  async ok(method: string, path: string, body?: unknown, contentType?: string): Promise<any> {
    const r = await this.request(method, path, body, contentType);
    if (r.status < 200 || r.status >= 300) {
      throw new Error(`${method} ${path}: HTTP ${r.status}: ${r.json?.message ?? r.text.slice(0, 500)}`);
    }
    return r.json;
  }

  get = (path: string) => this.ok('GET', path);

  /** POST an object (server-set fields and status stripped); returns what the server stored. */
  async create(obj: any): Promise<any> {
    return this.ok('POST', collectionPath(obj), forCreate(obj).body);
  }

  /** Set (merge) an object's status through its `status` subresource. */
  async patchStatus(obj: any, status: unknown): Promise<any> {
    return this.ok('PATCH', `${objectPath(obj)}/status`, { status }, 'application/merge-patch+json');
  }

  /** Replace an object's status through the `status` subresource (PUT with the current resourceVersion). */
  async putStatus(obj: any, status: unknown): Promise<any> {
    const current = await this.get(objectPath(obj));
    return this.ok('PUT', `${objectPath(obj)}/status`, { ...current, status });
  }

  /** A ServiceAccount token from the TokenRequest API. */
  async token(namespace: string, name: string, expirationSeconds = 3600): Promise<string> {
    const r = await this.ok(
      'POST',
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds },
      },
    );
    if (typeof r?.status?.token !== 'string')
      throw new Error(`TokenRequest for ${namespace}/${name}: no token in the answer`);
    return r.status.token;
  }

  /** The Prometheus text of /metrics. */
  async metrics(): Promise<string> {
    const r = await this.request('GET', '/metrics');
    if (r.status !== 200) throw new Error(`GET /metrics: HTTP ${r.status}`);
    return r.text;
  }

  /**
   * Create objects in dependency order; returns the stored objects in the order given.
   * - fixture uids in ownerReferences and Event.involvedObject are replaced by the real uids of
   *   the objects created before (owners are created first, see CREATE_ORDER); others are kept;
   * - a Namespace that exists already (default, kube-system, kube-public) gets the fixture's
   *   labels and annotations merged in instead;
   * - `status` is set afterwards through the status subresource (merge patch).
   */
  async createAll(objects: any[]): Promise<any[]> {
    const uids = new Map<string, string>();
    const rank = (o: any) => {
      const i = CREATE_ORDER.indexOf(o.kind);
      if (i < 0) throw new Error(`kube-apiserver helper: no creation order for kind ${o.kind}`);
      return i;
    };
    const indexed = objects.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i);
    const stored: any[] = new Array(objects.length);
    for (const { o, i } of indexed) {
      const { body, status } = forCreate(o);
      // An owner not among the objects keeps its fixture uid: the server accepts a dangling
      // reference, and no garbage collector runs here to act on it.
      for (const ref of body.metadata?.ownerReferences ?? []) ref.uid = uids.get(ref.uid) ?? ref.uid;
      if (o.kind === 'Event' && body.involvedObject?.uid)
        body.involvedObject.uid = uids.get(body.involvedObject.uid) ?? body.involvedObject.uid;
      let r = await this.request('POST', collectionPath(body), body);
      if (r.status === 409 && o.kind === 'Namespace') {
        const patch = {
          metadata: { labels: body.metadata.labels ?? {}, annotations: body.metadata.annotations ?? {} },
        };
        r = {
          ...r,
          status: 200,
          json: await this.ok('PATCH', objectPath(body), patch, 'application/merge-patch+json'),
        };
      }
      if (r.status < 200 || r.status >= 300) {
        throw new Error(
          `create ${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name}: HTTP ${r.status}: ${r.json?.message ?? r.text.slice(0, 500)}`,
        );
      }
      let obj = r.json;
      if (o.metadata?.uid) uids.set(o.metadata.uid, obj.metadata.uid);
      if (status && Object.keys(status).length)
        obj = await this.patchStatus(obj.apiVersion ? obj : { ...body, ...obj }, status);
      stored[i] = obj;
    }
    return stored;
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface KubeApiServer {
  dir: string;
  /** The admin kubeconfig the script wrote (client certificate of group system:masters). */
  kubeconfig: string;
  /** https://127.0.0.1:PORT */
  server: string;
  caPem: string;
  admin: KubeClient;
  /** Seconds the start took. */
  startSeconds: number;
  stop(): Promise<void>;
}

function sh(args: string[], timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile('bash', [APISERVER_SH, ...args], { timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      res({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const tail = (file: string, n = 15) => {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '(none)';
  }
};

/** A port the script chose was taken before etcd or kube-apiserver bound it (its check and the bind are apart). */
const portTaken = (dir: string) =>
  /address already in use/.test(tail(join(dir, 'kube-apiserver.log'), 50) + tail(join(dir, 'etcd.log'), 50));

/** Running (a zombie no one reaps yet, as the script's setsid children may be, is not). */
const running = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * Stop the server for good: its state is thrown away with `dir`, so there is nothing for a
 * graceful shutdown to save, and the script's `stop` (SIGTERM, then up to 10 s per process) took
 * about 4 s of each file's wall time on an idle machine. The two processes the script recorded
 * (or that restartKubeApiServer started in place) are killed, then waited for; without /proc or a
 * pid file, the script stops them.
 */
async function killServer(dir: string): Promise<void> {
  const pids = ['kube-apiserver', 'etcd'].map((n) => {
    try {
      return Number(readFileSync(join(dir, `${n}.pid`), 'utf8').trim());
    } catch {
      return NaN;
    }
  });
  if (!existsSync('/proc/self/stat') || pids.some((p) => !Number.isInteger(p) || p <= 0)) {
    await sh(['stop', dir], 30_000);
    return;
  }
  // Only a process started for `dir` (its command line names it: a recorded pid may have been reused).
  const ours = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
    } catch {
      return false;
    }
  };
  for (const pid of pids.filter(ours)) process.kill(pid, 'SIGKILL');
  const left = () => pids.some((p) => running(p) && ours(p));
  for (let i = 0; i < 200 && left(); i++) await new Promise((r) => setTimeout(r, 50));
  if (left()) await sh(['stop', dir], 30_000);
}

/** Start etcd + kube-apiserver under `dir` (a new temp dir by default); resolves when /readyz is ok. */
export async function startKubeApiServer(
  dir = mkdtempSync(join(tmpdir(), 'meshdoctor-kube-')),
): Promise<KubeApiServer> {
  const t0 = Date.now();
  const stop = () => killServer(dir);
  let r = await sh(['start', dir], 85_000);
  // Other processes (test workers, other suites on the machine) open ports all the time: new ports, twice more.
  for (let retry = 0; retry < 2 && r.code !== 0 && portTaken(dir); retry++) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    r = await sh(['start', dir], 85_000);
  }
  if (r.code !== 0) {
    await stop();
    throw new Error(
      `${APISERVER_SH} start ${dir} failed (exit ${r.code}):\n${r.stderr.trim()}\n--- kube-apiserver.log ---\n${tail(join(dir, 'kube-apiserver.log'))}\n--- etcd.log ---\n${tail(join(dir, 'etcd.log'), 5)}`,
    );
  }
  let stopping: Promise<void> | undefined;
  const kubeconfig = r.stdout.trim().split('\n').pop()!;
  const kc = YAML.parse(readFileSync(kubeconfig, 'utf8'));
  const cluster = kc.clusters[0].cluster;
  const user = kc.users[0].user;
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  const caPem = b64(cluster['certificate-authority-data']);
  const admin = new KubeClient(cluster.server, {
    ca: caPem,
    cert: b64(user['client-certificate-data']),
    key: b64(user['client-key-data']),
  });
  return {
    dir,
    kubeconfig,
    server: cluster.server,
    caPem,
    admin,
    startSeconds: (Date.now() - t0) / 1000,
    stop() {
      return (stopping ??= (async () => {
        admin.close();
        await stop();
        rmSync(dir, { recursive: true, force: true });
      })());
    },
  };
}

/**
 * A server started when the test file is loaded rather than in the beforeAll of the tests that
 * use it, for a file whose earlier tests take a while: its start (5-10 s, most of it waiting for
 * etcd and /readyz) then overlaps them instead of holding the worker. A fresh server for the file
 * all the same. `get()` waits for it (a failed start rejects there, as startKubeApiServer would in
 * the beforeAll); `stop()` stops it whether or not it was used (call it in the file's afterAll:
 * under `-t` the tests that use it may not run). Call it only where the script was found.
 */
export function startKubeApiServerEarly(): { get(): Promise<KubeApiServer>; stop(): Promise<void> } {
  const started = startKubeApiServer();
  started.catch(() => {}); // rejected in get(), where the tests that need it wait
  let stopped: Promise<void> | undefined;
  return {
    get: () => started,
    stop: () =>
      (stopped ??= started.then(
        (k) => k.stop(),
        () => {},
      )),
  };
}

/** A kubeconfig for a bearer token (server and CA of the given server); returns its path. */
export function writeTokenKubeconfig(
  path: string,
  o: { server: string; caPem: string; token: string; user: string; namespace?: string },
): string {
  const kc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kube-test',
        cluster: { server: o.server, 'certificate-authority-data': Buffer.from(o.caPem).toString('base64') },
      },
    ],
    users: [{ name: o.user, user: { token: o.token } }],
    contexts: [
      {
        name: `${o.user}@kube-test`,
        context: { cluster: 'kube-test', user: o.user, ...(o.namespace ? { namespace: o.namespace } : {}) },
      },
    ],
    'current-context': `${o.user}@kube-test`,
  };
  writeFileSync(path, YAML.stringify(kc), { mode: 0o600 });
  return path;
}

/**
 * The `apiserver_flowcontrol_dispatched_requests_total` counters by flow schema, from /metrics
 * text: the requests the server dispatched (after authentication, before authorization: forbidden
 * requests count too).
 */
export function dispatchedByFlowSchema(metrics: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_flowcontrol_dispatched_requests_total{')) continue;
    const fs = /flow_schema="([^"]*)"/.exec(line)?.[1];
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (fs !== undefined && Number.isFinite(v)) out.set(fs, (out.get(fs) ?? 0) + v);
  }
  return out;
}

/**
 * Split a one-line shell command into words: '...' and "..." quotes, backslash escapes, and a
 * trailing `# comment` dropped. Enough for the kubectl lines meshdoctor prints.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      cur += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === '"') {
      i++;
      for (; i < line.length && line[i] !== '"'; i++)
        cur += line[i] === '\\' && /["\\$`]/.test(line[i + 1] ?? '') ? line[++i] : line[i];
      if (i >= line.length) throw new Error(`unterminated " in: ${line}`);
      inWord = true;
    } else if (ch === '\\') {
      cur += line[++i] ?? '';
      inWord = true;
    } else if (ch === '$' && line[i + 1] === "'") {
      throw new Error(`$'...' quoting not supported by this parser: ${line}`);
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (ch === '#' && !inWord) {
      break;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** The values of `--flag=v` / `--flag v` options (repeatable; comma lists split for `split`). */
export function flagValues(words: string[], flag: string, split = true): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    let v: string | undefined;
    if (w.startsWith(`--${flag}=`)) v = w.slice(flag.length + 3);
    else if (w === `--${flag}`) v = words[++i];
    if (v !== undefined) out.push(...(split ? v.split(',').filter(Boolean) : [v]));
  }
  return out;
}

/**
 * The ClusterRole `kubectl create clusterrole NAME --verb=... --resource=... [--resource-name=...]
 * [--non-resource-url=...]` would create: one rule per resource (`plural.group`, the core group
 * without a dot) and one for the URLs, as kubectl does.
 */
export function clusterRoleFromKubectl(line: string): any {
  const w = shellWords(line);
  const at = w.indexOf('clusterrole');
  if (w[0] !== 'kubectl' || w[at - 1] !== 'create' || at < 0)
    throw new Error(`not a kubectl create clusterrole command: ${line}`);
  const name = w[at + 1]!;
  const verbs = flagValues(w, 'verb');
  const resources = flagValues(w, 'resource');
  const names = flagValues(w, 'resource-name', false);
  const urls = flagValues(w, 'non-resource-url');
  if (!name || name.startsWith('-') || !verbs.length || !(resources.length || urls.length))
    throw new Error(`incomplete kubectl create clusterrole command: ${line}`);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: [
      ...resources.map((r) => {
        const dot = r.indexOf('.');
        const [plural, group] = dot < 0 ? [r, ''] : [r.slice(0, dot), r.slice(dot + 1)];
        return { apiGroups: [group], resources: [plural], verbs, ...(names.length ? { resourceNames: names } : {}) };
      }),
      // `--non-resource-url`: one rule for the URLs (GET /metrics), as kubectl writes it.
      ...(urls.length ? [{ nonResourceURLs: urls, verbs }] : []),
    ],
  };
}

/**
 * The binding `kubectl create clusterrolebinding|rolebinding NAME --clusterrole=R ...` would
 * create, with the subject replaced by `subject` (the test binds to its own user).
 */
export function bindingFromKubectl(line: string, subject: { kind: string; name: string; namespace?: string }): any {
  const w = shellWords(line);
  const kindAt = w.findIndex((x) => x === 'clusterrolebinding' || x === 'rolebinding');
  if (w[0] !== 'kubectl' || kindAt < 0 || w[kindAt - 1] !== 'create')
    throw new Error(`not a kubectl create binding command: ${line}`);
  const cluster = w[kindAt] === 'clusterrolebinding';
  const ns = flagValues(w, 'namespace', false)[0] ?? (w.includes('-n') ? w[w.indexOf('-n') + 1] : undefined);
  const clusterRole = flagValues(w, 'clusterrole', false)[0];
  const role = flagValues(w, 'role', false)[0];
  if (cluster && !clusterRole) throw new Error(`a clusterrolebinding needs --clusterrole: ${line}`);
  if (!cluster && !ns) throw new Error(`a rolebinding needs -n/--namespace: ${line}`);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: cluster ? 'ClusterRoleBinding' : 'RoleBinding',
    metadata: { name: w[kindAt + 1], ...(cluster ? {} : { namespace: ns }) },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: clusterRole ? 'ClusterRole' : 'Role',
      name: clusterRole ?? role,
    },
    subjects: [subject],
  };
}
