/**
 * One WATCH request over a gather.ts connection: a GET with `watch=1` whose body is a stream of
 * JSON watch events, `{"type": "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR", "object": {...}}`.
 * The API server writes one event a line (seen on kube-apiserver v1.32.13: `}}\n{"type":...`);
 * events are split on their JSON structure, not on newlines, so a server that leaves the newline
 * out is read the same.
 *
 * Bounded as every read is (docs/limits.md): each event at MAX_EVENT_BYTES (or --max-bytes when
 * lower) while it streams, its nesting and density checked on its bytes (scanJson) before it is
 * parsed; no answer within the
 * request timeout fails the request, and the whole request ends after `maxMs` even if the server
 * never does (a connection that went silent is not waited for forever). The body is asked for
 * uncompressed: events are small and arrive one at a time.
 */
import http from 'node:http';
import { errorMessage, printable } from '../util/errors.js';
import { MAX_DEPTH, MAX_TIMER_MS, mib } from '../util/limits.js';
import { isObj } from '../util/objects.js';
import type { Conn } from './http.js';
import { ProxyError } from './proxy.js';
import { scanJson, TOO_DEEP } from './json-scan.js';

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
const TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export interface WatchEvent {
  type: WatchEventType;
  /** The object (a Status for ERROR; only metadata.resourceVersion for BOOKMARK). */
  object: Record<string, any>;
}

/** The server refused the watch: its HTTP status and its one-line message (printable). */
export class WatchStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** No answer, no connection, a dropped connection, or a body meshdoctor refuses to read. */
export class WatchNetError extends Error {
  constructor(
    message: string,
    /** The server cannot be reached at all (vs. a dropped or refused stream). */
    readonly unreachable = false,
  ) {
    super(message);
  }
}

const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);

/** Bytes a stream must not hold: what they are, for "the API server sent ..." */
export class RefusedBytes extends Error {}

/**
 * One watch event, far below a whole LIST's --max-bytes: an event holds one object, and no
 * Kubernetes object is larger than etcd takes in one request (1.5 MiB, etcd's
 * --max-request-bytes default, which kube-apiserver stores each object in) or than
 * kube-apiserver accepts as a request body (3 MiB: k8s.io/apiserver pkg/server/config.go
 * MaxRequestBodyBytes). 4 MiB leaves room for the event's envelope and JSON escapes.
 */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** A watch event over MAX_EVENT_BYTES: the stream is ended, and its kind listed again (after the relist backoff). */
export class OversizedEvent extends Error {}

/**
 * Splits a byte stream into its top-level JSON objects (or arrays), across chunk boundaries:
 * strings and their escapes are skipped, brackets counted. A value larger than `maxBytes` or
 * nested deeper than MAX_DEPTH, and anything but whitespace between values, is an error.
 */
export class JsonValues {
  private parts: Buffer[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escape = false;

  constructor(private readonly maxBytes: number) {}

  /** Feed a chunk; `emit` gets each complete value, in order. Throws on bytes it refuses. */
  push(chunk: Buffer, emit: (value: Buffer) => void): void {
    let start = this.depth > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.depth === 0) {
        if (WS.has(c)) continue;
        if (c !== 0x7b && c !== 0x5b) throw new RefusedBytes('something other than JSON objects');
        this.depth = 1;
        start = i;
        continue;
      }
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === 0x5c) this.escape = true;
        else if (c === 0x22) this.inString = false;
        continue;
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (++this.depth > MAX_DEPTH) throw new RefusedBytes(`JSON ${TOO_DEEP}`);
      } else if (c === 0x7d || c === 0x5d) {
        if (--this.depth === 0) {
          const tail = chunk.subarray(start, i + 1);
          if (this.size + tail.length > this.maxBytes) throw this.tooLarge();
          emit(this.parts.length ? Buffer.concat([...this.parts, tail], this.size + tail.length) : tail);
          this.parts = [];
          this.size = 0;
          start = -1;
        }
      }
    }
    if (this.depth > 0 && start >= 0) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.maxBytes) throw this.tooLarge();
      this.parts.push(rest);
    }
  }

  private tooLarge(): Error {
    return this.maxBytes < MAX_EVENT_BYTES
      ? new RefusedBytes(`an event larger than ${mib(this.maxBytes)} (--max-bytes)`)
      : new OversizedEvent(
          `an event larger than ${mib(MAX_EVENT_BYTES)} (no Kubernetes object is larger than 3 MiB): watching again from a new LIST`,
        );
  }

  /** Whether a value was cut off at the end of the stream. */
  get partial(): boolean {
    return this.depth > 0;
  }
}

