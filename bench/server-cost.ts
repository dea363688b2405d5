/**
 * What the API server pays for meshdoctor's reads, on a real kube-apiserver (v1.32 + etcd 3.4):
 * the same lists (every kind `check -A` reads, cluster-wide) asked for in different ways, each
 * run measured on the server: CPU seconds of kube-apiserver and of etcd (from /proc), its peak
 * resident memory, and its own metrics (lists served from etcd or from the watch cache, objects
 * read from storage, request durations, etcd request durations, response bytes).
 *
 *   tsx bench/server-cost.ts [--pods 50000] [--variant real|slim] [--runs 3]
 * Writes bench/out/server-cost.json and .md (a table for docs/performance.md).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCluster } from './generate.js';
import { cpuSeconds, diff, floorConfig, kubeCluster, metricSums, rssMB, type BenchKube } from './kube.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'bench', 'out');
const argv = process.argv.slice(2);
const opt = (n: string, d: string) => (argv.includes(`--${n}`) ? argv[argv.indexOf(`--${n}`) + 1]! : d);
const pods = Number(opt('pods', '50000'));
const variant = opt('variant', 'real');
const runs = Number(opt('runs', '3'));
const log = (s: string) => process.stderr.write(s + '\n');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The ways to ask: what each means for consistency is in docs/performance.md. */
export const STRATEGIES: Record<string, { label: string; cfg: Record<string, unknown> }> = {
  paged: {
    label: 'limit=500 (meshdoctor before): each kind consistent, quorum read from etcd, page by page',
    cfg: { pageSize: 500 },
  },
  exact: {
    label: "limit=500, every kind at the first list's resourceVersion (Exact): one revision for all kinds, etcd",
    cfg: { pageSize: 500, exact: true },
  },
  paged5000: { label: 'limit=5000: fewer, larger pages from etcd', cfg: { pageSize: 5000 } },
  rv0: {
    label:
      'resourceVersion=0: from the watch cache, whole list in one response (1.32 ignores limit there), any recent state',
    cfg: { pageSize: 500, params: { resourceVersion: '0' } },
  },
  unpaged: {
    label:
      'no limit, no resourceVersion: consistent read (from the cache where etcd supports it, else etcd), one response',
    cfg: { pageSize: 0 },
  },
  fresh: {
    label:
      "the first kind limit=500, then every other kind resourceVersion=<its RV>, resourceVersionMatch=NotOlderThan, no limit: from the watch cache, each kind consistent and at least as fresh as the run's start",
    cfg: { pageSize: 500, notOlderThan: true },
  },
  pagedIdentity: { label: 'limit=500 without gzip', cfg: { pageSize: 500, gzip: false } },
  rv0Identity: {
    label: 'resourceVersion=0 without gzip',
    cfg: { pageSize: 500, params: { resourceVersion: '0' }, gzip: false },
  },
  pagedSequential: { label: 'limit=500, one kind after the other', cfg: { pageSize: 500, sequential: true } },
  paged4: { label: 'limit=500, 4 kinds at once', cfg: { pageSize: 500, concurrency: 4 } },
};

const WANTED = [
  { metric: 'apiserver_request_duration_seconds_sum', by: ['verb'] },
  { metric: 'apiserver_request_duration_seconds_count', by: ['verb'] },
  { metric: 'apiserver_storage_list_total', by: [] },
  { metric: 'apiserver_storage_list_fetched_objects_total', by: [] },
  { metric: 'apiserver_storage_list_returned_objects_total', by: [] },
  { metric: 'apiserver_cache_list_total', by: [] },
  { metric: 'apiserver_cache_list_fetched_objects_total', by: [] },
  { metric: 'etcd_request_duration_seconds_sum', by: ['operation'] },
  { metric: 'etcd_request_duration_seconds_count', by: ['operation'] },
  { metric: 'apiserver_response_sizes_sum', by: ['verb'] },
  { metric: 'apiserver_watch_cache_consistent_read_total', by: ['fallback', 'success'] },
];

export interface Cost {
  ms: number;
  apiserverCpu: number;
  etcdCpu: number;
  apiserverPeakMB: number;
  metrics: Record<string, number>;
}

