import { Chalk } from 'chalk';
import Table from 'cli-table3';
import type { Finding, RunResult, Severity } from '../types.js';
import type { Reporter } from './index.js';
import { clean } from './text.js';

const LABEL: Record<Severity, string> = { error: 'ERROR', warning: 'WARNING', info: 'INFO' };
const MAX_LIST = 5;

/** A short, single-line rendering of one evidence value. */
function evidenceValue(v: unknown): string {
  if (Array.isArray(v)) {
    const shown = v.slice(0, MAX_LIST).map(evidenceValue).join(', ');
    return v.length > MAX_LIST ? `${shown} (+${v.length - MAX_LIST} more)` : shown || '(none)';
  }
  if (v && typeof v === 'object') {
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}=${evidenceValue(x)}`)
      .join(' ');
  }
  return clean(String(v));
}

function resourceText(f: Finding): string {
  const r = f.resource;
  return clean(`${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`);
}

/**
 * `-o table`: a kubectl-like, borderless listing (copy-paste friendly): one header row per
 * finding (severity, check, resource, mesh), its message, evidence and fix commands under it,
 * then a one-line summary and the skipped checks.
 */
export const table: Reporter = (result: RunResult, meta) => {
  const c = new Chalk({ level: meta.color ? 1 : 0 });
  const sev: Record<Severity, (s: string) => string> = { error: c.red.bold, warning: c.yellow.bold, info: c.cyan };
  const lines: string[] = [];
  const where =
    result.source.type === 'live'
      ? `context ${clean(result.source.context ?? '?')}`
      : `snapshot ${clean((result.source.files ?? []).join(', '))}${result.source.readAt ? ` (read ${clean(result.source.readAt)}; ages are from then)` : ''}`;
  const manifests = result.source.manifests ? ` · manifests ${clean(result.source.manifests.join(', '))}` : '';
  const scope = result.source.manifests ? '' : result.scope.allNamespaces ? 'all namespaces' : `namespace ${clean(result.scope.namespace ?? '?')}`;
  lines.push(c.dim(`meshdoctor ${meta.version} · ${where}${manifests}${scope && ` · ${scope}`} · meshes: ${result.meshes.join(', ') || 'none detected'}`));
  lines.push('');
  const t = new Table({
    head: ['SEVERITY', 'CHECK', 'RESOURCE', 'MESH', 'PODS'],
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  const headRow = (f: Finding) => [sev[f.severity](LABEL[f.severity]), `${f.code} ${f.id}`, resourceText(f), f.mesh, String(f.affectedPods || '')];
  // Render all header rows in one table so columns align, then interleave the details.
  for (const f of result.findings) t.push(headRow(f));
  const rows = result.findings.length ? t.toString().split('\n') : [];
  if (rows.length) lines.push(c.bold(rows[0]!.trimEnd()));
  result.findings.forEach((f, i) => {
    lines.push(rows[i + 1]!.trimEnd());
    lines.push(`    ${clean(f.message)}`);
    if (f.source) lines.push(c.dim(`    from: ${clean(`${f.source.file}#${f.source.document}`)}`));
    if (f.causedBy) {
      const cause = result.findings.find((x) => x.causeKey === f.causedBy);
      if (cause) lines.push(c.dim(`    caused by: ${cause.code} ${cause.id} on ${resourceText(cause)}`));
    }
    for (const [k, v] of Object.entries(f.evidence)) lines.push(c.dim(`    ${clean(k)}: ${evidenceValue(v)}`));
    if (f.fix.length) {
      lines.push('    fix:');
      for (const cmd of f.fix) lines.push(`      ${c.green(clean(cmd))}`);
    }
    lines.push('');
  });
  const s = result.summary;
  const cov = result.coverage;
  // Coverage is part of the verdict: a run with skipped checks never reads as an all-clear.
  if (!cov.complete) {
    lines.push(c.yellow.bold(`INCOMPLETE: ${s.checksSkipped} of ${s.checksRun + s.checksSkipped} checks could not run; what they look for was not examined.`));
    for (const u of cov.unavailable) {
      lines.push(c.yellow(`  cannot read ${u.kind}: ${clean(u.reason)}`));
      lines.push(c.dim(u.checks.length ? `    not run: ${u.checks.join(', ')}` : '    the checks ran without it (less evidence)'));
    }
    for (const sk of result.skipped.filter((x) => !x.reason.startsWith('cannot read '))) lines.push(c.yellow(`  not run ${sk.check}: ${clean(sk.reason)}`));
    if (cov.rbac.length) {
      lines.push('  to run them, a cluster admin can grant read-only access:');
      for (const cmd of cov.rbac) lines.push(`    ${c.green(clean(cmd))}`);
    }
    if (result.findings.length === 0) lines.push(`The ${plural(s.checksRun, 'check')} that ran found nothing.`);
    lines.push('');
  } else if (result.findings.length === 0) lines.push(c.green('No findings: every workload in scope is injected as configured.'), '');
  lines.push(
    `${sev.error(plural(s.error, 'error'))}, ${sev.warning(plural(s.warning, 'warning'))}, ${sev.info(`${s.info} info`)}` +
      (s.suppressed ? ` · ${s.suppressed} suppressed` : '') +
      ` · ${plural(s.checksRun, 'check')} run` +
      (s.checksSkipped ? c.yellow(` · ${s.checksSkipped} not run`) : ''),
  );
  for (const { finding: f, reason } of result.suppressed) lines.push(c.dim(`  suppressed ${f.code} ${f.id} on ${resourceText(f)}: ${clean(reason)}`));
  return lines.join('\n') + '\n';
};

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
