/**
 * The keep-list is derived (issue 32 item 3): what a snapshot keeps of each kind is ONE declaration
 * (src/k8s/kept.ts KEEP) that src/cluster/sanitize.ts applies and docs/snapshot.md's table is
 * generated from (scripts/snapshot-doc.ts). This test derives the other side, the fields the checks
 * read: it runs every check (and `explain`) on every fixture with each object behind a Proxy that
 * records every field read, and fails on a field read that the declaration does not keep, naming
 * the kind and path. A self-test feeds it a made-up check reading a field no one keeps: it fails.
 * (test/snapshot-redaction.test.ts proves the other half: on every fixture the findings are the
 * same on kept objects as on whole ones, so a rule's reduction keeps what is read of it.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { KEEP, keptWhole, type Keep } from '../src/k8s/kept.js';
import { explain } from '../src/run/explain.js';
import { makeModel, runChecks } from '../src/run/run.js';
import type { Check } from '../src/checks/define.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import type { K8sObject } from '../src/util/types.js';
import { snapshotDoc } from '../scripts/snapshot-doc.js';
import {
  FIXTURES,
  HEALTHY_BASES,
  NOW,
  baseObjects,
  baseOf,
  besideOf,
  fixtureObjects,
  overlay,
  snapshotFrom,
  type Base,
} from './helpers/fixtures.js';

/** Whether `decl` keeps what is read at `path` (segments; `[]` an entry of a list, `*` its keys enumerated). */
function keeps(decl: Keep, path: readonly string[]): boolean {
  if (path.length === 0) return decl !== 'none';
  if (typeof decl === 'string') return decl === 'all' || decl === 'object' || decl === 'array';
  if ('rule' in decl) return true; // the rule's reduction: proved by test/snapshot-redaction.test.ts
  if ('string' in decl || 'match' in decl || 'is' in decl) return false;
  const [head, ...rest] = path as [string, ...string[]];
  if ('each' in decl) return head === '*' || (head === '[]' && keeps(decl.each, rest));
  if (head === '[]') return false;
  // Its keys enumerated: what is kept of it (each key then read is recorded on its own).
  if (head === '*') return true;
  const f = decl.fields[head];
  if (f !== undefined) return keeps(f, rest);
  return !!decl.rest && !(decl.drop ?? []).includes(head);
}

/** Between the segments of a path recorded (annotation keys hold dots and slashes). */
const SEP = '\t';

const OBJECT_PROTO = new Set(Object.getOwnPropertyNames(Object.prototype));
const ARRAY_PROTO = new Set(Object.getOwnPropertyNames(Array.prototype));

/** The snapshot with each object of a kind not kept whole behind a recording Proxy; `reads` gets `kind path`. */
function recorded(snap: Snapshot, reads: Set<string>): Snapshot {
  const proxies = new WeakMap<object, object>();
  const wrap = (v: unknown, kind: string, path: string): unknown => {
    if (v === null || typeof v !== 'object') return v;
    const known = proxies.get(v);
    if (known) return known;
    const isArray = Array.isArray(v);
    const seg = (p: string) => (isArray && /^\d+$/.test(p) ? '[]' : p);
    const note = (p: string) => reads.add(`${kind} ${path}${path ? SEP : ''}${seg(p)}`);
    const proxy = new Proxy(v, {
      get(t, p, r) {
        const x = Reflect.get(t, p, r);
        if (typeof p === 'symbol') return x;
        if (!Object.prototype.hasOwnProperty.call(t, p) && (isArray ? ARRAY_PROTO : OBJECT_PROTO).has(p)) return x;
        if (isArray && p === 'length') return x;
        note(p);
        return wrap(x, kind, `${path}${path ? SEP : ''}${seg(p)}`);
      },
      has(t, p) {
        if (typeof p === 'string') note(p);
        return Reflect.has(t, p);
      },
      ownKeys(t) {
        note('*');
        return Reflect.ownKeys(t);
      },
    });
    proxies.set(v, proxy);
    return proxy;
  };
  const objects: Snapshot['objects'] = {};
  for (const [key, list] of Object.entries(snap.objects) as [keyof typeof KEEP, K8sObject[]][])
    objects[key] = keptWhole(KEEP[key]) ? list : (list.map((o) => wrap(o, key, '')) as K8sObject[]);
  return { ...snap, objects };
}

/** The fields read that KEEP does not keep, as `kind path.to.field`. */
const notKept = (reads: Iterable<string>): string[] =>
  [...reads]
    .filter((r) => {
      const [kind, path] = r.split(' ') as [keyof typeof KEEP, string];
      return !keeps(KEEP[kind].keep, path.split(SEP));
    })
    .map((r) => r.replaceAll(SEP, '.'))
    .sort();

