/**
 * A fleet's report (`check --all-contexts`, `--contexts a,b`, `--snapshot DIR` of a fleet): each
 * cluster's is the single-cluster report, unchanged, with its context and server named. Human
 * formats start with one line per cluster (context, server, meshes, errors, warnings, coverage or
 * why it could not be read), then each cluster's own report, most important cluster first. `-o
 * json`/`yaml`: schema/fleet.schema.json (its `clusters` entries are schema/report.schema.json).
 */
import { Chalk } from 'chalk';
import type { FleetEntry, FleetResult } from '../run/fleet.js';
import type { RunResult } from '../run/result.js';
import { escapeInvisible, reportDoc } from './json.js';
import { junitCases, junitUnreachable, tally } from './junit.js';
import { markdown, md } from './markdown.js';
import type { ReportMeta } from './reporter.js';
import { SARIF_SCHEMA, one, sarifParts, sarifTool } from './sarif.js';
import { table, wide } from './table.js';
import { clean } from './text.js';
import { toYaml } from './yaml.js';
import { plural } from '../util/objects.js';

type FleetReporter = (fleet: FleetResult, meta: ReportMeta) => string;

type Reached = FleetEntry & { result: RunResult & { errors: string[] } };
const reached = (e: FleetEntry): e is Reached => e.result !== undefined;

/**
 * Most important first: clusters with errors (most first), then those that could not be read
 * (nothing is known of them), then warnings, then the rest; by context name within each.
 */
function fleetOrder(fleet: FleetResult): FleetEntry[] {
  const rank = (e: FleetEntry) => (e.result ? (e.result.summary.error ? 0 : e.result.summary.warning ? 2 : 3) : 1);
  return [...fleet.clusters].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (b.result?.summary.error ?? 0) - (a.result?.summary.error ?? 0) ||
      (b.result?.summary.warning ?? 0) - (a.result?.summary.warning ?? 0) ||
      (a.context < b.context ? -1 : a.context > b.context ? 1 : 0),
  );
}

/** The fleet's totals: clusters read and not, findings by severity over the clusters read. */
function fleetSummary(fleet: FleetResult) {
  const ok = fleet.clusters.filter(reached);
  const sum = (k: 'error' | 'warning' | 'info' | 'total' | 'suppressed') =>
    ok.reduce((n, e) => n + e.result.summary[k], 0);
  return {
    clusters: fleet.clusters.length,
    read: ok.length,
    unreachable: fleet.clusters.length - ok.length,
    incomplete: ok.filter((e) => !e.result.coverage.complete).length,
    error: sum('error'),
    warning: sum('warning'),
    info: sum('info'),
    total: sum('total'),
    suppressed: sum('suppressed'),
  };
}

/** One cell per column, padded; the last column is left as it is (the reason of an unreachable cluster). */
function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (i === r.length - 1 ? 0 : r[i]!.length))));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

function human(fleet: FleetResult, meta: ReportMeta, each: typeof table): string {
  const c = new Chalk({ level: meta.color ? 1 : 0 });
  const order = fleetOrder(fleet);
  const s = fleetSummary(fleet);
  const rows = [['CONTEXT', 'SERVER', 'MESHES', 'ERRORS', 'WARNINGS', 'COVERAGE']];
  for (const e of order) {
    const r = e.result;
    rows.push([
      clean(e.context),
      clean(e.server ?? '-'),
      r ? r.meshes.join(',') || 'none' : '-',
      r ? String(r.summary.error) : '-',
      r ? String(r.summary.warning) : '-',
      r
        ? r.coverage.complete
          ? 'complete'
          : `incomplete (${r.summary.checksSkipped ? `${r.summary.checksSkipped} checks not run` : 'some objects not read'})`
        : `UNREACHABLE: ${clean(e.unreachable ?? 'not read')}`,
    ]);
  }
  const [head, ...body] = columns(rows);
  const paint = (line: string, e: FleetEntry) =>
    !e.result ? c.yellow(line) : e.result.summary.error ? c.red(line) : line;
  const lines = [
    c.dim(
      `meshdoctor ${meta.version} · fleet of ${plural(s.clusters, 'cluster')}: ${s.read} read, ${s.unreachable} unreachable`,
    ),
    '',
    c.bold(head!),
    ...body.map((l, i) => paint(l, order[i]!)),
    '',
    `${plural(s.error, 'error')}, ${plural(s.warning, 'warning')}, ${s.info} info over ${plural(s.read, 'cluster')} read` +
      (s.unreachable
        ? c.yellow(`; ${s.unreachable} not read: nothing of ${s.unreachable === 1 ? 'it' : 'them'} was examined`)
        : '') +
      '.',
    '',
  ];
  for (const e of order.filter(reached)) {
    lines.push(c.bold(`=== ${clean(e.context)}${e.server ? ` (${clean(e.server)})` : ''} ===`), '');
    lines.push(each(e.result, meta));
  }
  return lines.join('\n');
}

