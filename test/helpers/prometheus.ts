/**
 * Prometheus for tests: Debian's `prometheus` package (the server and promtool). A real
 * Prometheus is started on 127.0.0.1 with a temporary configuration and TSDB directory, and
 * queried through its HTTP API. Callers skip, with a note, when the binaries are absent (.ci/run
 * installs the package).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './until.js';

const which = (name: string) =>
  ['/usr/bin', '/usr/local/bin', '/bin'].map((d) => join(d, name)).find((p) => existsSync(p));
export const PROMTOOL = which('promtool');
export const PROMETHEUS = which('prometheus');

/** promtool ARGS with `input` on stdin: its exit code and output. */
export function promtool(args: string[], input = ''): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(PROMTOOL!, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr });
    });
    child.stdin!.end(input);
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** GET a URL on 127.0.0.1: status and body. */
export function httpGet(
  url: string,
  timeoutMs = 10_000,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

export interface RunningPrometheus {
  url: string;
  /** An instant query: the result vector. */
  query(q: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

/**
 * Start Prometheus scraping `targets` (host:port) every second; `labels[i]`: labels target i's
 * series get (a fleet's `cluster`, as each cluster's Prometheus adds it as an external label).
 */
export async function startPrometheus(
  targets: string[],
  labels?: Record<string, string>[],
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-prometheus-'));
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    labels
      ? `global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n- job_name: meshdoctor\n  static_configs:\n${targets
          .map((t, i) => `  - targets: [${JSON.stringify(t)}]\n    labels: ${JSON.stringify(labels[i] ?? {})}\n`)
          .join('')}`
      : `global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n- job_name: meshdoctor\n  static_configs:\n  - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]\n`,
  );
  const child: ChildProcess = spawn(
    PROMETHEUS!,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => (await httpGet(`${url}/-/ready`).catch(() => ({ status: 0 }))).status === 200,
      60_000,
      'Prometheus ready',
    );
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${log}`);
  }
  return {
    url,
    async query(q) {
      const r = await httpGet(`${url}/api/v1/query?query=${encodeURIComponent(q)}`);
      const j = JSON.parse(r.body);
      if (j.status !== 'success') throw new Error(`query ${q}: ${r.body}`);
      return j.data.result;
    },
    stop,
  };
}
