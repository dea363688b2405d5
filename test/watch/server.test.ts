/**
 * `watch`'s HTTP server (src/watch/server.ts) against hostile clients: a Host header other than
 * the loopback names (DNS rebinding from a browser) gets 403 unless --accept-hosts widens it;
 * half-open and silent connections are closed within the header timeout and cannot hold every
 * slot: a probe answers while hundreds of them are open.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FLAGS } from '../../src/cli/options.js';
import { DEFAULT_ACCEPT_HOSTS, parseAcceptHosts, serve } from '../../src/watch/server.js';
import { until } from '../helpers/until.js';

const routes = { '/healthz': () => ({ status: 200, type: 'text/plain', body: 'ok\n' }) };
type Listening = Awaited<ReturnType<typeof serve>>;
let server: Listening | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

/** One GET with this Host header (undefined: none), its status, or the error if the connection failed. */
function get(address: string, path: string, host: string | undefined, timeoutMs = 10_000): Promise<number | string> {
  const [, hostname, port] = /^(.*):(\d+)$/.exec(address)!;
  return new Promise((resolve) => {
    const headers = host !== undefined ? { Host: host } : {};
    const req = http.request(
      { hostname, port: Number(port), path, agent: false, setHost: false, timeout: timeoutMs, headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.end();
    req.on('timeout', () => {
      req.destroy();
      resolve('timeout');
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('watch server: Host header (DNS rebinding)', () => {
  it('answers only the loopback names by default, with any port; 403 for any other Host or none', async () => {
    server = await serve({ host: '127.0.0.1', port: 0 }, routes);
    const a = server.address;
    for (const h of ['localhost', 'localhost:9090', '127.0.0.1:9090', '[::1]:9090', 'LOCALHOST:1'])
      expect(await get(a, '/healthz', h), h).toBe(200);
    for (const h of [
      'evil.example',
      'evil.example:9090',
      'localhost.evil.example',
      '127.0.0.1.nip.io:9090',
      '10.0.0.7:9090',
    ])
      expect(await get(a, '/healthz', h), h).toBe(403);
    // No Host, or an empty one: refused too (Node itself answers 400 to an HTTP/1.1 request without one).
    for (const h of ['', undefined]) expect([400, 403]).toContain(await get(a, '/healthz', h));
  });

  it('--accept-hosts widens it (a pod: probes and scrapes send Host = pod IP:port)', async () => {
    server = await serve({ host: '127.0.0.1', port: 0 }, routes, { acceptHosts: parseAcceptHosts('.*') });
    expect(await get(server.address, '/healthz', '10.244.1.7:9090')).toBe(200);
    expect(() => parseAcceptHosts('(')).toThrow(/--accept-hosts/);
    expect(() => parseAcceptHosts(' , ')).toThrow(/--accept-hosts/);
  });

  it('the flag default is the server default; a Host that is not one (userinfo, spaces) is refused', async () => {
    expect(FLAGS.acceptHosts.default).toBe(DEFAULT_ACCEPT_HOSTS);
    server = await serve({ host: '127.0.0.1', port: 0 }, routes);
    for (const h of ['evil@localhost', 'localhost:9090:1', 'localhost/x'])
      expect([400, 403]).toContain(await get(server.address, '/healthz', h));
  });
});

describe('watch server: slow clients', () => {
  const half = (address: string, bytes: string) =>
    new Promise<net.Socket>((resolve) => {
      const [, host, port] = /^(.*):(\d+)$/.exec(address)!;
      const s = net.connect({ host, port: Number(port) }, () => {
        if (bytes) s.write(bytes);
        resolve(s);
      });
      s.on('error', () => {});
      s.resume();
      sockets.push(s);
    });

  it('200 half-open connections: a probe still answers, and the slow ones are bounded', async () => {
    // The longest header timeout Node allows (the request timeout, 15 s), not the 5 s default: the
    // probe is answered because a slot was made for it, not after the slow ones timed out, with
    // three times the room on a busy machine.
    server = await serve({ host: '127.0.0.1', port: 0 }, routes, { headersMs: 15_000 });
    const slow = await Promise.all(
      Array.from({ length: 200 }, (_, i) => half(server!.address, i % 2 ? 'GET /healthz HTTP/1.1\r\nHost: loc' : 'GE')),
    );
    expect(await get(server.address, '/healthz', '127.0.0.1:9090', 15_000)).toBe(200);
    // At most 64 are held open; the rest were closed to make room.
    await until(() => slow.filter((s) => !s.destroyed && !s.readableEnded).length <= 64, 60_000, 'slow ones closed');
    expect(await get(server.address, '/healthz', 'localhost', 15_000)).toBe(200);
  });

  it('a connection that never finishes its headers is closed within the header timeout (checked often, not every 30 s)', async () => {
    server = await serve({ host: '127.0.0.1', port: 0 }, routes, { headersMs: 300, checkEveryMs: 100 });
    const closed = (x: net.Socket) =>
      x.destroyed ? Promise.resolve() : new Promise<void>((resolve) => x.once('close', () => resolve()));
    // Both connect at once, and each one's close is listened for from its start.
    const [s, silent] = await Promise.all([
      half(server.address, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n'),
      half(server.address, ''),
    ]);
    const both = Promise.all([closed(s), closed(silent)]);
    // Bounded by the test's own timeout (far below Node's default 60 s header timeout and 30 s checks).
    await both;
    expect(s.destroyed).toBe(true);
  }, 10_000);
});
