/**
 * `npm run bench`: how far meshdoctor is from the cost of reading its input once, on the inputs
 * users have, each measured in this one run against the floor of the very same input.
 *
 * Inputs (bench/generate.ts; `slim`: the objects the checks need, `real-size`: pods of 7-10 KB
 * as a real API server returns them, with managedFields, probes, env, volumes, full status):
 *   live      `check -A --kubeconfig K` against a REAL kube-apiserver v1.32 + etcd
 *             (../shared/k8s/apiserver.sh; the cluster loaded once through the API and cached in
 *             bench/out/k8s/), at 5k and 50k pods, slim and real-size. Floor: bench/floor-live.mjs
 *             (the same GETs, JSON.parse, nothing else). Also the server's CPU (kube-apiserver +
 *             etcd, from /proc) during each run.
 *   offline   `check -A --snapshot FILE` on a kubectl List in JSON (compact, one item a line) at
 *             5k, 20k and 50k pods, and on meshdoctor's own snapshot file, slim and real-size.
 *             Floor: bench/floor-file.mjs (readFileSync + JSON.parse).
 *   YAML      the kubectl List as `-o yaml` (small: YAML is capped at 32 MiB). Floor:
 *             bench/floor-yaml.mjs (the yaml package's parse).
 *   requests  (the in-process test API server, 1k pods) all GET, one LIST per kind per page,
 *             cluster-wide, only the kinds the checks declare, ConfigMaps/Secrets only by name in
 *             the mesh namespaces; each check alone lists only its own kinds.
 *   startup   --version and `checks` against `node -e 0`.
 *   watch     `meshdoctor watch -A` on the live real-size clusters (bench/watch.ts): initial sync
 *             + first evaluation against the `check -A` of the same run, a new unmeshed pod's
 *             latency to /metrics (p99 of --watch-pods), steady RSS against `check -A`'s peak,
 *             and an idle window: relists (none) and the API server's cost per hour.
 * Every pair runs interleaved (meshdoctor, floor, meshdoctor, ...) after one warm-up of each;
 * wall time from spawn to exit, peak RSS by GNU time; medians.
 *
 *   tsx bench/run.ts [--quick] [--live 5000,50000] [--offline 5000,20000,50000] [--yaml 1000]
 *                    [--runs N] [--no-kube] [--strict] [--no-watch] [--watch-pods 100] [--watch-idle 120]
 * Writes bench/out/results.json and bench/out/results.md (the table of docs/performance.md: scripts/readme.mjs).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer, type RecordedRequest } from '../test/apiserver/server.js';
import { slim } from '../src/mesh/keep.js';
import { dumpable, writeKubectlJson, writeKubectlYaml } from './formats.js';
import { generateCluster, toSnapshot, writeSnapshot } from './generate.js';
import { KUBE_AVAILABLE, cpuSeconds, floorConfig, kubeCluster } from './kube.js';
import { benchWatch, type WatchBench } from './watch.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'bench', 'out');
const BIN = join(ROOT, 'bin', 'meshdoctor.js');
const PAGE_SIZE = 500; // src/cluster/gather.ts DEFAULT_PAGE_SIZE
const MESH_NAMESPACES = new Set(['linkerd', 'istio-system']);
/** Files of 50k real-size pods are larger than the default --max-bytes (256 MiB). */
const MAX_BYTES = ['--max-bytes', '2048'];

// What the built CLI runs (dist), not the sources being edited.
const { CHECKS } = await import(join(ROOT, 'dist/checks/index.js'));
const { kindsFor } = await import(join(ROOT, 'dist/run/run.js'));
const { readPlanOf } = await import(join(ROOT, 'dist/run/plan.js'));
/** The API server's own endpoints the checks read (`/version`, `/metrics`; its pods come with the pods list under -A). */
const serverPaths = (checks: unknown[]): string[] =>
  (readPlanOf(checks).server as string[]).filter((k) => k !== 'apiserverPods').map((k) => `/${k}`);
