/**
 * HTTP proxies, as kubectl uses them. A kubeconfig cluster's `proxy-url` is used for every
 * request to that cluster (client-go rest.Config.Proxy = http.ProxyURL, which takes precedence
 * over the environment); without it, HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured as Go's
 * net/http ProxyFromEnvironment does (golang.org/x/net http/httpproxy/proxy.go, read at commit
 * 094d4385), which client-go's default transport uses.
 *
 * http:// and https:// proxies are spoken here: CONNECT tunnels for https API servers (TLS to the
 * API server inside the tunnel, with the cluster's CA, client certificate and server name), and
 * absolute-form requests for plain-http ones, with Proxy-Authorization: Basic from the proxy
 * URL's userinfo. socks proxies are left to @kubernetes/client-node, as before.
 */
import { Buffer } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import net, { BlockList } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { domainToASCII } from 'node:url';
import { printable } from '../util/errors.js';

/** The proxy a request goes through, and where it was configured (for messages). */
export interface Proxy {
  url: URL;
  /** "proxy-url", "HTTPS_PROXY", "https_proxy", ... */
  source: string;
}

/** A proxy URL for messages: scheme, host and port, never its credentials. */
export const shownProxy = (u: URL): string => `${u.protocol}//${u.host}`;

const envAny = (env: NodeJS.ProcessEnv, ...names: string[]): [string, string] | undefined => {
  for (const n of names) if (env[n]) return [n, env[n]!];
  return undefined;
};

/**
 * httpproxy.parseProxy: a URL of scheme http, https or socks5, or else "http://" + the value
 * ("proxy:3128"). An unusable value is ignored, as Go ignores it (no proxy).
 */
export function parseProxy(value: string): URL | undefined {
  const ok = (u: URL) => ['http:', 'https:', 'socks5:'].includes(u.protocol);
  try {
    const u = new URL(value);
    if (ok(u) && u.hostname) return u;
  } catch {
    // "host:port" is not a URL: try it as http://host:port
  }
  try {
    const u = new URL(`http://${value}`);
    return u.hostname ? u : undefined;
  } catch {
    return undefined;
  }
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** An IP address without IPv6 brackets, with its BlockList family, or undefined for a name. */
function ipOf(host: string): { ip: string; family: 'ipv4' | 'ipv6' } | undefined {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const v = net.isIP(h);
  return v === 4 ? { ip: h, family: 'ipv4' } : v === 6 ? { ip: h, family: 'ipv6' } : undefined;
}

/** Go's net.SplitHostPort, enough for NO_PROXY entries: undefined when there is no port. */
function splitHostPort(s: string): [string, string] | undefined {
  if (s.startsWith('[')) {
    const m = /^\[([^\]]*)\]:([^:]*)$/.exec(s);
    return m ? [m[1]!, m[2]!] : undefined;
  }
  const i = s.lastIndexOf(':');
  if (i < 0 || s.indexOf(':') !== i) return undefined; // no port, or "too many colons" (a bare IPv6)
  return [s.slice(0, i), s.slice(i + 1)];
}

/**
 * Whether a request to host:port bypasses the proxy by NO_PROXY (httpproxy useProxy and init):
 * `*` matches everything; an IP or CIDR matches addresses (with an optional port); a domain
 * matches itself and its subdomains, `.domain` (or `*.domain`) only its subdomains, with an
 * optional port. `localhost` and loopback addresses are never proxied.
 */
export function bypassesProxy(host: string, port: string, noProxy: string): boolean {
  host = host.toLowerCase();
  if (host === 'localhost') return true;
  const ip = ipOf(host);
  if (ip) {
    const loopback = new BlockList();
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    loopback.addAddress('::1', 'ipv6');
    if (loopback.check(ip.ip, ip.family)) return true;
  }
  for (let p of noProxy.split(',')) {
    p = p.trim().toLowerCase();
    if (!p) continue;
    if (p === '*') return true;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(p);
    const cidrIp = cidr ? ipOf(cidr[1]!) : undefined;
    if (cidr && cidrIp && Number(cidr[2]) <= (cidrIp.family === 'ipv4' ? 32 : 128)) {
      const list = new BlockList();
      list.addSubnet(cidrIp.ip, Number(cidr[2]), cidrIp.family);
      if (ip && list.check(ip.ip, ip.family)) return true;
      continue;
    }
    const hp = splitHostPort(p);
    let phost = hp ? hp[0] : p;
    const pport = hp ? hp[1] : '';
    const pip = ipOf(phost);
    if (pip) {
      if (ip) {
        const one = new BlockList();
        one.addAddress(pip.ip, pip.family);
        if (one.check(ip.ip, ip.family) && (!pport || pport === port)) return true;
      }
      continue;
    }
    if (!phost) continue;
    if (phost.startsWith('*.')) phost = phost.slice(1);
    const matchHost = !phost.startsWith('.');
    if (matchHost) phost = `.${phost}`;
    phost = `.${domainToASCII(phost.slice(1)) || phost.slice(1)}`;
    // As Go: domain entries are matched against the host as text, IP addresses included.
    if ((host.endsWith(phost) || (matchHost && host === phost.slice(1))) && (!pport || pport === port)) return true;
  }
  return false;
}

/**
 * The proxy Go's ProxyFromEnvironment picks for a request to `target`: HTTPS_PROXY (or
 * https_proxy) for https, HTTP_PROXY (or http_proxy) for http, upper case first; none when
 * NO_PROXY (or no_proxy) says so, or for localhost and loopback addresses. Under CGI
 * (REQUEST_METHOD set), HTTP_PROXY may have been set by the client of the CGI request
 * (https://golang.org/s/cgihttpproxy): Go refuses it, and so does this (throws).
 */
