/**
 * The transport to one API server: connection settings from a resolved kubeconfig context
 * (TLS, static credentials, exec plugins, auth providers, http(s) and socks proxies), and GETs
 * with retries, returning raw JSON.
 *
 * The HTTP requests are plain `node:https` GETs, so objects are kept exactly as the server sent
 * them (managedFields included) and nothing is deserialized into classes. Exec credential plugins
 * are run by kubeconfig.ts; gcp and azure auth providers by auth-provider.ts; http(s) proxies are
 * spoken by proxy.ts. `@kubernetes/client-node`, an optional dependency, is imported (lazily: it is
 * slow to load) only for other auth providers (oidc) and socks proxies.
 *
 * Everything the server can make large or long is bounded (docs/limits.md): each body at
 * --max-bytes while it streams (after gunzip too), and in nesting and density as files are
 * (before anything is parsed); each request at --request-timeout, and at most
 * MAX_CONCURRENT_REQUESTS requests in flight. Text from the server is made printable before it
 * reaches a message or an `unavailable` reason.
 */
import { constants as bufferConstants } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { errorMessage, printable, UserError } from '../util/errors.js';
import { MAX_CONCURRENT_REQUESTS, MAX_TIMER_MS, mib, type Limits } from '../util/limits.js';
import { isObj } from '../util/objects.js';
import { authProviderToken } from './auth-provider.js';
import { execCredentials, type KubeContext } from './kubeconfig.js';
import { KINDS, listPath, type KindKey } from '../k8s/kinds.js';
import { keepsManagedFields } from './sanitize.js';
import { proxyAuthorization, ProxyError, shownProxy, TunnelAgent } from './proxy.js';
import { parseItem, scanJson, TOO_DEEP } from './json-scan.js';

/** Retries after the first attempt, for 429, 5xx, cut bodies and dropped connections. */
const MAX_RETRIES = 3;
const RETRY_STATUS = new Set([429, 500, 502, 503, 504]);
const BACKOFF_BASE_MS = 200;
const RETRY_AFTER_CAP_MS = 5000;
/** Network errors that mean the server cannot be reached at all (fatal, not retried). */
const UNREACHABLE =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|EPROTO)$|CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/;

const firstLine = (s: string) => s.split('\n')[0]!.trim();

/** A delay a Node timer keeps: larger ones (beyond about 24.8 days) would fire at once. */
export const timerMs = (ms: number) => Math.min(Math.max(0, ms), MAX_TIMER_MS);

/**
 * At most `free` tasks at once; the others wait in order. Bounds the requests in flight: a
 * webhook configuration naming thousands of namespaces must not open thousands of connections.
 */
