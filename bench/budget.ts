/**
 * The budget of a check (docs/performance.md "Cost per check, and the budget of a new check"), and the table
 * `npm run bench:checks` writes, as pure functions of the measurements: bench/per-check.ts measures, this judges and
 * renders, so that test/per-check-budget.test.ts can inject figures (no timing in a test on a shared machine).
 *
 * A check's cost is its CPU "in the run" (after the checks before it, as `check -A` runs them: the shared facts an
 * earlier check asked for are already in the model's memo), as a share of the parse floor of the same input measured
 * in the same run. Its budget: 2% of the floor on the 20k-pod slim List, 1% on the 5k-pod real-size List.
 *
 * ALLOWANCES is the debt: the checks over budget when the budget was made enforceable (issue 33, round 12), each with
 * the share it may not exceed (what it cost then, with headroom for a loaded machine) and why. A check not
 * listed there (every new check) gets the budget alone; an allowance may only shrink, and goes when its check fits.
 */

/** One check's medians on one input. */
export interface CheckCost {
  check: string;
  inRunMs: number;
  aloneMs: number;
}

/** One input's measurements (bench/per-check.ts). */
export interface InputCost {
  label: string;
  pods: number;
  realistic: boolean;
  floorMs: number;
  loadMs: number;
  checksMs: number;
  rows: CheckCost[];
}

/** "20k slim", "5k real-size": the input's name in the table and in BUDGETS. */
export const inputName = (r: Pick<InputCost, 'pods' | 'realistic'>) =>
  `${r.pods / 1000}k ${r.realistic ? 'real-size' : 'slim'}`;

/** The share of the floor a check may cost in the run, per input (an input not named here has no budget). */
export const BUDGETS: Readonly<Record<string, number>> = { '20k slim': 0.02, '5k real-size': 0.01 };

/** A check over budget today: the share of the floor it may not exceed, per input, and why it is over. */
export interface Allowance {
  shares: Readonly<Record<string, number>>;
  why: string;
}

const FIRST =
  'the first check to ask for the shared facts (workload index, app workloads, installed meshes, decisions, marker problems, missing proxies) pays for them in the run';

/**
 * Round 12's debt: each check's largest share in three runs on the shared machine at load 19-29 (bench:checks, medians
 * of 3, and two interleaved A/B runs of medians of 5, after this round's cuts), times 1.5 for the load, rounded up to
 * half a percent; only for the inputs where it was over or near its budget. Shrink an entry when its check gets
 * cheaper; remove it when the check fits its budget.
 */
export const ALLOWANCES: Readonly<Record<string, Allowance>> = {
  'namespace-not-enabled': { shares: { '20k slim': 0.19, '5k real-size': 0.15 }, why: FIRST },
  'pod-opted-out': {
    shares: { '20k slim': 0.07, '5k real-size': 0.06 },
    why: 'every template read per mesh, with the sidecarless enrolment of its pods',
  },
  'pod-predates-enablement': { shares: { '20k slim': 0.3, '5k real-size': 0.25 }, why: FIRST },
  'webhook-excludes-namespace': { shares: { '5k real-size': 0.025 }, why: 'the decisions of every app workload' },
  'quota-blocks-proxy': {
    shares: { '20k slim': 0.05, '5k real-size': 0.045 },
    why: 'the injected pod of every workload of a namespace with a quota',
  },
  'job-never-completes': { shares: { '20k slim': 0.06, '5k real-size': 0.055 }, why: 'every Job pod grouped' },
  'proxy-cannot-start': {
    shares: { '20k slim': 0.1, '5k real-size': 0.1 },
    why: 'every container status of every pod carrying a mesh container',
  },
  'proxy-outdated': {
    shares: { '20k slim': 0.075, '5k real-size': 0.05 },
    why: 'the proxy version of every meshed pod',
  },
  'app-starts-before-proxy': { shares: { '20k slim': 0.055, '5k real-size': 0.015 }, why: 'every meshed pod' },
  'proxy-removed': {
    shares: { '20k slim': 0.13, '5k real-size': 0.07 },
    why: "every active pod asked every mesh's announcement",
  },
  'init-before-proxy': {
    shares: { '20k slim': 0.085, '5k real-size': 0.055 },
    why: 'every pod carrying a mesh container',
  },
  'init-rewritten': { shares: { '20k slim': 0.06, '5k real-size': 0.03 }, why: 'every pod carrying a mesh container' },
  'pod-predates-node-agent': { shares: { '20k slim': 0.04, '5k real-size': 0.025 }, why: 'every meshed pod' },
  'proxy-hold-stuck': { shares: { '20k slim': 0.04, '5k real-size': 0.025 }, why: 'every meshed pod' },
  'component-cert-not-reloaded': {
    shares: { '20k slim': 0.095, '5k real-size': 0.045 },
    why: "every pod asked its mesh's control-plane test",
  },
  'mesh-key-value-invalid': { shares: { '20k slim': 0.03, '5k real-size': 0.02 }, why: 'every template key' },
  'control-plane-down': {
    shares: { '20k slim': 0.125, '5k real-size': 0.09 },
    why: 'every pod scanned for the symptoms of each mesh',
  },
  'mesh-ranges-miss-cluster': {
    shares: { '20k slim': 0.145, '5k real-size': 0.085 },
    why: "every Service and pod address against the meshes' ranges",
  },
  'webhook-call-failed': { shares: { '5k real-size': 0.03 }, why: 'the FailedCreate events of every workload' },
  'mesh-key-unknown': { shares: { '20k slim': 0.04, '5k real-size': 0.03 }, why: 'every template key' },
  // Round 13: only pods that wait or ended are read, the node agents' releases in one pass for every mesh (2.7% at
  // load 33, from 8.3% in round 12).
  'known-release-bug': {
    shares: { '20k slim': 0.045, '5k real-size': 0.015 },
    why: 'the container statuses of every meshed pod',
  },
};

