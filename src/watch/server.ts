/**
 * `watch`'s HTTP endpoints on --listen: GET (and HEAD) only, fixed paths, answers computed from
 * state already at hand. Bounded: headers within 10 s, a request within 30 s, 64 connections,
 * idle keep-alive connections closed after 5 s.
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

export async function serve(addr: ListenAddress, routes: Routes): Promise<Listening> {
  const server = http.createServer((req, res) => {
    let answer: Answer;
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
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
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = 64;
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
