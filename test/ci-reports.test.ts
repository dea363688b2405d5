/**
 * CI reports (-o sarif|junit|markdown), --output-file and suppressions (--suppress, the
 * meshdoctor.io/ignore annotation). Goldens of the three formats are in cli.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseJUnit } from 'test-results-parser';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { markdown } from '../src/report/markdown.js';
import { junit } from '../src/report/junit.js';
import { sarif } from '../src/report/sarif.js';
import { runChecks } from '../src/run/run.js';
import { parseSuppressions } from '../src/run/suppress.js';
import type { K8sObject } from '../src/util/types.js';
import type { Finding, RunResult } from '../src/run/result.js';
import { runCli } from './helpers/cli.js';
import { githubSarifProblems } from './helpers/sarif-github.js';
import { FIXTURES, NOW, baseObjects, fixtureObjects, overlay, snapshotFrom } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-ci-'));
const GOLDEN = join(FIXTURES, 'golden-cluster.yaml');
const TWO = ['--only', 'namespace-not-enabled,pod-opted-out'];

// The official SARIF 2.1.0 schema (2.1.0-rtm.5, as shipped in the npm package @microsoft/jest-sarif
// 1.0.0-beta.0, lib/schemas/). It is written in draft-04, whose only difference that matters here
// is `id` for `$id`; ajv's default dialect (draft-07) validates it once that is renamed.
const sarifSchema = JSON.parse(readFileSync(join(FIXTURES, 'sarif-schema-2.1.0.json'), 'utf8'));
delete sarifSchema.$schema;
sarifSchema.$id = sarifSchema.id;
delete sarifSchema.id;
const validateSarif = new (Ajv as unknown as typeof Ajv.default)({
  strict: false,
  validateFormats: false,
  allErrors: true,
  unicodeRegExp: false,
}).compile(sarifSchema);
const reportSchema = JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8'));
const validateJson = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false }).compile(reportSchema);

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => ['testcase', 'failure'].includes(name),
});

function snapFile(name: string, objects: K8sObject[]): string {
  const p = join(tmp, name);
  writeFileSync(p, JSON.stringify({ kind: 'List', items: objects }));
  return p;
}

/** A hand-made result with hostile text: reporters must keep it inert. */
function hostileResult(): RunResult {
  const name = `we<i>rd&"'\u0001\u001b[31mx`;
  const f: Finding = {
    id: 'pod-opted-out',
    code: 'MD1002',
    severity: 'warning',
    mesh: 'linkerd',
    title: 't',
    message: `Deployment shop/${name} | has \`code\` and <script>alert(1)</script> [link](http://evil)`,
    resource: { kind: 'Deployment', namespace: 'shop', name },
    evidence: { value: name },
    fix: ['kubectl rollout restart deployment/x -n shop ```\n# not a fence end'],
    fixData: [],
    docsUrl: 'https://example/#pod-opted-out',
    affectedPods: 2,
  };
  const checks = CHECKS.filter((c) => ['pod-opted-out', 'webhook-missing', 'namespace-not-enabled'].includes(c.id)).map(
    ({ id, code, title, description, severity }) => ({ id, code, title, description, severity }),
  );
  return {
    source: { type: 'file', files: ['x'] },
    scope: { allNamespaces: true },
    meshes: ['linkerd'],
    checks,
    findings: [f],
    suppressed: [],
    skipped: [
      { check: 'webhook-missing', reason: 'cannot read <mutatingwebhookconfigurations>: forbidden & "denied"' },
    ],
    coverage: {
      complete: false,
      unavailable: [
        { kind: 'mutatingwebhookconfigurations', reason: 'forbidden & "denied" <x>', checks: ['webhook-missing'] },
      ],
      rbac: [],
    },
    summary: { error: 0, warning: 1, info: 0, total: 1, suppressed: 0, checksRun: 2, checksSkipped: 1 },
  };
}

