import { printable } from '../util/errors.js';
import type { Finding } from '../run/result.js';
import type { Reporter } from './reporter.js';
import { plural } from '../util/objects.js';

/**
 * `-o junit`: JUnit XML for CI test tabs (GitLab, Jenkins, Azure): one testsuite for the run, one
 * testcase per selected check: passed, one <failure> per finding (every severity), or <skipped>.
 * `failures` counts failing testcases. Suppressed findings are listed in the check's <system-out>.
 */

// Characters XML 1.0 does not allow at all (most C0 controls, lone surrogates, U+FFFE/FFFF).
const ILLEGAL = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\n': '&#10;', '\r': '&#13;', '\t': '&#9;' };

/**
 * Cluster text on one line: a CI tab shows the body as lines, so a name or reason holding a newline
 * could otherwise add a line of its own (a fake `fix:`). Control characters are shown escaped.
 */
const one = (s: string) => printable(s, 2000);
/** Text for an attribute value (one line; any newline left kept as a character reference). */
const attr = (s: string) =>
  one(s)
    .replace(ILLEGAL, '')
    .replace(/[&<>"'\n\r\t]/g, (c) => ENTITIES[c]!);
/** Text for element content (its own line structure is ours: each piece of cluster text in it went through one()). */
const text = (s: string) => s.replace(ILLEGAL, '').replace(/[&<>]/g, (c) => ENTITIES[c]!);

const resource = (f: Finding) => one(`${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`);

export const junit: Reporter = (result) => {
  const cases: string[] = [];
  let failing = 0;
  for (const c of result.checks) {
    const open = `    <testcase classname="meshdoctor" name="${attr(c.id)}">`;
    const skip = result.skipped.find((s) => s.check === c.id);
    const found = result.findings.filter((f) => f.id === c.id);
    const quiet = result.suppressed.filter((s) => s.finding.id === c.id);
    const body: string[] = [];
    if (skip) body.push(`      <skipped message="${attr(skip.reason)}"/>`);
    if (found.length) failing++;
    for (const f of found) {
      const detail = [
        `${f.severity.toUpperCase()} ${f.code} ${f.id} on ${resource(f)} (${f.mesh}${f.affectedPods ? `, ${plural(f.affectedPods, 'pod')}` : ''})`,
        one(f.message),
      ];
      if (f.source) detail.push(`from: ${one(f.source.file)}#${f.source.document}`);
      if (f.fix.length) detail.push('fix:', ...f.fix.map((x) => `  ${printable(x, Number.MAX_SAFE_INTEGER)}`));
      body.push(`      <failure message="${attr(f.message)}" type="${f.severity}">${text(detail.join('\n'))}</failure>`);
    }
    if (quiet.length)
      body.push(
        `      <system-out>${text(quiet.map((s) => `suppressed: ${s.finding.code} on ${resource(s.finding)}: ${one(s.reason)}`).join('\n'))}</system-out>`,
      );
    cases.push(body.length ? [open, ...body, '    </testcase>'].join('\n') : open.replace(/>$/, '/>'));
  }
  const counts = `tests="${result.checks.length}" failures="${failing}" errors="0" skipped="${result.skipped.length}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="meshdoctor" ${counts}>`,
    `  <testsuite name="meshdoctor" ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
};
