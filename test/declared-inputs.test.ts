/**
 * Declared inputs are the inputs read (issue 13). `kindsFor` lists what the selected checks declare
 * and the runner skips a check whose required input could not be read: a check that reads a kind
 * it does not declare would, under `--only X` or a forbidden kind, run on data that was never
 * read. So every check's reads are recorded, on every fixture (over its base, in the full view and
 * in the namespace-only view an app team's Role gives), with `snapshot.objects` wrapped in a
 * recording Proxy: any kind read through any path (the Model, its memos, the mesh helpers) must be
 * declared. The reverse is checked too: a declared kind that no fixture makes the check read is
 * reported. Every memo the checks share is a declared fact with its inputs (src/k8s/fact.ts), so
 * one run of all checks per case says what each read: its own reads, outside any fact, and the
 * inputs of every fact it asks for, cached or not; what a fact reads is checked against its
 * inputs when it is computed. That premise is checked too: on its own fixtures each check reads
 * alone what it reads beside the others.
 * A check's inputs are derived (src/checks/define.ts derivedInputs): its catalog entry's own reads
 * and the inputs of the facts it declares (`facts`). So these tests check the derivation: a kind
 * read that neither brings is named with the fact that read it, a declared fact the check never
 * asks for is named, and so is an own read that copies a declared fact's input.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { CATALOG, type CatalogEntry } from '../src/checks/catalog.js';
import { KINDS, KIND_KEYS, type KindKey } from '../src/k8s/kinds.js';
import { defineFact, factInputs, type AnyFact } from '../src/k8s/fact.js';
import { SnapshotIndex } from '../src/k8s/snapshot.js';
import { overlayManifests } from '../src/run/manifests.js';
import { runChecks } from '../src/run/run.js';
import { defineCheck, derivedInputs, meta, type Check } from '../src/checks/define.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import {
  FIXTURES,
  HEALTHY_BASES,
  NOW,
  baseOf,
  besideOf,
  cluster,
  fixtureObjects,
  type Base,
} from './helpers/fixtures.js';

/**
 * Facts (src/k8s/fact.ts) declare the kinds they read. Every ask of a fact while a check runs is
 * recorded against that check, cached or not (a memo hides the read, never the ask): the check
 * reads the fact's inputs, so it must declare them. And while a fact is computed, what it reads and
 * the facts it asks for must be within its own inputs: the declarations are checked, not trusted.
 * A Recorder holds what one analysis saw (the suite's, or a planted test's own).
 */
class Recorder {
  /** The check running (undefined: the runner's own reads and asks). */
  check: string | undefined;
  /** Per check, in the run going on: every kind it read itself or through a fact it asked for. */
  reads = new Map<string, Set<string>>();
  /** Per check, over all runs: each kind its facts declare, with the facts that declare it. */
  byCheck = new Map<string, Map<string, Set<string>>>();
  /** The facts being computed, innermost last. */
  stack: { id: string; inputs: ReadonlySet<string> }[] = [];
  /** Per fact: what it read or asked beyond its declared inputs, with an example. */
  overreach = new Map<string, Map<string, string>>();
  /** Per check, over all runs: the facts it asked for itself (not through another fact). */
  asked = new Map<string, Set<AnyFact>>();
  /**
   * Per check, in the run going on: the facts with fixed inputs (not a family whose inputs depend
   * on its key) whose inputs are in `reads` and `byCheck` already. Asking again adds nothing, so
   * it is not recorded again (a run asks for the same facts tens of thousands of times).
   */
  recorded = new Map<string, Set<AnyFact>>();

  over(id: string, kind: string, how: string): void {
    const m = this.overreach.get(id) ?? new Map<string, string>();
    if (!m.has(kind)) m.set(kind, how);
    this.overreach.set(id, m);
  }

