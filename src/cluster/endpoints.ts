/**
 * Reading the API server itself beside its objects: GET /version and GET /metrics (docs/snapshot.md
 * "The API server"). Both are optional inputs: a refusal (401, 403) or a failure is recorded as the
 * read's state and never ends the run, and neither counts as the server's proof of being an API
 * server (Conn.answered: a web server may well answer /version).
 *
 * /metrics is Prometheus text, tens of MiB on a large cluster: it is streamed (gunzipped as it
 * comes) and read line by line, only the admission webhook families kept (MetricsReader), within
 * --max-bytes and --request-timeout; a line longer than MAX_LINE is skipped, never held.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import { errorMessage, printable } from '../util/errors.js';
import { mib } from '../util/limits.js';
import { MetricsReader, type AdmissionMetrics } from '../k8s/admission-metrics.js';
import { parseVersion, type Probe, type ServerVersion } from '../k8s/server.js';
import { seconds, timerMs, type Conn } from './http.js';

/** What to read of the server itself, beside the kinds (decided by the selected checks). */
export interface ServerReadPlan {
  version?: boolean;
  /** Read /metrics, keeping the series of the webhooks this accepts (the meshes' injectors). */
  metrics?: { keepWebhook(name: string): boolean };
  /** List the kube-apiserver pods of kube-system when the pods of kube-system are not listed anyway (-n). */
  apiserverPods?: boolean;
}

/** The longest line of /metrics read (a series line is short; a longer one is no series kept). */
const MAX_LINE = 64 * 1024;
/** The most of a /version body read. */
const MAX_VERSION_BYTES = 64 * 1024;
const RETRY_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRIES = 2;

class ReadFailure extends Error {
  constructor(
    readonly state: 'refused' | 'failed',
    message: string,
    readonly retry = false,
    /** The HTTP status, when the server answered one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The server's one-line explanation of an error body (a Status' message), else the HTTP reason. */
function statusReason(status: number, body: string): string {
  let message = '';
  try {
    const j = JSON.parse(body) as { kind?: unknown; message?: unknown };
    if (j?.kind === 'Status' && typeof j.message === 'string') message = j.message;
  } catch {
    message = body;
  }
  const line = printable(message.replace(/\s+/g, ' ').trim(), 300);
  const label =
    status === 403 ? 'forbidden' : status === 401 ? 'unauthorized' : status === 404 ? 'not found' : `HTTP ${status}`;
  // A non-resource URL's refusal already starts with the word (`forbidden: User "..." cannot get path "/metrics"`).
  return !line ? label : line.startsWith(`${label}:`) ? line : `${label}: ${line}`;
}

/**
 * One streamed GET of `path`: each line of the body to `onLine` (a line past MAX_LINE skipped),
 * within the request timeout and --max-bytes (counted after gunzip). Never sets Conn.answered.
 */
function streamLines(
  conn: Conn,
  path: string,
  accept: string,
  onLine: (line: string) => void,
  maxBytes: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    // eslint-disable-next-line prefer-const -- `fail` may run before the timer is set
    let timer: NodeJS.Timeout | undefined;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      reject(e);
    };
    const onResponse = (res: http.IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const gzip =
        String(res.headers['content-encoding'] ?? '')
          .trim()
          .toLowerCase() === 'gzip';
      const body = gzip ? res.pipe(createGunzip()) : res;
      let size = 0;
      let partial: Buffer[] = [];
      let partialLength = 0;
      let skipping = false;
      const errorBody: Buffer[] = [];
      const ok = status >= 200 && status < 300;
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > maxBytes)
          return fail(new ReadFailure('failed', `the response is larger than ${mib(maxBytes)} (--max-bytes)`));
        if (!ok) {
          if (size <= 4096) errorBody.push(chunk);
          return;
        }
        let start = 0;
        for (;;) {
          const nl = chunk.indexOf(0x0a, start);
          const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
          if (!skipping) {
            partialLength += piece.length;
            if (partialLength > MAX_LINE) {
              skipping = true;
              partial = [];
            } else partial.push(Buffer.from(piece));
          }
          if (nl < 0) break;
          if (!skipping) onLine(Buffer.concat(partial, partialLength).toString('utf8').replace(/\r$/, ''));
          partial = [];
          partialLength = 0;
          skipping = false;
          start = nl + 1;
        }
      });
      body.on('error', (e) =>
        fail(new ReadFailure('failed', `the response was cut off (${printable(errorMessage(e))})`, true)),
      );
      res.on('close', () => {
        if (!res.complete) fail(new ReadFailure('failed', 'the response was cut off', true));
      });
      body.on('end', () => {
        if (settled) return;
        if (!ok) {
          const text = Buffer.concat(errorBody).toString('utf8');
          return fail(
            new ReadFailure(
              status === 401 || status === 403 ? 'refused' : 'failed',
              statusReason(status, text),
              RETRY_STATUS.has(status),
              status,
            ),
          );
        }
        if (!skipping && partialLength) onLine(Buffer.concat(partial, partialLength).toString('utf8'));
        settled = true;
        clearTimeout(timer);
        resolve();
      });
    };
    try {
      req = conn.request(
        conn.base + path,
        {
          method: 'GET',
          agent: conn.agent,
          headers: { ...conn.headers, Accept: accept },
          auth: conn.auth,
          signal: conn.signal,
        },
        onResponse,
      );
    } catch (e) {
      return fail(new ReadFailure('failed', printable(errorMessage(e))));
    }
    timer = setTimeout(
      () => fail(new ReadFailure('failed', `no answer within ${seconds(conn.limits.requestTimeoutMs)}`)),
      timerMs(conn.limits.requestTimeoutMs),
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      fail(
        new ReadFailure(
          'failed',
          printable(e.code && !e.message.includes(e.code) ? `${e.message} (${e.code})` : e.message),
          true,
        ),
      ),
    );
    req.end();
  });
}

