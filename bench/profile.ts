/**
 * Where the time goes: `check -A` live and offline under `node --cpu-prof`, the two floors for
 * comparison, and the in-process test API server (through the inspector) during the live runs.
 * Prints, per profile, the time by
 * category (meshdoctor's code, libraries, node internals, GC, native/VM: JSON.parse lands in the
 * caller or in "(program)") and the top functions of meshdoctor's own code by self and total time.
 *
 *   tsx bench/profile.ts [--pods 50000] [--top 15]
 * Profiles are kept in bench/out/prof/ (open them in Chrome DevTools / speedscope).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer } from '../test/apiserver/server.js';
import { generateCluster, toSnapshot, writeSnapshot } from './generate.js';

const ROOT_URL = new URL('..', import.meta.url).href;
const ROOT = fileURLToPath(ROOT_URL);
const OUT = join(ROOT, 'bench', 'out');
const PROF = join(OUT, 'prof');
const argv = process.argv.slice(2);
const opt = (n: string, d: number) => (argv.includes(`--${n}`) ? Number(argv[argv.indexOf(`--${n}`) + 1]) : d);
const pods = opt('pods', 50_000);
const TOP = opt('top', 15);

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a call frame belongs: meshdoctor's own code (as its src/ path), a library, node, or the VM. */
function place(url: string): { cat: string; file: string } {
  const lib = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (lib) return { cat: `lib ${lib[1]}`, file: lib[1]! };
  const own = url.startsWith(ROOT_URL) ? url.slice(ROOT_URL.length) : undefined;
  const m = own && /^dist\/(.+)\.js$/.exec(own);
  if (m) return { cat: 'meshdoctor', file: `src/${m[1]}.ts` };
  if (own?.startsWith('test/apiserver/')) return { cat: 'test server', file: own };
  if (url.startsWith('node:')) return { cat: 'node internals', file: url };
  if (!url) return { cat: 'native/VM', file: '' };
  return { cat: 'other', file: url };
}

/** The report of one profile; `brief`: the category line only. */
function analyze(name: string, prof: Profile, brief = false): string[] {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (id: number) => {
    const f = byId.get(id)!.callFrame;
    const { cat, file } = place(f.url);
    return {
      k: `${f.functionName || '(anonymous)'} ${file}${file ? `:${f.lineNumber + 1}` : ''}`,
      cat,
      name: f.functionName || '(anonymous)',
    };
  };
  const self = new Map<string, { ms: number; cat: string }>();
  const total = new Map<string, number>();
  const cats = new Map<string, number>();
  let all = 0;
  prof.samples.forEach((id, i) => {
    const ms = (prof.timeDeltas[i + 1] ?? 0) / 1000;
    all += ms;
    const { k, cat, name: fn } = key(id);
    const c = ['(garbage collector)', '(program)', '(idle)', '(root)'].includes(fn) ? fn : cat;
    cats.set(c, (cats.get(c) ?? 0) + ms);
    const s = self.get(k) ?? { ms: 0, cat };
    s.ms += ms;
    self.set(k, s);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const { k: kk, cat: cc } = key(cur);
      if (cc !== 'meshdoctor' || seen.has(kk)) continue;
      seen.add(kk);
      total.set(kk, (total.get(kk) ?? 0) + ms);
    }
  });
  const pct = (ms: number) => `${((100 * ms) / all).toFixed(1)}%`;
  const out = [
    `## ${name}: ${(all / 1000).toFixed(2)}s sampled`,
    '',
    'by category: ' +
      [...cats]
        .sort((a, b) => b[1] - a[1])
        .map(([c, ms]) => `${c} ${(ms / 1000).toFixed(2)}s (${pct(ms)})`)
        .join(', '),
    '',
  ];
  if (brief) return out;
  out.push('top self time (all code):');
  for (const [k, v] of [...self].sort((a, b) => b[1].ms - a[1].ms).slice(0, TOP))
    out.push(`  ${v.ms.toFixed(0).padStart(6)} ms ${pct(v.ms).padStart(6)}  ${k}`);
  out.push('', "top self time (meshdoctor's code):");
  for (const [k, v] of [...self]
    .filter(([, v]) => v.cat === 'meshdoctor')
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, TOP))
    out.push(`  ${v.ms.toFixed(0).padStart(6)} ms ${pct(v.ms).padStart(6)}  ${k}`);
  out.push('', "top total time (meshdoctor's code, callees included):");
  for (const [k, ms] of [...total].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    out.push(`  ${ms.toFixed(0).padStart(6)} ms ${pct(ms).padStart(6)}  ${k}`);
  out.push('');
  return out;
}