class Slots {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** Everything needed to send GETs to one API server (reflector.ts streams its WATCHes over it too). */
export interface Conn {
  /** The server for messages (no credentials in it). */
  server: string;
  /** Scheme, host and any path prefix (e.g. a proxy's /k8s/clusters/x), without trailing slash. */
  base: string;
  request: (
    url: string,
    options: https.RequestOptions,
    onResponse: (res: http.IncomingMessage) => void,
  ) => http.ClientRequest;
  /** The proxy requests go through, for messages (no credentials in it). */
  proxy?: string;
  /** Requests are sent to the proxy itself (absolute-form, for a plain-http server): a failure to connect is the proxy's. */
  absoluteForm?: boolean;
  agent: http.Agent;
  headers: http.OutgoingHttpHeaders;
  /** user:password for basic auth. */
  auth?: string;
  limits: Limits;
  slots: Slots;
  /** Aborted when gathering ends (a fatal error or the deadline stops the requests still running). */
  signal: AbortSignal;
  /** Whether the server has given an answer only a Kubernetes API server gives (2xx, 403, 410). */
  answered: boolean;
  /** Whether the server answered 404 to some request (every server does: see confirmApiServer). */
  notFound: boolean;
}

export interface Reply {
  status: number;
  /** The parsed JSON body, undefined if the body is not JSON. */
  json: unknown;
  /** The start of the body, for error messages when it is not JSON. */
  text: string;
  retryAfterMs?: number;
  /** Why a 2xx body was not parsed (too deep, too dense, too many items): it would be as bad again. */
  refused?: string;
  /**
   * A list page's items, not parsed yet (`json.items` is empty until `parse` fills it): the reader asks for the next
   * page before it parses these (src/cluster/gather.ts listKind), so the server works while this one is parsed.
   * `parse` throws as JSON.parse does (then the page is invalid JSON: invalidJson).
   */
  items?: { count: number; parse: () => unknown[] };
}

/** The failure of a 2xx body that is not JSON (not retried: it arrived whole; a cut one is 'dropped', and retried). */
export const invalidJson = (conn: Conn): KindFailure =>
  new KindFailure(
    'the API server sent invalid JSON',
    `the API server at ${conn.server} sent invalid JSON to every request`,
  );

/** A failed attempt below HTTP: no answer in time, no connection at all, a dropped connection, or a body past --max-bytes. */
class NetError extends Error {
  constructor(
    message: string,
    readonly type: 'timeout' | 'unreachable' | 'dropped' | 'too large',
  ) {
    super(message);
  }
}

/**
 * Why one kind could not be read: `reason` goes into `Snapshot.unavailable`; `fatal` is the
 * message if the server answered nothing at all (every kind failed this way).
 */
export class KindFailure extends Error {
  constructor(
    readonly reason: string,
    readonly fatal: string = reason,
  ) {
    super(reason);
  }
}

export const seconds = (ms: number) => `${+(ms / 1000).toFixed(1)}s`;

/**
 * One GET, with a time limit on the whole exchange (connect, headers and body). The body is
 * counted while it streams, and after gunzip, and cut off past --max-bytes: a huge or endless body
 * or a gzip bomb is never held in memory. An error while the request is set up (a header or TLS
 * material Node refuses) is a rejection too, never a throw from a later timer.
 */
function attempt(conn: Conn, path: string, timeoutMs: number, list?: KindKey): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    // eslint-disable-next-line prefer-const -- `fail` may run before the timer is set: a const would be in its TDZ
    let timer: NodeJS.Timeout | undefined;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      reject(e);
    };
    // A string holds at most MAX_STRING_LENGTH characters: a larger body could not be parsed anyway.
    const maxBytes = Math.min(conn.limits.maxBytes, bufferConstants.MAX_STRING_LENGTH);
    const tooLarge = () =>
      fail(new NetError(`the response is larger than ${mib(maxBytes)} (--max-bytes)`, 'too large'));

    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      // gzip: the compressed body is kept (bounded the same), then inflated in one native call
      // whose output is bounded too (a gzip bomb stops at --max-bytes, never held whole).
      const gzip =
        String(res.headers['content-encoding'] ?? '')
          .trim()
          .toLowerCase() === 'gzip';
      // With a Content-Length within the cap the body is copied into one buffer as it comes: a
      // large page is held once, not once in chunks and again joined.
      const declared = Number(res.headers['content-length']);
      const whole =
        Number.isSafeInteger(declared) && declared > 0 && declared <= maxBytes
          ? Buffer.allocUnsafe(declared)
          : undefined;
      res.on('data', (c: Buffer) => {
        if (settled) return;
        if (whole && size + c.length <= whole.length && !chunks.length) c.copy(whole, size);
        else {
          if (whole && !chunks.length) chunks.push(whole.subarray(0, size)); // more than declared: joined as any other
          chunks.push(c);
        }
        size += c.length;
        if (size > maxBytes) return tooLarge();
      });
      res.on('error', (e) => fail(new NetError(`the response was cut off (${printable(e.message)})`, 'dropped')));
      res.on('close', () => {
        if (!res.complete) fail(new NetError('the response was cut off', 'dropped'));
      });
      res.on('end', () => {
        if (settled) return;
        let buf = chunks.length ? Buffer.concat(chunks, size) : (whole ?? Buffer.alloc(0)).subarray(0, size);
        if (gzip) {
          try {
            buf = gunzipSync(buf, { maxOutputLength: maxBytes });
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge();
            return fail(new NetError('the response was cut off (bad gzip data)', 'dropped'));
          }
        }
        settled = true;
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        const body = parseBody(buf, status >= 200 && status < 300 ? list : undefined, conn.limits.maxObjects);
        const retryAfter = Number(res.headers['retry-after']);
        resolve({
          status,
          json: body.json,
          ...(body.items ? { items: body.items } : {}),
          text: buf.toString('utf8', 0, 2000).slice(0, 500),
          retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined,
          ...(body.refused && status >= 200 && status < 300 ? { refused: body.refused } : {}),
        });
      });
    };

    try {
      req = conn.request(
        conn.base + path,
        { method: 'GET', agent: conn.agent, headers: conn.headers, auth: conn.auth, signal: conn.signal },
        onResponse,
      );
    } catch (e) {
      return fail(
        new UserError(
          `cannot send a request to the API server at ${conn.server}: ${printable(firstLine(errorMessage(e)))}`,
        ),
      );
    }
    timer = setTimeout(
      () => fail(new NetError(`no answer within ${seconds(conn.limits.requestTimeoutMs)}`, 'timeout')),
      timerMs(timeoutMs),
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.name === 'AbortError') return fail(e);
      // The proxy failed (unreachable, refused the tunnel, wants credentials): every request would.
      if (e instanceof ProxyError)
        return fail(
          new UserError(`cannot reach the API server at ${conn.server} through the proxy ${conn.proxy}: ${e.message}`),
        );
      const code = e.code ?? '';
      const message = printable(code && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
      if (conn.absoluteForm && UNREACHABLE.test(code)) {
        return fail(
          new UserError(
            `cannot reach the API server at ${conn.server} through the proxy ${conn.proxy}: cannot reach the proxy: ${message}`,
          ),
        );
      }
      fail(new NetError(message, UNREACHABLE.test(code) ? 'unreachable' : 'dropped'));
    });
    req.end();
  });
}