/** The fleet document (schema/fleet.schema.json). */
function fleetDoc(fleet: FleetResult, meta: ReportMeta) {
  return {
    schemaVersion: 2,
    kind: 'MeshdoctorFleetReport',
    tool: { name: 'meshdoctor', version: meta.version },
    summary: fleetSummary(fleet),
    clusters: fleetOrder(fleet)
      .filter(reached)
      .map((e) => ({ ...reportDoc(e.result, meta), context: e.context, ...(e.server ? { server: e.server } : {}) })),
    unreachable: fleetOrder(fleet)
      .filter((e) => !e.result)
      .map((e) => ({
        context: e.context,
        ...(e.server ? { server: e.server } : {}),
        reason: e.unreachable ?? 'not read',
      })),
  };
}

const fleetJson: FleetReporter = (fleet, meta) =>
  escapeInvisible(JSON.stringify(fleetDoc(fleet, meta), null, 2)) + '\n';

/** One SARIF run for the fleet: each result located under its context; an unreachable cluster an error notification. */
const fleetSarif: FleetReporter = (fleet, meta) => {
  const order = fleetOrder(fleet);
  const first = order.find(reached);
  const parts = order.filter(reached).map((e) => sarifParts(e.result, meta, e.context));
  const down = order
    .filter((e) => !e.result)
    .map((e) => ({
      level: 'error',
      message: { text: `context ${one(e.context)} not read: ${one(e.unreachable ?? '')}` },
    }));
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: sarifTool(meta, first?.result.checks ?? [], first?.result.docsBase),
        invocations: [
          {
            executionSuccessful: !down.length && !order.some((e) => e.result?.errors.length),
            toolExecutionNotifications: [...parts.flatMap((p) => p.notifications), ...down],
          },
        ],
        results: parts.flatMap((p) => p.results),
        properties: {
          fleet: fleetSummary(fleet),
          clusters: order.map((e) => ({
            context: e.context,
            ...(e.server ? { server: e.server } : {}),
            ...(e.result ? { meshes: e.result.meshes, summary: e.result.summary } : { unreachable: e.unreachable }),
          })),
        },
      },
    ],
  };
  return escapeInvisible(JSON.stringify(log, null, 2)) + '\n';
};

/** One <testsuite> per cluster (`meshdoctor CONTEXT`), each test name prefixed `[CONTEXT]`. */
const fleetJunit: FleetReporter = (fleet, meta) => {
  const suites = fleetOrder(fleet).map((e) => ({
    e,
    ...(e.result ? junitCases(e.result, meta, `[${e.context}] `) : junitUnreachable(e.context, e.unreachable ?? '')),
  }));
  const total = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const s of suites) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += s.counts[k];
  const attr = (s: string) => one(s).replace(/[&<>"'\n\r\t]/g, (c) => `&#${c.charCodeAt(0)};`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="meshdoctor" ${tally(total)}>`,
    ...suites.flatMap((s) => [
      `  <testsuite name="${attr(`meshdoctor ${s.e.context}`)}" ${tally(s.counts)}>`,
      ...s.cases,
      '  </testsuite>',
    ]),
    '</testsuites>',
    '',
  ].join('\n');
};

/** A summary table, then a section per cluster (its own report). */
const fleetMarkdown: FleetReporter = (fleet, meta) => {
  const order = fleetOrder(fleet);
  const s = fleetSummary(fleet);
  const out = [
    `## meshdoctor fleet: ${plural(s.clusters, 'cluster')}, ${plural(s.error, 'error')}, ${plural(s.warning, 'warning')}` +
      (s.unreachable ? ` · ${s.unreachable} not read` : ''),
    '',
    '| context | server | meshes | errors | warnings | coverage |',
    '|---|---|---|---|---|---|',
    ...order.map((e) =>
      e.result
        ? `| ${md(e.context)} | ${md(e.server ?? '-')} | ${md(e.result.meshes.join(', ') || 'none')} | ${e.result.summary.error} | ${e.result.summary.warning} | ${e.result.coverage.complete ? 'complete' : '**incomplete**'} |`
        : `| ${md(e.context)} | ${md(e.server ?? '-')} | - | - | - | **unreachable**: ${md(e.unreachable ?? '')} |`,
    ),
    '',
  ];
  for (const e of order.filter(reached))
    out.push(`## ${md(e.context)}${e.server ? ` (${md(e.server)})` : ''}`, '', markdown(e.result, meta));
  return out.join('\n');
};

/** -o choices for a fleet; `name` lists one cluster's objects and has no fleet form. */
export const FLEET_REPORTERS: Record<string, FleetReporter> = {
  table: (f, m) => human(f, m, table),
  wide: (f, m) => human(f, m, wide),
  json: fleetJson,
  yaml: (f, m) => toYaml(fleetDoc(f, m)),
  sarif: fleetSarif,
  junit: fleetJunit,
  markdown: fleetMarkdown,
};