  /** A kind read through the snapshot's objects: the running check's (outside any fact), or checked against the fact computing. */
  read(kind: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top) {
      if (!top.inputs.has(kind)) this.over(top.id, kind, 'read');
    } else if (this.check !== undefined) this.readsOf(this.check).add(kind);
  }

  readsOf(check: string): Set<string> {
    const r = this.reads.get(check) ?? new Set<string>();
    this.reads.set(check, r);
    return r;
  }
}

/** The recorder of the analysis going on (undefined: facts are asked as the CLI asks them). */
let recorder: Recorder | undefined;
/** A fact's inputs as a set, made once per inputs list (a fact's own list is the same each time). */
const inputSets = new WeakMap<readonly string[], ReadonlySet<string>>();
const setOf = (inputs: readonly string[]): ReadonlySet<string> => {
  let set = inputSets.get(inputs);
  if (!set) inputSets.set(inputs, (set = new Set(inputs)));
  return set;
};
const realFact = SnapshotIndex.prototype.fact;
// The one seam every fact goes through: record who asked, and what the fact's computation reads.
function recordedFact(this: SnapshotIndex, f: AnyFact, key?: unknown): unknown {
  const rec = recorder;
  if (!rec) return (realFact as (f: AnyFact, key?: unknown) => unknown).call(this, f, key);
  const inputs = factInputs(f, key);
  const parent = rec.stack[rec.stack.length - 1];
  if (parent) {
    for (const k of inputs) if (!parent.inputs.has(k)) rec.over(parent.id, k, `through fact ${f.id}`);
  } else if (rec.check !== undefined) {
    const fixed = !f.family || typeof f.inputs !== 'function';
    let done = rec.recorded.get(rec.check);
    if (!done) rec.recorded.set(rec.check, (done = new Set()));
    if (!fixed || !done.has(f)) {
      const per = rec.byCheck.get(rec.check) ?? new Map<string, Set<string>>();
      rec.byCheck.set(rec.check, per);
      rec.asked.set(rec.check, (rec.asked.get(rec.check) ?? new Set()).add(f));
      const reads = rec.readsOf(rec.check);
      for (const k of inputs) {
        per.set(k, (per.get(k) ?? new Set()).add(f.id));
        reads.add(k);
      }
      if (fixed) done.add(f);
    }
  }
  rec.stack.push({ id: f.id, inputs: setOf(inputs) });
  try {
    return (realFact as (f: AnyFact, key?: unknown) => unknown).call(this, f, key);
  } finally {
    rec.stack.pop();
  }
}
SnapshotIndex.prototype.fact = recordedFact as typeof realFact;
// The test files of a worker share src/'s modules (vitest.config.ts, isolate: false): put it back.
afterAll(() => void (SnapshotIndex.prototype.fact = realFact));

/** Declared inputs no fixture reads, kept on purpose (each with the reason). */
const ALLOWED_UNREAD: Record<string, KindKey[]> = {};

const CLUSTER_SCOPED = KIND_KEYS.filter((k) => !KINDS[k].namespaced);

/**
 * What a namespaced Role shows: the cluster-scoped kinds forbidden, and (with a namespace) only
 * that namespace's objects, scope -n.
 */
function namespaceOnly(snap: Snapshot, ns?: string): Snapshot {
  const objects: Snapshot['objects'] = {};
  const unavailable: Snapshot['unavailable'] = { ...snap.unavailable };
  for (const k of KIND_KEYS) {
    const list = snap.objects[k];
    if (!list) continue;
    if (!KINDS[k].namespaced) unavailable[k] = `forbidden: cannot list ${k} at the cluster scope`;
    else objects[k] = ns ? list.filter((o) => o.metadata?.namespace === ns) : list;
  }
  return { ...snap, scope: ns ? { allNamespaces: false, namespace: ns } : snap.scope, objects, unavailable };
}