export function proxyFromEnvironment(target: URL, env: NodeJS.ProcessEnv = process.env): Proxy | undefined {
  const https = target.protocol === 'https:';
  const found = https ? envAny(env, 'HTTPS_PROXY', 'https_proxy') : envAny(env, 'HTTP_PROXY', 'http_proxy');
  const url = found ? parseProxy(found[1]) : undefined;
  if (!found || !url) return undefined;
  if (!https && env.REQUEST_METHOD) {
    throw new Error(`refusing to use ${found[0]} in a CGI environment (REQUEST_METHOD is set), as Go's net/http does`);
  }
  const port = target.port || DEFAULT_PORT[target.protocol] || '';
  if (bypassesProxy(target.hostname, port, envAny(env, 'NO_PROXY', 'no_proxy')?.[1] ?? '')) return undefined;
  return { url, source: found[0] };
}

// ---------------------------------------------------------------------------------------------
// Speaking to the proxy

/** A failure of the proxy itself (unreachable, refused the tunnel, asked for credentials). */
export class ProxyError extends Error {
  readonly code = 'EPROXY';
}

/** The largest CONNECT response head read from a proxy. */
const MAX_PROXY_HEAD = 64 * 1024;

/** `Basic base64(user:password)` from the proxy URL's userinfo, or undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return `Basic ${Buffer.from(`${dec(proxy.username)}:${dec(proxy.password)}`).toString('base64')}`;
}

const proxyPort = (proxy: URL) => Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));

/** A connection to the proxy itself: TCP, or TLS for an https:// proxy (verified with the system's CAs). */
function dialProxy(proxy: URL): net.Socket {
  const host = proxy.hostname.replace(/^\[|\]$/g, '');
  if (proxy.protocol === 'https:')
    return tls.connect({ host, port: proxyPort(proxy), ...(net.isIP(host) ? {} : { servername: host }) });
  return net.connect({ host, port: proxyPort(proxy) });
}

/**
 * A CONNECT tunnel to host:port through the proxy, bounded in time and in the bytes of the
 * proxy's answer. Calls back once, with the tunnel's socket or a ProxyError.
 */
function tunnel(
  proxy: URL,
  host: string,
  port: number,
  timeoutMs: number,
  cb: (err: Error | null, socket?: net.Socket) => void,
): net.Socket {
  const socket = dialProxy(proxy);
  const authority = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  let head = Buffer.alloc(0);
  let done = false;
  const finish = (err: Error | null) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    socket.removeListener('data', onData);
    socket.removeListener('error', onError);
    socket.removeListener('close', onClose);
    if (err) {
      socket.destroy();
      return cb(err);
    }
    cb(null, socket);
  };
  const timer = setTimeout(
    () => finish(new ProxyError('the proxy did not answer the CONNECT request in time')),
    timeoutMs,
  );
  const onError = (e: NodeJS.ErrnoException) =>
    finish(new ProxyError(`cannot reach the proxy: ${printable(e.message, 300)}`));
  const onClose = () => finish(new ProxyError('the proxy closed the connection before answering the CONNECT request'));
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_PROXY_HEAD)
        finish(new ProxyError(`the proxy answered CONNECT with more than ${MAX_PROXY_HEAD / 1024} KiB of headers`));
      return;
    }
    const statusLine = head.toString('latin1', 0, head.indexOf('\r\n'));
    const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
    // Go's transport takes exactly 200 as a tunnel (net/http transport.go, dialConn).
    if (!m || m[1] !== '200') {
      const status = m
        ? `${m[1]} ${m[2] ?? http.STATUS_CODES[Number(m[1])] ?? ''}`.trim()
        : `an invalid status line: ${statusLine}`;
      return finish(new ProxyError(`the proxy refused the tunnel: ${printable(status, 200)}`));
    }
    socket.pause();
    const rest = head.subarray(end + 4);
    if (rest.length) socket.unshift(rest);
    finish(null);
  };
  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
  const auth = proxyAuthorization(proxy);
  socket.write(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`,
  );
  return socket;
}

/**
 * A keep-alive https.Agent whose connections are CONNECT tunnels through `proxy`, with TLS to
 * the API server inside (the agent's TLS options: CA, client certificate, server name,
 * rejectUnauthorized). Tunnels still being set up are ended by destroy().
 */
export class TunnelAgent extends https.Agent {
  private pending = new Set<net.Socket>();

  constructor(
    private readonly proxy: URL,
    private readonly timeoutMs: number,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  // Node's Agent takes a socket from the callback when createConnection returns nothing.
  override createConnection(options: http.RequestOptions, cb?: (err: Error | null, stream: Duplex) => void): undefined {
    const o = options as tls.ConnectionOptions & http.RequestOptions;
    const host = String(o.host ?? 'localhost').replace(/^\[|\]$/g, '');
    const raw = tunnel(this.proxy, host, Number(o.port ?? 443), this.timeoutMs, (err, socket) => {
      this.pending.delete(raw);
      if (err || !socket) return cb?.(err ?? new ProxyError('no tunnel'), undefined as unknown as Duplex);
      // A host name (not an IP address) is the TLS server name and the name the certificate must hold.
      const servername = o.servername || (net.isIP(host) ? undefined : host);
      const secure = tls.connect({
        ...(o as tls.ConnectionOptions),
        host,
        socket,
        ...(servername ? { servername } : {}),
      });
      cb?.(null, secure);
    });
    this.pending.add(raw);
    return undefined;
  }

  override destroy(): void {
    for (const s of this.pending) s.destroy();
    this.pending.clear();
    super.destroy();
  }
}
