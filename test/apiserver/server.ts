/**
 * A fake Kubernetes API server for integration tests: HTTPS on 127.0.0.1 with a generated CA,
 * bearer-token auth, the list/get paths of the KINDS table, real-looking List and Status
 * bodies, paginated lists, and configurable faults (error codes, slowness, hangs, cut bodies).
 * Every request is recorded.
 *
 * WATCH (`?watch=1`) as kube-apiserver v1.32 serves it, for `meshdoctor watch`: one JSON event a
 * line; from `resourceVersion` (events kept since the last compact()), else the current objects as
 * ADDED first; `fieldSelector=metadata.name=X`; BOOKMARKs on bookmark(); a resourceVersion from
 * before compact() answered 200 with one ERROR event of code 410 ("too old resource version"), as
 * the real server does after a restart; `timeoutSeconds` ends the stream. Objects change through
 * upsert() and remove(), each a new resourceVersion.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import http, { STATUS_CODES } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { KINDS, kindOf, type KindInfo, type KindKey } from '../../src/k8s/kinds.js';
import type { K8sObject } from '../../src/util/types.js';
import { generateCA, generateLeaf, type GeneratedCert } from '../helpers/certs.js';

export interface RequestInfo {
  method: string;
  /** The URL path, without the query string. */
  path: string;
  query: Record<string, string>;
}

export interface RecordedRequest extends RequestInfo {
  headers: IncomingHttpHeaders;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface Fault {
  match: (req: RequestInfo) => boolean;
  /** Answer with this error code and a Status body instead of the real answer. */
  status?: number;
  /** The Status message (a realistic default per code otherwise). */
  message?: string;
  /** Sent as the Retry-After header (and in the Status details). */
  retryAfterSeconds?: number;
  /** Answer this late; Infinity never answers (the connection stays open until the client gives up). */
  delayMs?: number;
  /** Apply to the first N matching requests only (default: all of them). */
  times?: number;
  /** Send the headers and half the body, then destroy the connection. */
  cutBody?: boolean;
  /** Send this text (as text/plain) instead of a JSON body, e.g. "404 page not found" or broken JSON. */
  body?: string;
}

export interface ApiServerOptions {
  objects?: K8sObject[];
  /** The server never returns more items per page than this, whatever `limit` asks for. */
  maxPageSize?: number;
  faults?: Fault[];
  /** gzip response bodies for clients that accept it (as a real API server does). */
  gzip?: boolean;
  /** Serve plain HTTP, like `kubectl proxy` (the kubeconfig then has no CA). */
  plainHttp?: boolean;
  /** DNS names in the serving certificate besides localhost (e.g. `kubernetes`, reached through a proxy). */
  dnsNames?: string[];
  /**
   * The CA and serving certificate (serverCerts()), for a file that starts many servers one after
   * the other (parity: one per fixture): made once, not per server. Default: new ones.
   */
  certs?: ServerCerts;
  /**
   * What GET /version and GET /metrics answer (JSON, Prometheus text), as a real API server does
   * for every user allowed: by default no /version (a 404, as for any unknown path: see
   * DEFAULT_METRICS) and /metrics without a webhook series; `null`: 404.
   */
  version?: unknown;
  metrics?: string | null;
}

export interface KubeconfigContext {
  name: string;
  namespace?: string;
  /** Defaults to this server's URL. */
  server?: string;
  /** Defaults to this server's token. */
  token?: string;
}

export interface KubeconfigOptions {
  /** Name of the main context (and of its cluster and user); default "fake". */
  context?: string;
  /** Namespace of the main context. */
  namespace?: string;
  /** More contexts, each with its own cluster and user entries. */
  extraContexts?: KubeconfigContext[];
  /** The current-context; default the main context, null to leave it unset. */
  currentContext?: string | null;
  /** File name inside the directory; default "kubeconfig". */
  fileName?: string;
}

export interface ApiServer {
  url: string;
  caPem: string;
  token: string;
  requests: RecordedRequest[];
  /** The active faults; tests may change this array while the server runs. */
  faults: Fault[];
  /** Write a kubeconfig for this server (into a fresh temp dir unless `dir` is given); returns its path. */
  writeKubeconfig(dir?: string, opts?: KubeconfigOptions): Promise<string>;
  /** Create or replace an object (by kind, namespace, name): a new resourceVersion, an ADDED or MODIFIED event. */
  upsert(obj: K8sObject): void;
  /** Delete an object: a new resourceVersion, a DELETED event. */
  remove(kind: string, namespace: string | undefined, name: string): void;
  /** Send a BOOKMARK at the current resourceVersion to every open watch that asked for bookmarks. */
  bookmark(): void;
  /** Forget the events so far: a watch from an older resourceVersion gets a 410 ERROR event. */
  compact(): void;
  /** End every open watch stream (as the server does at timeoutSeconds). */
  endWatches(): void;
  /** Open watch streams. */
  readonly openWatches: number;
  /** The current resourceVersion. */
  readonly resourceVersion: number;
  close(): Promise<void>;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

const EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** What a parsed API path addresses. */
interface Target {
  info: KindInfo;
  namespace?: string;
  name?: string;
}

function apiVersionOf(info: KindInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** Parse /api/v1/... and /apis/GROUP/VERSION/... paths into a kind, namespace and name. */
function parsePath(path: string): Target | undefined {
  const segs = path.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) [group, rest] = ['', segs.slice(1)];
  else if (segs[0] === 'apis' && segs.length >= 4) [group, rest] = [segs[1]!, segs.slice(2)];
  else return undefined;
  const [version, ...tail] = rest;
  let namespace: string | undefined;
  let resource = tail;
  // "namespaces/NS/PLURAL[/NAME]" is a namespaced path; "namespaces[/NAME]" is the Namespace kind itself.
  if (tail[0] === 'namespaces' && tail.length >= 3) [namespace, resource] = [tail[1], tail.slice(2)];
  if (resource.length < 1 || resource.length > 2) return undefined;
  const [plural, name] = resource;
  const info = Object.values(KINDS).find((i) => i.group === group && i.version === version && i.plural === plural);
  if (!info || (namespace !== undefined && !info.namespaced)) return undefined;
  return { info, namespace, name };
}

function status(code: number, message: string, details?: Record<string, unknown>) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: REASONS[code] ?? STATUS_CODES[code]?.replace(/\s/g, '') ?? 'Unknown',
    ...(details ? { details } : {}),
    code,
  };
}