interface Case {
  name: string;
  snap: Snapshot;
  /** --expect-meshed (check -f). */
  expectMeshed?: boolean;
  /**
   * The digest of the case's input, where another case may have the same: a namespace-only -n
   * view of a namespace the fixture does not touch is the same view over every fixture of that
   * base (the cluster-scoped kinds forbidden, only that namespace's objects). A run is a function
   * of its input (a fresh Model each; no memo outside the facts, which is tested below), so a
   * run over the same input reads the same: such a case takes the reads and errors of the first
   * case with its input, under its own name (about a third of the cases, most of them small).
   */
  same?: string;
}

/** `check -f FILE --expect-meshed`: the file's objects as manifests applied to the base. */
function asManifests(base: Base, file: string): Snapshot | undefined {
  const objects = fixtureObjects(file).map((obj, i) => ({ obj, source: { file, document: i + 1 } }));
  try {
    return overlayManifests(cluster(base), { files: [file], objects }, 'default');
  } catch {
    return undefined; // a fixture whose namespace the base lacks cannot be applied
  }
}

/** A case's input as a short text (its JSON's digest: the JSON itself would keep megabytes per fixture). */
const digest = (snap: Snapshot) => createHash('sha256').update(JSON.stringify(snap)).digest('base64');

function cases(): Case[] {
  const out: Case[] = [];
  const add = (name: string, snap: Snapshot) => {
    out.push({ name, snap });
    out.push({ name: `${name} [namespace-only, -A]`, snap: namespaceOnly(snap) });
    const namespaces = [
      ...new Set((snap.objects.pods ?? []).map((p) => p.metadata?.namespace).filter((n): n is string => !!n)),
    ].sort();
    for (const ns of namespaces) {
      out.push({ name: `${name} [-n ${ns}]`, snap: { ...snap, scope: { allNamespaces: false, namespace: ns } } });
      const only = namespaceOnly(snap, ns);
      out.push({ name: `${name} [namespace-only, -n ${ns}]`, snap: only, same: digest(only) });
    }
  };
  for (const base of HEALTHY_BASES) add(`healthy ${base}`, cluster(base));
  add('golden-cluster.yaml', cluster('none', ['golden-cluster.yaml']));
  const files = [
    'manifests/helm-shop.yaml',
    ...readdirSync(join(FIXTURES, 'checks'))
      .sort()
      .flatMap((dir) =>
        readdirSync(join(FIXTURES, 'checks', dir))
          .filter((x) => /\.ya?ml$/.test(x))
          .sort()
          .map((f) => `checks/${dir}/${f}`),
      ),
  ];
  for (const file of files) {
    // Over its own base, as its test uses it, and over both meshes (the parity test's base).
    // Kuma's and Consul's beside another mesh (their control plane is not in 'both').
    for (const base of new Set([baseOf(file), besideOf(file)])) {
      if (file.startsWith('checks/')) add(`${file} over ${base}`, cluster(base, [file]));
      const m = asManifests(base, file);
      if (m) out.push({ name: `check -f ${file} --expect-meshed over ${base}`, snap: m, expectMeshed: true });
    }
  }
  return out;
}

/**
 * Run checks together on a fresh snapshot (so a fresh Model, nothing memoised) whose `objects`
 * records every kind key touched: by the check running, outside any fact (its own reads), or by a
 * fact being computed (checked against the fact's inputs). A check that asks for a fact reads the
 * fact's inputs, computed then or cached by an earlier check (or the runner): so each check's
 * reads are its own, whichever checks run beside it and in whatever order, and one run of all
 * checks per case says what each read. The runner's own reads (skip logic, ranking, suppressions)
 * are no check's.
 */