/**
 * A body parsed within the bounds files have (docs/limits.md): its bytes are scanned once
 * (scanJson) for nesting deeper than MAX_DEPTH and for more values than its length allows
 * (tooDense) before anything is parsed or any item offset is kept, so that a page of ten million
 * `{}` or an item nested 100,000 deep costs a scan, not gigabytes or a stack overflow later.
 * A list page (`list`) is parsed item by item, each item without the managedFields slim drops
 * (parseObject: on a real API server they are a third of a pod's bytes), and refused when it holds
 * more items than --max-objects. `json` is undefined for a body that is not JSON (it is not parsed
 * a second way), `refused` says why a body was not parsed at all.
 */
function parseBody(
  buf: Buffer,
  list: KindKey | undefined,
  maxObjects: number,
): { json: unknown; refused?: string; items?: Reply['items'] } {
  const scan = scanJson(buf, 0, list ? maxObjects : Infinity);
  if (scan.deep) return { json: undefined, refused: `the API server sent JSON ${TOO_DEEP}` };
  if (scan.dense) return { json: undefined, refused: `the API server sent ${scan.dense}` };
  if (scan.tooManyItems)
    return { json: undefined, refused: `more than ${maxObjects} ${KINDS[list!].plural} in one page (--max-objects)` };
  try {
    if (!list || !scan.list) return { json: JSON.parse(buf.toString('utf8')) };
    const { open, close, items, managed } = scan.list;
    const page = JSON.parse(buf.toString('utf8', 0, open + 1) + buf.toString('utf8', close));
    // Not the one "items" array scanJson found (a duplicate key won): parsed whole, as JSON.parse reads it.
    if (!isObj(page) || !Array.isArray(page.items) || page.items.length > 0)
      return { json: JSON.parse(buf.toString('utf8')) };
    const keep = (o: Record<string, any>) => keepsManagedFields(list, o);
    // The items are parsed when the reader asks (Reply.items), once.
    let parsed = false;
    const parse = () => {
      if (!parsed)
        for (let k = 0; k < items.length; k += 2)
          page.items.push(parseItem(buf, items[k]!, items[k + 1]!, managed[k]!, managed[k + 1]!, keep));
      parsed = true;
      return page.items as unknown[];
    };
    return { json: page, items: { count: items.length / 2, parse } };
  } catch {
    return { json: undefined };
  }
}