const { KINDS, kindOf, listPath, objectPath } = await import(join(ROOT, 'dist/k8s/kinds.js'));
const { namedObjects } = await import(join(ROOT, 'dist/mesh/read-plan.js'));

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const sizes = (name: string, def: number[]) => opt(name)?.split(',').filter(Boolean).map(Number) ?? def;
const LIVE = argv.includes('--no-kube') || !KUBE_AVAILABLE ? [] : sizes('live', quick ? [5000] : [5000, 50_000]);
const OFFLINE = sizes('offline', quick ? [5000] : [5000, 20_000, 50_000]);
const YAML_PODS = sizes('yaml', [1000]);
const VERIFY_PODS = 1000;
const WATCH = !argv.includes('--no-watch');
const WATCH_PODS = Number(opt('watch-pods') ?? (quick ? 20 : 100));
const WATCH_IDLE = Number(opt('watch-idle') ?? (quick ? 30 : 120));
const runsFor = (pods: number) => Number(opt('runs') ?? (quick ? 3 : pods >= 50_000 ? 3 : 5));
const VARIANTS = ['slim', 'real'] as const;
type Variant = (typeof VARIANTS)[number];
const variantLabel = (v: Variant) => (v === 'real' ? 'real-size' : 'slim');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const log = (s: string) => process.stderr.write(s + '\n');

interface Sample {
  ms: number;
  rssMB: number;
  code: number | null;
  stderr: string;
}

/** Run `node ARGS` under GNU time; wall time from spawn to exit, peak RSS of the node process. */
async function measure(args: string[], stdoutFile?: string): Promise<Sample> {
  const rssFile = join(OUT, `.rss-${process.pid}`);
  const fd = stdoutFile ? openSync(stdoutFile, 'w') : 'ignore';
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, ...args], {
    cwd: ROOT,
    stdio: ['ignore', fd, 'pipe'],
    env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '' },
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - t0;
  if (typeof fd === 'number') closeSync(fd);
  const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
  return { ms, rssMB: Number(lines[lines.length - 1]) / 1024, code, stderr };
}

function summaryOf(file: string): { findings: number; skipped: string[] } {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  return { findings: r.findings.length, skipped: r.skipped.map((s: { check: string }) => s.check) };
}

interface Row {
  section: 'live' | 'offline' | 'yaml';
  input: string;
  variant: Variant;
  pods: number;
  objects: number;
  mb: number;
  runs: number;
  md: { ms: number; rssMB: number }[];
  floor: { ms: number; rssMB: number }[];
  /** CPU seconds of kube-apiserver + etcd during each run. */
  serverCpu?: { md: number[]; floor: number[] };
  findings?: number;
  problems: string[];
}

/**
 * meshdoctor against its floor on one input: a warm-up of each, then `runs` interleaved pairs.
 * `server`: the pids whose CPU time each run costs (a real API server).
 */
async function pair(row: Row, mdArgs: string[], floorArgs: string[], server?: number[]): Promise<Row> {
  const outFile = join(OUT, 'last-run.json');
  const serverCpu = () => (server ?? []).reduce((n, pid) => n + cpuSeconds(pid), 0);
  if (server) row.serverCpu = { md: [], floor: [] };
  const one = async (which: 'md' | 'floor', record: boolean) => {
    const c0 = serverCpu();
    const s = which === 'md' ? await measure([BIN, ...mdArgs], outFile) : await measure(floorArgs);
    const cpu = serverCpu() - c0;
    const ok = which === 'md' ? s.code === 0 || s.code === 1 : s.code === 0;
    if (!ok) {
      row.problems.push(`${which} exited ${s.code}: ${s.stderr.trim().split('\n').slice(-2).join(' | ')}`);
      log(`  ${which} FAILED (exit ${s.code}): ${s.stderr.trim().slice(0, 500)}`);
    }
    if (!record) return;
    row[which].push({ ms: s.ms, rssMB: s.rssMB });
    row.serverCpu?.[which].push(cpu);
    if (which === 'md' && ok) row.findings = summaryOf(outFile).findings;
  };
  await one('floor', false);
  await one('md', false);
  for (let i = 0; i < row.runs; i++) {
    await one('floor', true);
    await one('md', true);
  }
  const m = stats(row);
  log(
    `  ${row.input} ${variantLabel(row.variant)} ${row.pods}: meshdoctor ${(m.md.ms / 1000).toFixed(2)}s ${m.md.rssMB.toFixed(0)} MB, floor ${(m.floor.ms / 1000).toFixed(2)}s ${m.floor.rssMB.toFixed(0)} MB: ${m.ratio.toFixed(2)}x time, ${m.rssRatio.toFixed(2)}x RSS`,
  );
  return row;
}