function kindsRead(
  checks: readonly Check[],
  { snap, expectMeshed }: Case,
  rec: Recorder,
): { reads: Map<string, Set<string>>; errors: Map<string, string[]> } {
  rec.reads = new Map();
  rec.recorded = new Map();
  const errors = new Map<string, string[]>();
  const objects = new Proxy(
    { ...snap.objects },
    {
      get: (t, k, r) => (typeof k === 'string' && rec.read(k), Reflect.get(t, k, r)),
      has: (t, k) => (typeof k === 'string' && rec.read(k), Reflect.has(t, k)),
      getOwnPropertyDescriptor: (t, k) => (
        typeof k === 'string' && rec.read(k),
        Reflect.getOwnPropertyDescriptor(t, k)
      ),
      // Enumerating the kinds is reading all of them (a check or a fact has no business doing it).
      ownKeys: (t) => {
        if (rec.check !== undefined || rec.stack.length) for (const k of KIND_KEYS) rec.read(k);
        return Reflect.ownKeys(t);
      },
    },
  );
  const recorded = checks.map((check): Check => ({
    ...check,
    *run(m) {
      rec.check = check.id;
      try {
        yield* check.run.call(check, m);
      } catch (e) {
        errors.set(check.id, [...(errors.get(check.id) ?? []), String(e)]);
        throw e;
      } finally {
        rec.check = undefined;
      }
    },
  }));
  const before = recorder;
  recorder = rec;
  try {
    const r = runChecks({ ...snap, objects }, recorded, {
      mesh: 'auto',
      certExpiryWarningDays: 60,
      now: NOW,
      expectMeshed: !!expectMeshed,
    });
    // An error the runner reports that no check's run threw (there is none today): every check's.
    const unowned = r.errors.filter((e) => ![...errors.keys()].some((id) => e.startsWith(`check ${id} failed`)));
    if (unowned.length) for (const c of checks) errors.set(c.id, [...(errors.get(c.id) ?? []), ...unowned]);
  } finally {
    recorder = before;
  }
  return { reads: rec.reads, errors };
}

const declaredOf = (c: Check) => new Set<string>([...c.inputs, ...(c.optionalInputs ?? [])]);

interface Reads {
  /** Each kind the check read (itself or through a fact), with the cases it read it in. */
  reads: Map<string, string[]>;
  /** Per case it ran in (the cases of one view: no ' [' in the name), what it read there. */
  byCase: Map<string, Set<string>>;
  errors: string[];
}

/**
 * What each check reads on every case: one run of all of them per case (kindsRead attributes
 * every read and every fact asked for to the check running), the facts' own reads checked
 * against their inputs in `rec`.
 */
function analyse(checks: readonly Check[], all: readonly Case[], rec: Recorder): Map<string, Reads> {
  const out = new Map<string, Reads>(checks.map((c) => [c.id, { reads: new Map(), byCase: new Map(), errors: [] }]));
  // What a run read, by its input (Case.same): a case whose input was run already is not run again.
  const ran = new Map<string, ReturnType<typeof kindsRead>>();
  for (const c of all) {
    let run = c.same === undefined ? undefined : ran.get(c.same);
    if (!run) {
      run = kindsRead(checks, c, rec);
      if (c.same !== undefined) ran.set(c.same, run);
    }
    const { reads, errors } = run;
    for (const [id, read] of reads) {
      const r = out.get(id)!;
      // Only hiddenReads reads it, for cases of one view (no ' [' in the name): 57 checks x 15k cases otherwise.
      if (!c.name.includes(' [')) r.byCase.set(c.name, read);
      for (const k of read) {
        const where = r.reads.get(k);
        if (where) where.push(c.name);
        else r.reads.set(k, [c.name]);
      }
    }
    for (const [id, es] of errors) out.get(id)!.errors.push(...es.map((e) => `${c.name}: ${e}`));
  }
  return out;
}

/**
 * The premise of the one run: a check reads the same beside the others as alone. A memo outside
 * the facts (a fact's value that callers fill, a cache in a module) would hide from a later check
 * the reads an earlier one made. So each check runs alone on its own fixtures (and the healthy and
 * golden clusters), -A, and must read there exactly what it read in the run of all checks.
 * Returns, per check, the cases where the two differ, with the kinds only one of them read.
 */
