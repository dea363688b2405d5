/**
 * Declared inputs are the inputs read (issue 13). `kindsFor` lists what the selected checks declare
 * and the runner skips a check whose required input could not be read: a check that reads a kind
 * it does not declare would, under `--only X` or a forbidden kind, run on data that was never
 * read. So every check's reads are recorded, on every fixture (over its base, in the full view and
 * in the namespace-only view an app team's Role gives), with `snapshot.objects` wrapped in a
 * recording Proxy: any kind read through any path (the Model, its memos, the mesh helpers) must be
 * declared. The reverse is checked too: a declared kind that no fixture makes the check read is
 * reported. The Model's memos are shared by the checks of one run, so one run of all checks could
 * not say which of them read a kind: analyse() gets each check's reads alone, exactly, from far
 * fewer runs.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { KINDS, KIND_KEYS, type KindKey } from '../src/k8s/kinds.js';
import { factInputs, type AnyFact } from '../src/k8s/fact.js';
import { SnapshotIndex } from '../src/k8s/snapshot.js';
import { overlayManifests } from '../src/run/manifests.js';
import { runChecks } from '../src/run/run.js';
import type { Check } from '../src/checks/define.js';
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
 * must declare the fact's inputs. And while a fact is computed, what it reads and the facts it
 * asks for must be within its own inputs: the declarations are checked, not trusted.
 */
const asks = {
  /** The check running (undefined: the runner's own asks). */
  check: undefined as string | undefined,
  /** Per check: each kind its facts declare, with the facts that declare it. */
  byCheck: new Map<string, Map<string, Set<string>>>(),
  /** The facts being computed, innermost last, with what each read beyond its inputs. */
  stack: [] as { id: string; inputs: ReadonlySet<string> }[],
  /** Per fact: what it read or asked beyond its declared inputs, with an example. */
  overreach: new Map<string, Map<string, string>>(),
};
const over = (id: string, kind: string, how: string) => {
  const m = asks.overreach.get(id) ?? new Map<string, string>();
  if (!m.has(kind)) m.set(kind, how);
  asks.overreach.set(id, m);
};
const realFact = SnapshotIndex.prototype.fact;
// The one seam every fact goes through: record who asked, and what the fact's computation reads.
SnapshotIndex.prototype.fact = function (this: SnapshotIndex, f: AnyFact, key?: unknown) {
  const inputs = factInputs(f, key);
  if (asks.check !== undefined && asks.stack.length === 0) {
    const per = asks.byCheck.get(asks.check) ?? new Map<string, Set<string>>();
    asks.byCheck.set(asks.check, per);
    for (const k of inputs) per.set(k, (per.get(k) ?? new Set()).add(f.id));
  }
  const parent = asks.stack[asks.stack.length - 1];
  if (parent) for (const k of inputs) if (!parent.inputs.has(k)) over(parent.id, k, `through fact ${f.id}`);
  asks.stack.push({ id: f.id, inputs: new Set(inputs) });
  try {
    return (realFact as (f: AnyFact, key?: unknown) => unknown).call(this, f, key);
  } finally {
    asks.stack.pop();
  }
} as typeof realFact;

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
      out.push({ name: `${name} [namespace-only, -n ${ns}]`, snap: namespaceOnly(snap, ns) });
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
 * Run checks on a fresh snapshot (so a fresh Model, nothing memoised) whose `objects` records every
 * kind key touched while one of them runs (the runner's own reads are not the checks'; between two
 * checks the runner does not touch the Model, so whatever the Model computes, one of them asked).
 */
function kindsRead(checks: readonly Check[], { snap, expectMeshed }: Case): { read: Set<string>; errors: string[] } {
  const read = new Set<string>();
  let on = false;
  const note = (k: string | symbol) => {
    if (typeof k !== 'string') return;
    if (on) read.add(k);
    const top = asks.stack[asks.stack.length - 1];
    if (top && !top.inputs.has(k)) over(top.id, k, 'read');
  };
  const objects = new Proxy(
    { ...snap.objects },
    {
      get: (t, k, r) => (note(k), Reflect.get(t, k, r)),
      has: (t, k) => (note(k), Reflect.has(t, k)),
      getOwnPropertyDescriptor: (t, k) => (note(k), Reflect.getOwnPropertyDescriptor(t, k)),
      // Enumerating the kinds is reading all of them (a check has no business doing it).
      ownKeys: (t) => {
        if (on) for (const k of KIND_KEYS) read.add(k);
        return Reflect.ownKeys(t);
      },
    },
  );
  const recorded = checks.map((check): Check => ({
    ...check,
    *run(m) {
      on = true;
      asks.check = check.id;
      try {
        yield* check.run.call(check, m);
      } finally {
        on = false;
        asks.check = undefined;
      }
    },
  }));
  const r = runChecks({ ...snap, objects }, recorded, {
    mesh: 'auto',
    certExpiryWarningDays: 60,
    now: NOW,
    expectMeshed: !!expectMeshed,
  });
  return { read, errors: r.errors };
}

const declaredOf = (c: Check) => new Set<string>([...c.inputs, ...(c.optionalInputs ?? [])]);

interface Reads {
  /** Each kind the check read alone, with the cases it read it in (all of them for a kind it does not declare). */
  reads: Map<string, string[]>;
  errors: string[];
}

