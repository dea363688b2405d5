/**
 * The objects a watch keeps, per kind and namespace, each namespace's sorted by name: a kind's
 * objects come out in the order a LIST gives them (etcd's key order, `<namespace>/<name>`), so
 * that a snapshot built from here is the snapshot `check` would read, and the checks see the same
 * input in the same order. Changes cost a binary search and a splice; a kind's whole list is
 * built once after a change, on demand.
 */
import type { KindKey } from '../k8s/kinds.js';
import type { K8sObject } from '../util/types.js';

const nameOf = (o: K8sObject): string => (typeof o.metadata?.name === 'string' ? o.metadata.name : '');
const nsOf = (o: K8sObject): string => (typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : '');

interface Bucket {
  names: string[];
  objs: K8sObject[];
}

/** The index of `name` in sorted `names`, or where it would go (-(i + 1)). */
function search(names: string[], name: string): number {
  let lo = 0;
  let hi = names.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const n = names[mid]!;
    if (n < name) lo = mid + 1;
    else if (n > name) hi = mid - 1;
    else return mid;
  }
  return -(lo + 1);
}

/** Objects sorted by name, one per name (the last wins, as a later LIST item or event would). */
function bucketOf(objs: K8sObject[]): Bucket {
  // A LIST's items are in name order already: kept as they are.
  const names = objs.map(nameOf);
  if (names.every((n, i) => i === 0 || names[i - 1]! < n)) return { names, objs: [...objs] };
  const byName = new Map<string, K8sObject>();
  for (const o of objs) byName.set(nameOf(o), o);
  const sorted = [...byName.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { names: sorted, objs: sorted.map((n) => byName.get(n)!) };
}

/** Namespaces in LIST order: by `<namespace>/` (so "a-b" comes before "a", as `/registry/pods/a-b/...` does). */
const nsOrder = (a: string, b: string) => (a + '/' < b + '/' ? -1 : a + '/' > b + '/' ? 1 : 0);

class KindObjects {
  readonly buckets = new Map<string, Bucket>();
  count = 0;
  private order: string[] | undefined;
  private whole: K8sObject[] | undefined;

  private changed(newNamespace: boolean) {
    this.whole = undefined;
    if (newNamespace) this.order = undefined;
  }

  /** Insert or replace; true when the object is new. */
  upsert(o: K8sObject): boolean {
    const ns = nsOf(o);
    const name = nameOf(o);
    let b = this.buckets.get(ns);
    const fresh = !b;
    if (!b) this.buckets.set(ns, (b = { names: [], objs: [] }));
    const i = search(b.names, name);
    this.changed(fresh);
    if (i >= 0) {
      b.objs[i] = o;
      return false;
    }
    b.names.splice(-i - 1, 0, name);
    b.objs.splice(-i - 1, 0, o);
    this.count++;
    return true;
  }

  /** The object removed, if there was one. */
  remove(ns: string, name: string): K8sObject | undefined {
    const b = this.buckets.get(ns);
    const i = b ? search(b.names, name) : -1;
    if (!b || i < 0) return undefined;
    const [gone] = b.objs.splice(i, 1);
    b.names.splice(i, 1);
    this.count--;
    if (!b.names.length) this.buckets.delete(ns);
    this.changed(!b.names.length);
    return gone;
  }

  get(ns: string, name: string): K8sObject | undefined {
    const b = this.buckets.get(ns);
    const i = b ? search(b.names, name) : -1;
    return b && i >= 0 ? b.objs[i] : undefined;
  }

  /** Replace the objects of one namespace (undefined: of every namespace). */
  replace(ns: string | undefined, objs: K8sObject[]): void {
    if (ns === undefined) {
      this.buckets.clear();
      this.count = 0;
      const byNs = new Map<string, K8sObject[]>();
      for (const o of objs) {
        const n = nsOf(o);
        (byNs.get(n) ?? byNs.set(n, []).get(n)!).push(o);
      }
      for (const [n, list] of byNs) {
        const b = bucketOf(list);
        this.buckets.set(n, b);
        this.count += b.names.length;
      }
    } else {
      this.count -= this.buckets.get(ns)?.names.length ?? 0;
      this.buckets.delete(ns);
      const b = bucketOf(objs.filter((o) => nsOf(o) === ns));
      if (b.names.length) this.buckets.set(ns, b);
      this.count += b.names.length;
    }
    this.changed(true);
  }

  namespaces(): string[] {
    return (this.order ??= [...this.buckets.keys()].sort(nsOrder));
  }

  all(): K8sObject[] {
    if (!this.whole) {
      const out: K8sObject[] = [];
      for (const ns of this.namespaces()) for (const o of this.buckets.get(ns)!.objs) out.push(o);
      this.whole = out;
    }
    return this.whole;
  }

  /** The objects of these namespaces, in LIST order. */
  inNamespaces(namespaces: ReadonlySet<string>): K8sObject[] {
    const out: K8sObject[] = [];
    for (const ns of [...namespaces].sort(nsOrder)) for (const o of this.buckets.get(ns)?.objs ?? []) out.push(o);
    return out;
  }
}

/** Every kind's objects. The arrays returned are the store's own until the next change: copy before keeping one. */
export class ObjectStore {
  private kinds = new Map<KindKey, KindObjects>();

  private of(key: KindKey): KindObjects {
    let k = this.kinds.get(key);
    if (!k) this.kinds.set(key, (k = new KindObjects()));
    return k;
  }

  upsert = (key: KindKey, o: K8sObject): boolean => this.of(key).upsert(o);
  remove = (key: KindKey, ns: string, name: string): K8sObject | undefined => this.of(key).remove(ns, name);
  get = (key: KindKey, ns: string, name: string): K8sObject | undefined => this.kinds.get(key)?.get(ns, name);
  /** Replace a kind's objects in one namespace, or everywhere (namespace undefined). */
  replace = (key: KindKey, namespace: string | undefined, objs: K8sObject[]): void =>
    this.of(key).replace(namespace, objs);
  count = (key: KindKey): number => this.kinds.get(key)?.count ?? 0;
  /** A kind's objects, in LIST order. */
  all = (key: KindKey): K8sObject[] => this.kinds.get(key)?.all() ?? [];
  /** A kind's objects in these namespaces, in LIST order. */
  inNamespaces = (key: KindKey, namespaces: ReadonlySet<string>): K8sObject[] =>
    this.kinds.get(key)?.inNamespaces(namespaces) ?? [];
  /** The namespaces holding objects of a kind, in LIST order. */
  namespaces = (key: KindKey): string[] => this.kinds.get(key)?.namespaces() ?? [];
}