/** The message a real API server would give for an error code on this request. */
function defaultMessage(code: number, req: RequestInfo, target: Target | undefined): string {
  const plural = target?.info.plural ?? 'resource';
  switch (code) {
    case 401:
      return 'Unauthorized';
    case 403: {
      const verb = target?.name ? 'get' : 'list';
      const where = target?.namespace ? `in the namespace "${target.namespace}"` : 'at the cluster scope';
      const res = target?.name ? `${plural} "${target.name}"` : plural;
      return `${res} is forbidden: User "system:serviceaccount:default:meshdoctor" cannot ${verb} resource "${plural}" in API group "${target?.info.group ?? ''}" ${where}`;
    }
    case 404:
      return target?.name ? `${plural} "${target.name}" not found` : 'the server could not find the requested resource';
    case 410:
      return EXPIRED_MESSAGE;
    case 429:
      return 'Too many requests, please try again later.';
    case 500:
      return `Internal error occurred: etcdserver: request timed out (${req.path})`;
    case 503:
      return 'the server is currently unable to handle the request';
    default:
      return STATUS_CODES[code] ?? 'error';
  }
}

function sortKey(o: K8sObject): string {
  return `${o.metadata?.namespace ?? ''}\u0000${o.metadata?.name ?? ''}`;
}

interface ContinueToken {
  /** The list path the token belongs to. */
  p: string;
  /** Offset of the next item. */
  o: number;
}

const encodeToken = (t: ContinueToken) => Buffer.from(JSON.stringify(t)).toString('base64url');

function decodeToken(s: string): ContinueToken | undefined {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString());
    return typeof t?.p === 'string' && Number.isInteger(t?.o) && t.o >= 0 ? t : undefined;
  } catch {
    return undefined;
  }
}

/** A response body that is already JSON text. */
class RawJson {
  constructor(readonly text: string) {}
}

/** An object as a list item (without kind and apiVersion), serialized once. */
const itemJsonCache = new WeakMap<object, string>();
function itemJson(o: K8sObject): string {
  let json = itemJsonCache.get(o);
  if (json === undefined) {
    const { kind: _k, apiVersion: _v, ...rest } = o;
    json = JSON.stringify(rest);
    itemJsonCache.set(o, json);
  }
  return json;
}

/**
 * What the test server's /metrics says unless told otherwise (ApiServerOptions.metrics). /version
 * has no default: no Kubernetes version is inside the range of every mesh release of the fixtures
 * and past native sidecars' 1.29 (Linkerd 2.14 stops at 1.28), so the version checks see one only
 * when a test gives it.
 */
