/**
 * `npm run bench`: how far meshdoctor is from the cost of reading the data once.
 *
 * For each size (1k, 10k, 50k pods): generate a cluster, write it as a snapshot file, serve it
 * from the test API server (HTTPS on loopback, in this process: the server and the child share
 * the machine's cores, for meshdoctor and for the floor alike), then interleave runs of
 *   live        node bin/meshdoctor.js check -A --kubeconfig K -o json
 *   floor-live  node bench/floor-live.mjs (the same GETs, JSON.parse, nothing else)
 *   offline     node bin/meshdoctor.js check -A --snapshot FILE -o json
 *   floor-file  node bench/floor-file.mjs FILE (read + JSON.parse)
 * measuring wall time (spawn to exit) and peak RSS (GNU time %M) of the child, and the requests
 * the server saw (verified: all GET, one LIST per kind per page, cluster-wide, only the kinds the
 * checks declare, ConfigMaps/Secrets only by name in the mesh namespaces). Also: each check alone
 * lists only its own kinds, and startup of --version / checks against `node -e 0`.
 *
 *   tsx bench/run.ts [--quick] [--sizes 1000,10000] [--runs N] [--strict]
 * Prints a markdown table with medians, ratios and PASS/FAIL per target; writes bench/out/results.json
 * and bench/out/results.md (the README's table).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer, type RecordedRequest } from '../test/apiserver/server.js';
import { generateCluster, toSnapshot, writeSnapshot } from './generate.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'bench', 'out');
const BIN = join(ROOT, 'bin', 'meshdoctor.js');
const PAGE_SIZE = 500; // src/cluster/gather.ts DEFAULT_PAGE_SIZE
const MESH_NAMESPACES = new Set(['linkerd', 'istio-system']);

// What the built CLI runs (dist), not the sources being edited.
const { CHECKS } = await import(join(ROOT, 'dist/checks/index.js'));
const { kindsFor } = await import(join(ROOT, 'dist/run.js'));
const { KINDS, kindOf, listPath, objectPath } = await import(join(ROOT, 'dist/cluster/kinds.js'));
const { namedObjects } = await import(join(ROOT, 'dist/cluster/named.js'));

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const SIZES = opt('sizes')?.split(',').map(Number) ?? (quick ? [1000] : [1000, 10_000, 50_000]);
const runsFor = (pods: number) => Number(opt('runs') ?? (quick ? 3 : pods >= 50_000 ? 3 : 5));

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
    .map((r: { key: string; namespace: string; name: string }) => objectPath(KINDS[r.key], r.namespace, r.name) as string);
  return { lists, named: new Set<string>(named) };
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
      if (!m || !MESH_NAMESPACES.has(m[1]!)) problems.push(`ConfigMap/Secret not by name in a mesh namespace: ${r.path}`);
    }
    if (exp.lists.has(r.path)) {
      if (r.query.limit !== String(PAGE_SIZE)) problems.push(`${r.path}?limit=${r.query.limit}`);
    } else if (!exp.named.has(r.path)) {
      problems.push(`unexpected request ${r.path}`);
    }
  }
  for (const [path, { pages }] of exp.lists) if ((seen.get(path) ?? 0) !== pages) problems.push(`${path}: ${seen.get(path) ?? 0} requests for ${pages} pages`);
  for (const path of exp.named) if (seen.get(path) !== 1) problems.push(`${path}: ${seen.get(path) ?? 0} GETs`);
  return [...new Set(problems)];
}

function summaryOf(file: string): { findings: number; skipped: string[] } {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  return { findings: r.findings.length, skipped: r.skipped.map((s: { check: string }) => s.check) };
}

mkdirSync(OUT, { recursive: true });
const allKinds: string[] = kindsFor(CHECKS);
const results: any = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  pageSize: PAGE_SIZE,
  kinds: allKinds,
  sizes: [] as any[],
};

for (const pods of SIZES) {
  const t0 = performance.now();
  const objects = generateCluster({ pods, seed: 1 });
  const file = join(OUT, `cluster-${pods}.json`);
  const fd = openSync(file, 'w');
  const bytes = writeSnapshot(toSnapshot(objects), fd);
  closeSync(fd);
  const server = await startApiServer({ objects });
  const kubeconfig = await server.writeKubeconfig();
  const exp = expectedRequests(objects, allKinds);
  const floorCfg = join(OUT, `floor-${pods}.json`);
  writeFileSync(
    floorCfg,
    JSON.stringify({ server: server.url, ca: server.caPem, token: server.token, pageSize: PAGE_SIZE, lists: [...exp.lists.keys()], gets: [...exp.named] }),
  );
  log(`${pods} pods: ${objects.length} objects, ${(bytes / 1e6).toFixed(0)} MB, generated in ${((performance.now() - t0) / 1000).toFixed(1)}s`);

  const live = ['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'];
  const offline = ['check', '-A', '--snapshot', file, '-o', 'json'];
  const size: any = {
    pods,
    objects: objects.length,
    bytes,
    runs: runsFor(pods),
    live: [],
    floorLive: [],
    offline: [],
    floorFile: [],
    requests: [],
    serverCpuMs: { live: [], floorLive: [] },
    problems: [],
  };
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const run = async (kind: 'live' | 'floorLive' | 'offline' | 'floorFile', record: boolean) => {
    const before = server.requests.length;
    const c0 = cpu();
    const outFile = join(OUT, `last-${kind}.json`);
    const s =
      kind === 'live'
        ? await measure([BIN, ...live], outFile)
        : kind === 'offline'
          ? await measure([BIN, ...offline], outFile)
          : kind === 'floorLive'
            ? await measure([join(ROOT, 'bench/floor-live.mjs'), floorCfg])
            : await measure([join(ROOT, 'bench/floor-file.mjs'), file]);
    const serverMs = cpu() - c0;
    const ok = kind === 'live' || kind === 'offline' ? s.code === 0 || s.code === 1 : s.code === 0;
    if (!ok) {
      size.problems.push(`${kind} exited ${s.code}: ${s.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      log(`  ${kind} FAILED (exit ${s.code}): ${s.stderr.trim()}`);
    }
    if (!record) return s;
    size[kind].push({ ms: s.ms, rssMB: s.rssMB });
    if (kind === 'live' || kind === 'floorLive') size.serverCpuMs[kind].push(serverMs);
    if (kind === 'live') {
      const reqs = server.requests.slice(before);
      size.requests.push(reqs.length);
      size.problems.push(...verifyRequests(reqs, exp));
      size.liveSummary = summaryOf(outFile);
    }
    if (kind === 'offline') size.offlineSummary = summaryOf(outFile);
    return s;
  };

  // One warm-up of each (page cache, the server's JIT), then interleaved measured runs.
  for (const k of ['floorLive', 'live', 'floorFile', 'offline'] as const) await run(k, false);
  for (let i = 0; i < size.runs; i++) {
    for (const k of ['floorLive', 'live', 'floorFile', 'offline'] as const) await run(k, true);
    log(
      `  run ${i + 1}/${size.runs}: live ${(size.live.at(-1).ms / 1000).toFixed(2)}s / floor ${(size.floorLive.at(-1).ms / 1000).toFixed(2)}s, offline ${(size.offline.at(-1).ms / 1000).toFixed(2)}s / floor ${(size.floorFile.at(-1).ms / 1000).toFixed(2)}s`,
    );
  }
  size.problems = [...new Set(size.problems)];
  size.expectedRequests = [...exp.lists.values()].reduce((n, l) => n + l.pages, 0) + exp.named.size;

  // Each check alone lists only the kinds it declares (the smallest size is enough).
  if (pods === SIZES[0]) {
    size.perCheck = [];
    for (const c of CHECKS) {
      const kinds: string[] = kindsFor([c]);
      const before = server.requests.length;
      const outFile = join(OUT, 'last-only.json');
      const s = await measure([BIN, ...live, '--only', c.id], outFile);
      const reqs = server.requests.slice(before);
      const listed = [...new Set(reqs.filter((r) => !/\/(configmaps|secrets)\//.test(r.path)).map((r) => r.path))];
      const extra = listed.filter((p) => !exp.lists.has(p) || !kinds.includes(exp.lists.get(p)!.key));
      const missing = kinds.filter((k) => !KINDS[k].byName && !listed.includes(listPath(KINDS[k])));
      const named = reqs.filter((r) => /\/(configmaps|secrets)\//.test(r.path)).map((r) => r.path);
      const badNamed = named.filter((p) => !kinds.includes(p.includes('/configmaps/') ? 'configmaps' : 'secrets'));
      const { skipped } = s.code === 0 || s.code === 1 ? summaryOf(outFile) : { skipped: ['(run failed)'] };
      size.perCheck.push({ check: c.id, kinds, requests: reqs.length, extra, missing, badNamed, skipped });
    }
  }
  await server.close();
  rmSync(floorCfg);
  results.sizes.push(size);
}

// Startup: interleaved, 10 runs each.
const startup: Record<string, number[]> = { node: [], version: [], checks: [] };
const startupArgs: Record<string, string[]> = { node: ['-e', '0'], version: [BIN, '--version'], checks: [BIN, 'checks'] };
for (const k of Object.keys(startup)) await measure(startupArgs[k]!); // warm-up
for (let i = 0; i < 10; i++) for (const k of Object.keys(startup)) startup[k]!.push((await measure(startupArgs[k]!)).ms);
results.startup = Object.fromEntries(Object.entries(startup).map(([k, v]) => [k, { ms: v, median: median(v) }]));

// --- report ---------------------------------------------------------------------------------
const med = (xs: { ms: number; rssMB: number }[], f: 'ms' | 'rssMB') => median(xs.map((x) => x[f]));
for (const s of results.sizes) {
  s.median = Object.fromEntries(['live', 'floorLive', 'offline', 'floorFile'].map((k) => [k, { ms: med(s[k], 'ms'), rssMB: med(s[k], 'rssMB') }]));
  s.median.serverCpuMs = { live: median(s.serverCpuMs.live), floorLive: median(s.serverCpuMs.floorLive) };
  s.ratio = { live: s.median.live.ms / s.median.floorLive.ms, offline: s.median.offline.ms / s.median.floorFile.ms };
}
const sec = (ms: number) => (ms / 1000).toFixed(2);
const mb = (x: number) => x.toFixed(0);
const lines: string[] = [];
lines.push(
  `meshdoctor bench — ${results.machine.cpus} CPUs (${results.machine.model}), node ${results.machine.node}, page size ${PAGE_SIZE}, medians of N runs`,
);
lines.push('');
lines.push(
  '| pods | objects | MB | N | live s | floor s | live/floor | offline s | floor s | offline/floor | RSS MB live / floor | RSS MB offline / floor | requests (expected) | server CPU s live / floor |',
);
lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const s of results.sizes) {
  const m = s.median;
  lines.push(
    `| ${s.pods} | ${s.objects} | ${mb(s.bytes / 1e6)} | ${s.runs} | ${sec(m.live.ms)} | ${sec(m.floorLive.ms)} | ${s.ratio.live.toFixed(2)}x | ${sec(m.offline.ms)} | ${sec(m.floorFile.ms)} | ${s.ratio.offline.toFixed(2)}x | ${mb(m.live.rssMB)} / ${mb(m.floorLive.rssMB)} | ${mb(m.offline.rssMB)} / ${mb(m.floorFile.rssMB)} | ${median(s.requests)} (${s.expectedRequests}) | ${sec(m.serverCpuMs.live)} / ${sec(m.serverCpuMs.floorLive)} |`,
  );
}
const st = results.startup;
lines.push('');
lines.push(`| startup | median ms | vs node -e 0 |`);
lines.push('|---|---:|---:|');
for (const [k, label] of [
  ['node', 'node -e 0'],
  ['version', 'meshdoctor --version'],
  ['checks', 'meshdoctor checks'],
]) {
  lines.push(`| ${label} | ${st[k].median.toFixed(0)} | ${(st[k].median / st.node.median).toFixed(2)}x |`);
}

// Targets.
const targets: { name: string; pass: boolean | null; detail: string }[] = [];
const big = results.sizes.at(-1);
const isBig = big.pods >= 50_000;
const gate = (name: string, pass: boolean, detail: string) =>
  targets.push({ name, pass: isBig ? pass : null, detail: isBig ? detail : `${detail} (only judged at 50k pods)` });
gate('live check -A ≤ 1.5x floor at 50k pods', big.ratio.live <= 1.5, `${big.ratio.live.toFixed(2)}x at ${big.pods}`);
gate('offline ≤ 2x floor at 50k pods', big.ratio.offline <= 2, `${big.ratio.offline.toFixed(2)}x at ${big.pods}`);
gate('peak RSS < 600 MB at 50k pods (live)', big.median.live.rssMB < 600, `${mb(big.median.live.rssMB)} MB (floor ${mb(big.median.floorLive.rssMB)})`);
gate('peak RSS < 600 MB at 50k pods (offline)', big.median.offline.rssMB < 600, `${mb(big.median.offline.rssMB)} MB (floor ${mb(big.median.floorFile.rssMB)})`);
const reqProblems = results.sizes.flatMap((s: any) => s.problems.map((p: string) => `${s.pods}: ${p}`));
targets.push({
  name: 'requests: one LIST per kind per page, all GET, nothing per object, ConfigMaps/Secrets only by name in mesh namespaces',
  pass: reqProblems.length === 0,
  detail: reqProblems.length ? reqProblems.slice(0, 8).join('; ') : 'as required at every size',
});
const per = results.sizes[0].perCheck as any[];
const perBad = per.filter((p) => p.extra.length || p.missing.length || p.badNamed.length);
targets.push({
  name: 'never list kinds no selected check needs (each check alone, --only)',
  pass: perBad.length === 0,
  detail: perBad.length
    ? perBad.map((p) => `${p.check}: extra ${p.extra.join(',') || '-'} missing ${p.missing.join(',') || '-'} named ${p.badNamed.join(',') || '-'}`).join('; ')
    : `${per.length} checks`,
});
const soloSkipped = per.filter((p) => p.skipped.length);
if (soloSkipped.length)
  targets.push({
    name: 'each check alone can run (not skipped for lack of its own inputs)',
    pass: false,
    detail: soloSkipped.map((p) => `${p.check} skipped`).join('; '),
  });
if (results.sizes.length >= 3) {
  // Linear growth: the cost per extra pod from 10k to 50k at most 1.25x the cost per extra pod from 1k to 10k.
  const [a, b, c] = results.sizes.slice(-3);
  for (const [k, f, label] of [
    ['live', 'ms', 'live time'],
    ['offline', 'ms', 'offline time'],
    ['live', 'rssMB', 'live RSS'],
    ['offline', 'rssMB', 'offline RSS'],
  ] as const) {
    const s1 = (b.median[k][f] - a.median[k][f]) / (b.pods - a.pods);
    const s2 = (c.median[k][f] - b.median[k][f]) / (c.pods - b.pods);
    targets.push({
      name: `linear growth: ${label}`,
      pass: s2 <= 1.25 * s1,
      detail: `per 1k extra pods: ${(s1 * 1000).toFixed(f === 'ms' ? 0 : 1)} (${a.pods}→${b.pods}) vs ${(s2 * 1000).toFixed(f === 'ms' ? 0 : 1)} (${b.pods}→${c.pods}) ${f === 'ms' ? 'ms' : 'MB'}; limit 1.25x`,
    });
  }
} else {
  targets.push({ name: 'linear growth', pass: null, detail: 'needs three sizes' });
}
for (const k of ['version', 'checks']) {
  const r = st[k].median / st.node.median;
  targets.push({
    name: `meshdoctor ${k === 'version' ? '--version' : 'checks'} ≤ 2.5x node -e 0`,
    pass: r <= 2.5,
    detail: `${r.toFixed(2)}x (${st[k].median.toFixed(0)} vs ${st.node.median.toFixed(0)} ms)`,
  });
}
results.targets = targets;
lines.push('');
lines.push('| target | result | detail |');
lines.push('|---|---|---|');
for (const t of targets) lines.push(`| ${t.name} | ${t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'FAIL'} | ${t.detail} |`);
for (const s of results.sizes) {
  lines.push('');
  lines.push(
    `${s.pods} pods: findings live ${s.liveSummary?.findings} / offline ${s.offlineSummary?.findings}; skipped checks: ${s.liveSummary?.skipped.join(', ') || 'none'}`,
  );
}
writeFileSync(join(OUT, 'results.json'), JSON.stringify(results, null, 2) + '\n');
// The table as the README shows it (scripts/readme.mjs copies it in), with where it was measured.
writeFileSync(join(OUT, 'results.md'), lines.join('\n') + '\n');
rmSync(join(OUT, `.rss-${process.pid}`), { force: true });
process.stdout.write(lines.join('\n') + '\n');
// --strict: exit 1 when a target fails (for CI); by default the table is the result.
if (argv.includes('--strict') && targets.some((t) => t.pass === false)) process.exitCode = 1;
