/**
 * `npm run bench:checks`: what each check costs, against the parse floor of the same input, on the
 * 20k-pod slim and the 5k-pod real-size kubectl Lists of bench/generate.ts.
 *
 * For each input: the file is loaded once (as `check -A --snapshot` loads it), then every check is
 * run in catalog order over ONE model, as `check -A` runs them: a check's CPU here is what it adds
 * to the run, the facts it shares with an earlier check (the model's memo: decisions, pod states,
 * missing proxies) already paid by that one ("in the run"). Then each check alone over a fresh
 * model ("alone": its shared facts included: what it would cost if it were the only one). CPU is
 * this process's user + system time (process.cpuUsage), medians of --runs repetitions. The floor
 * is bench/floor-file.mjs (a fresh node that reads the file and JSON.parses it) under GNU time,
 * the median of --runs runs interleaved with the repetitions, in the same run.
 *
 *   tsx bench/per-check.ts [--runs 3] [--strict]
 * --strict: exit 1 naming each check over its budget (2% of the floor on 20k slim, 1% on 5k real-size, in the run),
 * or over its allowance where bench/budget.ts lists one (the checks over budget when the budget was made enforceable).
 * Writes bench/out/per-check.json and bench/out/per-check.md.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dumpable, writeKubectlJson } from './formats.js';
import { generateCluster } from './generate.js';
import { judge, overLines, renderTable, type InputCost } from './budget.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'bench', 'out');
const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const RUNS = opt('runs', 3);
/** --strict: exit 1 when a check costs more than its budget (or its allowance: bench/budget.ts). */
const STRICT = argv.includes('--strict');

// What the built CLI runs (dist), not the sources being edited.
const { CHECKS } = await import(join(ROOT, 'dist/checks/index.js'));
const { runChecks } = await import(join(ROOT, 'dist/run/run.js'));
const { loadSnapshot } = await import(join(ROOT, 'dist/run/read.js'));
const { DEFAULT_LIMITS } = await import(join(ROOT, 'dist/util/limits.js'));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const log = (s: string) => process.stderr.write(s + '\n');

/** The floor's CPU ms (user + system of the whole process, GNU time). */
function floorMs(file: string): number {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, join(ROOT, 'bench/floor-file.mjs'), file], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const [u, s] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return (u! + s!) * 1000;
}

interface Input {
  label: string;
  pods: number;
  realistic: boolean;
}
const INPUTS: Input[] = [
  { label: 'kubectl List JSON, slim', pods: 20_000, realistic: false },
  { label: 'kubectl List JSON, real-size', pods: 5_000, realistic: true },
];

const opts = { mesh: 'auto', certExpiryWarningDays: 30 };
const results: InputCost[] = [];
mkdirSync(OUT, { recursive: true });
for (const input of INPUTS) {
  const file = join(OUT, `checks-${input.realistic ? 'real' : 'slim'}-${input.pods}.json`);
  if (!existsSync(file)) {
    log(`generating ${file}`);
    const fd = openSync(file, 'w');
    writeKubectlJson(dumpable(generateCluster({ pods: input.pods, seed: 1, realistic: input.realistic })), fd);
    closeSync(fd);
  }
  const floor: number[] = [];
  const load: number[] = [];
  const inRun = new Map<string, number[]>();
  const alone = new Map<string, number[]>();
  const all: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    floor.push(floorMs(file));
    global.gc?.();
    let t = cpuMs();
    const snapshot = await loadSnapshot([file], undefined, { ...DEFAULT_LIMITS, maxBytes: 2048 * 2 ** 20 });
    load.push(cpuMs() - t);
    // In the run: one model, every check in order (the memo shared, as check -A runs them).
    const { makeModel } = await import(join(ROOT, 'dist/run/run.js'));
    const model = makeModel(snapshot, opts);
    const t0 = cpuMs();
    for (const c of CHECKS) {
      t = cpuMs();
      runChecks(snapshot, [c], opts, model);
      (inRun.get(c.id) ?? inRun.set(c.id, []).get(c.id)!).push(cpuMs() - t);
    }
    all.push(cpuMs() - t0);
    // Alone: a fresh model per check.
    for (const c of CHECKS) {
      t = cpuMs();
      runChecks(snapshot, [c], opts);
      (alone.get(c.id) ?? alone.set(c.id, []).get(c.id)!).push(cpuMs() - t);
    }
  }
  const f = median(floor);
  const rows = CHECKS.map((c: { id: string; code: string }) => ({
    check: c.id,
    code: c.code,
    inRunMs: median(inRun.get(c.id)!),
    aloneMs: median(alone.get(c.id)!),
  }));
  results.push({ ...input, floorMs: f, loadMs: median(load), checksMs: median(all), rows });
  log(
    `${input.label} ${input.pods}: floor ${f.toFixed(0)} ms, load ${median(load).toFixed(0)} ms, checks ${median(all).toFixed(0)} ms`,
  );
}

const lines = renderTable(
  results,
  RUNS,
  CHECKS.map((c: { id: string }) => c.id),
);
writeFileSync(join(OUT, 'per-check.json'), JSON.stringify(results, null, 2) + '\n');
writeFileSync(join(OUT, 'per-check.md'), lines.join('\n') + '\n');
process.stdout.write(lines.join('\n') + '\n');

// The budget (bench/budget.ts): the checks over it within their allowance are the debt, said; any other is a failure
// with --strict (exit 1), a warning without.
const { over, allowed } = judge(results);
for (const o of allowed)
  log(
    `allowed: ${o.check} on ${o.input}: ${(100 * o.share).toFixed(1)}% of the floor (budget ${(100 * o.budget).toFixed(0)}%, allowance ${(100 * o.allowance!).toFixed(1)}%)`,
  );
for (const l of overLines(over)) log(l);
if (over.length) {
  log(`${over.length} over budget${STRICT ? '' : ' (--strict makes this an exit status)'}`);
  if (STRICT) process.exitCode = 1;
} else log('every check within its budget or allowance');