const DEFAULT_METRICS = '# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1.7637e+09\n';

/** A test server's CA and serving certificate (for localhost, 127.0.0.1 and `dnsNames`). */
export interface ServerCerts {
  ca: GeneratedCert;
  leaf: GeneratedCert;
}

export async function serverCerts(dnsNames: string[] = []): Promise<ServerCerts> {
  const ca = await generateCA({ keyType: 'ecdsa', commonName: 'fake-apiserver-ca' });
  const leaf = await generateLeaf({
    ca,
    keyType: 'ecdsa',
    dnsNames: ['localhost', ...dnsNames],
    ipAddresses: ['127.0.0.1'],
  });
  return { ca, leaf };
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const { ca, leaf } = opts.certs ?? (await serverCerts(opts.dnsNames));
  const token = randomBytes(24).toString('hex');
  const faults = opts.faults ?? [];
  const requests: RecordedRequest[] = [];
  let resourceVersion = 123;
  /** Events since the last compact(), oldest first. */
  let history: { rv: number; key: KindKey; type: 'ADDED' | 'MODIFIED' | 'DELETED'; obj: K8sObject }[] = [];
  let compactedAt = 0;
  const watchers = new Set<Watcher>();

  // Objects by kind, in the stable (namespace, name) order lists are served in.
  const store = new Map<KindKey, K8sObject[]>();
  for (const obj of opts.objects ?? []) {
    const info = kindOf(obj.kind);
    if (!info) throw new Error(`fake API server: unknown kind ${String(obj.kind)}`);
    if (!store.has(info.key)) store.set(info.key, []);
    store.get(info.key)!.push(obj);
  }
  for (const list of store.values())
    list.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));

  const applied = new Map<Fault, number>();
  const timers = new Set<NodeJS.Timeout>();
  const tempDirs: string[] = [];

  function send(req: IncomingMessage, res: ServerResponse, code: number, body: unknown, fault?: Fault) {
    const text = fault?.body;
    let data = Buffer.from(text ?? (body instanceof RawJson ? body.text : JSON.stringify(body)));
    const headers: Record<string, string | number> = {
      'Content-Type': text === undefined ? 'application/json' : 'text/plain',
    };
    if (opts.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      data = gzipSync(data);
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = data.length;
    if (fault?.retryAfterSeconds !== undefined) headers['Retry-After'] = fault.retryAfterSeconds;
    res.writeHead(code, headers);
    if (fault?.cutBody) {
      res.write(data.subarray(0, Math.floor(data.length / 2)), () => res.socket?.destroy());
    } else {
      res.end(data);
    }
  }

  /** The real answer to a request, once auth and faults are out of the way. */
  function answer(info: RequestInfo, target: Target | undefined): [number, unknown] {
    if (info.method !== 'GET')
      return [405, status(405, `the server does not allow this method on the requested resource`)];
    if (!target) return [404, status(404, defaultMessage(404, info, undefined))];
    const all = store.get(target.info.key) ?? [];
    const apiVersion = apiVersionOf(target.info);
    if (target.name !== undefined) {
      const obj = all.find(
        (o) =>
          o.metadata?.name === target.name && (!target.info.namespaced || o.metadata?.namespace === target.namespace),
      );
      if (!obj)
        return [404, status(404, defaultMessage(404, info, target), { name: target.name, kind: target.info.plural })];
      return [200, { ...obj, apiVersion, kind: target.info.kind }];
    }
    const selected =
      target.namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === target.namespace);
    let offset = 0;
    if (info.query.continue !== undefined) {
      const t = decodeToken(info.query.continue);
      if (!t || t.p !== info.path)
        return [400, status(400, 'continue key is not valid: incorrect encoded start resourceVersion')];
      offset = t.o;
    }
    const asked = info.query.limit ? Number(info.query.limit) : 0;
    let limit = asked > 0 ? asked : Infinity;
    if (opts.maxPageSize) limit = Math.min(limit, opts.maxPageSize);
    const page = selected.slice(offset, offset + limit);
    const next = offset + page.length;
    const metadata: Record<string, unknown> = { resourceVersion: String(resourceVersion) };
    if (next < selected.length) {
      metadata.continue = encodeToken({ p: info.path, o: next });
      metadata.remainingItemCount = selected.length - next;
    }
    // Lists strip kind and apiVersion from their items, as the real API does. Each item is
    // serialized once and reused, so that the server's cost does not distort benchmarks.
    const items = page.map(itemJson).join(',');
    return [
      200,
      new RawJson(
        `{"kind":${JSON.stringify(`${target.info.kind}List`)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[${items}]}`,
      ),
    ];
  }

  function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const info: RequestInfo = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
    };
    requests.push({ ...info, headers: req.headers, at: Date.now() });
    const target = parsePath(info.path);

    if (req.headers.authorization !== `Bearer ${token}`) {
      return send(req, res, 401, status(401, 'Unauthorized'));
    }
    const fault = faults.find((f) => f.match(info) && (f.times === undefined || (applied.get(f) ?? 0) < f.times));
    if (fault) applied.set(fault, (applied.get(fault) ?? 0) + 1);

    const respond = () => {
      if (!fault && info.method === 'GET' && target && target.name === undefined && isWatch(info))
        return serveWatch(res, info, target);
      if (fault?.body !== undefined) return send(req, res, fault.status ?? 200, undefined, fault);
      if (fault?.status) {
        const details: Record<string, unknown> = { kind: target?.info.plural ?? '' };
        if (fault.retryAfterSeconds !== undefined) details.retryAfterSeconds = fault.retryAfterSeconds;
        const body = status(fault.status, fault.message ?? defaultMessage(fault.status, info, target), details);
        return send(req, res, fault.status, body, fault);
      }
      if (info.path === '/metrics' && opts.metrics !== null && info.method === 'GET') {
        let data = Buffer.from(opts.metrics ?? DEFAULT_METRICS);
        const headers: Record<string, string | number> = { 'Content-Type': 'text/plain; version=0.0.4' };
        if (opts.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
          data = gzipSync(data);
          headers['Content-Encoding'] = 'gzip';
        }
        res.writeHead(200, { ...headers, 'Content-Length': data.length });
        return res.end(data);
      }
      if (info.path === '/version' && opts.version != null && info.method === 'GET')
        return send(req, res, 200, opts.version, fault);
      const [code, body] = answer(info, target);
      send(req, res, code, body, fault);
    };
    const delay = fault?.delayMs ?? 0;
    if (delay === Infinity) return; // hang: close() or the client ends the connection
    if (delay > 0) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!res.destroyed) respond();
      }, delay);
      timers.add(t);
    } else {
      respond();
    }
  }

  const sameObject = (a: K8sObject, b: K8sObject) =>
    a.metadata?.namespace === b.metadata?.namespace && a.metadata?.name === b.metadata?.name;
  const matches = (w: Watcher, key: KindKey, o: K8sObject) =>
    w.key === key &&
    (w.namespace === undefined || o.metadata?.namespace === w.namespace) &&
    (w.name === undefined || o.metadata?.name === w.name);
  const eventLine = (type: string, o: K8sObject) => JSON.stringify({ type, object: o }) + '\n';

  /** A WATCH: past events (or the current objects), then every change until it ends. */
  function serveWatch(res: ServerResponse, info: RequestInfo, target: Target) {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const selector = /^metadata\.name=(.*)$/.exec(info.query.fieldSelector ?? '');
    const w: Watcher = {
      res,
      key: target.info.key,
      namespace: target.namespace,
      name: selector?.[1],
      bookmarks: info.query.allowWatchBookmarks === 'true',
      info: target.info,
    };
    const from = info.query.resourceVersion;
    if (from !== undefined && from !== '' && from !== '0') {
      const rv = Number(from);
      if (!(rv >= compactedAt)) {
        res.end(
          eventLine('ERROR', status(410, `too old resource version: ${from} (${compactedAt})`) as unknown as K8sObject),
        );
        return;
      }
      for (const e of history) if (e.rv > rv && matches(w, e.key, e.obj)) res.write(eventLine(e.type, e.obj));
    } else {
      for (const o of store.get(w.key) ?? [])
        if (matches(w, w.key, o))
          res.write(eventLine('ADDED', { ...o, apiVersion: apiVersionOf(w.info), kind: w.info.kind }));
    }
    watchers.add(w);
    const end = () => {
      watchers.delete(w);
      if (w.timer) clearTimeout(w.timer);
      if (!res.writableEnded) res.end();
    };
    w.end = end;
    res.on('close', end);
    const timeout = Number(info.query.timeoutSeconds);
    if (timeout > 0) w.timer = setTimeout(end, timeout * 1000);
  }

  function change(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: K8sObject) {
    const info = kindOf(obj.kind);
    if (!info) throw new Error(`fake API server: unknown kind ${String(obj.kind)}`);
    const o = {
      ...obj,
      apiVersion: apiVersionOf(info),
      kind: info.kind,
      metadata: { ...obj.metadata, resourceVersion: String(++resourceVersion) },
    };
    history.push({ rv: resourceVersion, key: info.key, type, obj: o });
    for (const w of watchers) if (matches(w, info.key, o)) w.res.write(eventLine(type, o));
    return { info, o };
  }

  function upsert(obj: K8sObject) {
    const info = kindOf(obj.kind);
    if (!info) throw new Error(`fake API server: unknown kind ${String(obj.kind)}`);
    const list = store.get(info.key) ?? store.set(info.key, []).get(info.key)!;
    const at = list.findIndex((x) => sameObject(x, obj));
    const { o } = change(at >= 0 ? 'MODIFIED' : 'ADDED', obj);
    if (at >= 0) list[at] = o;
    else {
      list.push(o);
      list.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
    }
  }

  function remove(kind: string, namespace: string | undefined, name: string) {
    const info = kindOf(kind);
    if (!info) throw new Error(`fake API server: unknown kind ${kind}`);
    const list = store.get(info.key) ?? [];
    const at = list.findIndex((x) => x.metadata?.name === name && (x.metadata?.namespace ?? undefined) === namespace);
    if (at < 0) throw new Error(`fake API server: no ${kind} ${namespace ?? ''}/${name}`);
    const [gone] = list.splice(at, 1);
    change('DELETED', gone!);
  }

  const server = opts.plainHttp
    ? http.createServer(handle)
    : https.createServer({ key: leaf.keyPem, cert: leaf.certPem }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${opts.plainHttp ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function writeKubeconfig(dir?: string, kopts: KubeconfigOptions = {}): Promise<string> {
    if (!dir) {
      dir = await mkdtemp(join(tmpdir(), 'meshdoctor-kubeconfig-'));
      tempDirs.push(dir);
    }
    const main: KubeconfigContext = { name: kopts.context ?? 'fake', namespace: kopts.namespace };
    const all = [main, ...(kopts.extraContexts ?? [])];
    const caData = Buffer.from(ca.certPem).toString('base64');
    const config: Record<string, unknown> = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: all.map((c) => ({
        name: `${c.name}-cluster`,
        cluster: { server: c.server ?? url, ...(opts.plainHttp ? {} : { 'certificate-authority-data': caData }) },
      })),
      users: all.map((c) => ({ name: `${c.name}-user`, user: { token: c.token ?? token } })),
      contexts: all.map((c) => ({
        name: c.name,
        context: {
          cluster: `${c.name}-cluster`,
          user: `${c.name}-user`,
          ...(c.namespace ? { namespace: c.namespace } : {}),
        },
      })),
      preferences: {},
    };
    const current = kopts.currentContext === undefined ? main.name : kopts.currentContext;
    if (current !== null) config['current-context'] = current;
    const path = join(dir, kopts.fileName ?? 'kubeconfig');
    await writeFile(path, stringify(config), { mode: 0o600 });
    return path;
  }

  async function close(): Promise<void> {
    for (const t of timers) clearTimeout(t);
    for (const w of [...watchers]) w.end?.();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections(); // including hung requests
    await closed;
    await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
  }

  return {
    url,
    caPem: ca.certPem,
    token,
    requests,
    faults,
    writeKubeconfig,
    upsert,
    remove,
    bookmark() {
      for (const w of watchers) {
        if (w.bookmarks)
          w.res.write(
            eventLine('BOOKMARK', {
              kind: w.info.kind,
              apiVersion: apiVersionOf(w.info),
              metadata: { resourceVersion: String(resourceVersion) },
            }),
          );
      }
    },
    compact() {
      history = [];
      compactedAt = resourceVersion;
    },
    endWatches() {
      for (const w of [...watchers]) w.end?.();
    },
    get openWatches() {
      return watchers.size;
    },
    get resourceVersion() {
      return resourceVersion;
    },
    close,
  };
}

/** One open WATCH stream. */
interface Watcher {
  res: ServerResponse;
  key: KindKey;
  info: KindInfo;
  namespace?: string;
  /** fieldSelector=metadata.name=NAME */
  name?: string;
  bookmarks: boolean;
  timer?: NodeJS.Timeout;
  end?: () => void;
}

const isWatch = (info: RequestInfo) =>
  info.query.watch !== undefined && !['false', '0'].includes(info.query.watch.toLowerCase());
