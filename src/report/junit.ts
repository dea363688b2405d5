import { printable } from '../util/errors.js';
import type { Finding } from '../run/result.js';
import type { Reporter } from './reporter.js';
import { atOrAbove } from '../util/types.js';
import { podsText } from './text.js';

/**
 * `-o junit`: JUnit XML for CI test tabs (GitLab, Jenkins, Azure Pipelines), read whole by their
 * parsers: one <testcase> per finding (classname `meshdoctor.CHECK`, name the resource), so that
 * each is counted and shown (a testcase with several <failure> elements shows as one failure in
 * most of them, its first). A finding at or above --fail-on is a <failure>; one below it passes,
 * with the finding in <system-out> (it does not fail the build, so it does not fail the test).
 * A suppressed finding is a <skipped> testcase giving the reason, a check that could not run a
 * <skipped> testcase, a check that failed internally an <error>, a check that found nothing one
 * passing testcase. The counts are those of the testcases, in <testsuites> and <testsuite> alike.
 */

// Characters XML 1.0 does not allow at all (most C0 controls, lone surrogates, U+FFFE/FFFF).
const ILLEGAL = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\n': '&#10;',
  '\r': '&#13;',
  '\t': '&#9;',
};

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

const resource = (f: Finding) =>
  one(`${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`);

/** What a person reading the test tab needs of a finding: what, where, why, and the fix. */
function detail(f: Finding): string {
  const pods = podsText(f);
  const lines = [
    `${f.severity.toUpperCase()} ${f.code} ${f.id} on ${resource(f)} (${f.mesh}${pods && `, ${pods}`})`,
    one(f.message),
  ];
  if (f.source) lines.push(`from: ${one(f.source.file)}#${f.source.document}`);
  for (const a of f.also ?? []) lines.push(`also ${a.code} ${a.id}: ${one(a.message)}`);
  if (f.fix.length) lines.push('fix:', ...f.fix.map((x) => `  ${printable(x, Number.MAX_SAFE_INTEGER)}`));
  return lines.join('\n');
}

type Counts = { tests: number; failures: number; errors: number; skipped: number };

/**
 * One <testsuite>'s testcases and counts. `prefix`: a fleet run's context, put before each test
 * name (`[prod-eu] Deployment shop/cart`) so that a CI tab tells the clusters apart.
 */
export function junitCases(
  result: Parameters<Reporter>[0],
  meta: Parameters<Reporter>[1],
  prefix = '',
): { counts: Counts; cases: string[] } {
  const failOn = meta.failOn ?? 'error';
  const counts: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  const cases: string[] = [];
  const testcase = (check: string, name: string, body: string[]) => {
    counts.tests++;
    const open = `    <testcase classname="meshdoctor.${attr(check)}" name="${attr(prefix + name)}"`;
    cases.push(
      body.length ? [`${open}>`, ...body.map((b) => `      ${b}`), '    </testcase>'].join('\n') : `${open}/>`,
    );
  };
  for (const c of result.checks) {
    const skip = result.skipped.find((s) => s.check === c.id);
    const error = skip && (result.errors ?? []).find((e) => e.startsWith(`check ${c.id} failed`));
    if (error) {
      counts.errors++;
      testcase(c.id, c.id, [`<error message="${attr(error)}" type="internal"/>`]);
      continue;
    }
    if (skip) {
      counts.skipped++;
      testcase(c.id, c.id, [`<skipped message="${attr(`not run: ${skip.reason}`)}"/>`]);
      continue;
    }
    const found = result.findings.filter((f) => f.id === c.id);
    const quiet = result.suppressed.filter((s) => s.finding.id === c.id);
    // Two findings of one check on one resource (one per mesh) keep apart by their mesh.
    const seen = new Map<string, number>();
    for (const f of [...found, ...quiet.map((q) => q.finding)]) seen.set(resource(f), (seen.get(resource(f)) ?? 0) + 1);
    const nameOf = (f: Finding) => (seen.get(resource(f))! > 1 ? `${resource(f)} (${f.mesh})` : resource(f));
    for (const f of found) {
      if (atOrAbove(f.severity, failOn)) {
        counts.failures++;
        testcase(c.id, nameOf(f), [
          `<failure message="${attr(f.message)}" type="${f.severity}">${text(detail(f))}</failure>`,
        ]);
      } else {
        const why = failOn === 'none' ? '--fail-on none' : `below --fail-on ${failOn}`;
        testcase(c.id, nameOf(f), [
          `<system-out>${text(`${detail(f)}\n(${why}: reported, not a failure)`)}</system-out>`,
        ]);
      }
    }
    for (const s of quiet) {
      counts.skipped++;
      testcase(c.id, nameOf(s.finding), [
        `<skipped message="${attr(`suppressed: ${s.reason}`)}"/>`,
        `<system-out>${text(detail(s.finding))}</system-out>`,
      ]);
    }
    if (!found.length && !quiet.length) testcase(c.id, c.id, []);
  }
  return { counts, cases };
}

export const tally = (c: Counts) =>
  `tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}"`;

/** A fleet's cluster that could not be read: one testcase in error, its reason. */
export function junitUnreachable(context: string, reason: string): { counts: Counts; cases: string[] } {
  return {
    counts: { tests: 1, failures: 0, errors: 1, skipped: 0 },
    cases: [
      `    <testcase classname="meshdoctor.cluster" name="${attr(`[${context}] unreachable`)}">`,
      `      <error message="${attr(`context ${context} not read: ${reason}`)}" type="unreachable"/>`,
      '    </testcase>',
    ],
  };
}

export const junit: Reporter = (result, meta) => {
  const { counts, cases } = junitCases(result, meta);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="meshdoctor" ${tally(counts)}>`,
    `  <testsuite name="meshdoctor" ${tally(counts)}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
};
