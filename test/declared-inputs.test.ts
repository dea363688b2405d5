/**
 * Declared inputs are the inputs read (issue 13). `kindsFor` lists what the selected checks declare
 * and the runner skips a check whose required input could not be read: a check that reads a kind
 * it does not declare would, under `--only X` or a forbidden kind, run on data that was never
 * read. So every check runs alone, on every fixture (over its base, in the full view and in the
 * namespace-only view an app team's Role gives), with `snapshot.objects` wrapped in a recording
 * Proxy: any kind read through any path (the Model, its memos, the mesh helpers) must be declared.
 * The reverse is checked too: a declared kind that no fixture makes the check read is reported.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { KINDS, KIND_KEYS, type KindKey } from '../src/k8s/kinds.js';
import { overlayManifests } from '../src/run/manifests.js';
import { runChecks } from '../src/run/run.js';
import type { Check } from '../src/checks/define.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { FIXTURES, MORE_HEALTHY, NOW, baseOf, besideOf, cluster, fixtureObjects, type Base } from './helpers/fixtures.js';

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
    const namespaces = [...new Set((snap.objects.pods ?? []).map((p) => p.metadata?.namespace).filter((n): n is string => !!n))].sort();
    for (const ns of namespaces) {
      out.push({ name: `${name} [-n ${ns}]`, snap: { ...snap, scope: { allNamespaces: false, namespace: ns } } });
      out.push({ name: `${name} [namespace-only, -n ${ns}]`, snap: namespaceOnly(snap, ns) });
    }
  };
  for (const base of ['linkerd', 'istio', 'istio-ambient', 'kuma', 'consul', 'both', 'linkerd+kuma', 'istio+consul', ...MORE_HEALTHY] as const)
    add(`healthy ${base}`, cluster(base));
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
 * Run one check alone on a fresh snapshot (so a fresh Model, nothing memoised) whose `objects`
 * records every kind key touched while the check runs (the runner's own reads are not the check's).
 */
function kindsRead(check: Check, { snap, expectMeshed }: Case): { read: Set<string>; errors: string[] } {
  const read = new Set<string>();
  let on = false;
  const note = (k: string | symbol) => {
    if (on && typeof k === 'string') read.add(k);
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
  const recorded: Check = {
    ...check,
    *run(m) {
      on = true;
      try {
        yield* check.run.call(check, m);
      } finally {
        on = false;
      }
    },
  };
  const r = runChecks({ ...snap, objects }, [recorded], { mesh: 'auto', certExpiryWarningDays: 60, now: NOW, expectMeshed: !!expectMeshed });
  return { read, errors: r.errors };
}

const ALL = cases();

/** Per check: each kind it read, with the cases it read it in; errors by case (computed once). */
const runs = new Map<string, { reads: Map<string, string[]>; errors: string[] }>();
function runAll(check: Check) {
  let r = runs.get(check.id);
  if (!r) {
    r = { reads: new Map(), errors: [] };
    for (const c of ALL) {
      const { read, errors } = kindsRead(check, c);
      r.errors.push(...errors.map((e) => `${c.name}: ${e}`));
      for (const k of read) r.reads.set(k, [...(r.reads.get(k) ?? []), c.name]);
    }
    runs.set(check.id, r);
  }
  return r;
}

describe('declared inputs are the inputs read', () => {
  it('has fixtures to run', () => expect(ALL.length).toBeGreaterThan(100));

  for (const check of CHECKS) {
    it(`${check.id} reads only the kinds it declares`, () => {
      const declared = new Set<string>([...check.inputs, ...(check.optionalInputs ?? [])]);
      const { reads, errors } = runAll(check);
      expect(errors).toEqual([]);
      const undeclared = [...reads].filter(([k]) => !declared.has(k)).map(([k, where]) => [k, `${where.length} case(s), e.g. ${where[0]}`]);
      expect(Object.fromEntries(undeclared)).toEqual({});
    });
  }

  it('every declared input is read by some fixture (or allow-listed with its reason)', () => {
    const unread: Record<string, string[]> = {};
    for (const check of CHECKS) {
      const { reads } = runAll(check);
      const never = [...check.inputs, ...(check.optionalInputs ?? [])].filter((k) => !reads.has(k) && !ALLOWED_UNREAD[check.id]?.includes(k));
      if (never.length) unread[check.id] = never;
    }
    expect(unread).toEqual({});
  });

  it('the recorder sees reads through the Model and its memos, and only while the check runs', () => {
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
    const { read } = kindsRead(probe, { name: 'healthy linkerd', snap: cluster('linkerd') });
    expect([...read].sort()).toEqual(expect.arrayContaining(['events', 'pods', 'replicasets', 'deployments', 'cronjobs']));
    // The runner's own reads (skip logic, ranking, suppressions) are not the check's.
    expect(kindsRead({ ...probe, *run() {} }, { name: 'healthy linkerd', snap: cluster('linkerd') }).read.size).toBe(0);
  });

  it('namespace-only views really lack the cluster-scoped kinds', () => {
    const v = namespaceOnly(cluster('linkerd'), 'shop');
    for (const k of CLUSTER_SCOPED) expect(v.objects[k]).toBeUndefined();
    expect(Object.keys(v.unavailable).sort()).toEqual([...CLUSTER_SCOPED].sort());
  });
});