/** One read with its retries (429, 5xx, dropped connections), as a Probe: never throws but for the run's abort. */
async function probe<T>(conn: Conn, read: () => Promise<T>): Promise<Probe<T>> {
  for (let n = 0; ; n++) {
    try {
      return { state: 'read', value: await conn.slots.run(read) };
    } catch (e) {
      if (conn.signal.aborted) throw e;
      const f = e instanceof ReadFailure ? e : new ReadFailure('failed', printable(errorMessage(e)));
      if (!f.retry || n >= RETRIES) return { state: f.state, reason: f.message };
      await sleep(200 * 2 ** n, undefined, { signal: conn.signal });
    }
  }
}

/**
 * GET /version; undefined for a 404: no version document there at all (a proxy or test server in
 * front of the objects, never a kube-apiserver), so nothing to examine and no permission to grant:
 * nothing is recorded, as in a snapshot without it.
 */
export async function readVersion(conn: Conn): Promise<Probe<ServerVersion> | undefined> {
  let notFound = false;
  const p = await probe(conn, async () => {
    let text = '';
    await streamLines(conn, '/version', 'application/json', (l) => (text += `${l}\n`), MAX_VERSION_BYTES).catch(
      (e: unknown) => {
        notFound = e instanceof ReadFailure && e.status === 404;
        throw e;
      },
    );
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ReadFailure('failed', 'the server sent a /version that is not JSON');
    }
    const v = parseVersion(json);
    if (!v) throw new ReadFailure('failed', 'the server sent a /version without a version');
    return v;
  });
  return notFound ? undefined : p;
}

/** GET /metrics: the admission webhook series of the webhooks `keepWebhook` accepts. */
export function readMetrics(conn: Conn, keepWebhook: (name: string) => boolean): Promise<Probe<AdmissionMetrics>> {
  return probe(conn, async () => {
    const reader = new MetricsReader(keepWebhook);
    // text/plain: the classic exposition format (not OpenMetrics, not protobuf).
    await streamLines(conn, '/metrics', 'text/plain;version=0.0.4', (l) => reader.line(l), conn.limits.maxBytes);
    return reader.result();
  });
}
