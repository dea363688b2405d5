/**
 * Each check's evidence has a JSON Schema (schema/report.schema.json `$defs.evidence.$defs.<id>`,
 * applied to a finding by `$defs.evidenceByCheck` on its id), generated from the checks' types by
 * scripts/evidence-schema.ts. The committed schemas must be what the script generates from the
 * code now (`npx tsx scripts/evidence-schema.ts` rewrites them), and every finding of the fixture
 * corpus (every check's fires-* fixtures, all checks run over each; the healthy clusters at a time
 * their certificates have expired) must validate against them.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import type { Finding } from '../src/run/result.js';
import { evidenceDefs, evidenceSchemas } from '../scripts/evidence-schema.js';
import { FIXTURES, HEALTHY_BASES, baseOf, cluster, findings } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8'));
const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(schema);
const validateFinding = ajv.compile({ $ref: `${schema.$id}#/$defs/finding` });
/** A finding as -o json prints it. */
const asJson = (f: Finding) => JSON.parse(JSON.stringify(f));

describe('evidence schemas', () => {
  it(
    'schema/report.schema.json holds what scripts/evidence-schema.ts generates from the checks now',
    { timeout: 900_000 }, // ends a hang only: 53 s at load 25 (round 11)
    () => {
      const schemas = evidenceSchemas();
      expect(Object.keys(schemas)).toEqual(CHECKS.map((c) => c.id).sort());
      const defs = evidenceDefs(schemas);
      expect(schema.$defs.evidence, 'run: npx tsx scripts/evidence-schema.ts').toEqual(defs.evidence);
      expect(schema.$defs.evidenceByCheck, 'run: npx tsx scripts/evidence-schema.ts').toEqual(defs.evidenceByCheck);
      expect(schema.$defs.finding.allOf).toEqual([{ $ref: '#/$defs/evidenceByCheck' }]);
    },
  );

  // A timeout that ends a hang only: 55 s at load 25 (round 11).
  it('every finding of the fixture corpus validates, its evidence included', { timeout: 900_000 }, () => {
    const seen = new Set<string>();
    const check = (fs: Finding[], where: string) => {
      for (const f of fs) {
        seen.add(f.id);
        expect(validateFinding(asJson(f)), `${where}: ${f.id} ${JSON.stringify(validateFinding.errors)}`).toBe(true);
      }
    };
    for (const c of CHECKS) {
      const dir = join(FIXTURES, 'checks', c.id);
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir)
        .filter((f) => /^fires-.*\.ya?ml$/.test(f))
        .sort())
        check(findings(cluster(baseOf(file), [`checks/${c.id}/${file}`])), `${c.id}/${file}`);
    }
    // The certificate checks fire on the healthy clusters when their certificates are old.
    for (const base of HEALTHY_BASES)
      for (const now of [new Date('2036-10-15T00:00:00Z'), new Date('2037-06-01T00:00:00Z')])
        check(findings(cluster(base), undefined, { now }), `${base} at ${now.toISOString()}`);
    // Most checks are seen (the others fire only in cases their tables build: -n, -f, a clock).
    expect(seen.size).toBeGreaterThan(CHECKS.length * 0.8);
  });

  it('a finding whose evidence lacks a key, or has one of the wrong type, does not validate', () => {
    const [f] = findings(cluster('linkerd', ['checks/webhook-missing/fires-linkerd.yaml']), ['webhook-missing']);
    const ok = asJson(f!);
    expect(validateFinding(ok)).toBe(true);
    const { meshedPods: _gone, ...lacking } = ok.evidence;
    expect(validateFinding({ ...ok, evidence: lacking })).toBe(false);
    expect(validateFinding({ ...ok, evidence: { ...ok.evidence, meshedPods: 'two' } })).toBe(false);
    // Another check's evidence is not judged by this one's schema.
    expect(validateFinding({ ...ok, id: 'webhook-stale', evidence: ok.evidence })).toBe(false);
  });
});
