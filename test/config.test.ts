/**
 * The configuration file (`.meshdoctor.yaml` in the working directory or `--config FILE`) and
 * `--baseline FILE` (issue 35 item 8): suppressions with reason, owner and expiry (an expired one
 * stops suppressing and says so; the expiry is compared with an injected clock, never the wall
 * clock), severity overrides, namespace and mesh excludes, a baseline so a CI gate fails only on
 * new findings (identity: check id + object, not the message), and a bad file as one line, exit 2.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { findingIdentity, parseConfig } from '../src/run/config.js';
import { runCli } from './helpers/cli.js';

const ROOT = join(import.meta.dirname, '..');
const DEMO = ['check', '-A', '--snapshot', join(ROOT, 'demo/cluster.json')];
/** The injected clock: suppressions' expiries are compared with this, never with the wall clock. */
const JAN_2027 = () => new Date('2027-01-15T12:00:00Z');

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'meshdoctor-config-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

const json = async (args: string[], cwd: string, clock = JAN_2027) => {
  const r = await runCli([...args, '-o', 'json'], { cwd, clock });
  return { ...r, report: r.stdout ? JSON.parse(r.stdout) : undefined };
};

const schema = JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8'));
const validate = new (Ajv2020 as any)({ allErrors: true, strict: false }).compile(schema);

const CONFIG = `# .meshdoctor.yaml
suppressions:
  - check: pod-opted-out
    resource: Deployment/store/search
    reason: search runs outside the mesh until the index moves
    owner: team-store
    expires: 2027-03-31
  - check: quota-blocks-proxy
    resource: Deployment/ledger/*
    reason: quota raised in the next sprint
    owner: team-ledger
    expires: 2027-01-14
severity:
  MD1001: info
exclude:
  namespaces: [legacy]
  meshes: []
`;

