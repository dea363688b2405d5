import type { Severity } from '../util/types.js';
import type { Finding } from '../run/result.js';
import type { Reporter } from './reporter.js';
import { clean, elsewhereText, nothingFound, selectionText } from './text.js';

/**
 * `-o markdown`: a pull-request comment. A summary line, a table (severity, check, resource,
 * message), then per finding a collapsed details block with its fix commands in a `sh` fence.
 * Untrusted text is made inert: controls stripped (clean()), HTML and Markdown punctuation
 * escaped in prose and cells, and each fence longer than any backtick run inside it.
 */
const LABEL: Record<Severity, string> = { error: 'ERROR', warning: 'WARNING', info: 'INFO' };
const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/**
 * Inline text: no HTML, no Markdown syntax, one line. Escaping [ ] is enough to rule out links
 * and images; * _ ~ emphasis, ` code, | table cells, \ the escapes themselves. What GitHub and
 * GitLab link by themselves in plain text is broken with a zero-width space (U+200B): @mentions
 * (a comment would ping people), #123 / !123 references, and bare URLs (http://, www.).
 */
const ZWSP = '\u200b';
export const md = (s: string) =>
  clean(s)
    .replace(/[&<>"]/g, (c) => HTML[c]!)
    .replace(/[\\`*_[\]|~]/g, '\\$&')
    .replace(/([@#!])(?=[\p{L}\p{N}_-])/gu, `$1${ZWSP}`)
    .replace(/:\/\//g, `:${ZWSP}//`)
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}${ZWSP}.`);

export function fence(lines: string[], lang: string): string {
  const longest = Math.max(2, ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((r) => r.length))));
  const f = '`'.repeat(longest + 1);
  return [`${f}${lang}`, ...lines, f].join('\n');
}

const resource = (f: Finding) =>
  md(`${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`);

export const markdown: Reporter = (result, meta) => {
  const s = result.summary;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  const out: string[] = [
    `### meshdoctor: ${plural(s.error, 'error')}, ${plural(s.warning, 'warning')}, ${s.info} info` +
      (s.suppressed ? ` · ${s.suppressed} suppressed` : '') +
      ` · ${plural(s.checksRun, 'check')} run` +
      (s.checksSkipped ? ` · ${s.checksSkipped} skipped` : ''),
    '',
  ];
  const sel = result.selection;
  if (sel)
    out.push(
      `Only the workloads ${md(selectionText(sel))} selects: ${sel.workloads.selected} of ${plural(sel.workloads.total, 'workload')} in scope.`,
      '',
    );
  if (result.elsewhere) out.push(md(elsewhereText(result.elsewhere)), '');
  const cov = result.coverage;
  if (!cov.complete) {
    out.push(
      s.checksSkipped
        ? `**Incomplete:** ${s.checksSkipped} of ${s.checksRun + s.checksSkipped} checks could not run; what they look for was not examined.`
        : '**Incomplete:** every check ran, but some objects could not be read; what the checks look for in them was not examined.',
      '',
    );
    for (const u of cov.unavailable)
      out.push(
        `- cannot read ${md(u.kind)}${u.namespace !== undefined ? ` in namespace ${md(u.namespace)}` : ''}: ${md(u.reason)}${u.checks.length ? ` (not run: ${u.checks.map(md).join(', ')})` : ''}`,
      );
    out.push('');
    if (cov.rbac.length)
      out.push('Read-only access that would let them run:', '', fence(cov.rbac.map(clean), 'sh'), '');
  }
  // Not read on purpose (--no-secrets), in a run otherwise complete: said all the same.
  else if (cov.unavailable.some((u) => u.declined)) {
    for (const u of cov.unavailable.filter((x) => x.declined))
      out.push(`- ${md(u.kind)} ${md(u.reason)}${u.checks.length ? ` (not run: ${u.checks.map(md).join(', ')})` : ''}`);
    out.push('');
  }
  if (result.findings.length === 0) out.push(nothingFound(result), '');
  else {
    out.push('| severity | check | resource | message |', '|---|---|---|---|');
    for (const f of result.findings)
      out.push(`| ${LABEL[f.severity]} | \`${f.code}\` ${md(f.id)} | ${resource(f)} | ${md(f.message)} |`);
    out.push('');
    for (const f of result.findings) {
      out.push(
        '<details>',
        `<summary>${LABEL[f.severity]} ${f.code} ${md(f.id)} · ${resource(f)}</summary>`,
        '',
        md(f.message),
        '',
      );
      if (f.source) out.push(`From ${md(`${f.source.file}#${f.source.document}`)}.`, '');
      for (const a of f.also ?? []) out.push(`Also \`${a.code}\` ${md(a.id)}: ${md(a.message)}`, '');
      if (f.fix.length) out.push(fence(f.fix.map(clean), 'sh'), '');
      out.push(
        f.docsUrl ? `[About ${md(f.id)}](${f.docsUrl})` : `About ${md(f.id)}: \`meshdoctor checks ${f.id}\``,
        '',
        '</details>',
        '',
      );
    }
  }
  if (result.suppressed.length) {
    out.push('Suppressed:', '');
    for (const { finding: f, reason } of result.suppressed)
      out.push(`- ${f.code} ${md(f.id)} on ${resource(f)}: ${md(reason)}`);
    out.push('');
  }
  if (result.skipped.length) {
    out.push('Skipped checks:', '');
    for (const sk of result.skipped) out.push(`- ${md(sk.check)}: ${md(sk.reason)}`);
    out.push('');
  }
  const read =
    result.source.type === 'file' && result.source.readAt ? ` · snapshot read ${md(result.source.readAt)}` : '';
  out.push(`<sub>meshdoctor ${md(meta.version)}${read}</sub>`);
  return out.join('\n') + '\n';
};