/** The server's one-line explanation of an error reply, made printable (it is the server's text). */
function replyMessage(reply: Reply): string {
  const json = reply.json as { kind?: unknown; message?: unknown } | undefined;
  const msg = json?.kind === 'Status' && typeof json.message === 'string' ? json.message : reply.text;
  const line = msg.replace(/\s+/g, ' ').trim();
  return line ? printable(line, 300) : http.STATUS_CODES[reply.status] || `HTTP ${reply.status}`;
}

export function statusFailure(conn: Conn, reply: Reply): KindFailure {
  const labels: Record<number, string> = { 403: 'forbidden', 404: 'not found', 410: 'expired' };
  const label =
    labels[reply.status] ?? `${(http.STATUS_CODES[reply.status] ?? 'HTTP error').toLowerCase()} (${reply.status})`;
  const reason = `${label}: ${replyMessage(reply)}`;
  return new KindFailure(reason, `the API server at ${conn.server} failed every request: ${reason}`);
}

/**
 * GET with retries: 429, 5xx, cut bodies and dropped connections are retried up to
 * MAX_RETRIES times with exponential backoff (or the server's Retry-After, capped), all within
 * one request timeout, which starts when the request gets one of the connection slots. Returns
 * the final reply for other statuses; throws UserError for fatal problems (401, server or proxy
 * unreachable) and KindFailure when the retries run out or the body is too large, too deep or too
 * dense (not retried: it would be as bad again).
 */
export async function get(conn: Conn, path: string, list?: KindKey): Promise<Reply> {
  let deadline: number | undefined;
  for (let n = 0; ; n++) {
    let failure: KindFailure;
    let waitMs = BACKOFF_BASE_MS * 2 ** n;
    try {
      const reply = await conn.slots.run(() => {
        deadline ??= Date.now() + conn.limits.requestTimeoutMs;
        return attempt(conn, path, deadline - Date.now(), list);
      });
      if (reply.status === 401) {
        throw new UserError(`the API server at ${conn.server} rejected the credentials (401 Unauthorized)`);
      }
      if (reply.status === 407 && conn.proxy) {
        throw new UserError(
          `cannot reach the API server at ${conn.server} through the proxy ${conn.proxy}: the proxy answered 407 Proxy Authentication Required`,
        );
      }
      // Not retried: the same body would be refused again, after as much reading.
      if (reply.refused)
        throw new KindFailure(reply.refused, `the API server at ${conn.server} failed every request: ${reply.refused}`);
      const ok = reply.status >= 200 && reply.status < 300;
      if (ok && reply.json === undefined) {
        // Not retried either: the body arrived whole (a cut one is 'dropped', and retried).
        throw invalidJson(conn);
      } else if (RETRY_STATUS.has(reply.status)) {
        failure = statusFailure(conn, reply);
        if (reply.retryAfterMs !== undefined) waitMs = Math.min(reply.retryAfterMs, RETRY_AFTER_CAP_MS);
      } else {
        if (ok || reply.status === 403 || reply.status === 410) conn.answered = true;
        if (reply.status === 404) conn.notFound = true;
        return reply;
      }
    } catch (e) {
      if (!(e instanceof NetError)) throw e;
      if (e.type === 'unreachable') throw new UserError(`cannot reach the API server at ${conn.server}: ${e.message}`);
      if (e.type === 'too large')
        throw new KindFailure(e.message, `the API server at ${conn.server} failed every request: ${e.message}`);
      if (e.type === 'timeout') {
        throw new KindFailure(
          `timed out: ${e.message}`,
          `the API server at ${conn.server} did not answer within ${seconds(conn.limits.requestTimeoutMs)}`,
        );
      }
      failure = new KindFailure(e.message, `cannot read from the API server at ${conn.server}: ${e.message}`);
    }
    if (n >= MAX_RETRIES || Date.now() + waitMs >= deadline!) throw failure;
    await sleep(timerMs(waitMs), undefined, { signal: conn.signal });
  }
}

