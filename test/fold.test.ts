/**
 * One root cause, one finding (issue 35 item 3): a consequence whose fix is, as data, its root
 * cause's fix is folded into the root as an `also` entry in every format: an invalid marker
 * (`linkerd.io/inject: "true"`) under --expect-meshed is one finding, one JUnit failure, one
 * SARIF alert whose markdown message carries the fix.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { foldConsequences } from '../src/run/fold.js';
import type { Finding } from '../src/run/result.js';
import { runCli } from './helpers/cli.js';
import { FIXTURES } from './helpers/fixtures.js';
import { githubSarifProblems } from './helpers/sarif-github.js';

const ROOT = join(import.meta.dirname, '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8'));
const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false }).compile(schema);
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-fold-'));
const manifest = join(tmp, 'cart.yaml');
writeFileSync(
  manifest,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: cart, namespace: legacy}
spec:
  replicas: 2
  selector: {matchLabels: {app: cart}}
  template:
    metadata:
      labels: {app: cart}
      annotations: {linkerd.io/inject: "true"}
    spec:
      containers: [{name: app, image: nginx}]
`,
);
const args = (o: string) => [
  'check',
  '--snapshot',
  join(FIXTURES, 'healthy/linkerd.yaml'),
  '-f',
  manifest,
  '--expect-meshed',
  '-o',
  o,
];

describe('a bad annotation: one root cause, one finding, in every format', () => {
  it('json: injection-marker-invalid with will-not-be-meshed as `also`, schema-valid, exit 1', async () => {
    const r = await runCli(args('json'));
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.findings.map((f: any) => f.id)).toEqual(['injection-marker-invalid']);
    expect(doc.summary).toMatchObject({ error: 1, total: 1 });
    const [f] = doc.findings;
    expect(f.also).toEqual([
      expect.objectContaining({ id: 'will-not-be-meshed', code: 'MD1011', severity: 'error', affectedPods: 2 }),
    ]);
    expect(f.affectedPods).toBe(2);
  });

  it('junit: one failure; sarif: one alert, the fix in message.markdown; markdown and table: one finding with an also line', async () => {
    const j = await runCli(args('junit'));
    expect(j.stdout.match(/<failure /g)).toHaveLength(1);
    expect(j.stdout).toMatch(/also MD1011 will-not-be-meshed: /);
    const s = JSON.parse((await runCli(args('sarif'))).stdout);
    expect(githubSarifProblems(s)).toEqual([]);
    const results = s.runs[0].results;
    expect(results).toHaveLength(1);
    expect(results[0].ruleId).toBe('injection-marker-invalid');
    expect(results[0].message.markdown).toMatch(/Also `MD1011` will-not-be-meshed: /);
    expect(results[0].message.markdown).toMatch(
      /\*\*Fix:\*\*\n\n```sh\n# in .*set linkerd\.io\/inject: 'enabled'\n```/,
    );
    const m = await runCli(args('markdown'));
    expect(m.stdout.match(/<details>/g)).toHaveLength(1);
    expect(m.stdout).toMatch(/^Also `MD1011` will-not-be-meshed: /m);
    const t = await runCli(args('table'), { env: { COLUMNS: '300' } });
    expect(t.stdout.match(/^ERROR /gm)).toHaveLength(1);
    expect(t.stdout).toMatch(/^ {2}also MD1011 will-not-be-meshed: /m);
  });
});

describe('foldConsequences', () => {
  const base = (over: Partial<Finding>): Finding => ({
    id: 'x',
    code: 'MD0000',
    severity: 'warning',
    mesh: 'linkerd',
    title: 't',
    message: 'm',
    resource: { kind: 'Deployment', namespace: 'shop', name: 'web' },
    evidence: {},
    fix: ['kubectl a'],
    fixData: [{ kind: 'command', argv: ['kubectl', 'a'] }],
    affectedPods: 0,
    ...over,
  });
  it('folds a consequence naming its root with the same fix (keys in any order), keeps one with another fix', () => {
    const root = base({ id: 'root', causeKey: 'k', severity: 'warning' });
    const same = base({
      id: 'same',
      causedBy: 'k',
      severity: 'error',
      affectedPods: 3,
      resource: { kind: 'Pod', name: 'p', namespace: 'shop' },
      fixData: [{ argv: ['kubectl', 'a'], kind: 'command' }],
    });
    const other = base({ id: 'other', causedBy: 'k', fixData: [{ kind: 'command', argv: ['kubectl', 'b'] }] });
    const out = foldConsequences([root, same, other]);
    expect(out.map((f) => f.id)).toEqual(['root', 'other']);
    expect(out[0]).toMatchObject({ severity: 'error', affectedPods: 3, also: [{ id: 'same' }] });
  });
  it('folds a finding on the root cause’s own object and mesh; never two roots, never an empty fix', () => {
    const root = base({ id: 'root', causeKey: 'k' });
    expect(foldConsequences([root, base({ id: 'c' })]).map((f) => f.id)).toEqual(['root']);
    expect(foldConsequences([root, base({ id: 'c', mesh: 'istio' })])).toHaveLength(2);
    expect(foldConsequences([root, base({ id: 'r2', causeKey: 'k2' })])).toHaveLength(2);
    expect(
      foldConsequences([base({ id: 'r', causeKey: 'k', fixData: [] }), base({ id: 'c', fixData: [] })]),
    ).toHaveLength(2);
  });
});
