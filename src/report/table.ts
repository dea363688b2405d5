import { Chalk } from 'chalk';
import type { Severity } from '../util/types.js';
import type { Finding, RunResult } from '../run/result.js';
import type { Reporter, ReportMeta } from './reporter.js';
import { clean, elsewhereText, nothingFound, podsText, selectionText } from './text.js';
import { plural } from '../util/objects.js';

const LABEL: Record<Severity, string> = { error: 'ERROR', warning: 'WARNING', info: 'INFO' };
const MAX_LIST = 5;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Word-wrap prose to `width` columns, each line after the first indented like the first. A line
 * never starts with `fix:`: prose holding cluster text could otherwise wrap into what looks like
 * the finding's own fix line (that word stays on the line before, however long it gets).
 */
function wrap(text: string, width: number, indent: string): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/ +/)) {
    if (line && indent.length + line.length + 1 + word.length > width && !/^fix:/i.test(word)) {
      out.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(indent + line);
  return out;
}

/** "3m", "5h", "12d": how long before `now` a time was. */
function age(t: Date, now: Date | undefined): string {
  if (!now) return '';
  const s = Math.round((now.getTime() - t.getTime()) / 1000);
  if (s < 0) return ' (in the future)';
  const [n, u] =
    s < 120
      ? [s, 's']
      : s < 7200
        ? [Math.round(s / 60), 'm']
        : s < 172800
          ? [Math.round(s / 3600), 'h']
          : [Math.round(s / 86400), 'd'];
  return ` (${n}${u} ago)`;
}

/**
 * One evidence value as text a person scans: timestamps in one format with their age, nested
 * objects as `key value` pairs, empty fields left out, long lists cut with a count.
 */
function value(v: unknown, now: Date | undefined): string {
  if (typeof v === 'string' && ISO.test(v))
    return `${v.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}${age(new Date(v), now)}`;
  if (Array.isArray(v)) {
    const shown = v
      .slice(0, MAX_LIST)
      .map((x) => value(x, now))
      .filter(Boolean)
      .join('; ');
    return v.length > MAX_LIST ? `${shown}; and ${v.length - MAX_LIST} more` : shown;
  }
  if (v && typeof v === 'object') {
    return Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== null && x !== undefined && x !== '' && !(Array.isArray(x) && x.length === 0))
      .map(([k, x]) => `${clean(k)} ${value(x, now)}`)
      .join(', ');
  }
  return v === null || v === undefined ? '' : clean(String(v));
}

const resourceText = (f: Finding): string => {
  const r = f.resource;
  return clean(`${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`);
};

/**
 * `-o table` (the default) and `-o wide`: per finding its severity, check, resource, the message
 * wrapped to the terminal's width and the first command to run; `wide` adds the evidence, every
 * fix line and the cause it follows from. Fix commands are never wrapped: they must paste whole.
 */
/**
 * What a run did not examine: the headline, each kind not read (with the namespace, when it was
 * read elsewhere) and the checks it kept from running, the RBAC that would let them run. Shared
 * with `explain`, which reports the same coverage.
 */
