/**
 * One check's table of cases, in the manner of ESLint's RuleTester: where it fires (with the
 * findings it must give, by identity) and where it must stay silent (near misses). Each case runs
 * the check alone over a healthy base overlaid with fixtures, and must neither fail nor be skipped.
 *
 * A check's table must have both kinds of case, and must use every fixture of its directory
 * test/fixtures/checks/<id>/: each `fires-*` file in a firing case, each `ok-*` file in a silent
 * one. test/meta.test.ts demands a test/checks/<id>.test.ts calling checkCases for every check.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import type { CheckId } from '../../src/checks/catalog.js';
import type { MeshName } from '../../src/mesh/names.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { overlayManifests } from '../../src/run/manifests.js';
import { runChecks } from '../../src/run/run.js';
import type { Finding } from '../../src/run/result.js';
import { FIXTURES, NOW, baseOf, cluster, parseObjects, fixtureObjects, type Base } from './fixtures.js';
import { namespaceOnly } from './views.js';

export interface CheckCase {
  /** The test's name; default: the fixtures (or the base). */
  name?: string;
  /**
   * Overlays on the base, in order: a file of the check's fixture directory by its name
   * (`fires-linkerd.yaml`), a path under test/fixtures (`checks/other/x.yaml`), or YAML text.
   */
  fixtures?: string | string[];
  /** The healthy base (test/helpers/fixtures.ts); default: the one the first fixture's name says. */
  base?: Base;
  /** `check -n NAMESPACE` (default: -A). */
  namespace?: string;
  /** With `namespace`: what a namespaced Role shows (the cluster-scoped kinds forbidden). */
  namespaceOnly?: boolean;
  /** `check -f FILE --expect-meshed`: these manifests (a fixture or YAML text) over the cluster. */
  manifests?: string;
  mesh?: MeshName;
  now?: Date;
  certExpiryWarningDays?: number;
}

export interface FiringCase extends CheckCase {
  /** The check's findings, as "Kind namespace/name" (cluster-scoped: "Kind name"), in any order. */
  findings: string[];
  /**
   * What they say, as data (a check with messages, src/checks/define.ts): each finding's message id
   * (the check's own, without `<check>/`), or the id and the params it must carry (a subset), in
   * the order of `findings` sorted (then by id).
   */
  said?: (string | { id: string; params: Record<string, string | number | RegExp> })[];
}

const listOf = (x: string | string[] | undefined): string[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
const isText = (s: string) => s.includes('\n');
const identity = (f: Finding) =>
  `${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`;

/** The snapshot a case describes. */
function snapshotOf(id: string, c: CheckCase): Snapshot {
  const dir = `checks/${id}`;
  const files = listOf(c.fixtures).map((f) => (isText(f) || f.includes('/') ? f : `${dir}/${f}`));
  const first = files.find((f) => !isText(f)) ?? '';
  const base = c.base ?? (first ? baseOf(first) : 'both');
  let snap = cluster(
    base,
    files,
    c.namespace && !c.namespaceOnly ? { allNamespaces: false, namespace: c.namespace } : undefined,
  );
  if (c.namespaceOnly) {
    if (!c.namespace) throw new Error('namespaceOnly needs a namespace');
    snap = namespaceOnly(snap, c.namespace);
  }
  if (c.manifests !== undefined) {
    const m = c.manifests;
    const file = isText(m) ? 'manifests.yaml' : m.includes('/') ? m : `${dir}/${m}`;
    const objects = (isText(m) ? parseObjects(m) : fixtureObjects(file)).map((obj, i) => ({
      obj,
      source: { file, document: i + 1 },
    }));
    snap = overlayManifests(snap, { files: [file], objects }, 'default');
  }
  return snap;
}

/** The check's findings in a case (it must run: not skipped, no error), by identity then message id. */
function runFindings(id: string, c: CheckCase): Finding[] {
  const check = CHECKS.find((x) => x.id === id)!;
  const r = runChecks(snapshotOf(id, c), [check], {
    mesh: c.mesh ?? 'auto',
    certExpiryWarningDays: c.certExpiryWarningDays ?? 60,
    now: c.now ?? NOW,
    expectMeshed: c.manifests !== undefined,
  });
  expect(r.errors).toEqual([]);
  expect(r.skipped, 'the check must run in this case').toEqual([]);
  // A check with messages says each finding by one of them: never text without an id.
  if (check.messages)
    for (const f of r.findings) expect(f.messageId, `${identity(f)}: ${f.message}`).toMatch(new RegExp(`^${id}/`));
  return r.findings
    .map((f) => ({ f, key: `${identity(f)}\u0000${f.messageId ?? ''}` }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ f }) => f);
}