describe('-o sarif', () => {
  it('validates against the SARIF 2.1.0 schema and maps checks to rules, findings to results', async () => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'sarif', ...TWO]);
    expect(r.code).toBe(0);
    const log = JSON.parse(r.stdout);
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((x: any) => [x.id, x.defaultConfiguration.level, x.helpUri])).toEqual([
      ['namespace-not-enabled', 'warning', undefined], // no helpUri unless MESHDOCTOR_DOCS_URL is set
      ['pod-opted-out', 'warning', undefined],
    ]);
    expect(
      run.results.map((x: any) => [
        x.ruleId,
        x.ruleIndex,
        x.level,
        x.locations[0].logicalLocations[0].fullyQualifiedName,
      ]),
    ).toEqual([
      ['namespace-not-enabled', 0, 'warning', 'Namespace/orders'],
      ['pod-opted-out', 1, 'warning', 'Deployment/shop/cart'],
      ['pod-opted-out', 1, 'warning', 'Deployment/store/search'],
    ]);
    expect(run.results[1].properties).toMatchObject({
      code: 'MD1002',
      mesh: 'linkerd',
      affectedPods: 1,
      fix: [expect.stringContaining('kubectl patch deployment/cart')],
    });
    expect(run.invocations[0]).toEqual({ executionSuccessful: true, toolExecutionNotifications: [] });
  });

  it('info is "note"; skipped checks are notifications; manifests give a physical location', async () => {
    const log = JSON.parse(sarif(hostileResult(), { version: '9', color: false }));
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    const note = CHECKS.find((c) => c.severity === 'info');
    if (note) {
      const res = hostileResult();
      res.checks = [
        { id: note.id, code: note.code, title: note.title, description: note.description, severity: note.severity },
      ];
      expect(
        JSON.parse(sarif(res, { version: '9', color: false })).runs[0].tool.driver.rules[0].defaultConfiguration.level,
      ).toBe('note');
    }
    expect(log.runs[0].invocations[0].toolExecutionNotifications).toEqual([
      {
        level: 'warning',
        message: { text: expect.stringContaining('check webhook-missing not run: cannot read') },
        associatedRule: { id: 'webhook-missing', index: 2 },
      },
    ]);
    const r = await runCli([
      'check',
      '--snapshot',
      join(FIXTURES, 'healthy/linkerd.yaml'),
      '-n',
      'legacy',
      '-f',
      join(FIXTURES, 'manifests/helm-shop.yaml'),
      '--expect-meshed',
      '-o',
      'sarif',
    ]);
    expect(r.code).toBe(1);
    const m = JSON.parse(r.stdout);
    expect(validateSarif(m), JSON.stringify(validateSarif.errors)).toBe(true);
    const hit = m.runs[0].results.find((x: any) => x.ruleId === 'will-not-be-meshed');
    expect(hit.locations[0].physicalLocation.artifactLocation.uri).toBe(join(FIXTURES, 'manifests/helm-shop.yaml'));
    expect(hit.properties.source).toEqual({ file: join(FIXTURES, 'manifests/helm-shop.yaml'), document: 3, line: 21 });
    // The line the document starts on: GitHub shows the alert there.
    expect(hit.locations[0].physicalLocation.region).toEqual({ startLine: 21 });
    expect(readFileSync(join(FIXTURES, 'manifests/helm-shop.yaml'), 'utf8').split('\n')[20]).toMatch(/^apiVersion: /);
    expect(githubSarifProblems(m)).toEqual([]);
  });
});

