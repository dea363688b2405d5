/**
 * A forward HTTP proxy for tests, on 127.0.0.1: CONNECT tunnels (for https API servers) and
 * absolute-form requests (for plain-http ones), optional Basic proxy credentials, and a log of
 * what it was asked, so that a test can tell which way a request went. It resolves only the
 * names it is given (default: `kubernetes` -> 127.0.0.1) and loopback addresses: anything else
 * is a 502, so no test traffic ever leaves the machine.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';

export interface ProxyLogEntry {
  method: string;
  /** host:port for CONNECT, the absolute URL otherwise. */
  target: string;
  /** The Proxy-Authorization header received, if any. */
  auth?: string;
}

export interface TestProxy {
  /** http://127.0.0.1:PORT (https:// with `tls`) */
  url: string;
  port: number;
  log: ProxyLogEntry[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Names the proxy resolves (to IP addresses on this machine); default { kubernetes: '127.0.0.1' }. */
  hosts?: Record<string, string>;
  /** "user:password" the proxy demands (407 otherwise). */
  credentials?: string;
  /** Answer every CONNECT with this status instead of tunnelling (e.g. 502). */
  connectStatus?: number;
  /** Serve the proxy itself over TLS (an https:// proxy) with this key and certificate. */
  tls?: { key: string; cert: string };
}

export async function startProxy(opts: ProxyOptions = {}): Promise<TestProxy> {
  const hosts = opts.hosts ?? { kubernetes: '127.0.0.1' };
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<net.Socket>();
  const expected = opts.credentials ? `Basic ${Buffer.from(opts.credentials).toString('base64')}` : undefined;
  const resolve = (host: string): string | undefined => {
    const h = host.replace(/^\[|\]$/g, '');
    if (hosts[h]) return hosts[h];
    return h === '127.0.0.1' || h === '::1' ? h : undefined;
  };
  const authOk = (req: http.IncomingMessage) => !expected || req.headers['proxy-authorization'] === expected;

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const auth = req.headers['proxy-authorization'];
    log.push({ method: req.method ?? '', target: req.url ?? '', ...(auth ? { auth } : {}) });
    if (!authOk(req)) {
      res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="test"', 'Content-Length': 0 });
      return res.end();
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'Content-Length': 0 });
      return res.end();
    }
    const ip = resolve(target.hostname);
    if (!ip || target.protocol !== 'http:') {
      res.writeHead(502, { 'Content-Length': 0 });
      return res.end();
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const up = http.request(
      { host: ip, port: Number(target.port || 80), path: target.pathname + target.search, method: req.method, headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Length': 0 });
      res.end();
    });
    req.pipe(up);
  };
  const server = opts.tls ? https.createServer(opts.tls, handle) : http.createServer(handle);

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    const auth = req.headers['proxy-authorization'];
    log.push({ method: 'CONNECT', target: req.url ?? '', ...(auth ? { auth } : {}) });
    if (!authOk(req))
      return client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
    if (opts.connectStatus)
      return client.end(`HTTP/1.1 ${opts.connectStatus} ${http.STATUS_CODES[opts.connectStatus]}\r\n\r\n`);
    const m = /^(.*):(\d+)$/.exec(req.url ?? '');
    const ip = m ? resolve(m[1]!) : undefined;
    if (!m || !ip) return client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    const upstream = net.connect(Number(m[2]), ip, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  });

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    log,
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