/** One run of `node SCRIPT ARGS` against the server, with what the server spent meanwhile. */
export async function costOf(
  kube: BenchKube,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Cost & { code: number | null; stdout: string }> {
  const m0 = metricSums(await kube.admin.metrics(), WANTED);
  const a0 = cpuSeconds(kube.pids.apiserver);
  const e0 = cpuSeconds(kube.pids.etcd);
  let peak = rssMB(kube.pids.apiserver);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMB(kube.pids.apiserver))), 50);
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((res) => child.on('close', res));
  const ms = performance.now() - t0;
  clearInterval(sampler);
  const cost = {
    ms,
    apiserverCpu: cpuSeconds(kube.pids.apiserver) - a0,
    etcdCpu: cpuSeconds(kube.pids.etcd) - e0,
    apiserverPeakMB: peak,
  };
  const m1 = metricSums(await kube.admin.metrics(), WANTED);
  if (code !== 0 && code !== 1) log(`  exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { ...cost, metrics: Object.fromEntries(diff(m1, m0)), code, stdout };
}

export function costTable(rows: { name: string; label: string; runs: Cost[] }[]): string[] {
  const med = (r: Cost[], f: (c: Cost) => number) => median(r.map(f));
  const m = (c: Cost, k: string) => c.metrics[k] ?? 0;
  const lines = [
    '| how the lists ask | wall s | apiserver CPU s | etcd CPU s | apiserver peak RSS MB | lists from etcd / cache | objects read from etcd | etcd list time s | response MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { name, label, runs: r } of rows) {
    const etcdList = (c: Cost) =>
      Object.entries(c.metrics)
        .filter(([k]) => k.startsWith('etcd_request_duration_seconds_sum') && /list/i.test(k))
        .reduce((n, [, v]) => n + v, 0);
    lines.push(
      `| \`${name}\`: ${label} | ${(med(r, (c) => c.ms) / 1000).toFixed(2)} | ${med(r, (c) => c.apiserverCpu).toFixed(2)} | ${med(r, (c) => c.etcdCpu).toFixed(2)} | ${med(r, (c) => c.apiserverPeakMB).toFixed(0)} | ${med(r, (c) => m(c, 'apiserver_storage_list_total{}'))} / ${med(r, (c) => m(c, 'apiserver_cache_list_total{}'))} | ${med(r, (c) => m(c, 'apiserver_storage_list_fetched_objects_total{}'))} | ${med(r, etcdList).toFixed(2)} | ${(med(r, (c) => m(c, 'apiserver_response_sizes_sum{verb="LIST"}')) / 1e6).toFixed(0)} |`,
    );
  }
  return lines;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(OUT, { recursive: true });
  const { CHECKS } = await import(join(ROOT, 'dist/checks/index.js'));
  const { kindsFor } = await import(join(ROOT, 'dist/run/run.js'));
  const kinds: string[] = kindsFor(CHECKS);
  const objects = generateCluster({ pods, seed: 1, realistic: variant === 'real' });
  const kube = await kubeCluster(`${variant}-${pods}`, objects, log);
  try {
    const base = await floorConfig(kube, kinds);
    const names = opt('only', Object.keys(STRATEGIES).join(',')).split(',');
    const results: Record<string, Cost[]> = Object.fromEntries(names.map((n) => [n, []]));
    const cfgFile = (n: string) => join(OUT, `cost-${n}.json`);
    for (const n of names) writeFileSync(cfgFile(n), JSON.stringify({ ...base, ...STRATEGIES[n]!.cfg }));
    for (const n of names) await costOf(kube, [join(ROOT, 'bench/floor-live.mjs'), cfgFile(n)]); // warm-up
    for (let i = 0; i < runs; i++) {
      for (const n of names) {
        const c = await costOf(kube, [join(ROOT, 'bench/floor-live.mjs'), cfgFile(n)]);
        results[n]!.push(c);
        log(
          `  ${n}: ${(c.ms / 1000).toFixed(2)}s, apiserver ${c.apiserverCpu.toFixed(2)}s, etcd ${c.etcdCpu.toFixed(2)}s CPU, peak ${c.apiserverPeakMB.toFixed(0)} MB`,
        );
      }
    }
    const lines = [
      `server cost of one read of every kind \`check -A\` lists: ${variant} ${pods} pods, kube-apiserver v1.32.13 + etcd 3.4.23 (2 CPUs, shared with the client), medians of ${runs}`,
      '',
      ...costTable(names.map((n) => ({ name: n, label: STRATEGIES[n]!.label, runs: results[n]! }))),
    ];
    writeFileSync(join(OUT, `server-cost-${variant}-${pods}.json`), JSON.stringify(results, null, 2));
    writeFileSync(join(OUT, `server-cost-${variant}-${pods}.md`), lines.join('\n') + '\n');
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await kube.stop();
  }
}