describe('-o sarif: what GitHub code scanning takes whole', () => {
  it("every rule has help (the check's page, text and markdown) and a full description; every result a file location", async () => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'sarif']);
    const log = JSON.parse(r.stdout);
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(githubSarifProblems(log)).toEqual([]);
    const rules = log.runs[0].tool.driver.rules;
    expect(rules).toHaveLength(CHECKS.length);
    for (const rule of rules) {
      const page = readFileSync(join(ROOT, 'docs/checks', `${rule.id}.md`), 'utf8');
      expect(rule.help).toEqual({ text: page, markdown: page });
      expect(rule.fullDescription.text).toBe(CHECKS.find((c) => c.id === rule.id)!.description);
    }
    // A cluster object has no file: its path is Kind/namespace/name, with a fingerprint of our own.
    const cart = log.runs[0].results.find(
      (x: any) => x.locations[0].logicalLocations[0].fullyQualifiedName === 'Deployment/shop/cart',
    );
    expect(cart.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'Deployment/shop/cart' },
      region: { startLine: 1 },
    });
    expect(cart.partialFingerprints.primaryLocationLineHash).toMatch(/^[0-9a-f]{16}:1$/);
  });

  it('a name cannot add a path segment or leave the path', () => {
    const res = hostileResult();
    res.findings[0]!.resource = { kind: 'Deployment', namespace: '..', name: 'a/../../etc' };
    const uri = JSON.parse(sarif(res, { version: '9', color: false })).runs[0].results[0].locations[0].physicalLocation
      .artifactLocation.uri;
    expect(uri).toBe('Deployment/%2E%2E/a%2F..%2F..%2Fetc');
  });

  it('the GitHub rules catch what they should (the helper is not vacuous)', () => {
    const log = JSON.parse(sarif(hostileResult(), { version: '9', color: false }));
    delete log.runs[0].tool.driver.rules[0].help;
    log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = 'https://example.com/x';
    delete log.runs[0].results[0].locations[0].physicalLocation.region;
    expect(githubSarifProblems(log)).toEqual([
      '/runs/0/tool/driver/rules/0: GH2012 no help',
      '/runs/0/results/0/locations/0/physicalLocation: no region',
      '/runs/0/results/0/locations/0/physicalLocation/artifactLocation/uri: GH1005 not a file path',
    ]);
  });

  it('a failed run (exit 2) still writes the --output-file, saying it failed and why', async () => {
    const out = join(tmp, 'failed.sarif');
    const r = await runCli([
      'check',
      '--snapshot',
      join(tmp, 'no-such-dump.json'),
      '-o',
      'sarif',
      '--output-file',
      out,
      '--only',
      'pod-opted-out',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^meshdoctor: .*no-such-dump\.json/);
    const log = JSON.parse(readFileSync(out, 'utf8'));
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(githubSarifProblems(log)).toEqual([]);
    const run = log.runs[0];
    expect(run.results).toEqual([]);
    expect(run.tool.driver.rules.map((x: any) => x.id)).toEqual(['pod-opted-out']);
    expect(run.invocations[0]).toMatchObject({ executionSuccessful: false, exitCode: 2 });
    expect(run.invocations[0].toolExecutionNotifications[0]).toEqual({
      level: 'error',
      message: { text: r.stderr.replace(/^meshdoctor: /, '').trim() },
    });
    // Other formats write nothing on failure (a JUnit or JSON file would read as a clean run).
    const json = join(tmp, 'failed.json');
    expect(
      (await runCli(['check', '--snapshot', join(tmp, 'no-such-dump.json'), '-o', 'json', '--output-file', json])).code,
    ).toBe(2);
    expect(existsSync(json)).toBe(false);
  });
});