/** The identities of the check's findings in a case, sorted. */
const run = (id: string, c: CheckCase): string[] => runFindings(id, c).map(identity).sort();

/** What a firing case's findings say (its `said`), checked: ids, and the params given. */
function expectSaid(id: string, c: FiringCase): void {
  const fs = runFindings(id, c);
  expect(fs.map(identity).sort()).toEqual([...c.findings].sort());
  const local = (f: Finding) => f.messageId?.slice(id.length + 1);
  expect(fs.map(local)).toEqual(c.said!.map((s) => (typeof s === 'string' ? s : s.id)));
  c.said!.forEach((s, i) => {
    if (typeof s !== 'string')
      for (const [k, v] of Object.entries(s.params))
        if (v instanceof RegExp) expect(String(fs[i]!.params?.[k]), `${s.id}: ${k}`).toMatch(v);
        else expect(fs[i]!.params?.[k], `${s.id}: ${k}`).toBe(v);
  });
}

const nameOf = (c: CheckCase): string => {
  const shown = (f: string) => (isText(f) ? 'inline YAML' : f);
  const what = [
    ...listOf(c.fixtures).map(shown),
    ...listOf(c.manifests).map((m) => `check -f ${shown(m)} --expect-meshed`),
  ].join(' + ');
  const how = [
    c.base && what ? `over ${c.base}` : '',
    c.namespace ? `-n ${c.namespace}` : '',
    c.namespaceOnly ? '(namespace-only)' : '',
    c.mesh ? `--mesh ${c.mesh}` : '',
    c.now ? `now ${c.now.toISOString().slice(0, 10)}` : '',
    c.certExpiryWarningDays ? `--cert-expiry-warning ${c.certExpiryWarningDays}` : '',
  ].filter(Boolean);
  return c.name ?? [what || `healthy ${c.base ?? 'both'}`, ...how].join(' ');
};

export function checkCases(id: CheckId, cases: { fires: FiringCase[]; silent: CheckCase[] }): void {
  describe(id, () => {
    it('has cases where it fires and cases where it stays silent', () => {
      expect(CHECKS.map((c) => c.id)).toContain(id);
      expect(cases.fires.length).toBeGreaterThan(0);
      expect(cases.silent.length).toBeGreaterThan(0);
      for (const c of cases.fires) expect(c.findings.length, nameOf(c)).toBeGreaterThan(0);
    });

    it(`uses every fixture of test/fixtures/checks/${id}/ (fires-* where it fires, ok-* where it is silent)`, () => {
      const dir = join(FIXTURES, 'checks', id);
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)) : [];
      const used = (list: CheckCase[]) => new Set(list.flatMap((c) => [...listOf(c.fixtures), ...listOf(c.manifests)]));
      const firing = used(cases.fires);
      const silent = used(cases.silent);
      expect(files.filter((f) => f.startsWith('fires-') && !firing.has(f))).toEqual([]);
      expect(files.filter((f) => f.startsWith('ok-') && !silent.has(f))).toEqual([]);
      expect(files.filter((f) => !firing.has(f) && !silent.has(f))).toEqual([]);
    });

    describe('fires', () => {
      for (const c of cases.fires)
        it(nameOf(c), () => (c.said ? expectSaid(id, c) : expect(run(id, c)).toEqual([...c.findings].sort())));
    });

    describe('stays silent', () => {
      for (const c of cases.silent) it(nameOf(c), () => expect(run(id, c)).toEqual([]));
    });
  });
}