/**
 * Run `node --cpu-prof SCRIPT ARGS` (asynchronously: the server in this process must answer);
 * with `server`, this process is profiled meanwhile too.
 */
async function profileRun(
  tag: string,
  script: string,
  args: string[],
  server = false,
): Promise<{ child: Profile; server?: Profile }> {
  const dir = join(PROF, tag);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  if (server) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const fd = openSync(join(OUT, `last-prof-${tag}.json`), 'w');
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, script, ...args], {
    cwd: ROOT,
    stdio: ['ignore', fd, 'inherit'],
    env: { ...process.env, KUBECONFIG: '' },
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  closeSync(fd);
  if (code !== 0 && code !== 1) throw new Error(`${tag}: exit ${code}`);
  let serverProfile: Profile | undefined;
  if (server) {
    serverProfile = ((await session.post('Profiler.stop')) as unknown as { profile: Profile }).profile;
    session.disconnect();
    writeFileSync(join(PROF, `server-during-${tag}.cpuprofile`), JSON.stringify(serverProfile));
  }
  const prof = JSON.parse(
    readFileSync(
      join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!,
      ),
      'utf8',
    ),
  );
  return { child: prof, server: serverProfile };
}

mkdirSync(PROF, { recursive: true });
const objects = generateCluster({ pods, seed: 1 });
const file = join(OUT, `cluster-${pods}.json`);
const snapFd = openSync(file, 'w');
writeSnapshot(toSnapshot(objects), snapFd);
closeSync(snapFd);
const server = await startApiServer({ objects });
const kubeconfig = await server.writeKubeconfig();
const floorCfg = join(OUT, `floor-prof-${pods}.json`);
{
  // The same GETs as meshdoctor (bench/run.ts builds this list the same way, and checks it).
  const { CHECKS } = await import(join(ROOT, 'dist/checks/index.js'));
  const { kindsFor } = await import(join(ROOT, 'dist/run/run.js'));
  const { KINDS, listPath, objectPath } = await import(join(ROOT, 'dist/k8s/kinds.js'));
  const { namedObjects } = await import(join(ROOT, 'dist/mesh/read-plan.js'));
  const kinds: string[] = kindsFor(CHECKS);
  const ns = objects.filter((o) => o.kind === 'Namespace');
  const mwc = objects.filter((o) => o.kind === 'MutatingWebhookConfiguration');
  const lists = kinds.filter((k) => !KINDS[k].byName).map((k) => listPath(KINDS[k]));
  const gets = namedObjects(ns, mwc)
    .filter((r: { key: string }) => kinds.includes(r.key))
    .map((r: any) => objectPath(KINDS[r.key], r.namespace, r.name));
  writeFileSync(
    floorCfg,
    JSON.stringify({ server: server.url, ca: server.caPem, token: server.token, pageSize: 500, lists, gets }),
  );
}
const BIN = join(ROOT, 'bin/meshdoctor.js');
const offline = await profileRun('offline', BIN, ['check', '-A', '--snapshot', file, '-o', 'json']);
const floorFile = await profileRun('floor-file', join(ROOT, 'bench/floor-file.mjs'), [file]);
const live = await profileRun('live', BIN, ['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'], true);
const floorLive = await profileRun('floor-live', join(ROOT, 'bench/floor-live.mjs'), [floorCfg], true);
rmSync(floorCfg);
const report: string[] = [
  ...analyze(`offline check -A --snapshot (${pods} pods)`, offline.child),
  ...analyze('floor-file (for comparison)', floorFile.child, true),
  ...analyze(`live check -A (${pods} pods)`, live.child),
  ...analyze('floor-live (for comparison)', floorLive.child, true),
  ...analyze('test API server during the live run (bench process)', live.server!),
  ...analyze('test API server during the floor-live run (bench process)', floorLive.server!, true),
];
await server.close();

writeFileSync(join(OUT, `profile-${pods}.txt`), report.join('\n'));
process.stdout.write(report.join('\n') + '\n');
