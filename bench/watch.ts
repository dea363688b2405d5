/**
 * `meshdoctor watch` on a real kube-apiserver holding a bench cluster (bench/run.ts calls this
 * after measuring `check -A` on the same cluster in the same run):
 *   sync      spawn to /readyz 200: the initial LIST of every kind + the first full evaluation,
 *             against one `check -A` (spawn to exit), `runs` times interleaved, medians;
 *   latency   N unmeshed pods created one at a time in a Linkerd-enabled namespace: from the
 *             create request to the pod's meshdoctor_finding series in /metrics (polled every
 *             50 ms), p50 and p99;
 *   steady    after the pods are deleted and the evaluations settle: RSS (VmRSS) and the peak
 *             (VmHWM) of the watch process, against `check -A`'s peak RSS;
 *   idle      a window with nothing changing: meshdoctor's relists (must be 0) and watch restarts,
 *             the API server's requests by verb, and the CPU kube-apiserver + etcd spend, against
 *             the same window before watch started: the server's cost per hour.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cpuSeconds, diff, metricSums, type BenchKube } from './kube.js';

export interface WatchBench {
  pods: number;
  variant: string;
  /** Medians of the interleaved runs. */
  syncMs: number;
  checkMs: number;
  runs: number;
  latencyMs: number[];
  p50Ms: number;
  p99Ms: number;
  steadyRssMB: number;
  peakRssMB: number;
  checkRssMB: number;
  idleSeconds: number;
  /** During the idle window. */
  relists: number;
  restarts: number;
  serverRequests: Record<string, number>;
  serverCpuPerHour: { baseline: number; withWatch: number };
  watchCpuPerHour: number;
  /** LIST requests the API server served while idle (apiserver_request_total, verb LIST). */
  idleLists: number;
  /** RSS right after the first sync (the process that then serves the latency and churn). */
  syncRssMB: number;
  /** Churn (bench/watch-bench.ts): pods created and deleted at `rate`/s for `seconds`. */
  churn?: {
    seconds: number;
    rate: number;
    created: number;
    deleted: number;
    /** meshdoctor_watch_events_total during the churn. */
    events: number;
    /** The watch process's CPU seconds during the churn. */
    cpuSeconds: number;
    cpuMsPerEvent: number;
    /** RSS after the churn and a settle. */
    rssMB: number;
  };
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
  });
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const procKB = (pid: number, field: string) => {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};