/**
 * What each check reads, as if each ran alone on every case, for the cost of far fewer runs.
 * A check run alone reads nothing that a run of it with other checks does not read (the same
 * code reads the same kinds; the others can only read more). So the checks that declare the
 * same kinds run together on each case: when the group read only what they declare and none
 * failed, each of them did too. Only where a group read more (or failed) does each of its checks
 * run alone on that case, which names the check and counts its cases exactly. The reverse (each
 * declared kind read somewhere) needs each check's own reads: it runs alone, its own fixtures
 * first, until it has read every kind it declares (or the cases are done).
 */
function analyse(checks: readonly Check[], all: readonly Case[]): Map<string, Reads> {
  const out = new Map<string, Reads>(checks.map((c) => [c.id, { reads: new Map(), errors: [] }]));
  const alone = (check: Check, c: Case) => {
    const r = out.get(check.id)!;
    const { read, errors } = kindsRead([check], c);
    r.errors.push(...errors.map((e) => `${c.name}: ${e}`));
    for (const k of read) r.reads.set(k, [...(r.reads.get(k) ?? []), c.name]);
  };
  const groups = new Map<string, Check[]>();
  for (const check of checks) {
    const key = [...declaredOf(check)].sort().join(',');
    groups.set(key, [...(groups.get(key) ?? []), check]);
  }
  for (const group of groups.values()) {
    const declared = declaredOf(group[0]!);
    for (const c of all) {
      const { read, errors } = kindsRead(group, c);
      if (errors.length || [...read].some((k) => !declared.has(k))) for (const check of group) alone(check, c);
    }
  }
  for (const check of checks) {
    const own = (c: Case) => c.name.startsWith(`checks/${check.id}/`) || c.name.includes(` checks/${check.id}/`);
    const unread = () => [...declaredOf(check)].filter((k) => !out.get(check.id)!.reads.has(k));
    for (const c of [...all.filter(own), ...all.filter((c) => !own(c))]) {
      if (!unread().length) break;
      alone(check, c);
    }
  }
  return out;
}

const ALL = cases();

let analysed: Map<string, Reads>;
const runAll = (check: Check): Reads => analysed.get(check.id)!;

describe('declared inputs are the inputs read', () => {
  beforeAll(() => void (analysed = analyse(CHECKS, ALL)), 600_000);

  it('has fixtures to run', () => expect(ALL.length).toBeGreaterThan(100));

  for (const check of CHECKS) {
    it(`${check.id} reads only the kinds it declares`, () => {
      const declared = declaredOf(check);
      const { reads, errors } = runAll(check);
      expect(errors).toEqual([]);
      const undeclared = [...reads]
        .filter(([k]) => !declared.has(k))
        .map(([k, where]) => [k, `${where.length} case(s), e.g. ${where[0]}`]);
      expect(Object.fromEntries(undeclared)).toEqual({});
    });
  }

  it('each check declares the inputs of every fact it asks for (src/k8s/fact.ts)', () => {
    const missing: Record<string, Record<string, string[]>> = {};
    for (const check of CHECKS) {
      const declared = declaredOf(check);
      for (const [k, facts] of asks.byCheck.get(check.id) ?? [])
        if (!declared.has(k)) (missing[check.id] ??= {})[k] = [...facts].sort();
    }
    expect(missing).toEqual({});
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
    const { read } = kindsRead([probe], { name: 'healthy linkerd', snap: cluster('linkerd') });
    expect([...read].sort()).toEqual(
      expect.arrayContaining(['events', 'pods', 'replicasets', 'deployments', 'cronjobs']),
    );
    // The runner's own reads (skip logic, ranking, suppressions) are not the check's.
    expect(kindsRead([{ ...probe, *run() {} }], { name: 'healthy linkerd', snap: cluster('linkerd') }).read.size).toBe(
      0,
    );
  });

  it('planted: a check reading a kind it does not declare is named, also when its group shares the run or a memo hides the read', () => {
    const sample = ALL.filter((c) => c.name.startsWith('healthy linkerd')).slice(0, 3);
    // Two checks declaring the same kinds: the group reads more than they declare; only the one that did is named.
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
    // A check declaring nothing that reads the workload index: in one run of all checks,
    // sidecar-missing (run before it) would have built it, and its reads would go unseen.
    const late: Check = {
      ...probe,
      id: 'late',
      inputs: [],
      // eslint-disable-next-line require-yield -- reads, finds nothing
      *run(m) {
        void m.appWorkloads;
      },
    };
    const planted = analyse([CHECKS.find((c) => c.id === 'sidecar-missing')!, honest, sneaky, late], sample);
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
    const { read } = kindsRead([CHECKS.find((x) => x.id === 'sidecar-missing')!, asker], c);
    expect(read.has('mutatingwebhookconfigurations')).toBe(true); // sidecar-missing's read
    expect([...(asks.byCheck.get('fact-asker')?.keys() ?? [])]).toEqual(
      expect.arrayContaining(['mutatingwebhookconfigurations', 'namespaces', 'pods', 'deployments']),
    );
  });

  it('namespace-only views really lack the cluster-scoped kinds', () => {
    const v = namespaceOnly(cluster('linkerd'), 'shop');
    for (const k of CLUSTER_SCOPED) expect(v.objects[k]).toBeUndefined();
    expect(Object.keys(v.unavailable).sort()).toEqual([...CLUSTER_SCOPED].sort());
  });
});