describe('-o junit', () => {
  /** What a real consumer reads of a report: test-results-parser (npm), as CI dashboards use it. */
  function consumer(xmlText: string) {
    const file = join(tmp, `junit-${Math.random().toString(36).slice(2)}.xml`);
    writeFileSync(file, xmlText);
    return parseJUnit({ type: 'junit', files: [file] });
  }

  it('one testcase per finding (check + resource): a real JUnit parser counts and shows every one', async () => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'junit', '--fail-on', 'warning', ...TWO]);
    expect(r.code).toBe(1);
    const suite = xml.parse(r.stdout).testsuites.testsuite;
    expect(suite).toMatchObject({ name: 'meshdoctor', tests: '3', failures: '3', skipped: '0', errors: '0' });
    expect(suite.testcase.map((t: any) => [t.classname, t.name, t.failure.length])).toEqual([
      ['meshdoctor.namespace-not-enabled', 'Namespace orders', 1],
      ['meshdoctor.pod-opted-out', 'Deployment shop/cart', 1],
      ['meshdoctor.pod-opted-out', 'Deployment store/search', 1],
    ]);
    expect(suite.testcase[1].failure[0].type).toBe('warning');
    expect(suite.testcase[1].failure[0]['#text']).toContain('kubectl patch deployment/cart -n shop');
    // The consumer: three failed cases, each with its own message (one case with two <failure>s showed one).
    const parsed = consumer(r.stdout);
    expect([parsed.total, parsed.failed, parsed.passed]).toEqual([3, 3, 0]);
    const cases = parsed.suites[0]!.cases;
    expect(cases.map((c) => [c.name, c.status])).toEqual([
      ['Namespace orders', 'FAIL'],
      ['Deployment shop/cart', 'FAIL'],
      ['Deployment store/search', 'FAIL'],
    ]);
    expect(cases[2]!.failure).toContain('search');
  });

  it('warnings below --fail-on pass (with the finding in system-out), as the exit code says', async () => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'junit', ...TWO]);
    expect(r.code).toBe(0); // warnings only, --fail-on error
    const parsed = consumer(r.stdout);
    expect([parsed.total, parsed.failed, parsed.passed, parsed.status]).toEqual([3, 0, 3, 'PASS']);
    const suite = xml.parse(r.stdout).testsuites.testsuite;
    expect(suite.testcase[1]['system-out']).toContain('below --fail-on error: reported, not a failure');
    expect(suite.testcase[1]['system-out']).toContain('kubectl patch deployment/cart -n shop');
    const none = consumer(
      (await runCli(['check', '-A', '--snapshot', GOLDEN, '-o', 'junit', '--fail-on', 'none', ...TWO])).stdout,
    );
    expect(none.failed).toBe(0);
  });

  it('escapes markup and strips characters XML 1.0 forbids', () => {
    const out = junit(hostileResult(), { version: '9', color: false, failOn: 'warning' });
    expect(out).not.toMatch(/[\u0001\u001b]/);
    const suite = xml.parse(out).testsuites.testsuite;
    expect(suite).toMatchObject({ tests: '3', failures: '1', skipped: '1' });
    const [opted, missing, quiet] = [
      'meshdoctor.pod-opted-out',
      'meshdoctor.webhook-missing',
      'meshdoctor.namespace-not-enabled',
    ].map((n) => suite.testcase.find((t: any) => t.classname === n));
    const f = opted.failure[0];
    // Control characters shown escaped, as text (never acted on): the attribute and the body stay one line each.
    expect(opted.name).toBe(`Deployment shop/we<i>rd&"'\\x01\\x1b[31mx`);
    expect(f.message).toBe(
      `Deployment shop/we<i>rd&"'\\x01\\x1b[31mx | has \`code\` and <script>alert(1)</script> [link](http://evil)`,
    );
    expect(f['#text']).toContain(`on Deployment shop/we<i>rd&"'\\x01\\x1b[31mx (linkerd, 2 pods)`);
    expect(missing.skipped.message).toBe('not run: cannot read <mutatingwebhookconfigurations>: forbidden & "denied"');
    expect(quiet.failure).toBeUndefined();
    expect(consumer(out)).toMatchObject({ total: 2, failed: 1, skipped: 1 });
  });
});

describe('-o markdown', () => {
  it('cluster text pings nobody and links nothing: @mentions, #123, !123, bare URLs are broken', () => {
    const r = hostileResult();
    r.findings[0]!.message =
      'owned by @alice and @org/team, see #123 and !45, http://evil.example/x or www.evil.example';
    const out = markdown(r, { version: '9', color: false });
    for (const bad of ['@alice', '@org', '#123', '!45', 'http://', 'www.evil']) expect(out).not.toContain(bad);
    expect(out.replaceAll('\u200b', '')).toContain(
      'owned by @alice and @org/team, see #123 and !45, http://evil.example/x or www.evil.example',
    );
  });

  it('escapes table pipes, backticks, HTML and links; fences outlast backtick runs', () => {
    const out = markdown(hostileResult(), { version: '9', color: false });
    const row = out.split('\n').find((l) => l.startsWith('| WARNING'))!;
    expect(row).toBe(
      "| WARNING | `MD1002` pod-opted-out | Deployment shop/we&lt;i&gt;rd&amp;&quot;'x | Deployment shop/we&lt;i&gt;rd&amp;&quot;'x \\| has \\`code\\` and &lt;script&gt;alert(1)&lt;/script&gt; \\[link\\](http:\u200b//evil) |",
    );
    expect(row.replaceAll('\\|', '').split('|')).toHaveLength(6); // 4 cells
    expect(out).not.toContain('<script>');
    expect(out).toContain('````sh\nkubectl rollout restart deployment/x -n shop ``` # not a fence end\n````');
    expect(out).toContain(
      '- webhook-missing: cannot read &lt;mutatingwebhookconfigurations&gt;: forbidden &amp; &quot;denied&quot;',
    );
  });
});