function stats(r: Row) {
  const med = (xs: { ms: number; rssMB: number }[], f: 'ms' | 'rssMB') => median(xs.map((x) => x[f]));
  const md = { ms: med(r.md, 'ms'), rssMB: med(r.md, 'rssMB') };
  const floor = { ms: med(r.floor, 'ms'), rssMB: med(r.floor, 'rssMB') };
  return {
    md,
    floor,
    ratio: md.ms / floor.ms,
    rssRatio: md.rssMB / floor.rssMB,
    serverCpu: r.serverCpu && { md: median(r.serverCpu.md), floor: median(r.serverCpu.floor) },
  };
}

// --- requests on the test API server --------------------------------------------------------

/** The requests `check -A` must make: every LIST page of the listable kinds, and the named objects. */
function expectedRequests(objects: any[], kinds: string[]) {
  const count = new Map<string, number>();
  for (const o of objects) {
    const key = kindOf(o.kind)!.key;
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  const lists = new Map<string, { key: string; pages: number }>();
  for (const key of kinds) {
    if (KINDS[key].byName) continue;
    lists.set(listPath(KINDS[key]), { key, pages: Math.max(1, Math.ceil((count.get(key) ?? 0) / PAGE_SIZE)) });
  }
  const ns = objects.filter((o) => o.kind === 'Namespace');
  const mwc = objects.filter((o) => o.kind === 'MutatingWebhookConfiguration');
  const named = namedObjects(ns, mwc)
    .filter((r: { key: string }) => kinds.includes(r.key))
    .map(
      (r: { key: string; namespace: string; name: string }) => objectPath(KINDS[r.key], r.namespace, r.name) as string,
    );
  return { lists, named: new Set<string>([...named, ...serverPaths(CHECKS)]) };
}

/** Problems with the requests of one `check -A` run (empty: as required). */
function verifyRequests(reqs: RecordedRequest[], exp: ReturnType<typeof expectedRequests>): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const r of reqs) {
    seen.set(r.path, (seen.get(r.path) ?? 0) + 1);
    if (r.method !== 'GET') problems.push(`${r.method} ${r.path}`);
    if (/\/(configmaps|secrets)(\/|$)/.test(r.path)) {
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/(configmaps|secrets)\/[^/]+$/.exec(r.path);
      if (!m || !MESH_NAMESPACES.has(m[1]!))
        problems.push(`ConfigMap/Secret not by name in a mesh namespace: ${r.path}`);
    }
    if (exp.lists.has(r.path)) {
      if (r.query.limit !== String(PAGE_SIZE)) problems.push(`${r.path}?limit=${r.query.limit}`);
    } else if (!exp.named.has(r.path)) {
      problems.push(`unexpected request ${r.path}`);
    }
  }
  for (const [path, { pages }] of exp.lists)
    if ((seen.get(path) ?? 0) !== pages) problems.push(`${path}: ${seen.get(path) ?? 0} requests for ${pages} pages`);
  for (const path of exp.named) if (seen.get(path) !== 1) problems.push(`${path}: ${seen.get(path) ?? 0} GETs`);
  return [...new Set(problems)];
}

