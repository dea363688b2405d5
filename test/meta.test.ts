/**
 * Meta tests over the registry: identity, documentation, declared inputs, and the rule that a
 * healthy cluster gives zero findings (false positives are bugs).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { CHECK_META } from '../src/checks/catalog.js';
import { derivedInputs, type Check } from '../src/checks/define.js';
import { KIND_KEYS } from '../src/k8s/kinds.js';
import { HEALTHY_BASES, HEALTHY_FILES, MORE_HEALTHY, cluster, findings } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');

describe('check registry', () => {
  it('registers every check module in src/checks', () => {
    const files = readdirSync(join(ROOT, 'src/checks'))
      .filter((f) => f.endsWith('.ts') && !['index.ts', 'define.ts', 'catalog.ts', 'types.ts', 'lookup.ts'].includes(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(CHECKS.map((c) => c.id).sort()).toEqual(files);
  });

  it('each check carries exactly its catalog entry, its inputs derived from it and its facts, and the catalog lists no check that is not registered', () => {
    const fields = (c: object, facts?: Check['facts']) => {
      const { id, code, title, description, severity, serverInputs, spansNamespaces, readsOtherNamespaces } =
        c as Check;
      return {
        id,
        code,
        title,
        description,
        severity,
        serverInputs,
        spansNamespaces,
        readsOtherNamespaces,
        ...derivedInputs(c as Check, facts),
      };
    };
    const facts = new Map(CHECKS.map((c) => [c.id, c.facts]));
    expect(CHECKS.map((c) => fields(c))).toEqual(CHECK_META.map((c) => fields(c, facts.get(c.id))));
  });

  it('has unique ids and codes, well-formed, sorted by code', () => {
    expect(new Set(CHECKS.map((c) => c.id)).size).toBe(CHECKS.length);
    expect(new Set(CHECKS.map((c) => c.code)).size).toBe(CHECKS.length);
    for (const c of CHECKS) {
      expect(c.id).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(c.code).toMatch(/^MD\d{4}$/);
      expect(c.title.length).toBeGreaterThan(5);
      expect(c.description.length).toBeGreaterThan(20);
      for (const k of [...c.inputs, ...(c.optionalInputs ?? [])]) expect(KIND_KEYS).toContain(k);
    }
    expect(CHECKS.map((c) => c.code)).toEqual([...CHECKS.map((c) => c.code)].sort());
  });

  it('documents every check in the table of docs/checks/README.md (id and code)', () => {
    const table = readFileSync(join(ROOT, 'docs/checks/README.md'), 'utf8');
    for (const c of CHECKS) {
      expect(table, c.id).toContain(c.id);
      expect(table, c.code).toContain(c.code);
    }
  });

  it('gives every check a file comment saying why it exists', () => {
    for (const c of CHECKS) {
      const src = readFileSync(join(ROOT, 'src/checks', `${c.id}.ts`), 'utf8');
      expect(src.trimStart().startsWith('/**'), c.id).toBe(true);
    }
  });

  it('has a test/checks/<id>.test.ts for every check, with its table of cases (fires and near misses)', () => {
    // checkCases (test/helpers/check-tester.ts) fails the file when the table lacks either kind of case or a fixture of the check.
    const missing = CHECKS.filter((c) => {
      const file = join(ROOT, 'test/checks', `${c.id}.test.ts`);
      return !existsSync(file) || !readFileSync(file, 'utf8').includes(`checkCases('${c.id}', {`);
    }).map((c) => c.id);
    expect(missing).toEqual([]);
  });
});

describe('healthy clusters give zero findings', () => {
  it('covers every file of test/fixtures/healthy', () => {
    const files = readdirSync(join(ROOT, 'test/fixtures/healthy')).map((f) => f.replace(/\.yaml$/, ''));
    expect(files.sort()).toEqual([...HEALTHY_FILES].sort());
  });
  // Each mesh alone, and side by side (Linkerd + Istio, Linkerd + Kuma, Istio + Consul, Kuma + Consul).
  for (const base of HEALTHY_BASES) {
    it(`${base}, all namespaces`, () => {
      expect(findings(cluster(base))).toEqual([]);
    });
    const own = (cluster(base).objects.namespaces ?? []).map((n) => n.metadata?.name ?? '');
    const names = (MORE_HEALTHY as readonly string[]).includes(base)
      ? own
      : [
          'default',
          'kube-system',
          'linkerd',
          'istio-system',
          'kuma-system',
          'consul',
          'shop',
          'store',
          'payments',
          'orders',
          'billing',
          'catalog',
          'lab',
        ];
    for (const ns of names) {
      it(`${base}, -n ${ns}`, () => {
        const snap = cluster(base, [], { allNamespaces: false, namespace: ns });
        // -n on a namespace with no workloads, or a system namespace, must stay silent too.
        expect(findings(snap)).toEqual([]);
      });
    }
  }
});
