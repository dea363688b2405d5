/**
 * `watch`'s HTTP endpoints on --listen: GET (and HEAD) only, fixed paths, answers computed from
 * state already at hand.
 *
 * Host: only the hosts --accept-hosts allows (by default localhost, 127.0.0.1 and [::1], with any
 * port: `kubectl proxy --accept-hosts`' default), 403 otherwise, so that a web page rebinding its
 * own name to 127.0.0.1 (DNS rebinding) cannot read /findings from a workstation's browser.
 *
 * Bounded: 64 connections; a connection's request headers within HEADERS_MS (checked every
 * second, not Node's default 30 s), a request within REQUEST_MS, idle keep-alive connections
 * closed after 5 s; when all 64 are taken, a new connection evicts the oldest one that is not in
 * the middle of being answered (still sending its headers, or idle), so that slow or half-open
 * clients cannot hold every slot and starve the kubelet's probes.
 */
import http from 'node:http';
import { errorMessage, printable, UserError } from '../util/errors.js';

export interface Answer {
  status: number;
  type: string;
  body: string;
}

/** Each path's answer, asked for at request time. */
type Routes = Record<string, () => Answer>;

interface ListenAddress {
  /** undefined: every interface. */
  host?: string;
  port: number;
}

/** HOST:PORT, :PORT (every interface) or [IPv6]:PORT. */
export function parseListen(addr: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/]*)):(\d{1,5})$/.exec(addr);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new UserError(
      `--listen must be HOST:PORT, :PORT or [IPv6]:PORT (e.g. 127.0.0.1:9090), not "${printable(addr, 100)}"`,
    );
  const host = m[1] ?? m[2];
  return { ...(host ? { host } : {}), port };
}

const text = (status: number, body: string): Answer => ({ status, type: 'text/plain; charset=utf-8', body });

interface Listening {
  /** host:port actually bound (the port chosen when 0 was asked for). */
  address: string;
  close(): Promise<void>;
}

/** `kubectl proxy --accept-hosts`' default: the loopback names, matched against the Host header less its port. */
export const DEFAULT_ACCEPT_HOSTS = '^localhost$,^127\\.0\\.0\\.1$,^\\[::1\\]$';

/** --accept-hosts: comma-separated regular expressions, one of which the Host (less its port) must match. */
export function parseAcceptHosts(spec: string): RegExp[] {
  const parts = spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!parts.length) throw new UserError('--accept-hosts needs at least one regular expression');
  return parts.map((p) => {
    try {
      return new RegExp(p);
    } catch (e) {
      throw new UserError(
        `--accept-hosts: "${printable(p, 100)}" is not a regular expression: ${printable(errorMessage(e))}`,
      );
    }
  });
}

/** The host of a Host header, less its port ("[::1]:9090" -> "[::1]"); undefined when it is not one. */
function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+)(?::\d{1,5})?$/.exec(header);
  return m ? m[1]!.toLowerCase() : undefined;
}

interface ServeOptions {
  /** Hosts allowed in the Host header (default DEFAULT_ACCEPT_HOSTS). */
  acceptHosts?: RegExp[];
  /** For tests: the header timeout and how often it is checked (ms). */
  headersMs?: number;
  checkEveryMs?: number;
}

const MAX_CONNECTIONS = 64;
const HEADERS_MS = 5_000;
const REQUEST_MS = 15_000;

export async function serve(addr: ListenAddress, routes: Routes, opts: ServeOptions = {}): Promise<Listening> {
  const accept = opts.acceptHosts ?? parseAcceptHosts(DEFAULT_ACCEPT_HOSTS);
  const headersMs = opts.headersMs ?? HEADERS_MS;
  /** Open connections, oldest first, and whether each is being answered now. */
  const open = new Map<import('node:net').Socket, { busy: boolean; asked: boolean }>();
  const server = http.createServer(
    { connectionsCheckingInterval: opts.checkEveryMs ?? 1000, headersTimeout: headersMs, requestTimeout: REQUEST_MS },
    (req, res) => {
      const conn = open.get(req.socket);
      if (conn) conn.busy = conn.asked = true;
      res.on('finish', () => {
        if (conn) conn.busy = false;
      });
      let answer: Answer;
      const path = (req.url ?? '/').split('?')[0]!;
      const host = hostOf(req.headers.host);
      if (host === undefined || !accept.some((r) => r.test(host))) {
        answer = text(403, 'forbidden: this Host is not accepted (--accept-hosts)\n');
      } else if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        answer = text(405, 'only GET and HEAD\n');
      } else {
        const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
        try {
          answer = route ? route() : text(404, `not found; try ${Object.keys(routes).join(', ')}\n`);
        } catch (e) {
          answer = text(500, `internal error: ${printable(errorMessage(e))}\n`);
        }
      }
      const body = Buffer.from(answer.body);
      res.writeHead(answer.status, {
        'Content-Type': answer.type,
        'Content-Length': body.length,
        'Cache-Control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
  );
  server.on('connection', (socket: import('node:net').Socket) => {
    if (open.size >= MAX_CONNECTIONS) {
      // Every slot taken: the oldest connection not being answered goes (a slow or idle client).
      for (const [s, c] of open) {
        if (c.busy) continue;
        open.delete(s);
        s.destroy();
        break;
      }
      if (open.size >= MAX_CONNECTIONS) {
        socket.destroy();
        return;
      }
    }
    const conn = { busy: false, asked: false };
    open.set(socket, conn);
    // Its first request's headers within headersMs, from the moment it connects (Node's own
    // header timer covers a request once its first bytes came; a silent connection it leaves open).
    const timer = setTimeout(() => {
      if (!conn.asked) socket.destroy();
    }, headersMs);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      open.delete(socket);
    });
  });
  // A connection that sends nothing at all is not one Node's header timer watches before its first byte.
  server.timeout = REQUEST_MS;
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 50;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new UserError(
          `cannot listen on ${addr.host ?? ''}:${addr.port} (--listen): ${printable(e.code ?? errorMessage(e))}`,
        ),
      ),
    );
    server.listen({ port: addr.port, ...(addr.host ? { host: addr.host } : {}) }, resolve);
  });
  const a = server.address();
  const address =
    a && typeof a === 'object' ? `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : String(a);
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