/**
 * `@kubernetes/client-node`: an optional dependency (package.json), since only these contexts need
 * it and it is most of an install's size (an optional peer dependency: npm installs it only when asked). Absent, the
 * run stops with one line saying which setting of the context needs it.
 */
async function kubernetesClient(r: KubeContext): Promise<typeof import('@kubernetes/client-node')> {
  try {
    return await import('@kubernetes/client-node');
  } catch (e) {
    if (
      (e as { code?: unknown })?.code !== 'ERR_MODULE_NOT_FOUND' ||
      !errorMessage(e).includes("'@kubernetes/client-node'")
    )
      throw e;
    const socks = r.proxy?.url.protocol.startsWith('socks');
    let provider: unknown;
    try {
      provider = JSON.parse(r.clientConfig ?? '{}').users?.[0]?.user?.['auth-provider']?.name;
    } catch {
      provider = undefined;
    }
    const needs = socks
      ? `its ${r.proxy!.url.protocol.slice(0, -1)} proxy`
      : `its auth provider${typeof provider === 'string' ? ` "${printable(provider, 100)}"` : ''}`;
    throw new UserError(
      `context "${r.contextName}" needs the optional package @kubernetes/client-node for ${needs}, and it is not installed: install it beside meshdoctor (npm install -g @kubernetes/client-node@~1.4.0 for a global install)`,
    );
  }
}

/**
 * Connection settings for the context: static credentials from kubeconfig.ts, an exec plugin's
 * credential from execCredentials(), a gcp or azure provider's from authProviderToken(), http(s)
 * proxies from proxy.ts; other auth providers and socks proxies from @kubernetes/client-node,
 * imported only then. Headers Node would refuse are refused here, naming the context.
 */
