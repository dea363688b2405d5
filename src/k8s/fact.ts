/**
 * Facts: what the layers above derive from a snapshot once and share (the installed meshes, the
 * injectors' releases, the pods by node...). A fact is declared once, as a typed value, where its
 * computation lives (src/facts/, src/mesh/<mesh>/, here), and asked for with a typed call:
 * `m.fact(F)`, or `m.fact(F, key)` for a family (one value per mesh, namespace, workload).
 * Each is computed at most once per index (SnapshotIndex.fact), on first use; no string keys,
 * no casts. A fact names the kinds it reads (`inputs`, including those of the facts it asks for),
 * so a check that asks for it must declare them (test/declared-inputs.test.ts checks both).
 */
import type { KindKey } from './kinds.js';

/** One value per snapshot index, computed from the context `C` (a SnapshotView, a MeshContext, the Model). */
export interface Fact<T, C> {
  readonly family: false;
  /** A name for tests and error messages (unique; never a lookup key). */
  readonly id: string;
  /** Every kind the computation may read, including through the facts it asks for. */
  readonly inputs: readonly KindKey[];
  /** A property, not a method: a fact made for the Model cannot be asked of a mere SnapshotView. */
  readonly compute: (m: C) => T;
}

/** One value per key (a mesh, a namespace, a workload) per snapshot index. */
export interface FactFamily<K, T, C> {
  readonly family: true;
  readonly id: string;
  /** Every kind the computation may read for this key (a list, or per key). */
  readonly inputs: readonly KindKey[] | ((key: K) => readonly KindKey[]);
  /** The key's identity in the cache (default the key itself: a string, or an object by identity). */
  readonly cacheKey?: (key: K) => unknown;
  readonly compute: (m: C, key: K) => T;
}

/** Declare a fact: `defineFact({ id, inputs, compute: (m: Model) => ... })`. */
export function defineFact<T, C>(spec: Omit<Fact<T, C>, 'family'>): Fact<T, C> {
  return Object.freeze({ ...spec, family: false as const });
}

/** Declare a family of facts, one per key: `m.fact(F, mesh)`. */
export function defineFactFamily<K, T, C>(spec: Omit<FactFamily<K, T, C>, 'family'>): FactFamily<K, T, C> {
  return Object.freeze({ ...spec, family: true as const });
}

/** The cache behind SnapshotIndex.fact: one value per fact, one map per family. */
export class FactCache {
  private readonly values = new Map<object, unknown>();

  get<T, C>(f: Fact<T, C>, m: C): T {
    // One lookup where the value is there (asked per workload and pod by many checks); `has` only for a cached undefined.
    const v = this.values.get(f);
    if (v !== undefined || this.values.has(f)) return v as T;
    const made = f.compute(m);
    this.values.set(f, made);
    return made;
  }

  getKeyed<K, T, C>(f: FactFamily<K, T, C>, m: C, key: K): T {
    let byKey = this.values.get(f) as Map<unknown, T> | undefined;
    if (!byKey) this.values.set(f, (byKey = new Map()));
    const k = f.cacheKey ? f.cacheKey(key) : key;
    const v = byKey.get(k);
    if (v !== undefined || byKey.has(k)) return v as T;
    const made = f.compute(m, key);
    byKey.set(k, made);
    return made;
  }
}

/** A fact or a family, whatever its value and context (for the registry's tests). */
export type AnyFact = Fact<unknown, never> | FactFamily<never, unknown, never>;

/**
 * The kinds a fact declares it reads (of a family, for that key). A check that asks for the fact
 * reads them: it declares the fact (`facts`, whose inputs become its own: src/checks/define.ts
 * derivedInputs) or, for a fact it cannot name (a mesh's, a kind's index), the kinds in its catalog
 * entry; test/declared-inputs.test.ts checks it for every fact every check asks for, cached or not.
 */
export function factInputs(f: AnyFact, key?: unknown): readonly KindKey[] {
  if (!f.family) return f.inputs;
  return typeof f.inputs === 'function' ? (f.inputs as (k: unknown) => readonly KindKey[])(key) : f.inputs;
}

/**
 * The kinds some facts and lists read, once each and sorted: a fact built on others declares
 * `inputs: inputsOf(OTHER_FACT, WORKLOAD_INPUTS, ['events'])` rather than copying their kinds.
 */
export function inputsOf(...parts: readonly (readonly KindKey[] | AnyFact)[]): KindKey[] {
  return [...new Set(parts.flatMap((p) => ('compute' in p ? staticInputs(p) : p)))].sort();
}

/** A fact's inputs whatever its key: a family whose inputs depend on the key (a kind's index) has none to name. */
export function staticInputs(f: AnyFact): readonly KindKey[] {
  if (typeof f.inputs === 'function') throw new Error(`fact ${f.id}: its inputs depend on its key; name the kinds`);
  return f.inputs;
}
