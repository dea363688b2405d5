import { shq } from './shell.js';
import type { K8sObject } from './types.js';

/** Plain-object guard for untrusted input. */
export function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * An object keyed by strings from the cluster (label keys, names, revisions): without a prototype,
 * `constructor`, `toString` or `__proto__` is a key like any other, never Object.prototype's.
 */
export function dict<T = string>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A string map from untrusted input (labels, annotations): non-string values are dropped (a dict). */
export function strMap(v: unknown): Record<string, string> {
  const out = dict();
  if (!isObj(v)) return out;
  // Object.keys: the same own enumerable keys in the same order as Object.entries, without a pair per key.
  for (const k of Object.keys(v)) {
    const val = v[k];
    if (typeof val === 'string') out[k] = val;
  }
  return out;
}

export function arr<T = any>(v: unknown): T[] {
  return Array.isArray(v) ? (v.filter((x) => x !== null && x !== undefined) as T[]) : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export const nameOf = (o: K8sObject): string => str(o.metadata?.name) ?? '';
export const nsOf = (o: K8sObject): string => str(o.metadata?.namespace) ?? '';
const EMPTY: Readonly<Record<string, string>> = Object.freeze(dict());
const stringMaps = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * strMap for a map of the (frozen) snapshot, built once per map: labels and annotations are read
 * by many checks and every decision. The result is frozen: copy it before changing it.
 */
function frozenStrMap(v: unknown): Readonly<Record<string, string>> {
  if (!isObj(v)) return EMPTY;
  let m = stringMaps.get(v);
  if (!m) stringMaps.set(v, (m = Object.freeze(strMap(v))));
  return m;
}

export const labelsOf = (o: { metadata?: unknown } | undefined): Readonly<Record<string, string>> =>
  frozenStrMap(isObj(o?.metadata) ? (o!.metadata as any).labels : undefined);
export const annotationsOf = (o: { metadata?: unknown } | undefined): Readonly<Record<string, string>> =>
  frozenStrMap(isObj(o?.metadata) ? (o!.metadata as any).annotations : undefined);

/**
 * One string value of a map of the snapshot (`labelsOf(o)[key]` without building the map): for the
 * hot paths that ask every pod for one key. Own keys only, non-strings ignored, as labelsOf.
 */
function strAt(v: unknown, key: string): string | undefined {
  if (!isObj(v) || !Object.hasOwn(v, key)) return undefined;
  const s = v[key];
  return typeof s === 'string' ? s : undefined;
}

export const labelOf = (o: { metadata?: unknown } | undefined, key: string): string | undefined =>
  isObj(o?.metadata) ? strAt((o!.metadata as any).labels, key) : undefined;
export const annotationOf = (o: { metadata?: unknown } | undefined, key: string): string | undefined =>
  isObj(o?.metadata) ? strAt((o!.metadata as any).annotations, key) : undefined;

/** Parse a Kubernetes timestamp; undefined when missing or invalid. */
export function time(v: unknown): Date | undefined {
  if (typeof v !== 'string') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Stable string compare (code-unit order, locale-independent). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Group items by a key, keeping input order inside each group. */
export function groupBy<T>(items: Iterable<T>, key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

// Shell quoting lives in shell.ts (one quoting function and the fix-line validator); re-exported for the fix builders.
export { note, shq } from './shell.js';

/** A file name for a fix's `> file`: the object's name with anything but [A-Za-z0-9._-] replaced, never a path. */
export const fileName = (name: string, ext = '.yaml'): string =>
  shq(`${name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.-]/, '_')}${ext}`);

/** "1 pod", "3 pods", "2 other workloads": the count and the phrase, its last word pluralized. */
export const plural = (n: number, phrase: string): string => `${n} ${phrase}${n === 1 ? '' : 's'}`;

/**
 * The word that agrees with a count: `one` for 1, else `many`. With plural(): "1 pod was", "2 pods
 * were"; "its pods" / "their pods" for what a count of workloads owns.
 */
export const agree = (n: number, one: string, many: string): string => (n === 1 ? one : many);
