/**
 * The JSON contracts (docs/cli.md "Compatibility"): `check -o json` (schema/report.schema.json)
 * and the NDJSON lines of `watch` (schema/watch-event.schema.json) against the copy of their last
 * release in schema/released/: a breaking change fails unless the version is incremented, and an
 * increment fails without one (1 -> 2 broke consumers pinning 1 for fields that were only added).
 * The metric families are compared the same way in test/watch/metrics-contract.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { MESH_NAMES } from '../src/mesh/names.js';
import { ndjsonLine } from '../src/watch/transitions.js';
import { releasedVersions, schemaBreaks, versionProblem } from './helpers/contract.js';
import { cluster, findings } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const RELEASED = join(ROOT, 'schema', 'released');
const read = (p: string) => JSON.parse(readFileSync(join(ROOT, p), 'utf8')) as Record<string, any>;
const BASE = 'https://meshdoctor.dev/schema/';
const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;

describe('check -o json: schema/report.schema.json against the last released schema', () => {
  const current = read('schema/report.schema.json');
  const released = releasedVersions(RELEASED, 'report', 'schema.json');
  const last = Math.max(...released.keys());
  const version = current.properties.schemaVersion.const as number;

  it('every released version is kept, its $id and schemaVersion naming it', () => {
    expect([...released.keys()]).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    for (const [v, s] of released) {
      expect(s.$id, `report.v${v}`).toBe(`${BASE}report.v${v}.schema.json`);
      expect((s.properties as any).schemaVersion.const, `report.v${v}`).toBe(v);
    }
    expect(current.$id).toBe(`${BASE}report.v${version}.schema.json`);
  });

  it('no breaking change without a schemaVersion increment, no increment without one', () => {
    const breaks = schemaBreaks(released.get(last)!, current, ['$.schemaVersion']);
    expect(versionProblem(last, version, breaks)).toBeUndefined();
  });

  it('the report printed carries that schemaVersion (the golden report)', () => {
    expect(read('test/golden/report.json').schemaVersion).toBe(version);
  });
});

describe('watch NDJSON: schema/watch-event.schema.json against the last released schema', () => {
  const current = read('schema/watch-event.schema.json');
  const released = releasedVersions(RELEASED, 'watch-event', 'schema.json');
  const last = Math.max(...released.keys());
  const version = Number(/watch-event\.v([0-9]+)\.schema\.json$/.exec(current.$id)?.[1]);

  it('every released version is kept, its $id naming it; the current $id names its version', () => {
    expect([...released.keys()]).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    for (const [v, s] of released) expect(s.$id).toBe(`${BASE}watch-event.v${v}.schema.json`);
    expect(current.$id).toBe(`${BASE}watch-event.v${version}.schema.json`);
  });

  it('no breaking change without a version increment, no increment without one', () => {
    expect(versionProblem(last, version, schemaBreaks(released.get(last)!, current))).toBeUndefined();
  });

  it('the lines watch writes are what the schema says, every field of it written', () => {
    const fs = findings(cluster('linkerd', ['checks/sidecar-missing/fires-linkerd.yaml']));
    expect(fs.length).toBeGreaterThan(0);
    // causedBy is written only for a finding another one explains: one such finding too.
    const all = [...fs, { ...fs[0]!, causedBy: 'webhook-missing/linkerd' }];
    const validate = new Ajv({ strict: false }).compile(current);
    const seen = new Set<string>();
    for (const [i, f] of all.entries()) {
      const line = ndjsonLine(i % 2 ? 'resolved' : 'opened', f, new Date('2026-11-22T12:00:00Z'));
      const obj = JSON.parse(line);
      expect(validate(obj), JSON.stringify(validate.errors)).toBe(true);
      for (const k of Object.keys(obj)) seen.add(k);
    }
    expect([...seen].sort()).toEqual(Object.keys(current.properties).sort());
    // Every mesh is a value of its mesh enum (a new mesh is added there and to the report's).
    expect([...current.properties.mesh.enum].sort()).toEqual([...MESH_NAMES].sort());
  });
});

describe('the comparison finds each kind of breaking change (made up here)', () => {
  const released = read('schema/report.schema.json');
  const edit = (f: (s: any) => void) => {
    const s = structuredClone(released);
    f(s);
    return schemaBreaks(released, s, ['$.schemaVersion']);
  };
  // The path where a $def is first reached (a finding: under $.elsewhere or $.findings[]).
  const at = (tail: string) =>
    expect.stringMatching(new RegExp(`^\\$\\..*${tail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));

  it('additive changes are not breaking: a new property (optional or required), a new enum value', () => {
    expect(
      edit((s) => {
        s.$defs.finding.properties.newField = { type: 'string' };
        s.$defs.finding.properties.newRequired = { type: 'integer' };
        s.$defs.finding.required.push('newRequired');
        s.$defs.finding.properties.severity.enum.push('critical');
      }),
    ).toEqual([]);
  });

  it('removed or renamed, retyped, newly required, no longer required, narrowed, variant removed', () => {
    expect(edit((s) => delete s.$defs.finding.properties.affectedPods)).toEqual([
      at('findings[].affectedPods: removed'),
    ]);
    expect(
      edit((s) => {
        s.$defs.finding.properties.count = s.$defs.finding.properties.affectedPods;
        delete s.$defs.finding.properties.affectedPods;
      }),
    ).toEqual([at('findings[].affectedPods: removed')]);
    expect(edit((s) => (s.$defs.finding.properties.affectedPods = { type: 'string' }))).toEqual([
      at('findings[].affectedPods: type number changed to string'),
    ]);
    expect(edit((s) => s.$defs.finding.required.push('causedBy'))).toEqual([at('findings[].causedBy: newly required')]);
    expect(edit((s) => s.$defs.finding.required.splice(s.$defs.finding.required.indexOf('message'), 1))).toEqual([
      at('findings[].message: no longer required (consumers may find it absent)'),
    ]);
    expect(edit((s) => (s.$defs.finding.properties.severity.enum = ['error', 'warning']))).toEqual([
      at('findings[].severity: enum narrowed: "info" no longer possible'),
    ]);
    expect(edit((s) => (s.$defs.finding.properties.message = { enum: ['a'] }))).toEqual([
      at('findings[].message: narrowed to "a"'),
    ]);
    const variants = (s: any) => s.$defs.step.oneOf as any[];
    expect(variants(released).length).toBeGreaterThan(1);
    const first = Object.entries(variants(released)[0].properties).find(([, p]: any) => 'const' in p)!;
    expect(edit((s) => variants(s).splice(0, 1))).toEqual([
      at(`fixData[]/oneOf[${first[0]}=${JSON.stringify((first[1] as any).const)}]: variant removed`),
    ]);
  });

  it('the version rule: breaks need the next version; the next version needs breaks', () => {
    expect(versionProblem(2, 2, [])).toBeUndefined();
    expect(versionProblem(2, 3, ['x: removed'])).toBeUndefined();
    expect(versionProblem(2, 2, ['x: removed'])).toMatch(/^breaking changes without a version increment/);
    expect(versionProblem(2, 3, [])).toBe('version 3 without a breaking change: additive changes keep version 2');
    expect(versionProblem(2, 4, ['x: removed'])).toMatch(/the last released is 2/);
  });
});

describe('check --all-contexts -o json: schema/fleet.schema.json against its last released schema', () => {
  // The fleet document appeared with report schemaVersion 2 and carries the same number.
  const current = read('schema/fleet.schema.json');
  const released = releasedVersions(RELEASED, 'fleet', 'schema.json');
  const last = Math.max(...released.keys());
  const version = current.properties.schemaVersion.const as number;

  it('its $id names its version, each entry is the single-cluster report of that version', () => {
    for (const [v, s] of released) expect(s.$id, `fleet.v${v}`).toBe(`${BASE}fleet.v${v}.schema.json`);
    expect(current.$id).toBe(`${BASE}fleet.v${version}.schema.json`);
    expect(JSON.stringify(current)).toContain(`"$ref":"report.v${version}.schema.json"`);
    expect(version).toBe(read('schema/report.schema.json').properties.schemaVersion.const);
  });

  it('no breaking change without a schemaVersion increment', () => {
    const breaks = schemaBreaks(released.get(last)!, current, ['$.schemaVersion']);
    expect(versionProblem(last, version, breaks)).toBeUndefined();
  });
});