const sum = (text: string, metric: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${metric}{`) || l.startsWith(`${metric} `))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

export async function benchWatch(
  kube: BenchKube,
  o: {
    root: string;
    pods: number;
    variant: string;
    runs: number;
    checkRssMB: number;
    latencyPods: number;
    idleSeconds: number;
    extraArgs: string[];
    log: (s: string) => void;
    /** Churn after the latency pods: create and delete pods at `churnRate`/s for `churnSeconds` (0: none). */
    churnSeconds?: number;
    churnRate?: number;
  },
): Promise<WatchBench> {
  const problems: string[] = [];
  const serverCpu = () => cpuSeconds(kube.pids.apiserver) + cpuSeconds(kube.pids.etcd);
  const wantedRequests = [{ metric: 'apiserver_request_total', by: ['verb'] }];
  // A Linkerd-enabled app namespace, and no pods left from an interrupted run.
  const namespaces = (await kube.admin.get('/api/v1/namespaces')).items as any[];
  const ns = namespaces
    .filter((n) => n.metadata.annotations?.['linkerd.io/inject'] === 'enabled' && n.metadata.name !== 'linkerd')
    .map((n) => n.metadata.name as string)
    .sort()[0]!;
  const cleanup = () =>
    kube.admin.request(
      'DELETE',
      `/api/v1/namespaces/${ns}/pods?labelSelector=meshdoctor-bench%3Dwatch&gracePeriodSeconds=0`,
    );
  await cleanup();

  // The server idle without watch: the baseline of its cost.
  const c0 = serverCpu();
  await sleep(o.idleSeconds * 1000);
  const baseline = ((serverCpu() - c0) * 3600) / o.idleSeconds;

  const env = { ...process.env, NO_COLOR: '1', KUBECONFIG: '' };
  /** A watch process, from spawn to ready. */
  const startWatch = async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        join(o.root, 'bin/meshdoctor.js'),
        'watch',
        '-A',
        '--kubeconfig',
        kube.kubeconfig,
        '--listen',
        `127.0.0.1:${port}`,
        ...o.extraArgs,
      ],
      {
        cwd: o.root,
        stdio: ['ignore', 'ignore', 'pipe'],
        env,
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    const stop = async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      child.kill('SIGKILL');
    };
    for (;;) {
      if ((await get(`${url}/readyz`)).status === 200) break;
      if (child.exitCode !== null || performance.now() - t0 > 600_000) {
        await stop();
        throw new Error(`watch not ready (exit ${child.exitCode}): ${stderr}`);
      }
      await sleep(25);
    }
    return { child, url, ms: performance.now() - t0, stop };
  };
  /** One `check -A`, spawn to exit. */
  const check = () =>
    new Promise<number>((resolve) => {
      const t0 = performance.now();
      const c = spawn(
        process.execPath,
        [
          join(o.root, 'bin/meshdoctor.js'),
          'check',
          '-A',
          '--kubeconfig',
          kube.kubeconfig,
          '-o',
          'json',
          ...o.extraArgs,
        ],
        {
          cwd: o.root,
          stdio: 'ignore',
          env,
        },
      );
      c.on('exit', () => resolve(performance.now() - t0));
    });
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const syncs: number[] = [];
  const checks: number[] = [];
  for (let i = 0; i < o.runs; i++) {
    checks.push(await check());
    const w = await startWatch();
    syncs.push(w.ms);
    await w.stop();
  }
  const syncMs = med(syncs);
  const checkMs = med(checks);
  o.log(
    `  watch ${o.variant} ${o.pods}: ready in ${(syncMs / 1000).toFixed(2)}s, check -A ${(checkMs / 1000).toFixed(2)}s (medians of ${o.runs})`,
  );

  const { child, url, stop } = await startWatch();
  try {
    await sleep(2000);
    const syncRssMB = procKB(child.pid!, 'VmRSS');
    const latencyMs: number[] = [];
    const stamp = Date.now().toString(36);
    for (let i = 0; i < o.latencyPods; i++) {
      const name = `md-bench-${stamp}-${i}`;
      const start = performance.now();
      await kube.admin.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: ns, labels: { 'meshdoctor-bench': 'watch' } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'example/app:1',
              resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '16Mi' } },
            },
          ],
        },
      });
      for (;;) {
        if ((await get(`${url}/metrics`)).body.includes(`name="${name}"`)) break;
        if (performance.now() - start > 30_000) {
          problems.push(`pod ${name} not in /metrics within 30 s`);
          break;
        }
        await sleep(50);
      }
      latencyMs.push(performance.now() - start);
    }
    await cleanup();
    // Let the deletions be evaluated and the lazy full evaluation run.
    await sleep(15_000);

    let churn: WatchBench['churn'];
    if (o.churnSeconds && o.churnRate) {
      const rate = o.churnRate;
      const live: string[] = [];
      let created = 0;
      let deleted = 0;
      const pending = new Set<Promise<unknown>>();
      const fire = (p: Promise<unknown>) => {
        const q = p.catch((e) => problems.push(`churn: ${String(e).slice(0, 200)}`)).finally(() => pending.delete(q));
        pending.add(q);
      };
      const e0 = sum((await get(`${url}/metrics`)).body, 'meshdoctor_watch_events_total');
      const cpu0 = cpuSeconds(child.pid!);
      const t0 = performance.now();
      o.log(`  churn: ${rate} pods/s created and deleted for ${o.churnSeconds} s`);
      for (let i = 0; performance.now() - t0 < o.churnSeconds * 1000; i++) {
        // One tick: a pod created, and (once 10 s of pods live) the oldest deleted.
        const name = `md-churn-${stamp}-${i}`;
        fire(
          kube.admin.create({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, namespace: ns, labels: { 'meshdoctor-bench': 'watch' } },
            spec: {
              containers: [
                {
                  name: 'app',
                  image: 'example/app:1',
                  resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '16Mi' } },
                },
              ],
            },
          }),
        );
        created++;
        live.push(name);
        if (live.length > rate * 10) {
          const old = live.shift()!;
          fire(
            kube.admin.request('DELETE', `/api/v1/namespaces/${ns}/pods/${old}?gracePeriodSeconds=0`).then((r) => {
              if (r.status >= 300 && r.status !== 404) throw new Error(`DELETE ${old}: HTTP ${r.status}`);
            }),
          );
          deleted++;
        }
        while (pending.size > 64) await Promise.race(pending);
        const next = t0 + ((i + 1) * 1000) / rate;
        await sleep(Math.max(0, next - performance.now()));
      }
      await Promise.all(pending);
      await cleanup();
      deleted += live.length;
      await sleep(15_000);
      const events = sum((await get(`${url}/metrics`)).body, 'meshdoctor_watch_events_total') - e0;
      const cpu = cpuSeconds(child.pid!) - cpu0;
      churn = {
        seconds: o.churnSeconds,
        rate,
        created,
        deleted,
        events,
        cpuSeconds: cpu,
        cpuMsPerEvent: events ? (cpu * 1000) / events : NaN,
        rssMB: procKB(child.pid!, 'VmRSS'),
      };
      o.log(
        `  churn: ${created} created, ${deleted} deleted, ${events} events, ${cpu.toFixed(1)} CPU s (${churn.cpuMsPerEvent.toFixed(2)} ms/event), RSS ${syncRssMB.toFixed(0)} MB after sync, ${churn.rssMB.toFixed(0)} MB after churn`,
      );
    }

    const before = {
      watch: (await get(`${url}/metrics`)).body,
      server: metricSums(await kube.admin.metrics(), wantedRequests),
      cpu: serverCpu(),
      mine: cpuSeconds(child.pid!),
    };
    await sleep(o.idleSeconds * 1000);
    const after = {
      watch: (await get(`${url}/metrics`)).body,
      server: metricSums(await kube.admin.metrics(), wantedRequests),
      cpu: serverCpu(),
      mine: cpuSeconds(child.pid!),
    };
    const steadyRssMB = procKB(child.pid!, 'VmRSS');
    const peakRssMB = procKB(child.pid!, 'VmHWM');
    const relists = sum(after.watch, 'meshdoctor_relists_total') - sum(before.watch, 'meshdoctor_relists_total');
    const restarts =
      sum(after.watch, 'meshdoctor_watch_restarts_total') - sum(before.watch, 'meshdoctor_watch_restarts_total');
    if (relists > 0) problems.push(`${relists} relists while nothing changed`);
    const serverRequests = Object.fromEntries(
      [...diff(after.server, before.server)].map(([k, v]) => [/verb="([^"]*)"/.exec(k)?.[1] ?? k, v]),
    );
    return {
      pods: o.pods,
      variant: o.variant,
      syncMs,
      checkMs,
      runs: o.runs,
      latencyMs,
      p50Ms: pct(latencyMs, 50),
      p99Ms: pct(latencyMs, 99),
      steadyRssMB,
      peakRssMB,
      checkRssMB: o.checkRssMB,
      idleSeconds: o.idleSeconds,
      relists,
      restarts,
      serverRequests,
      serverCpuPerHour: { baseline, withWatch: ((after.cpu - before.cpu) * 3600) / o.idleSeconds },
      watchCpuPerHour: ((after.mine - before.mine) * 3600) / o.idleSeconds,
      idleLists: serverRequests.LIST ?? 0,
      syncRssMB,
      ...(churn ? { churn } : {}),
      problems,
    };
  } finally {
    await stop();
    await cleanup().catch(() => {});
  }
}
