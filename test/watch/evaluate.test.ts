/**
 * `watch`'s re-evaluation (src/watch/evaluate.ts) tells what `check` tells:
 * - a full evaluation is exactly `check -A`'s result;
 * - evaluating one app namespace as `check -n NS` reads it gives, for that namespace's own
 *   objects, exactly the findings of the full evaluation, over every fixture and every app
 *   namespace in it (the property incremental re-evaluation rests on);
 * - after random changes evaluated namespace by namespace, the app namespaces' findings are those
 *   of a full evaluation of the changed cluster.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { KIND_KEYS, kindOf } from '../../src/k8s/kinds.js';
import type { KindStatus } from '../../src/cluster/reflector.js';
import { ObjectStore } from '../../src/cluster/store.js';
import { CHECKS } from '../../src/checks/index.js';
import { runChecks } from '../../src/run/run.js';
import type { K8sObject } from '../../src/util/types.js';
import type { Finding } from '../../src/run/result.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { CLUSTER, Evaluator, findingPartition } from '../../src/watch/evaluate.js';
import { WatchPlan } from '../../src/watch/plan.js';
import { workloadStates } from '../../src/facts/workload-states.js';
import { makeModel } from '../../src/run/run.js';
import { FIXTURES, HEALTHY_BASES, NOW, baseOf, besideOf, cluster, type Base } from '../helpers/fixtures.js';

const OPTS = { mesh: 'auto' as const, certExpiryWarningDays: 60 };
const ok: KindStatus = { synced: true, objects: 0, restarts: 0, relists: 0, events: 0 };
const source = { type: 'live' as const, context: 'test', server: 'https://test', readAt: NOW.toISOString() };

/** A store and plan holding a snapshot's objects, as the reflector would after its sync. */
function watched(snap: Snapshot) {
  const store = new ObjectStore();
  for (const key of KIND_KEYS) store.replace(key, undefined, snap.objects[key] ?? []);
  const plan = new WatchPlan(KIND_KEYS, { allNamespaces: true });
  plan.readPlan(store, () => ok);
  return { store, plan };
}

const identity = (f: Finding) => JSON.stringify(f);

/**
 * The cases by name, each cluster built when its test runs: the test files of a worker share its
 * heap (vitest.config.ts, `isolate: false`), and snapshots built up front stayed in it for every
 * file the worker ran after this one.
 */
function cases(): [string, () => Snapshot][] {
  const out: [string, () => Snapshot][] = [];
  for (const base of HEALTHY_BASES) out.push([`healthy ${base}`, () => cluster(base)]);
  out.push(['golden-cluster.yaml', () => cluster('none', ['golden-cluster.yaml'])]);
  for (const dir of readdirSync(join(FIXTURES, 'checks')).sort()) {
    for (const f of readdirSync(join(FIXTURES, 'checks', dir))
      .filter((x) => /\.ya?ml$/.test(x))
      .sort()) {
      const file = `checks/${dir}/${f}`;
      for (const base of new Set<Base>([baseOf(file), besideOf(file)]))
        out.push([`${file} over ${base}`, () => cluster(base, [file])]);
    }
  }
  return out;
}