function hiddenReads(checks: readonly Check[], all: readonly Case[], together: Map<string, Reads>) {
  const out: Record<string, Record<string, { alone: string[]; together: string[] }>> = {};
  for (const check of checks) {
    const own = (c: Case) =>
      !c.name.includes(' [') &&
      (c.name.startsWith(`checks/${check.id}/`) ||
        c.name.includes(` checks/${check.id}/`) ||
        c.name === 'healthy both' ||
        c.name === 'golden-cluster.yaml');
    for (const c of all.filter(own)) {
      const alone = kindsRead([check], c, new Recorder()).reads.get(check.id) ?? new Set<string>();
      const beside = together.get(check.id)!.byCase.get(c.name) ?? new Set<string>();
      const a = [...alone].filter((k) => !beside.has(k)).sort();
      const b = [...beside].filter((k) => !alone.has(k)).sort();
      if (a.length || b.length) (out[check.id] ??= {})[c.name] = { alone: a, together: b };
    }
  }
  return out;
}

/**
 * What is wrong with how a check's inputs are derived (derivedInputs): a fact it declares that it
 * never asks for (its inputs would be read for nothing), and an own read (`optionalInputs`) that a
 * fact it declares already brings (a copy, which would stay behind when the fact changes).
 */
function derivationErrors(check: Check, own: readonly string[], asked: ReadonlySet<AnyFact> | undefined): string[] {
  const facts = check.facts ?? [];
  return [
    ...facts.filter((f) => !asked?.has(f)).map((f) => `declares fact ${f.id}, which it never asks for`),
    ...own.flatMap((k) => {
      const by = facts.filter((f) => factInputs(f).includes(k as KindKey)).map((f) => f.id);
      return by.length ? [`optionalInputs copies ${k}, an input of fact ${by.join(', ')}`] : [];
    }),
  ];
}

const ALL = cases();
// The test files of a worker share its heap too: the cases' snapshots go with this file, not
// stay for every file the worker runs after it.
afterAll(() => void ALL.splice(0));

let analysed: Map<string, Reads>;
const runAll = (check: Check): Reads => analysed.get(check.id)!;
/** What the suite's analysis saw (the planted tests record their own). */
const asks = new Recorder();

