/**
 * Property test: whatever shape the cluster's objects take (missing fields, wrong types, null
 * where a list belongs), no check throws and the JSON report stays valid against its schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { REPORTERS } from '../src/report/index.js';
import { runChecks } from '../src/run/run.js';
import type { K8sObject } from '../src/util/types.js';
import { NOW, baseObjects, fixtureObjects, overlay, snapshotFrom } from './helpers/fixtures.js';

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'schema/report.schema.json'), 'utf8'));
const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false }).compile(schema);

const BASE = overlay(
  baseObjects('both'),
  fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml'),
  fixtureObjects('checks/namespace-not-enabled/mixed-linkerd.yaml'),
);

/** Every path to a value inside an object (objects and arrays walked), up to a depth. */
function paths(
  v: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
  depth = 0,
): (string | number)[][] {
  if (depth > 8 || v === null || typeof v !== 'object') return out;
  for (const [k, child] of Object.entries(v)) {
    const p = [...prefix, Array.isArray(v) ? Number(k) : k];
    out.push(p);
    paths(child, p, out, depth + 1);
  }
  return out;
}

const junk = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.string(),
  fc.constant([]),
  fc.constant({}),
  fc.boolean(),
  fc.constant([null]),
  fc.constant('\u001b[31mred\u001b]8;;http://x\u0007'),
);

function mutate(objects: K8sObject[], picks: { obj: number; path: number; value: unknown }[]): K8sObject[] {
  const copy = structuredClone(objects);
  for (const { obj, path, value } of picks) {
    const target = copy[obj % copy.length]!;
    const all = paths(target);
    if (all.length === 0) continue;
    const p = all[path % all.length]!;
    let parent: any = target;
    for (const k of p.slice(0, -1)) parent = parent?.[k];
    if (parent && typeof parent === 'object') {
      const last = p[p.length - 1]!;
      if (value === undefined) delete parent[last];
      else parent[last] = value;
    }
  }
  return copy;
}

describe('malformed objects never break a run', () => {
  it('random mutations of a two-mesh cluster: no check throws, JSON is schema-valid', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ obj: fc.nat(), path: fc.nat(), value: junk }), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        (picks, all) => {
          const snap = snapshotFrom(
            mutate(BASE, picks),
            all ? { allNamespaces: true } : { allNamespaces: false, namespace: 'shop' },
          );
          const result = runChecks(snap, CHECKS, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
          expect(result.errors).toEqual([]);
          const json = JSON.parse(REPORTERS.json!(result, { version: 'test', color: false }));
          expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
          REPORTERS.table!(result, { version: 'test', color: true });
        },
      ),
      { numRuns: 300, seed: 20261122 },
    );
  });
});

describe('the CLI on randomly malformed snapshot files', () => {
  it('never throws, exits 0, 1 or 3, and prints only valid JSON on stdout', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { runCli } = await import('./helpers/cli.js');
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-prop-'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ obj: fc.nat(), path: fc.nat(), value: junk }), { minLength: 1, maxLength: 12 }),
        async (picks) => {
          const file = join(dir, 'cluster.json');
          writeFileSync(file, JSON.stringify({ kind: 'List', items: mutate(BASE, picks) }));
          const r = await runCli(['check', '-A', '--snapshot', file, '-o', 'json']);
          expect(r.stderr).toBe('');
          // 3: a mutation left the dump unable to show it read a kind where a control plane runs (docs/snapshot.md, "A kubectl dump").
          expect([0, 1, 3]).toContain(r.code);
          expect(validate(JSON.parse(r.stdout)), JSON.stringify(validate.errors)).toBe(true);
        },
      ),
      { numRuns: 60, seed: 20261122 },
    );
  });
});