async function verify(allKinds: string[]) {
  const objects = generateCluster({ pods: VERIFY_PODS, seed: 1 });
  const server = await startApiServer({ objects });
  const kubeconfig = await server.writeKubeconfig();
  const exp = expectedRequests(objects, allKinds);
  const live = ['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'];
  const outFile = join(OUT, 'last-only.json');
  const before = server.requests.length;
  const s = await measure([BIN, ...live], outFile);
  const reqs = server.requests.slice(before);
  const problems = s.code === 0 || s.code === 1 ? verifyRequests(reqs, exp) : [`check -A exited ${s.code}`];
  const expected = [...exp.lists.values()].reduce((n, l) => n + l.pages, 0) + exp.named.size;
  const perCheck = [];
  for (const c of CHECKS) {
    const kinds: string[] = kindsFor([c]);
    const b = server.requests.length;
    const r = await measure([BIN, ...live, '--only', c.id], outFile);
    const rq = server.requests.slice(b);
    const listed = [...new Set(rq.filter((x) => !/\/(configmaps|secrets)\//.test(x.path)).map((x) => x.path))];
    const own = serverPaths([c]);
    const extra = listed.filter(
      (p) => !own.includes(p) && (!exp.lists.has(p) || !kinds.includes(exp.lists.get(p)!.key)),
    );
    const missing = [
      ...kinds.filter((k) => !KINDS[k].byName && !listed.includes(listPath(KINDS[k]))),
      ...own.filter((p) => !listed.includes(p)),
    ];
    const named = rq.filter((x) => /\/(configmaps|secrets)\//.test(x.path)).map((x) => x.path);
    const badNamed = named.filter((p) => !kinds.includes(p.includes('/configmaps/') ? 'configmaps' : 'secrets'));
    const { skipped } = r.code === 0 || r.code === 1 ? summaryOf(outFile) : { skipped: ['(run failed)'] };
    perCheck.push({ check: c.id, kinds, requests: rq.length, extra, missing, badNamed, skipped });
  }
  await server.close();
  return { requests: reqs.length, expected, problems, perCheck };
}

// --- the run ----------------------------------------------------------------------------------

mkdirSync(OUT, { recursive: true });
const allKinds: string[] = kindsFor(CHECKS);
const results: any = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  pageSize: PAGE_SIZE,
  kinds: allKinds,
  rows: [] as Row[],
  watch: [] as WatchBench[],
};
const t0 = performance.now();
const newRow = (section: Row['section'], input: string, variant: Variant, pods: number): Row => ({
  section,
  input,
  variant,
  pods,
  objects: 0,
  mb: 0,
  runs: runsFor(pods),
  md: [],
  floor: [],
  problems: [],
});

// Live, on a real kube-apiserver.
if (LIVE.length) {
  for (const pods of LIVE) {
    for (const variant of VARIANTS) {
      let objects: any[] | undefined;
      const kube = await kubeCluster(
        `${variant}-${pods}`,
        () => (objects ??= generateCluster({ pods, seed: 1, realistic: variant === 'real' })),
        log,
      );
      try {
        const cfg = await floorConfig(kube, allKinds, PAGE_SIZE, serverPaths(CHECKS));
        const cfgFile = join(OUT, `floor-live-${variant}-${pods}.json`);
        writeFileSync(cfgFile, JSON.stringify(cfg));
        const row = newRow('live', 'live, real kube-apiserver', variant, pods);
        const probe = JSON.parse(
          await new Promise<string>((res) => {
            const c = spawn(process.execPath, [join(ROOT, 'bench/floor-live.mjs'), cfgFile], {
              stdio: ['ignore', 'pipe', 'inherit'],
            });
            let out = '';
            c.stdout.on('data', (d) => (out += d));
            c.on('close', () => res(out));
          }),
        );
        row.objects = probe.objects;
        row.mb = probe.bytes / 1e6;
        results.rows.push(
          await pair(
            row,
            ['check', '-A', '--kubeconfig', kube.kubeconfig, '-o', 'json', ...MAX_BYTES],
            [join(ROOT, 'bench/floor-live.mjs'), cfgFile],
            [kube.pids.apiserver, kube.pids.etcd],
          ),
        );
        rmSync(cfgFile);
        // watch on the real-size cluster, against this run's check -A.
        if (WATCH && variant === 'real') {
          const m = stats(row);
          const w = await benchWatch(kube, {
            root: ROOT,
            pods,
            variant: variantLabel(variant),
            runs: row.runs,
            checkRssMB: m.md.rssMB,
            latencyPods: WATCH_PODS,
            idleSeconds: WATCH_IDLE,
            extraArgs: MAX_BYTES,
            log,
          });
          log(
            `  watch ${w.variant} ${pods}: sync ${(w.syncMs / 1000).toFixed(2)}s (${(w.syncMs / w.checkMs).toFixed(2)}x check -A), new pod p50 ${w.p50Ms.toFixed(0)} ms p99 ${w.p99Ms.toFixed(0)} ms, steady RSS ${w.steadyRssMB.toFixed(0)} MB (${(w.steadyRssMB / w.checkRssMB).toFixed(2)}x check -A peak), idle: ${w.relists} relists, server ${(w.serverCpuPerHour.withWatch - w.serverCpuPerHour.baseline).toFixed(1)} CPU s/h`,
          );
          results.watch.push(w);
        }
      } finally {
        await kube.stop();
      }
    }
  }
} else {
  log(
    `live on a real kube-apiserver skipped: ${KUBE_AVAILABLE ? '--no-kube' : '../shared/k8s/apiserver.sh not found'}`,
  );
}

// Offline: kubectl List JSON and meshdoctor's snapshot file.
for (const pods of OFFLINE) {
  for (const variant of VARIANTS) {
    let objects: any[] | undefined = generateCluster({ pods, seed: 1, realistic: variant === 'real' });
    const listFile = join(OUT, `list-${variant}-${pods}.json`);
    const snapFile = join(OUT, `snapshot-${variant}-${pods}.json`);
    let fd = openSync(listFile, 'w');
    const dump = dumpable(objects);
    const listBytes = writeKubectlJson(dump, fd);
    closeSync(fd);
    // As `meshdoctor snapshot` saves it: slimmed (after the List is written from the same objects).
    const snap = toSnapshot(objects);
    for (const [key, list] of Object.entries(snap.objects))
      if (key !== 'secrets') for (let i = 0; i < list.length; i++) list[i] = slim(key, list[i]!);
    fd = openSync(snapFile, 'w');
    const snapBytes = writeSnapshot(snap, fd);
    closeSync(fd);
    const count = dump.length;
    objects = undefined;
    for (const [input, file, bytes] of [
      ['kubectl List JSON', listFile, listBytes],
      ['meshdoctor snapshot', snapFile, snapBytes],
    ] as const) {
      const row = newRow('offline', input, variant, pods);
      row.objects = count;
      row.mb = bytes / 1e6;
      results.rows.push(
        await pair(
          row,
          ['check', '-A', '--snapshot', file, '-o', 'json', ...MAX_BYTES],
          [join(ROOT, 'bench/floor-file.mjs'), file],
        ),
      );
    }
    rmSync(listFile);
    rmSync(snapFile);
  }
}

// YAML (kubectl get -o yaml): small, as meshdoctor parses at most 32 MiB of YAML.
for (const pods of YAML_PODS) {
  for (const variant of VARIANTS) {
    const dump = dumpable(generateCluster({ pods, seed: 1, realistic: variant === 'real' }));
    const file = join(OUT, `list-${variant}-${pods}.yaml`);
    const fd = openSync(file, 'w');
    const bytes = writeKubectlYaml(dump, fd);
    closeSync(fd);
    const row = newRow('yaml', 'kubectl List YAML', variant, pods);
    row.objects = dump.length;
    row.mb = bytes / 1e6;
    row.runs = Number(opt('runs') ?? 3);
    results.rows.push(
      await pair(row, ['check', '-A', '--snapshot', file, '-o', 'json'], [join(ROOT, 'bench/floor-yaml.mjs'), file]),
    );
    rmSync(file);
  }
}

// Requests, on the test API server.
log(`requests: the test API server, ${VERIFY_PODS} pods`);
results.requests = await verify(allKinds);

// Startup: interleaved, 10 runs each.
const startup: Record<string, number[]> = { node: [], version: [], checks: [], help: [] };
const startupArgs: Record<string, string[]> = {
  node: ['-e', '0'],
  version: [BIN, '--version'],
  checks: [BIN, 'checks'],
  help: [BIN, '--help'],
};
for (const k of Object.keys(startup)) await measure(startupArgs[k]!); // warm-up
for (let i = 0; i < 10; i++)
  for (const k of Object.keys(startup)) startup[k]!.push((await measure(startupArgs[k]!)).ms);
results.startup = Object.fromEntries(Object.entries(startup).map(([k, v]) => [k, { ms: v, median: median(v) }]));
results.seconds = (performance.now() - t0) / 1000;

// --- report ---------------------------------------------------------------------------------
const sec = (ms: number) => (ms / 1000).toFixed(2);
const mb = (x: number) => x.toFixed(0);
const rows: Row[] = results.rows;
const lines: string[] = [];
lines.push(
  `meshdoctor bench — ${results.machine.cpus} CPUs (${results.machine.model}), node ${results.machine.node}, page size ${PAGE_SIZE}; medians of N runs, each against its floor in the same run (${Math.round(results.seconds / 60)} min in all)`,
);
lines.push('');
lines.push(
  '| input | pods | objects | MB | N | meshdoctor s | floor s | time vs floor | RSS MB meshdoctor / floor | RSS vs floor | server CPU s meshdoctor / floor | findings |',
);
lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const m = stats(r);
  lines.push(
    `| ${r.input}, ${variantLabel(r.variant)} | ${r.pods} | ${r.objects} | ${mb(r.mb)} | ${r.runs} | ${sec(m.md.ms)} | ${sec(m.floor.ms)} | ${m.ratio.toFixed(2)}x | ${mb(m.md.rssMB)} / ${mb(m.floor.rssMB)} | ${m.rssRatio.toFixed(2)}x | ${m.serverCpu ? `${m.serverCpu.md.toFixed(2)} / ${m.serverCpu.floor.toFixed(2)}` : ''} | ${r.findings ?? '?'} |`,
  );
}
const st = results.startup;
lines.push('');
lines.push('| startup | median ms | vs node -e 0 |');
lines.push('|---|---:|---:|');
for (const [k, label] of <[keyof typeof st, string][]>[
  ['node', 'node -e 0'],
  ['version', 'meshdoctor --version'],
  ['checks', 'meshdoctor checks'],
  ['help', 'meshdoctor --help'],
]) {
  lines.push(`| ${label} | ${st[k].median.toFixed(0)} | ${(st[k].median / st.node.median).toFixed(2)}x |`);
}

const watchRows: WatchBench[] = results.watch;
if (watchRows.length) {
  lines.push('');
  lines.push(
    '| meshdoctor watch, live real-size | pods | sync + first evaluation s | check -A s (interleaved, medians) | ratio | new pod in /metrics p50 / p99 ms | steady / peak RSS MB | check -A peak RSS MB | steady RSS ratio | idle: relists, watch restarts | server CPU s/h with watch / without | watch CPU s/h |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const w of watchRows) {
    lines.push(
      `| ${w.latencyMs.length} new pods, ${w.idleSeconds} s idle, N=${w.runs} | ${w.pods} | ${sec(w.syncMs)} | ${sec(w.checkMs)} | ${(w.syncMs / w.checkMs).toFixed(2)}x | ${w.p50Ms.toFixed(0)} / ${w.p99Ms.toFixed(0)} | ${mb(w.steadyRssMB)} / ${mb(w.peakRssMB)} | ${mb(w.checkRssMB)} | ${(w.steadyRssMB / w.checkRssMB).toFixed(2)}x | ${w.relists}, ${w.restarts} | ${w.serverCpuPerHour.withWatch.toFixed(1)} / ${w.serverCpuPerHour.baseline.toFixed(1)} | ${w.watchCpuPerHour.toFixed(1)} |`,
    );
  }
}

// Targets.
const targets: { name: string; pass: boolean | null; detail: string }[] = [];
const find = (section: Row['section'], input: string, variant: Variant, pods: number) =>
  rows.find((r) => r.section === section && r.input === input && r.variant === variant && r.pods === pods);
const ratioTarget = (name: string, limit: number, picks: (Row | undefined)[], f: 'ratio' | 'rssRatio') => {
  const have = picks.filter((r): r is Row => !!r);
  if (!have.length) return targets.push({ name, pass: null, detail: 'not measured in this run' });
  const vals = have.map((r) => ({ r, v: stats(r)[f] }));
  targets.push({
    name,
    pass: vals.every((x) => x.v <= limit),
    detail: vals
      .map(
        (x) =>
          `${x.v.toFixed(2)}x ${variantLabel(x.r.variant)} ${x.r.pods}${x.r.section === 'offline' && x.r.input.startsWith('meshdoctor') ? ' (snapshot)' : ''}`,
      )
      .join(', '),
  });
};
const liveRows = rows.filter((r) => r.section === 'live');
ratioTarget('live check -A ≤ 1.15x floor (5k, 50k pods; slim, real-size)', 1.15, liveRows, 'ratio');
const listRows = [20_000, 50_000].flatMap((p) => VARIANTS.map((v) => find('offline', 'kubectl List JSON', v, p)));
ratioTarget(
  'offline on a kubectl List JSON ≤ 1.3x parse floor (20k, 50k pods; slim, real-size)',
  1.3,
  listRows,
  'ratio',
);
ratioTarget(
  "peak RSS ≤ 1.3x the floor's (live and offline JSON, every size)",
  1.3,
  rows.filter((r) => r.section !== 'yaml'),
  'rssRatio',
);
// Linear growth: meshdoctor's cost per extra pod between sizes within 1.25x of the cost per extra pod between smaller sizes (offline: three sizes) or of the floor's (live: two sizes).
for (const f of ['ms', 'rssMB'] as const) {
  const what = f === 'ms' ? 'time' : 'memory';
  const unit = f === 'ms' ? 'ms' : 'MB';
  const details: string[] = [];
  let pass: boolean | null = null;
  for (const v of VARIANTS) {
    const off = OFFLINE.map((p) => find('offline', 'kubectl List JSON', v, p)).filter((r): r is Row => !!r);
    if (off.length >= 3) {
      const [a, b, c] = off.slice(-3).map((r) => ({ pods: r.pods, x: stats(r).md[f] }));
      const s1 = (b!.x - a!.x) / (b!.pods - a!.pods);
      const s2 = (c!.x - b!.x) / (c!.pods - b!.pods);
      const ok = s2 <= 1.25 * Math.max(s1, 0);
      pass = (pass ?? true) && ok;
      details.push(
        `offline ${variantLabel(v)}: ${(s1 * 1000).toFixed(f === 'ms' ? 0 : 1)} then ${(s2 * 1000).toFixed(f === 'ms' ? 0 : 1)} ${unit}/1k pods`,
      );
    }
    const live = LIVE.map((p) => find('live', 'live, real kube-apiserver', v, p)).filter((r): r is Row => !!r);
    if (live.length >= 2) {
      const [a, b] = [live[0]!, live.at(-1)!].map((r) => stats(r));
      const md = (b!.md[f] - a!.md[f]) / (live.at(-1)!.pods - live[0]!.pods);
      const fl = (b!.floor[f] - a!.floor[f]) / (live.at(-1)!.pods - live[0]!.pods);
      const ok = md <= 1.25 * Math.max(fl, 0);
      pass = (pass ?? true) && ok;
      details.push(
        `live ${variantLabel(v)}: ${(md * 1000).toFixed(f === 'ms' ? 0 : 1)} vs floor ${(fl * 1000).toFixed(f === 'ms' ? 0 : 1)} ${unit}/1k pods`,
      );
    }
  }
  targets.push({
    name: `${what} linear in pods (cost per extra 1k pods: offline ≤ 1.25x the smaller sizes'; live ≤ 1.25x the floor's)`,
    pass,
    detail: details.join('; ') || 'needs three offline or two live sizes',
  });
}
if (WATCH && LIVE.length) {
  const at = (p: number) => watchRows.filter((w) => w.pods === p);
  targets.push({
    name: 'watch: initial sync + first evaluation ≤ 1.2x one check -A (5k, 50k real-size pods)',
    pass: watchRows.length ? watchRows.every((w) => w.syncMs <= 1.2 * w.checkMs) : null,
    detail: watchRows.map((w) => `${(w.syncMs / w.checkMs).toFixed(2)}x at ${w.pods}`).join(', ') || 'not measured',
  });
  const big = at(Math.max(...LIVE));
  targets.push({
    name: `watch: a new unmeshed pod in /metrics within 2 s, p99 of ${WATCH_PODS} (at ${Math.max(...LIVE)} pods)`,
    pass: big.length ? big.every((w) => w.p99Ms <= 2000 && !w.problems.length) : null,
    detail:
      watchRows
        .map((w) => `p99 ${w.p99Ms.toFixed(0)} ms at ${w.pods}${w.problems.length ? ` (${w.problems[0]})` : ''}`)
        .join(', ') || 'not measured',
  });
  targets.push({
    name: "watch: steady RSS ≤ 1.3x check -A's peak",
    pass: watchRows.length ? watchRows.every((w) => w.steadyRssMB <= 1.3 * w.checkRssMB) : null,
    detail:
      watchRows.map((w) => `${(w.steadyRssMB / w.checkRssMB).toFixed(2)}x at ${w.pods}`).join(', ') || 'not measured',
  });
  targets.push({
    name: 'watch: no periodic relists (none in the idle window); server cost per hour reported',
    pass: watchRows.length ? watchRows.every((w) => w.relists === 0) : null,
    detail:
      watchRows
        .map(
          (w) =>
            `${w.pods}: ${w.relists} relists, requests ${Object.entries(w.serverRequests)
              .map(([k, v]) => `${k} ${v}`)
              .join(
                ' ',
              )} in ${w.idleSeconds} s, kube-apiserver+etcd +${(w.serverCpuPerHour.withWatch - w.serverCpuPerHour.baseline).toFixed(1)} CPU s/h`,
        )
        .join('; ') || 'not measured',
  });
}
const yamlRows = rows.filter((r) => r.section === 'yaml');
targets.push({
  name: 'YAML input measured and reported',
  pass: yamlRows.length > 0 && yamlRows.every((r) => r.md.length > 0 && !r.problems.length),
  detail: yamlRows
    .map(
      (r) =>
        `${stats(r).ratio.toFixed(2)}x time, ${stats(r).rssRatio.toFixed(2)}x RSS the yaml package's parse (${variantLabel(r.variant)} ${r.pods})`,
    )
    .join('; '),
});
const req = results.requests;
targets.push({
  name: 'requests: one LIST per kind per page, all GET, nothing per object, ConfigMaps/Secrets only by name in mesh namespaces',
  pass: req.problems.length === 0,
  detail: req.problems.length
    ? req.problems.slice(0, 8).join('; ')
    : `${req.requests} requests (${req.expected} expected) at ${VERIFY_PODS} pods`,
});
const per = req.perCheck as any[];
const perBad = per.filter((p) => p.extra.length || p.missing.length || p.badNamed.length);
targets.push({
  name: 'never list kinds no selected check needs (each check alone, --only)',
  pass: perBad.length === 0,
  detail: perBad.length
    ? perBad
        .map(
          (p) =>
            `${p.check}: extra ${p.extra.join(',') || '-'} missing ${p.missing.join(',') || '-'} named ${p.badNamed.join(',') || '-'}`,
        )
        .join('; ')
    : `${per.length} checks`,
});
const soloSkipped = per.filter((p) => p.skipped.length);
if (soloSkipped.length)
  targets.push({
    name: 'each check alone can run (not skipped for lack of its own inputs)',
    pass: false,
    detail: soloSkipped.map((p) => `${p.check} skipped`).join('; '),
  });
const failed = rows.filter((r) => r.problems.length);
if (failed.length)
  targets.push({
    name: 'every run exits as expected',
    pass: false,
    detail: failed.map((r) => `${r.input} ${variantLabel(r.variant)} ${r.pods}: ${r.problems[0]}`).join('; '),
  });
for (const k of ['version', 'checks', 'help']) {
  const r = st[k].median / st.node.median;
  targets.push({
    name: `meshdoctor ${k === 'checks' ? 'checks' : `--${k}`} < 2x node -e 0`,
    pass: r < 2,
    detail: `${r.toFixed(2)}x (${st[k].median.toFixed(0)} vs ${st.node.median.toFixed(0)} ms)`,
  });
}
results.targets = targets;
lines.push('');
lines.push('| target | result | detail |');
lines.push('|---|---|---|');
for (const t of targets)
  lines.push(`| ${t.name} | ${t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'FAIL'} | ${t.detail} |`);
writeFileSync(join(OUT, 'results.json'), JSON.stringify(results, null, 2) + '\n');
// The table as docs/performance.md shows it (scripts/readme.mjs copies it in), with where it was measured.
writeFileSync(join(OUT, 'results.md'), lines.join('\n') + '\n');
rmSync(join(OUT, `.rss-${process.pid}`), { force: true });
rmSync(join(OUT, 'last-run.json'), { force: true });
process.stdout.write(lines.join('\n') + '\n');
// --strict: exit 1 when a target fails (for CI); by default the table is the result.
if (argv.includes('--strict') && targets.some((t) => t.pass === false)) process.exitCode = 1;