describe('exit codes are the same for every format', () => {
  for (const o of ['table', 'json', 'sarif', 'junit', 'markdown']) {
    it(`-o ${o}`, async () => {
      const args = ['check', '-A', '--snapshot', GOLDEN, '-o', o, ...TWO];
      expect((await runCli(args)).code).toBe(0); // warnings only, --fail-on error
      const w = await runCli([...args, '--fail-on', 'warning']);
      expect(w.code).toBe(1);
      expect(w.stdout.length).toBeGreaterThan(100);
      expect(w.stderr).toBe('');
      expect(
        (await runCli([...args, '--fail-on', 'warning', '--suppress', '*=*/*', '--suppress', '*=*/*/*'])).code,
      ).toBe(0);
    });
  }
});

describe('--output-file', () => {
  it('not a terminal: the report goes to the file (json by default), nothing to stdout', async () => {
    const file = join(tmp, 'report.json');
    const r = await runCli([
      'check',
      '-A',
      '--snapshot',
      GOLDEN,
      ...TWO,
      '--output-file',
      file,
      '--fail-on',
      'warning',
    ]);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: '' });
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(validateJson(report), JSON.stringify(validateJson.errors)).toBe(true);
    expect(report.summary.warning).toBe(3);
  });

  it('on a terminal: the table on stdout, the -o format in the file', async () => {
    const file = join(tmp, 'report.sarif');
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, ...TWO, '-o', 'sarif', '--output-file', file], {
      tty: true,
      env: { NO_COLOR: '1' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('0 errors, 3 warnings, 0 info');
    expect(r.stdout).not.toContain('\u001b[');
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe('2.1.0');
  });

  it('an unwritable file exits 2 with one line on stderr', async () => {
    const file = join(tmp, 'no-such-dir', 'r.json');
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, ...TWO, '--output-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^meshdoctor: cannot write --output-file .*no-such-dir.*\n$/);
    expect(existsSync(file)).toBe(false);
  });
});