export async function connect(r: KubeContext, limits: Limits, signal: AbortSignal): Promise<Conn> {
  if (!r.url)
    throw new UserError(r.serverError ?? `the server of context "${r.contextName}" is not a URL: ${r.server}`);
  const base = r.url;
  if (r.exec) r = await execCredentials(r, limits, signal);
  const isHttps = base.protocol === 'https:';
  const ro: https.RequestOptions = { ...r.tls, headers: { ...r.headers }, ...(r.auth ? { auth: r.auth } : {}) };
  if (r.authProvider) {
    // As client-node did, the provider's token wins over a static token of the same user.
    try {
      (ro.headers as http.OutgoingHttpHeaders).Authorization =
        `Bearer ${await authProviderToken(r.authProvider, limits, signal)}`;
    } catch (e) {
      throw new UserError(
        `cannot get credentials for context "${r.contextName}": ${printable(firstLine(errorMessage(e)))}`,
      );
    }
  }
  if (r.clientConfig) {
    const { KubeConfig } = await kubernetesClient(r);
    const kc = new KubeConfig();
    try {
      kc.loadFromString(r.clientConfig);
      await kc.applyToHTTPSOptions(ro);
    } catch (e) {
      // client-node refuses plain-HTTP servers (e.g. `kubectl proxy`) unless insecure-skip-tls-verify
      // is set, when building its agent; kubectl allows them, and the credentials are applied by then.
      const plainHttpRefused = !isHttps && /HTTP protocol is not allowed/.test(errorMessage(e));
      if (!plainHttpRefused) {
        throw new UserError(
          `cannot get credentials for context "${r.contextName}": ${printable(firstLine(errorMessage(e)))}`,
        );
      }
    }
  }
  const headers: http.OutgoingHttpHeaders = {
    ...(ro.headers as http.OutgoingHttpHeaders),
    Accept: 'application/json',
    'Accept-Encoding': 'gzip',
    'User-Agent': 'meshdoctor',
  };
  for (const [name, value] of Object.entries(headers)) {
    try {
      http.validateHeaderName(name);
      if (value !== undefined) http.validateHeaderValue(name, Array.isArray(value) ? value.join(', ') : String(value));
    } catch {
      throw new UserError(
        `cannot get credentials for context "${r.contextName}": the ${printable(name, 100)} header holds characters HTTP cannot carry`,
      );
    }
  }
  // A socks proxy is client-node's agent; an http(s) proxy, or none, ours: keep-alive agents with
  // the same TLS settings, so pages and named GETs reuse connections (through the proxy too).
  const proxy = r.proxy && !r.proxy.url.protocol.startsWith('socks') ? r.proxy.url : undefined;
  let agent = ro.agent as http.Agent;
  let request: Conn['request'] = isHttps ? https.request : http.request;
  if (!r.proxy || proxy) {
    // Unset options must be left out: an explicit `rejectUnauthorized: undefined` disables checks.
    const tls = Object.fromEntries(
      (['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const)
        .filter((k) => ro[k] !== undefined)
        .map((k) => [k, ro[k]]),
    );
    const opts = { keepAlive: true, maxSockets: MAX_CONCURRENT_REQUESTS };
    if (isHttps) {
      // One TLS context for every connection of the run: without it Node builds one per socket
      // (parsing the CA bundle and the client key again), up to MAX_CONCURRENT_REQUESTS times.
      // Material it refuses is left to each connection, which fails as it always did.
      const shared = { ...tls, ...opts } as https.AgentOptions;
      try {
        shared.secureContext = createSecureContext(tls);
      } catch {
        // reported by the request that tries it
      }
      agent = proxy ? new TunnelAgent(proxy, limits.requestTimeoutMs, shared) : new https.Agent(shared);
    } else if (proxy) {
      // Plain http through a proxy: absolute-form requests to the proxy (Go's transport does the same).
      const viaTls = proxy.protocol === 'https:';
      agent = viaTls ? new https.Agent(opts) : new http.Agent(opts);
      const auth = proxyAuthorization(proxy);
      const host = proxy.hostname.replace(/^\[|\]$/g, '');
      const port = Number(proxy.port || (viaTls ? 443 : 80));
      request = (url, o, onResponse) =>
        (viaTls ? https : http).request(
          {
            ...o,
            host,
            port,
            path: url,
            headers: {
              ...(o.headers as http.OutgoingHttpHeaders),
              Host: base.host,
              ...(auth ? { 'Proxy-Authorization': auth } : {}),
            },
          },
          onResponse,
        );
    } else {
      agent = new http.Agent(opts);
    }
  }
  return {
    server: r.server,
    base: base.origin + base.pathname.replace(/\/+$/, ''),
    request,
    ...(r.proxy ? { proxy: `${shownProxy(r.proxy.url)} (${r.proxy.source})` } : {}),
    ...(proxy && !isHttps ? { absoluteForm: true } : {}),
    agent,
    headers,
    auth: ro.auth ?? undefined,
    limits,
    slots: new Slots(MAX_CONCURRENT_REQUESTS),
    signal,
    answered: false,
    notFound: false,
  };
}

/**
 * Called when the server answered 404, and nothing only an API server answers, to every request:
 * a web server, a wrong port or path prefix answers 404 to everything, a Kubernetes API server
 * answers a list of namespaces with 200 or 403 (named objects and unserved API groups may 404 on
 * a real one). Throws when the server is not one: the run cannot be done (exit 2), it is not a
 * snapshot of kinds "not found".
 */
export async function confirmApiServer(conn: Conn): Promise<void> {
  let why: string;
  try {
    const reply = await get(conn, `${listPath(KINDS.namespaces, undefined)}?limit=1`);
    const ok =
      reply.status >= 200 && reply.status < 300 && Array.isArray((reply.json as { items?: unknown } | null)?.items);
    if (ok || reply.status === 403) return;
    why = reply.status === 404 ? 'not found' : `HTTP ${reply.status}`;
  } catch (e) {
    if (!(e instanceof KindFailure)) throw e;
    why = e.reason;
  }
  throw new UserError(
    `the server at ${conn.server} is not a Kubernetes API server: it answered 404 (not found) to every request (GET /api/v1/namespaces: ${why})`,
  );
}