describe('.meshdoctor.yaml', () => {
  it('is read from the working directory: suppressions with reason and owner, severity overrides, namespace excludes; an expired suppression stops suppressing and says so', async () => {
    const cwd = dir({ '.meshdoctor.yaml': CONFIG });
    const { code, stderr, report } = await json(DEMO, cwd);
    expect(code).toBe(1);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    const reasons = report.suppressed.map(
      (s: any) => `${s.id} ${s.resource.namespace ?? ''}/${s.resource.name}: ${s.reason}`,
    );
    expect(reasons).toContain(
      'pod-opted-out store/search: config .meshdoctor.yaml: search runs outside the mesh until the index moves (owner team-store, expires 2027-03-31)',
    );
    // legacy excluded: its findings are set aside with the configuration as reason, not dropped.
    const legacy = report.suppressed.filter((s: any) => s.resource.namespace === 'legacy');
    expect(legacy.length).toBe(3);
    for (const s of legacy)
      expect(s.reason).toBe('config .meshdoctor.yaml: namespace legacy excluded (exclude.namespaces legacy)');
    expect(report.findings.some((f: any) => f.resource.namespace === 'legacy')).toBe(false);
    // Expired on 2027-01-14 (the injected clock says 2027-01-15): still a finding, and said.
    expect(report.findings.some((f: any) => f.id === 'quota-blocks-proxy')).toBe(true);
    expect(report.config).toEqual({
      file: '.meshdoctor.yaml',
      suppressions: 1,
      expiredSuppressions: [
        {
          check: 'quota-blocks-proxy',
          resource: 'Deployment/ledger/*',
          reason: 'quota raised in the next sprint',
          owner: 'team-ledger',
          expires: '2027-01-14',
        },
      ],
      severity: { 'namespace-not-enabled': 'info' },
    });
    expect(stderr).toBe(
      'meshdoctor: suppression quota-blocks-proxy=Deployment/ledger/* in .meshdoctor.yaml expired on 2027-01-14 (owner team-ledger): no longer suppressing\n',
    );
    // The severity override (by code): namespace-not-enabled is info in every format.
    expect(report.findings.find((f: any) => f.id === 'namespace-not-enabled').severity).toBe('info');
    const sarif = await runCli([...DEMO, '-o', 'sarif'], { cwd, clock: JAN_2027 });
    const result = JSON.parse(sarif.stdout).runs[0].results.find((r: any) => r.ruleId === 'namespace-not-enabled');
    expect(result.level).toBe('note');
  });

  it('the same suppression the day before its expiry still suppresses (the end of the day, UTC)', async () => {
    const cwd = dir({ '.meshdoctor.yaml': CONFIG });
    const { report, stderr } = await json(DEMO, cwd, () => new Date('2027-01-14T23:59:59Z'));
    expect(report.config.expiredSuppressions).toEqual([]);
    expect(report.suppressed.map((s: any) => s.id)).toContain('quota-blocks-proxy');
    expect(stderr).toBe('');
  });

  it('--config FILE instead of the working directory; mesh excludes', async () => {
    const cwd = dir({ 'gate.yaml': 'exclude:\n  meshes: [linkerd]\n' });
    const { report, code } = await json([...DEMO, '--config', 'gate.yaml'], cwd);
    expect(report.findings.map((f: any) => f.mesh)).not.toContain('linkerd');
    expect(
      report.suppressed.filter((s: any) => s.reason === 'config gate.yaml: mesh linkerd excluded (exclude.meshes)')
        .length,
    ).toBe(10);
    expect(code).toBe(1); // Istio's errors remain
  });

  it('none in the working directory: nothing changes, and no config block', async () => {
    const { report } = await json(DEMO, dir({}));
    expect(report.config).toBeUndefined();
    expect(report.summary.suppressed).toBe(0);
  });

  it.each([
    ['not YAML', 'suppressions: [', /^meshdoctor: invalid \.meshdoctor\.yaml: not YAML: /],
    [
      'an unknown key',
      'supressions: []\n',
      /^meshdoctor: invalid \.meshdoctor\.yaml: unknown key "supressions" \(known: suppressions, severity, exclude\)\n$/,
    ],
    [
      'a suppression without owner',
      'suppressions:\n  - {check: pod-opted-out, resource: Deployment/a/b, reason: r, expires: 2027-01-01}\n',
      /suppressions\[0\]: owner is required\n$/,
    ],
    [
      'a suppression without expiry',
      'suppressions:\n  - {check: pod-opted-out, resource: Deployment/a/b, reason: r, owner: o}\n',
      /suppressions\[0\]: expires must be a date YYYY-MM-DD\n$/,
    ],
    [
      'an impossible date',
      'suppressions:\n  - {check: pod-opted-out, resource: Deployment/a/b, reason: r, owner: o, expires: 2027-02-30}\n',
      /expires must be a date YYYY-MM-DD\n$/,
    ],
    ['an unknown check', 'severity:\n  pod-opted-in: info\n', /severity\.pod-opted-in: unknown check "pod-opted-in"/],
    [
      'a bad severity',
      'severity:\n  pod-opted-out: fatal\n',
      /severity\.pod-opted-out: expected error, warning or info\n$/,
    ],
    [
      'a malformed resource',
      'suppressions:\n  - {check: pod-opted-out, resource: nope, reason: r, owner: o, expires: 2027-01-01}\n',
      /suppressions\[0\]: expected ID=Kind\/namespace\/name/,
    ],
    ['an unknown mesh', 'exclude:\n  meshes: [cilium]\n', /exclude\.meshes: unknown mesh "cilium"/],
  ])('a bad file (%s): one line on stderr, exit 2, nothing on stdout', async (_name, text, line) => {
    const r = await runCli(DEMO, { cwd: dir({ '.meshdoctor.yaml': text }), clock: JAN_2027 });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toMatch(line);
  });

  it('--config naming a missing file: one line, exit 2', async () => {
    const r = await runCli([...DEMO, '--config', 'nope.yaml'], { cwd: dir({}) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^meshdoctor: cannot read configuration file .*nope\.yaml: /);
  });

  it('parseConfig compares expiry with the clock it is given', () => {
    const text = 'suppressions:\n  - {check: "*", resource: "*/x/*", reason: r, owner: o, expires: 2030-06-01}\n';
    expect(parseConfig(text, 'f', new Date('2030-06-01T23:59:59.999Z')).expired).toEqual([]);
    expect(parseConfig(text, 'f', new Date('2030-06-02T00:00:00Z')).expired).toHaveLength(1);
  });
});

describe('--baseline', () => {
  it('a gate fails only on findings not in the baseline; identity is the check and the object, not the message', async () => {
    const cwd = dir({});
    const before = await json([...DEMO, '--skip', 'job-never-completes'], cwd);
    // The earlier report, with every message reworded: the identities still match.
    const baseline = structuredClone(before.report);
    for (const f of baseline.findings) f.message = `reworded: ${f.message.length}`;
    writeFileSync(join(cwd, 'baseline.json'), JSON.stringify(baseline));
    const same = await json([...DEMO, '--skip', 'job-never-completes', '--baseline', 'baseline.json'], cwd);
    expect(same.code).toBe(0);
    expect(same.report.findings).toEqual([]);
    expect(same.report.summary.suppressed).toBe(before.report.findings.length);
    expect(same.report.config).toEqual({
      suppressions: 0,
      expiredSuppressions: [],
      baseline: { file: 'baseline.json', findings: before.report.findings.length },
    });
    expect(same.report.suppressed.every((s: any) => s.reason === 'baseline baseline.json: reported before')).toBe(true);
    // A new finding (job-never-completes was not run for the baseline): the gate fails on it alone.
    const now = await json([...DEMO, '--baseline', 'baseline.json'], cwd);
    expect(now.code).toBe(1);
    expect(now.report.findings.map((f: any) => f.id)).toEqual(['job-never-completes']);
    expect(validate(now.report), JSON.stringify(validate.errors)).toBe(true);
  });

  it('the identity ignores message and severity, keeps the namespace', () => {
    const a = { id: 'x', resource: { kind: 'Deployment', namespace: 'a', name: 'n' } };
    expect(findingIdentity(a)).toBe(findingIdentity({ ...a, message: 'other', severity: 'info' } as any));
    expect(findingIdentity(a)).not.toBe(findingIdentity({ ...a, resource: { ...a.resource, namespace: 'b' } }));
    expect(findingIdentity({ id: 'x', resource: { kind: 'Namespace', name: 'n' } })).not.toBe(
      findingIdentity({ id: 'x', resource: { kind: 'Namespace', namespace: '', name: 'n' } }),
    );
  });

  it.each([
    ['not JSON', 'nope', /not a meshdoctor JSON report \(check -o json\): not JSON\n$/],
    ['no findings', '{"summary":{}}', /no findings list\n$/],
    ['a finding without resource', '{"findings":[{"id":"x"}]}', /a finding without id and resource\n$/],
  ])('a bad baseline (%s): one line, exit 2', async (_n, text, line) => {
    const r = await runCli([...DEMO, '--baseline', 'b.json'], { cwd: dir({ 'b.json': text }) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^meshdoctor: invalid b\.json: /);
    expect(r.stderr).toMatch(line);
  });
});