describe('suppressions', () => {
  const optedOut = () => overlay(baseObjects('linkerd'), fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml'));
  const run = (objects: K8sObject[], specs: string[] = []) =>
    runChecks(snapshotFrom(objects), CHECKS, {
      mesh: 'auto',
      certExpiryWarningDays: 60,
      now: NOW,
      suppress: parseSuppressions(specs),
    });
  const annotate = (objects: K8sObject[], pick: (o: K8sObject) => Record<string, any> | undefined, value: string) =>
    objects.map((o) => {
      const c = structuredClone(o);
      const meta = pick(c);
      if (meta) meta.annotations = { ...meta.annotations, 'meshdoctor.io/ignore': value };
      return c;
    });

  it('baseline: the opted-out workload is one finding', () => {
    const r = run(optedOut());
    expect(r.findings.map((f) => f.id)).toEqual(['pod-opted-out']);
    expect(r.suppressed).toEqual([]);
  });

  it.each([
    ['pod-opted-out=Deployment/shop/cart'],
    ['MD1002=deployment/shop/cart'],
    ['pod-opted-out=Deployment/sh*/*'],
    ['*=*/shop/*'],
  ])('--suppress %s', (spec) => {
    const r = run(optedOut(), [spec]);
    expect(r.findings).toEqual([]);
    expect(r.summary).toMatchObject({ warning: 0, total: 0, suppressed: 1 });
    expect(r.suppressed.map((s) => [s.finding.id, s.reason])).toEqual([['pod-opted-out', `flag --suppress ${spec}`]]);
  });

  it.each([
    ['pod-opted-out=Deployment/other/*'],
    ['pod-opted-out=Deployment/cart'],
    ['namespace-not-enabled=*/*/*'],
    ['pod-opted-out=StatefulSet/shop/cart'],
  ])('--suppress %s does not match', (spec) => {
    expect(run(optedOut(), [spec]).findings.map((f) => f.id)).toEqual(['pod-opted-out']);
  });

  it('cluster-scoped resources match Kind/name only', async () => {
    const base = ['check', '-A', '--snapshot', GOLDEN, '-o', 'json', ...TWO];
    const a = JSON.parse((await runCli([...base, '--suppress', 'namespace-not-enabled=Namespace/ord*'])).stdout);
    expect(a.suppressed).toEqual([
      {
        id: 'namespace-not-enabled',
        code: 'MD1001',
        resource: { kind: 'Namespace', name: 'orders' },
        reason: 'flag --suppress namespace-not-enabled=Namespace/ord*',
      },
    ]);
    expect(a.summary).toMatchObject({ warning: 2, suppressed: 1 });
    expect(validateJson(a), JSON.stringify(validateJson.errors)).toBe(true);
    const b = JSON.parse((await runCli([...base, '--suppress', 'namespace-not-enabled=Namespace/*/orders'])).stdout);
    expect(b.suppressed).toEqual([]);
  });

  it.each([
    [
      'the pod template',
      (o: K8sObject) => (o.kind === 'Deployment' ? (o as any).spec.template.metadata : undefined),
      'annotation meshdoctor.io/ignore on the pod template of Deployment shop/cart',
    ],
    [
      'the workload',
      (o: K8sObject) => (o.kind === 'Deployment' && o.metadata?.name === 'cart' ? o.metadata : undefined),
      'annotation meshdoctor.io/ignore on Deployment shop/cart',
    ],
    [
      'the namespace',
      (o: K8sObject) => (o.kind === 'Namespace' && o.metadata?.name === 'shop' ? o.metadata : undefined),
      'annotation meshdoctor.io/ignore on Namespace shop',
    ],
  ])('annotation on %s', (_, pick, reason) => {
    const r = run(annotate(optedOut(), pick, 'webhook-missing, pod-opted-out'));
    expect(r.findings).toEqual([]);
    expect(r.suppressed.map((s) => s.reason)).toEqual([reason]);
    // Another check's id does not suppress it.
    expect(run(annotate(optedOut(), pick, 'namespace-not-enabled,MD1001')).findings.map((f) => f.id)).toEqual([
      'pod-opted-out',
    ]);
    // The code works as well as the id.
    expect(run(annotate(optedOut(), pick, 'MD1002')).summary.suppressed).toBe(1);
  });

  it('suppressed findings do not count for the exit code, and the table says so', async () => {
    const objects = annotate(
      optedOut(),
      (o) => (o.kind === 'Namespace' && o.metadata?.name === 'shop' ? o.metadata : undefined),
      'pod-opted-out',
    );
    const file = snapFile('ignored.json', objects);
    const plain = snapFile('plain.json', optedOut());
    expect((await runCli(['check', '-A', '--snapshot', plain, '--fail-on', 'warning', '-o', 'json'])).code).toBe(1);
    const r = await runCli(['check', '-A', '--snapshot', file, '--fail-on', 'warning', '-o', 'table'], {
      env: { COLUMNS: '300' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('0 errors, 0 warnings, 0 info · 1 suppressed · ');
    expect(r.stdout).toContain(
      '  suppressed MD1002 pod-opted-out on Deployment shop/cart: annotation meshdoctor.io/ignore on Namespace shop',
    );
    const s = JSON.parse((await runCli(['check', '-A', '--snapshot', file, '-o', 'sarif'])).stdout);
    expect(validateSarif(s), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(s.runs[0].results).toHaveLength(1);
    expect(s.runs[0].results[0].suppressions).toEqual([
      { kind: 'inSource', justification: 'annotation meshdoctor.io/ignore on Namespace shop' },
    ]);
    const j = xml.parse((await runCli(['check', '-A', '--snapshot', file, '-o', 'junit'])).stdout).testsuites.testsuite;
    expect(j.failures).toBe('0');
    const quiet = j.testcase.find((t: any) => t.name === 'Deployment shop/cart');
    expect(quiet.skipped.message).toBe('suppressed: annotation meshdoctor.io/ignore on Namespace shop');
    expect(quiet['system-out']).toContain('MD1002 pod-opted-out on Deployment shop/cart');
    expect((await runCli(['check', '-A', '--snapshot', file, '-o', 'markdown'])).stdout).toContain('· 1 suppressed ·');
  });

  it.each([
    ['pod-opted-out'],
    ['pod-opted-out=Deployment'],
    ['=Deployment/a/b'],
    ['no-such-check=Deployment/a/b'],
    ['x=a/b/c/d'],
    ['pod-opted-out=Deployment//b'],
  ])('--suppress %s is a usage error (exit 2)', async (spec) => {
    const r = await runCli(['check', '-A', '--snapshot', GOLDEN, '--suppress', spec]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^meshdoctor: invalid --suppress .*\n$/);
  });
});