export function coverageLines(
  result: Pick<RunResult, 'coverage' | 'skipped'> & {
    summary: Pick<RunResult['summary'], 'checksRun' | 'checksSkipped'>;
  },
  c: InstanceType<typeof Chalk>,
  width: number,
): string[] {
  const { coverage: cov, summary: s } = result;
  const lines = [
    c.yellow.bold(
      s.checksSkipped
        ? `INCOMPLETE: ${s.checksSkipped} of ${s.checksRun + s.checksSkipped} checks could not run; what they look for was not examined.`
        : 'INCOMPLETE: every check ran, but some objects could not be read; what the checks look for in them was not examined.',
    ),
  ];
  for (const u of cov.unavailable) {
    const where = u.namespace !== undefined ? ` in namespace ${clean(u.namespace)}` : '';
    lines.push(...wrap(`cannot read ${u.kind}${where}: ${clean(u.reason)}`, width, '  ').map((l) => c.yellow(l)));
    const ran =
      u.namespace !== undefined
        ? 'the checks ran without them (what they look for there was not examined)'
        : 'the checks ran without it (less evidence)';
    lines.push(...wrap(u.checks.length ? `not run: ${u.checks.join(', ')}` : ran, width, '    ').map((l) => c.dim(l)));
  }
  for (const sk of result.skipped.filter((x) => !x.reason.startsWith('cannot read ')))
    lines.push(...wrap(`not run ${sk.check}: ${clean(sk.reason)}`, width, '  ').map((l) => c.yellow(l)));
  if (cov.rbac.length) {
    lines.push('  to run them, a cluster admin can grant read-only access:');
    for (const cmd of cov.rbac) lines.push(`    ${c.green(clean(cmd))}`);
  }
  return lines;
}

/**
 * Kinds not read on purpose (--no-secrets) in a run otherwise complete: said anyway, with the
 * checks they kept from running, so a run that read no Secret never reads as having judged them.
 */
export function declinedLines(cov: RunResult['coverage'], c: InstanceType<typeof Chalk>, width: number): string[] {
  return cov.unavailable
    .filter((u) => u.declined)
    .flatMap((u) => [
      ...wrap(`${u.kind} ${clean(u.reason)}`, width, '  ').map((l) => c.yellow(l)),
      ...wrap(
        u.checks.length ? `not run: ${u.checks.join(', ')}` : 'the checks ran without it (less evidence)',
        width,
        '    ',
      ).map((l) => c.dim(l)),
    ]);
}