/** One event from its bytes: nesting and density checked before parsing, the shape after. */
export function parseEvent(bytes: Buffer): WatchEvent {
  const scan = scanJson(bytes);
  if (scan.deep) throw new RefusedBytes(`JSON ${TOO_DEEP}`);
  if (scan.dense) throw new RefusedBytes(scan.dense);
  let e: unknown;
  try {
    e = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RefusedBytes('invalid JSON');
  }
  if (!isObj(e) || typeof e.type !== 'string' || !TYPES.has(e.type) || !isObj(e.object))
    throw new RefusedBytes('a watch event that is not {type, object}');
  return e as unknown as WatchEvent;
}

/** The one-line message of an error body (a Status, else its text), printable. */
function statusMessage(status: number, body: string): string {
  let msg = body;
  try {
    const j: unknown = JSON.parse(body);
    if (isObj(j) && typeof j.message === 'string') msg = j.message;
  } catch {
    // not JSON: the text itself
  }
  const line = msg.replace(/\s+/g, ' ').trim();
  return line ? printable(line, 300) : http.STATUS_CODES[status] || `HTTP ${status}`;
}

/** Node's network error codes that mean nothing answers at that address (vs. a dropped connection). */
const UNREACHABLE = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL)$/;
const ERROR_BODY_BYTES = 64 * 1024;

interface WatchRequestOptions {
  /** Ends the request (an AbortError rejection). */
  signal: AbortSignal;
  /** The longest the request may last: past it the stream is cut and the promise resolves, as at the server's end. */
  maxMs: number;
  onEvent: (e: WatchEvent) => void;
}

/**
 * Send one WATCH (`path` with its query) and call `onEvent` for each event, in order. Resolves
 * when the server ends the stream (its timeoutSeconds) or `maxMs` passes; rejects with a
 * WatchStatusError for an answer other than 200, a WatchNetError for network trouble or bytes it
 * refuses, and whatever `onEvent` throws.
 */
export function watchRequest(conn: Conn, path: string, opts: WatchRequestOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    const timers: NodeJS.Timeout[] = [];
    const done = (e?: Error) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      opts.signal.removeEventListener('abort', onAbort);
      req?.destroy();
      if (e) reject(e);
      else resolve();
    };
    const onAbort = () => done(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (opts.signal.aborted) return onAbort();
    opts.signal.addEventListener('abort', onAbort);
    const headers = { ...conn.headers, 'Accept-Encoding': 'identity' };
    try {
      req = conn.request(conn.base + path, { method: 'GET', agent: conn.agent, headers, auth: conn.auth }, (res) => {
        clearTimeout(timers[0]);
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          // The Status body, bounded: only its message is of use.
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < ERROR_BODY_BYTES) chunks.push(c);
            size += c.length;
          });
          res.on('end', () =>
            done(
              new WatchStatusError(
                status,
                statusMessage(status, Buffer.concat(chunks).toString('utf8', 0, ERROR_BODY_BYTES)),
              ),
            ),
          );
          res.on('error', () => done(new WatchStatusError(status, http.STATUS_CODES[status] ?? `HTTP ${status}`)));
          return;
        }
        const values = new JsonValues(Math.min(conn.limits.maxBytes, MAX_EVENT_BYTES));
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          try {
            values.push(chunk, (bytes) => {
              if (!settled) opts.onEvent(parseEvent(bytes));
            });
          } catch (e) {
            done(
              e instanceof RefusedBytes
                ? new WatchNetError(`the API server sent ${e.message}`)
                : e instanceof OversizedEvent
                  ? new OversizedEvent(`the API server sent ${e.message}`)
                  : (e as Error),
            );
          }
        });
        res.on('error', (e) => done(new WatchNetError(`the watch was cut off (${printable(e.message)})`)));
        res.on('end', () =>
          done(values.partial ? new WatchNetError('the watch was cut off in the middle of an event') : undefined),
        );
        res.on('close', () => {
          if (!res.complete) done(new WatchNetError('the watch was cut off'));
        });
      });
    } catch (e) {
      return done(
        new WatchNetError(`cannot send a request to the API server at ${conn.server}: ${printable(errorMessage(e))}`),
      );
    }
    timers.push(
      setTimeout(
        () => done(new WatchNetError(`no answer within ${conn.limits.requestTimeoutMs / 1000}s`)),
        Math.min(conn.limits.requestTimeoutMs, MAX_TIMER_MS),
      ),
    );
    timers.push(setTimeout(() => done(), Math.min(Math.max(0, opts.maxMs), MAX_TIMER_MS)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e instanceof ProxyError)
        return done(
          new WatchNetError(
            `cannot reach the API server at ${conn.server} through the proxy ${conn.proxy}: ${e.message}`,
            true,
          ),
        );
      const code = e.code ?? '';
      const message = printable(code && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
      done(new WatchNetError(message, UNREACHABLE.test(code)));
    });
    req.end();
  });
}
