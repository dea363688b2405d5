/**
 * `npm run bench:watch`: `meshdoctor watch -A` on a real kube-apiserver v1.32 + etcd holding
 * real-size pods (bench/generate.ts, loaded once through the API with concurrent creates and
 * cached in bench/out/k8s/, as bench/run.ts does), on its own: bench/watch.ts measures
 *   - spawn to /readyz 200 (first sync + evaluation) against one `check -A`, interleaved, medians;
 *   - a new unmeshed pod's delay to its series in /metrics, p50 and p99 of --latency-pods;
 *   - RSS after the first sync and after --churn seconds of pods created and deleted at
 *     --churn-rate a second, the watch's CPU per watch event during the churn;
 *   - an idle window: the API server's requests by verb (LIST must be 0), relists, CPU per hour.
 * The `check -A` of the same run is measured under GNU time (its peak RSS) for the ratio.
 *
 *   tsx bench/watch-bench.ts [--pods 50000] [--runs 3] [--latency-pods 100] [--churn 300]
 *                            [--churn-rate 10] [--idle 60] [--load-only]
 * Writes bench/out/watch-<pods>.json and prints a table row.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCluster } from './generate.js';
import { KUBE_AVAILABLE, kubeCluster } from './kube.js';
import { benchWatch } from './watch.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'bench', 'out');
const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const PODS = opt('pods', 50_000);
const MAX_BYTES = ['--max-bytes', '2048'];
const log = (s: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

if (!KUBE_AVAILABLE) {
  log('../shared/k8s/apiserver.sh not found: nothing to measure');
  process.exit(0);
}
mkdirSync(OUT, { recursive: true });
const kube = await kubeCluster(`real-${PODS}`, () => generateCluster({ pods: PODS, seed: 1, realistic: true }), log);
try {
  if (kube.loadSeconds) log(`loaded in ${kube.loadSeconds.toFixed(0)} s`);
  if (!argv.includes('--load-only')) {
    // check -A's peak RSS (GNU time), for the ratio of the watch's RSS.
    const rssFile = join(OUT, `.rss-watch-${process.pid}`);
    await new Promise((res) =>
      spawn(
        '/usr/bin/time',
        [
          '-f',
          '%M %e %U %S',
          '-o',
          rssFile,
          process.execPath,
          join(ROOT, 'bin/meshdoctor.js'),
          'check',
          '-A',
          '--kubeconfig',
          kube.kubeconfig,
          '-o',
          'json',
          ...MAX_BYTES,
        ],
        { stdio: 'ignore', env: { ...process.env, KUBECONFIG: '' } },
      ).on('exit', res),
    );
    const [kb, wall, user, sys] = readFileSync(rssFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    rmSync(rssFile, { force: true });
    const checkRssMB = kb! / 1024;
    log(`check -A: peak RSS ${checkRssMB.toFixed(0)} MB, ${wall} s wall, ${(user! + sys!).toFixed(2)} CPU s`);
    const w = await benchWatch(kube, {
      root: ROOT,
      pods: PODS,
      variant: 'real-size',
      runs: opt('runs', 3),
      checkRssMB,
      latencyPods: opt('latency-pods', 100),
      idleSeconds: opt('idle', 60),
      churnSeconds: opt('churn', 300),
      churnRate: opt('churn-rate', 10),
      extraArgs: MAX_BYTES,
      log,
    });
    const { latencyMs, ...rest } = w;
    writeFileSync(join(OUT, `watch-${PODS}.json`), JSON.stringify({ ...rest, latencyMs }, null, 2) + '\n');
    const f = (x: number, d = 0) => x.toFixed(d);
    const lines = [
      `| pods | ready s / check -A s (ratio) | new pod in /metrics p50 / p99 ms (n) | RSS MB after sync / after churn (ratio) | churn | CPU ms per event | idle ${w.idleSeconds} s: LIST requests, relists | check -A peak RSS MB |`,
      '|---:|---|---|---|---|---:|---|---:|',
      `| ${PODS} | ${f(w.syncMs / 1000, 2)} / ${f(w.checkMs / 1000, 2)} (${f(w.syncMs / w.checkMs, 2)}x) | ${f(w.p50Ms)} / ${f(w.p99Ms)} (${latencyMs.length}) | ${f(w.syncRssMB)} / ${w.churn ? f(w.churn.rssMB) : '-'} (${w.churn ? f(w.churn.rssMB / w.syncRssMB, 2) : '-'}x) | ${w.churn ? `${w.churn.created} created, ${w.churn.deleted} deleted in ${w.churn.seconds} s, ${w.churn.events} events` : '-'} | ${w.churn ? f(w.churn.cpuMsPerEvent, 2) : '-'} | ${w.idleLists}, ${w.relists} | ${f(checkRssMB)} |`,
    ];
    if (w.problems.length) lines.push('', `problems: ${w.problems.slice(0, 5).join('; ')}`);
    process.stdout.write(lines.join('\n') + '\n');
  }
} finally {
  await kube.stop();
}