function render(result: RunResult, meta: ReportMeta, wide: boolean): string {
  const c = new Chalk({ level: meta.color ? 1 : 0 });
  const width = Math.max(40, meta.width ?? 80);
  const sev: Record<Severity, (s: string) => string> = { error: c.red.bold, warning: c.yellow.bold, info: c.cyan };
  const now =
    result.source.readAt && !Number.isNaN(Date.parse(result.source.readAt))
      ? new Date(result.source.readAt)
      : undefined;
  const lines: string[] = [];
  const where =
    result.source.type === 'live'
      ? `context ${clean(result.source.context ?? '?')}`
      : `snapshot ${clean((result.source.files ?? []).join(', '))}${result.source.readAt ? ` (read ${clean(result.source.readAt)}; ages are from then)` : ''}`;
  const manifests = result.source.manifests ? ` · manifests ${clean(result.source.manifests.join(', '))}` : '';
  const scope = result.source.manifests
    ? ''
    : result.scope.allNamespaces
      ? 'all namespaces'
      : `namespace ${clean(result.scope.namespace ?? '?')}`;
  // -l/--field-selector: the narrowing is part of what was checked, said with the count it left.
  const sel = result.selection;
  const narrowed = sel
    ? ` · ${selectionText(sel)}: ${sel.workloads.selected} of ${plural(sel.workloads.total, 'workload')}`
    : '';
  const absent = new Set(result.meshesNotInstalled ?? []);
  const meshes = result.meshes
    .map((m) => (absent.has(m) ? `${m} (asked for with --mesh, but not installed)` : m))
    .join(', ');
  const head = `meshdoctor ${meta.version} · ${where}${manifests}${scope && ` · ${scope}`}${narrowed} · meshes: ${meshes || 'none detected'}`;
  lines.push(...wrap(head, width, '').map((l) => c.dim(l)), '');

  const s = result.summary;
  const totals =
    `${sev.error(plural(s.error, 'error'))}, ${sev.warning(plural(s.warning, 'warning'))}, ${sev.info(`${s.info} info`)}` +
    (s.suppressed ? ` · ${s.suppressed} suppressed` : '') +
    ` · ${plural(s.checksRun, 'check')} run` +
    (s.checksSkipped ? c.yellow(` · ${s.checksSkipped} not run`) : '');
  // The first thing to do is the first finding (ranked: root causes first).
  if (result.findings.length > 1) lines.push(`${totals}; most important first.`, '');

  const byKey = new Map(result.findings.filter((f) => f.causeKey).map((f) => [f.causeKey!, f]));
  for (const f of result.findings) {
    const pods = podsText(f) && ` · ${podsText(f)}`;
    const where = `${resourceText(f)} · ${f.mesh}${pods}`;
    const title = `${sev[f.severity](LABEL[f.severity])} ${f.code} ${c.bold(f.id)}`;
    // One line when it fits (measured without colors), else the resource on the next.
    if (`${LABEL[f.severity]} ${f.code} ${f.id} · ${where}`.length <= width) lines.push(`${title} · ${where}`);
    else lines.push(title, ...wrap(where, width, '  '));
    lines.push(...wrap(clean(f.message), width, '  '));
    if (f.source) lines.push(c.dim(`  from ${clean(`${f.source.file}#${f.source.document}`)}`));
    const cause = f.causedBy ? byKey.get(f.causedBy) : undefined;
    if (cause)
      lines.push(
        ...wrap(`caused by ${cause.code} ${cause.id} on ${resourceText(cause)}: fix that first`, width, '  ').map((l) =>
          c.dim(l),
        ),
      );
    // Consequences with the same fix, folded into this finding (src/run/fold.ts): said, not repeated.
    for (const a of f.also ?? [])
      lines.push(
        ...wrap(
          `also ${a.code} ${a.id}${a.severity !== f.severity ? ` (${a.severity})` : ''}: ${clean(a.message)}`,
          width,
          '  ',
        ).map((l) => c.dim(l)),
      );
    if (wide) {
      for (const [k, v] of Object.entries(f.evidence)) {
        const text = value(v, now);
        if (text)
          lines.push(
            ...wrap(`${clean(k)}: ${text}`, width, '    ').map((l, i) => c.dim(i === 0 ? `  ${l.trimStart()}` : l)),
          );
      }
    }
    // Compact: the first command to run (what must come first is said on the "caused by" line).
    const first = f.fix.find((l) => !l.startsWith('#')) ?? f.fix[0];
    const commands = wide ? f.fix : first !== undefined ? [first] : [];
    commands.forEach((cmd, i) =>
      lines.push(`  ${i === 0 ? 'fix: ' : '     '}${cmd.startsWith('#') ? c.dim(clean(cmd)) : c.green(clean(cmd))}`),
    );
    if (!wide && f.fix.length > commands.length)
      lines.push(c.dim(`       (${plural(f.fix.length - commands.length, 'more line')}: -o wide)`));
    lines.push('');
  }

  const cov = result.coverage;
  // Coverage is part of the verdict: a run with skipped checks never reads as an all-clear.
  if (!cov.complete) {
    lines.push(...coverageLines(result, c, width));
    if (result.findings.length === 0) lines.push(nothingFound(result));
    lines.push('');
  } else {
    const declined = declinedLines(cov, c, width);
    if (declined.length) lines.push(...declined, '');
    if (result.findings.length === 0)
      lines.push(s.suppressed || declined.length ? nothingFound(result) : c.green(nothingFound(result)), '');
  }
  lines.push(totals);
  if (result.elsewhere) lines.push(...wrap(elsewhereText(result.elsewhere), width, '').map((l) => c.dim(l)));
  for (const { finding: f, reason } of result.suppressed)
    lines.push(
      ...wrap(`suppressed ${f.code} ${f.id} on ${resourceText(f)}: ${clean(reason)}`, width, '  ').map((l) => c.dim(l)),
    );
  return lines.join('\n') + '\n';
}

export const table: Reporter = (result, meta) => render(result, meta, false);
export const wide: Reporter = (result, meta) => render(result, meta, true);