/** Every check and `explain` of every workload, once over all namespaces and once with --expect-meshed. */
function readAll(snap: Snapshot, checks: readonly Check[] = CHECKS): Set<string> {
  const reads = new Set<string>();
  const rec = recorded(snap, reads);
  for (const expectMeshed of [false, true]) {
    const opts = { mesh: 'auto' as const, certExpiryWarningDays: 60, now: NOW, expectMeshed };
    const model = makeModel(rec, opts);
    const result = runChecks(rec, checks, opts, model);
    if (!expectMeshed)
      for (const w of model.workloads)
        try {
          explain(model, { kind: w.kind, name: w.name }, w.namespace, result.findings);
        } catch {
          // a workload explain refuses: what it read before is recorded
        }
  }
  return reads;
}

function fixtureFiles(dir = ''): string[] {
  return readdirSync(join(FIXTURES, dir), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) =>
      e.isDirectory() ? fixtureFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
    );
}

describe('every field a check reads is kept (src/k8s/kept.ts KEEP)', () => {
  const bases = new Map<Base, K8sObject[]>();
  const parsed = (b: Base) => bases.get(b) ?? bases.set(b, baseObjects(b)).get(b)!;
  const all = new Set<string>();

  it('on the healthy clusters and every fixture over its bases', () => {
    for (const b of HEALTHY_BASES) for (const r of readAll(snapshotFrom(parsed(b)))) all.add(r);
    for (const file of fixtureFiles()) {
      if (file.startsWith('healthy/')) continue;
      if (file === 'golden-cluster.yaml') {
        for (const r of readAll(snapshotFrom(fixtureObjects(file)))) all.add(r);
        continue;
      }
      for (const base of new Set([baseOf(file), besideOf(file)]))
        for (const r of readAll(snapshotFrom(overlay(parsed(base), fixtureObjects(file))))) all.add(r);
    }
    const demo = JSON.parse(readFileSync(join(FIXTURES, '..', '..', 'demo', 'cluster.json'), 'utf8'));
    for (const r of readAll(snapshotFrom(Object.values(demo.objects as Record<string, K8sObject[]>).flat())))
      all.add(r);
    // The recording sees the reads: of pods' containers and of events at least.
    expect(all.has(`pods spec${SEP}containers${SEP}[]${SEP}image`)).toBe(true);
    expect([...all].some((r) => r.startsWith('events message'))).toBe(true);
    expect(notKept(all)).toEqual([]);
    // Synchronous: a timeout only fails it afterwards. Every fixture twice, with every read
    // recorded: 29 CPU s, and 309 s of wall at load 20 failed the default 120 s (round 10).
  }, 900_000);

  it("docs/snapshot.md's table of kept paths is generated from KEEP (npx tsx scripts/snapshot-doc.ts)", () => {
    const doc = readFileSync(join(FIXTURES, '..', '..', 'docs', 'snapshot.md'), 'utf8');
    expect(snapshotDoc(doc, KEEP)).toBe(doc);
  });
});

describe('the agreement fails on a made-up disagreement', () => {
  it('a check reading a field no declaration keeps (a container field, a node capacity)', () => {
    const madeUp: Check = {
      ...CHECKS[0]!,
      id: 'made-up' as never,
      run(model) {
        for (const p of model.snapshot.objects.pods ?? [])
          for (const c of (p.spec as any)?.containers ?? []) void c.terminationMessagePath;
        for (const n of model.snapshot.objects.nodes ?? []) void (n.status as any)?.capacity;
        return [];
      },
    };
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'made-up', uid: 'made-up-node' },
      status: { capacity: {} },
    };
    const reads = readAll(snapshotFrom([...baseObjects('linkerd'), node]), [madeUp]);
    expect(notKept(reads)).toEqual(['nodes status.capacity', 'pods spec.containers.[].terminationMessagePath']);
  });

  it('a doc table that does not say what KEEP keeps', () => {
    const doc = readFileSync(join(FIXTURES, '..', '..', 'docs', 'snapshot.md'), 'utf8');
    const pods = KEEP.pods.keep as { fields: Record<string, Keep> };
    const more = { ...KEEP, pods: { ...KEEP.pods, keep: { ...pods, fields: { ...pods.fields, madeUp: 'none' } } } };
    expect(snapshotDoc(doc, more as typeof KEEP)).not.toBe(doc);
    expect(snapshotDoc(doc, more as typeof KEEP)).toContain('`madeUp`');
  });
});