/** A check over what it may cost on one input. */
export interface Over {
  check: string;
  input: string;
  ms: number;
  /** Its share of the floor. */
  share: number;
  budget: number;
  /** The allowance it exceeds too, where it has one. */
  allowance?: number;
}

/**
 * Every check over its budget on an input with one: over its allowance where it has one ("over"), or within its
 * allowance ("allowed": the debt, reported, not failing).
 */
export function judge(
  results: readonly InputCost[],
  allowances: Readonly<Record<string, Allowance>> = ALLOWANCES,
  budgets: Readonly<Record<string, number>> = BUDGETS,
): { over: Over[]; allowed: Over[] } {
  const over: Over[] = [];
  const allowed: Over[] = [];
  for (const r of results) {
    const input = inputName(r);
    const budget = budgets[input];
    if (budget === undefined || !(r.floorMs > 0)) continue;
    for (const x of r.rows) {
      const share = x.inRunMs / r.floorMs;
      if (share <= budget) continue;
      const allowance = Object.hasOwn(allowances, x.check) ? allowances[x.check]!.shares[input] : undefined;
      const o: Over = {
        check: x.check,
        input,
        ms: x.inRunMs,
        share,
        budget,
        ...(allowance !== undefined ? { allowance } : {}),
      };
      (allowance !== undefined && share <= allowance ? allowed : over).push(o);
    }
  }
  return { over, allowed };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** One line per check over what it may cost: what `--strict` prints before it exits 1. */
export const overLines = (over: readonly Over[]): string[] =>
  over.map(
    (o) =>
      `over budget: ${o.check} on ${o.input}: ${o.ms.toFixed(0)} ms in the run, ${pct(o.share)} of the floor > ${o.allowance !== undefined ? `its allowance ${pct(o.allowance)} (budget ${pct(o.budget)})` : `budget ${pct(o.budget)}`}`,
  );

/** The per-check table of docs/performance.md (between its per-check markers). */
export function renderTable(results: readonly InputCost[], runs: number, checks: readonly string[]): string[] {
  const share = (x: number, f: number) => `${((100 * x) / f).toFixed(1)}%`;
  const lines: string[] = [];
  lines.push(
    `CPU ms per check (medians of ${runs}; "in the run": after the checks before it, as \`check -A\` runs them; "alone": a fresh model, the facts it shares included), and its share of the parse floor of the same input measured in the same run; budget ${results.map((r) => `${pct(BUDGETS[inputName(r)] ?? NaN)} on ${inputName(r)}`).join(', ')} (\`npm run bench:checks -- --strict\`)`,
  );
  lines.push('');
  const head = results.map(inputName);
  lines.push(`| check | ${head.map((h) => `${h} in the run ms | ${h} share of floor | ${h} alone ms`).join(' | ')} |`);
  lines.push(`|---|${head.map(() => '---:|---:|---:').join('|')}|`);
  for (const id of checks) {
    const cells = results.map((r) => {
      const x = r.rows.find((y) => y.check === id);
      return x ? `${x.inRunMs.toFixed(0)} | ${share(x.inRunMs, r.floorMs)} | ${x.aloneMs.toFixed(0)}` : ' |  | ';
    });
    lines.push(`| ${id} | ${cells.join(' | ')} |`);
  }
  lines.push(
    `| **all checks** | ${results.map((r) => `${r.checksMs.toFixed(0)} | ${share(r.checksMs, r.floorMs)} | `).join(' | ')} |`,
  );
  lines.push(
    `| (loading the file) | ${results.map((r) => `${r.loadMs.toFixed(0)} | ${share(r.loadMs, r.floorMs)} | `).join(' | ')} |`,
  );
  lines.push(
    `| (the floor: node + read + JSON.parse) | ${results.map((r) => `${r.floorMs.toFixed(0)} | 100% | `).join(' | ')} |`,
  );
  return lines;
}