describe('declared inputs are the inputs read', () => {
  // A timeout that only ends a hang: 600 s was passed at load 20 (about 90 CPU s, profiled).
  beforeAll(() => void (analysed = analyse(CHECKS, ALL, asks)), 1_800_000);

  it('has fixtures to run', () => expect(ALL.length).toBeGreaterThan(100));

  for (const check of CHECKS) {
    it(`${check.id} reads only the kinds it declares`, () => {
      const declared = declaredOf(check);
      const { reads, errors } = runAll(check);
      expect(errors).toEqual([]);
      // Each with how it was read: a fact to declare (`facts`), or its own read (`optionalInputs`).
      const through = asks.byCheck.get(check.id);
      const undeclared = [...reads]
        .filter(([k]) => !declared.has(k))
        .map(([k, where]) => [
          k,
          `${where.length} case(s), e.g. ${where[0]}; ${through?.has(k) ? `through fact ${[...through.get(k)!].sort().join(', ')}` : 'read itself'}`,
        ]);
      expect(Object.fromEntries(undeclared)).toEqual({});
    });
  }

  it('each check reads alone what it reads beside the others (on its own fixtures, -A)', () => {
    expect(hiddenReads(CHECKS, ALL, analysed)).toEqual({});
  });

  it('each check declares the inputs of every fact it asks for (src/k8s/fact.ts)', () => {
    const missing: Record<string, Record<string, string[]>> = {};
    for (const check of CHECKS) {
      const declared = declaredOf(check);
      for (const [k, facts] of asks.byCheck.get(check.id) ?? [])
        if (!declared.has(k)) (missing[check.id] ??= {})[k] = [...facts].sort();
    }
    expect(missing).toEqual({});
  });

  it('each check declares only facts it asks for, and copies no input of theirs into its own (derivedInputs)', () => {
    const wrong: Record<string, string[]> = {};
    for (const check of CHECKS) {
      const own = (CATALOG[check.id as keyof typeof CATALOG] as CatalogEntry).optionalInputs ?? [];
      wrong[check.id] = derivationErrors(check, own, asks.asked.get(check.id));
      if (!wrong[check.id]!.length) delete wrong[check.id];
    }
    expect(wrong).toEqual({});
  });

  it('each fact reads, and asks for facts that read, only the kinds it declares', () => {
    expect(Object.fromEntries([...asks.overreach].map(([id, m]) => [id, Object.fromEntries(m)]))).toEqual({});
  });

  it('every declared input is read by some fixture (or allow-listed with its reason)', () => {
    const unread: Record<string, string[]> = {};
    for (const check of CHECKS) {
      const { reads } = runAll(check);
      // A kind the check declares because a fact it asks for declares it is derived, not guessed
      // (decisions read ServiceAccounts only for Consul with ACLs: src/mesh/consul/injector.ts).
      const ofFacts = asks.byCheck.get(check.id);
      const never = [...check.inputs, ...(check.optionalInputs ?? [])].filter(
        (k) => !reads.has(k) && !ofFacts?.has(k) && !ALLOWED_UNREAD[check.id]?.includes(k),
      );
      if (never.length) unread[check.id] = never;
    }
    expect(unread).toEqual({});
  });

  const probe: Check = {
    id: 'probe',
    code: 'MD9999',
    title: 'probe',
    description: 'reads through the Model',
    severity: 'info',
    inputs: [],
    // eslint-disable-next-line require-yield -- reads what it declares and finds nothing
    *run(m) {
      void m.appWorkloads; // the workload index: pods and every controller kind
      void m.has('events');
    },
  };

  it('the recorder sees reads through the Model and its memos, and only while the check runs', () => {
    const { reads } = kindsRead([probe], { name: 'healthy linkerd', snap: cluster('linkerd') }, new Recorder());
    expect([...reads.get('probe')!].sort()).toEqual(
      expect.arrayContaining(['events', 'pods', 'replicasets', 'deployments', 'cronjobs']),
    );
    // The runner's own reads (skip logic, ranking, suppressions) are not the check's.
    const idle = kindsRead(
      [{ ...probe, *run() {} }],
      { name: 'healthy linkerd', snap: cluster('linkerd') },
      new Recorder(),
    );
    expect(idle.reads.get('probe')?.size ?? 0).toBe(0);
  });

  it('planted: a check reading a kind it does not declare is named, also when other checks share the run or a memo hides the read', () => {
    const sample = ALL.filter((c) => c.name.startsWith('healthy linkerd')).slice(0, 3);
    // Two checks declaring the same kinds, in one run: only the one that read more is named.
    const honest: Check = {
      ...probe,
      id: 'honest',
      inputs: ['namespaces'],
      // eslint-disable-next-line require-yield -- reads, finds nothing
      *run(m) {
        void m.list('namespaces');
      },
    };
    const sneaky: Check = {
      ...probe,
      id: 'sneaky',
      inputs: ['namespaces'],
      // eslint-disable-next-line require-yield -- reads, finds nothing
      *run(m) {
        void m.list('namespaces');
        void m.list('secrets');
      },
    };
    // A check declaring nothing that reads the workload index: sidecar-missing (run before it)
    // has built it, so the check reads no kind itself; asking for the fact reads the fact's inputs.
    const late: Check = {
      ...probe,
      id: 'late',
      inputs: [],
      // eslint-disable-next-line require-yield -- reads, finds nothing
      *run(m) {
        void m.appWorkloads;
      },
    };
    const planted = analyse(
      [CHECKS.find((c) => c.id === 'sidecar-missing')!, honest, sneaky, late],
      sample,
      new Recorder(),
    );
    const undeclared = (id: string, c: Check) =>
      [...planted.get(id)!.reads.keys()].filter((k) => !declaredOf(c).has(k)).sort();
    expect(undeclared('honest', honest)).toEqual([]);
    expect(undeclared('sneaky', sneaky)).toEqual(['secrets']);
    // In every case it ran in (the runner skips it where Namespaces were not read).
    expect(planted.get('sneaky')!.reads.get('secrets')).toHaveLength(
      sample.filter((c) => c.snap.objects.namespaces).length,
    );
    expect(undeclared('late', late)).toEqual(expect.arrayContaining(['pods', 'replicasets', 'deployments']));
  });

  it('planted: a check asking for a fact it does not declare the inputs of is named, even when the fact was cached', () => {
    const c = ALL.find((x) => x.name === 'healthy linkerd')!;
    const asker: Check = {
      ...probe,
      id: 'fact-asker',
      inputs: [],
      // eslint-disable-next-line require-yield -- asks, finds nothing
      *run(m) {
        void m.meshes;
      },
    };
    // sidecar-missing runs first and builds the installed meshes: the asker reads no kind itself.
    const rec = new Recorder();
    const { reads } = kindsRead([CHECKS.find((x) => x.id === 'sidecar-missing')!, asker], c, rec);
    expect(reads.get('sidecar-missing')!.has('mutatingwebhookconfigurations')).toBe(true);
    expect([...(rec.byCheck.get('fact-asker')?.keys() ?? [])]).toEqual(
      expect.arrayContaining(['mutatingwebhookconfigurations', 'namespaces', 'pods', 'deployments']),
    );
  });

  it('planted: a fact reading beyond its inputs is named, whichever check or fact asked for it', () => {
    const c = ALL.find((x) => x.name === 'healthy linkerd')!;
    const honestFact = defineFact({
      id: 'planted-honest',
      inputs: ['namespaces'],
      compute: (m: SnapshotIndex) => m.list('namespaces').length,
    });
    const reader = defineFact({
      id: 'planted-reader',
      inputs: ['pods'],
      compute: (m: SnapshotIndex) => m.list('pods').length + m.list('secrets').length,
    });
    const nested = defineFact({
      id: 'planted-nested',
      inputs: ['pods'],
      // Asks for a fact whose inputs it does not declare, and reads nothing beyond them itself.
      compute: (m: SnapshotIndex) => m.fact(reader) + m.fact(honestFact),
    });
    const enumerator = defineFact({
      id: 'planted-enumerator',
      inputs: ['pods'],
      compute: (m: SnapshotIndex) => Object.keys(m.snapshot.objects).length,
    });
    const asker: Check = {
      ...probe,
      id: 'planted-asker',
      inputs: ['pods', 'namespaces', 'secrets'],
      // eslint-disable-next-line require-yield -- asks, finds nothing
      *run(m) {
        void m.fact(nested);
        void m.fact(enumerator);
      },
    };
    const rec = new Recorder();
    analyse([asker], [c], rec);
    const over = Object.fromEntries([...rec.overreach].map(([id, m]) => [id, [...m.keys()].sort()]));
    expect(over['planted-reader']).toEqual(['secrets']);
    expect(over['planted-nested']).toEqual(['namespaces']);
    expect(over['planted-enumerator']).toEqual(KIND_KEYS.filter((k) => k !== 'pods').sort());
    expect(over['planted-honest']).toBeUndefined();
  });

  it('planted: a memo outside the facts that hides a read from the later check is named', () => {
    const sample = ALL.filter((c) => c.name === 'healthy both');
    // A fact whose value its callers fill: the first check to ask reads Secrets for it, the next reads nothing.
    const shared = defineFact({
      id: 'planted-filled-by-callers',
      inputs: [],
      compute: () => new Map<string, number>(),
    });
    const filled = (m: SnapshotIndex) => {
      const cache = m.fact(shared);
      if (!cache.has('n')) cache.set('n', m.list('secrets').length);
      return cache.get('n');
    };
    const first: Check = {
      ...probe,
      id: 'planted-first',
      inputs: ['secrets'],
      // eslint-disable-next-line require-yield -- reads, finds nothing
      *run(m) {
        void filled(m);
      },
    };
    const second: Check = { ...first, id: 'planted-second', inputs: [] };
    const together = analyse([first, second], sample, new Recorder());
    // The one run alone does not see it (the second check read nothing itself) ...
    expect([...together.get('planted-second')!.reads.keys()]).toEqual([]);
    // ... the premise check does.
    expect(hiddenReads([first, second], sample, together)).toEqual({
      'planted-second': { 'healthy both': { alone: ['secrets'], together: [] } },
    });
  });

  it('planted: a check whose facts or own reads leave out what it reads is named; a stale or copied declaration too', () => {
    const sample = ALL.filter((c) => c.name === 'healthy linkerd' || c.name === 'healthy istio');
    const real = CHECKS.find((c) => c.id === 'sidecar-missing')!;
    expect(real.facts?.length).toBeGreaterThan(0);
    // Its facts forgotten: the catalog's own reads alone, and what those facts read is named.
    const forgot = defineCheck({ ...meta('sidecar-missing'), messages: real.messages, run: real.run });
    // Its facts declared, and a kind read itself that neither they nor its catalog entry name.
    const extra: Check = {
      ...real,
      id: 'planted-extra',
      *run(m) {
        void m.list('limitranges');
        yield* real.run.call(real, m);
      },
    };
    const planted = analyse([forgot, extra], sample, new Recorder());
    const undeclared = (c: Check) => [...planted.get(c.id)!.reads.keys()].filter((k) => !declaredOf(c).has(k)).sort();
    expect(undeclared(forgot)).toEqual(expect.arrayContaining(['configmaps', 'cronjobs', 'replicasets']));
    expect(undeclared(extra)).toEqual(['limitranges']);
    // The derivation itself: the catalog's reads and the facts' inputs, the required ones once.
    expect(new Set([...real.inputs, ...(real.optionalInputs ?? [])])).toEqual(
      new Set([...real.inputs, ...real.facts!.flatMap((f) => factInputs(f))]),
    );
    expect(derivedInputs({ inputs: ['pods'], optionalInputs: ['events'] }, [real.facts![0]!]).optionalInputs).toEqual([
      'events',
      ...new Set(factInputs(real.facts![0]!).filter((k) => k !== 'pods' && k !== 'events')),
    ]);
    // A fact declared and never asked for, and an own read copied from a declared fact: both named.
    const stale = {
      ...extra,
      facts: [...real.facts!, defineFact({ id: 'planted-unasked', inputs: ['nodes'], compute: () => 0 })],
    };
    // (What it asks for over the suite's fixtures: on the healthy clusters it asks for fewer.)
    expect(derivationErrors(stale, ['events'], asks.asked.get('sidecar-missing'))).toEqual([
      'declares fact planted-unasked, which it never asks for',
      'optionalInputs copies events, an input of fact injection-skips',
    ]);
    expect(derivationErrors(real, [], asks.asked.get('sidecar-missing'))).toEqual([]);
  });

  it('namespace-only views really lack the cluster-scoped kinds', () => {
    const v = namespaceOnly(cluster('linkerd'), 'shop');
    for (const k of CLUSTER_SCOPED) expect(v.objects[k]).toBeUndefined();
    expect(Object.keys(v.unavailable).sort()).toEqual([...CLUSTER_SCOPED].sort());
  });
});