describe('a namespace evaluated alone gives the full evaluation its own findings', () => {
  const all = cases();
  const escalated: string[] = [];
  let evaluated = 0;
  it('covers the healthy clusters and every check fixture', () => expect(all.length).toBeGreaterThan(100));
  afterAll(() => {
    // Incremental evaluation is the rule: a namespace whose evaluation must become a full one is rare.
    console.log(
      `namespace evaluations: ${evaluated} incremental, ${escalated.length} escalated to full (${escalated.join('; ')})`,
    );
    expect(evaluated).toBeGreaterThan(10 * escalated.length);
  });
  it.each(all)('%s', (_name, build) => {
    const { store, plan } = watched(build());
    const cp = plan.controlPlane(store);
    const e = new Evaluator(CHECKS, OPTS);
    const full = e.full(
      plan.snapshot(store, () => ok, source),
      NOW,
      cp,
    );
    // check -A over the same objects, on a model of its own: its findings, and its workload states
    // (the reference every namespace evaluation below is held to).
    const checkSnap = plan.snapshot(store, () => ok, source);
    const model = makeModel(checkSnap, { ...OPTS, now: NOW });
    expect(full.findings.map(identity)).toEqual(
      runChecks(checkSnap, CHECKS, { ...OPTS, now: NOW }, model).findings.map(identity),
    );
    const states = workloadStates(model);
    const appNamespaces = store
      .all('namespaces')
      .map((n) => n.metadata!.name!)
      .filter((n) => !cp.has(n));
    // The same evaluator, after its one full evaluation, then each app namespace evaluated alone in
    // turn. The cluster does not change, so each namespace evaluation must leave the evaluator as
    // the full one left it: every finding and suppression it holds is asserted equal to the full
    // evaluation's (kept as text before the first namespace evaluation), and its workload states
    // to check's (another model); what a namespace evaluation reads of the evaluator is exactly
    // that (the full result and the parts of the other namespaces): each namespace starts from
    // what a fresh full evaluation would give it, without running one per namespace.
    const sorted = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
    const before = {
      findings: full.findings.map(identity),
      sortedFindings: full.findings.map(identity).sort(),
      suppressed: sorted(full.suppressed),
    };
    const partitions = full.findings.map((f) => findingPartition(f, cp));
    expect(e.workloadStates).toEqual(states);
    for (const ns of appNamespaces) {
      const current = e.result!;
      if (
        !e.namespace(
          ns,
          plan.snapshot(store, () => ok, source, ns),
          NOW,
          cp,
        )
      ) {
        // It sees other meshes (one known only from another namespace's pods): the caller evaluates everything instead.
        expect(e.result).toBe(current);
        escalated.push(`${_name}: ${ns}`);
        continue;
      }
      evaluated++;
      const mine = (fs: Finding[]) => fs.filter((f) => findingPartition(f, cp) === ns).map(identity);
      expect(mine(e.result!.findings), ns).toEqual(before.findings.filter((_, i) => partitions[i] === ns));
      expect(e.result!.findings.map(identity).sort(), ns).toEqual(before.sortedFindings);
      expect(sorted(e.result!.suppressed), ns).toEqual(before.suppressed);
      expect(e.workloadStates, ns).toEqual(states);
    }
  });
});

describe('changes evaluated namespace by namespace', () => {
  const base = cluster('both', ['checks/sidecar-missing/fires-linkerd.yaml']);
  const { store, plan } = watched(base);
  const cp = plan.controlPlane(store);
  const appNs = store
    .all('namespaces')
    .map((n) => n.metadata!.name!)
    .filter((n) => !cp.has(n));
  const templates = store.all('pods').filter((p) => !cp.has(p.metadata!.namespace!));

  it('end where a full evaluation of the changed cluster is, for every app namespace', () => {
    const change = fc.record({
      from: fc.nat({ max: templates.length - 1 }),
      ns: fc.constantFrom(...appNs),
      name: fc.constantFrom('p0', 'p1', 'p2'),
      remove: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 8 }), (changes) => {
        const { store, plan } = watched(base);
        const e = new Evaluator(CHECKS, OPTS);
        e.full(
          plan.snapshot(store, () => ok, source),
          NOW,
          cp,
        );
        for (const c of changes) {
          if (c.remove) store.remove('pods', c.ns, c.name);
          else {
            const pod: K8sObject = structuredClone(templates[c.from]!);
            // Owners are in the pod's own namespace (Kubernetes does not follow owner references across namespaces).
            if (pod.metadata!.namespace !== c.ns) delete pod.metadata!.ownerReferences;
            pod.metadata = { ...pod.metadata, namespace: c.ns, name: c.name, uid: `${c.ns}-${c.name}` };
            store.upsert('pods', pod);
          }
          expect(
            e.namespace(
              c.ns,
              plan.snapshot(store, () => ok, source, c.ns),
              NOW,
              cp,
            ),
          ).toBe(true);
        }
        const fresh = new Evaluator(CHECKS, OPTS).full(
          plan.snapshot(store, () => ok, source),
          NOW,
          cp,
        );
        const apps = (fs: Finding[]) => fs.filter((f) => findingPartition(f, cp) !== CLUSTER).map(identity);
        expect(apps(e.result!.findings)).toEqual(apps(fresh.findings));
        expect(e.workloadStates).toEqual(
          workloadStates(
            makeModel(
              plan.snapshot(store, () => ok, source),
              { ...OPTS, now: NOW },
            ),
          ),
        );
      }),
      { numRuns: 25 },
    );
  });

  it('a namespace evaluation that sees other meshes than the full one asks for a full evaluation', () => {
    const e = new Evaluator(CHECKS, OPTS);
    const { store, plan } = watched(cluster('linkerd'));
    e.full(
      plan.snapshot(store, () => ok, source),
      NOW,
      plan.controlPlane(store),
    );
    // A Kuma-meshed pod in an app namespace: Kuma shows up, in this namespace only.
    const pod = structuredClone(store.all('pods').find((p) => !plan.controlPlane(store).has(p.metadata!.namespace!))!);
    pod.metadata!.name = 'kuma-meshed';
    (pod.spec as any).containers = [
      ...(pod.spec as any).containers.filter((c: any) => c.name !== 'linkerd-proxy'),
      { name: 'kuma-sidecar', image: 'kuma-dp' },
    ];
    store.upsert('pods', pod);
    const before = e.result;
    expect(
      e.namespace(
        pod.metadata!.namespace!,
        plan.snapshot(store, () => ok, source, pod.metadata!.namespace!),
        NOW,
        plan.controlPlane(store),
      ),
    ).toBe(false);
    expect(e.result).toBe(before);
  });
});

