/**
 * A front for a real kube-apiserver that adds series to its /metrics (issue 32's parity tests):
 * the test kube-apiserver runs with webhook admission off, so its /metrics never has the
 * admission webhook series a broken injector leaves there. Every request is passed on as it came
 * (its bearer token authenticates and authorizes it at the real server: a refusal there is one
 * here), responses streamed back (watches included); GET /metrics answers the real server's page
 * plus `extra` (a function: a test may change it). HTTPS on 127.0.0.1 with its own CA.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateCA, generateLeaf } from './certs.js';

export interface MetricsFront {
  /** https://127.0.0.1:PORT */
  server: string;
  caPem: string;
  close(): Promise<void>;
}

export async function startMetricsFront(
  upstream: { server: string; caPem: string },
  extra: () => string,
): Promise<MetricsFront> {
  const ca = await generateCA({ keyType: 'ecdsa', commonName: 'metrics-front-ca' });
  const leaf = await generateLeaf({ ca, keyType: 'ecdsa', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const agent = new https.Agent({ ca: upstream.caPem, keepAlive: true });
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const metrics = req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics';
    const headers = { ...req.headers, host: new URL(upstream.server).host };
    if (metrics) delete headers['accept-encoding']; // the page is edited here: plain text
    const up = https.request(upstream.server + (req.url ?? '/'), { method: req.method, headers, agent }, (upRes) => {
      if (!metrics || upRes.statusCode !== 200) {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
        upRes.on('error', () => res.destroy());
        return;
      }
      const chunks: Buffer[] = [];
      upRes.on('data', (c: Buffer) => chunks.push(c));
      upRes.on('error', () => res.destroy());
      upRes.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8').replace(/\n?$/, '\n') + extra();
        res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    // The real server gone (a restart): the client sees its connection end, as it would.
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  };
  const srv = https.createServer({ key: leaf.keyPem, cert: leaf.certPem }, handle);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    server: `https://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    caPem: ca.certPem,
    async close() {
      const closed = new Promise<void>((resolve) => srv.close(() => resolve()));
      srv.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}