it('every kind the fixtures hold is one meshdoctor reads', () => {
  for (const o of cluster('both').objects.pods ?? []) expect(kindOf(o.kind)?.key).toBe('pods');
});

describe('a kind that turns unreadable is not news that its findings are fixed', () => {
  it('the checks reading it keep their last findings, marked stale, in full and namespace evaluations; fresh once read again', () => {
    const file = 'checks/injector-unavailable/fires-linkerd-crashloop.yaml';
    const snap = cluster(baseOf(file), [
      file,
      'checks/sidecar-missing/' +
        readdirSync(join(FIXTURES, 'checks', 'sidecar-missing')).find((f) => f.startsWith('fires-'))!,
    ]);
    const { store, plan } = watched(snap);
    const cp = plan.controlPlane(store);
    const e = new Evaluator(CHECKS, OPTS);
    const before = e.full(
      plan.snapshot(store, () => ok, source),
      NOW,
      cp,
    ).findings;
    expect(before.some((f) => f.id === 'injector-unavailable')).toBe(true);
    const key = (f: Finding) => `${f.code} ${f.resource.kind} ${f.resource.namespace ?? ''}/${f.resource.name}`;
    // pods: 403 now.
    const why = 'forbidden: pods is forbidden';
    const failing = new Map([['pods', why]] as const);
    const status = (k: string): KindStatus => (k === 'pods' ? { ...ok, unavailable: why } : ok);
    const during = e.full(plan.snapshot(store, status as never, source), NOW, cp, failing);
    expect(during.coverage.complete).toBe(false);
    expect(during.findings.map(key).sort()).toEqual(before.map(key).sort());
    const held = during.findings.filter((f) => f.stale);
    expect(held.map((f) => f.id)).toContain('injector-unavailable');
    expect(held.every((f) => f.stale!.includes(`pods: ${why}`))).toBe(true);
    // A namespace evaluation under the same failing read keeps them too; under another, it asks for a full one.
    const ns = [...new Set(before.map((f) => f.resource.namespace).filter((n): n is string => !!n && !cp.has(n)))][0]!;
    expect(e.namespace(ns, plan.snapshot(store, status as never, source, ns), NOW, cp, failing)).toBe(true);
    expect(e.result!.findings.map(key).sort()).toEqual(before.map(key).sort());
    expect(
      e.namespace(
        ns,
        plan.snapshot(store, () => ok, source, ns),
        NOW,
        cp,
      ),
    ).toBe(false);
    // Read again: the findings are computed afresh, none stale.
    const after = e.full(
      plan.snapshot(store, () => ok, source),
      NOW,
      cp,
    ).findings;
    expect(after.map(key).sort()).toEqual(before.map(key).sort());
    expect(after.some((f) => f.stale)).toBe(false);
  });
});
