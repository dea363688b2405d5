/**
 * A snapshot (what meshdoctor read from one cluster, once) and its index: the mesh-free half of
 * the Model. Objects by kind, by namespace and by name, what was read where, the manifests of
 * `check -f`, and the workloads (src/k8s/workloads.ts), each built once on first use.
 */
import { FactCache, defineFact, defineFactFamily, type Fact, type FactFamily } from './fact.js';
import type { KindKey } from './kinds.js';
import type { ServerInfo, ServerInputKey } from './server.js';
import { WORKLOAD_INPUTS, buildWorkloads, type Workload } from './workloads.js';
import type { K8sObject, ManifestSource, ResourceRef, Scope, SnapshotSource } from '../util/types.js';
import { groupBy, nameOf, nsOf } from '../util/objects.js';

/**
 * Everything meshdoctor read from one cluster, once. Checks only ever see this (frozen).
 * `objects[kind]` is present for every kind that was read (possibly empty); a kind that could
 * not be read is absent from `objects` and named in `unavailable` with the reason.
 */
export interface Snapshot {
  source: SnapshotSource;
  scope: Scope;
  objects: Partial<Record<KindKey, K8sObject[]>>;
  unavailable: Partial<Record<KindKey, string>>;
  /**
   * A kind read in some namespaces and not in others: per kind in `objects`, the namespaces it
   * could not be read in, with the reason (a Role that covers the -n namespace but not a mesh's
   * control-plane namespace). Its objects there are unknown, not absent (Model.readIn).
   */
  unavailableIn?: Partial<Record<KindKey, Record<string, string>>>;
  /**
   * `check -f`: the objects the manifests hold (overlaid on `objects`). When present, findings
   * are limited to them (and the control-plane causes that stop them being injected).
   */
  manifests?: { ref: ResourceRef; source: ManifestSource }[];
  /**
   * What was read of the API server itself (src/k8s/server.ts): its version (GET /version), its
   * admission metrics, the kube-apiserver pods' read. Each absent when not read (not asked for, a
   * kubectl dump, an older snapshot): unknown, never required.
   */
  server?: ServerInfo;
  /**
   * The reads of the server itself the run asked for and that have not happened yet (a watch
   * before its first read of /metrics, say): coverage says "not read yet", and the run is not
   * complete. Never saved: a snapshot file holds what was read.
   */
  serverPending?: ServerInputKey[];
}

/** What the layers above read of a snapshot: objects by kind, namespace and name, and what could not be read. */
export interface SnapshotView {
  readonly snapshot: Snapshot;
  /** A fact (src/k8s/fact.ts), computed once per index. */
  fact<T>(f: Fact<T, this>): T;
  fact<K, T>(f: FactFamily<K, T, this>, key: K): T;
  list(key: KindKey): K8sObject[];
  has(key: KindKey): boolean;
  readIn(key: KindKey, ns: string): boolean;
  refusedIn(key: KindKey, ns: string): string | undefined;
  inNamespace(key: KindKey, ns: string): K8sObject[];
  get(key: KindKey, ns: string, name: string): K8sObject | undefined;
  namespace(name: string): K8sObject | undefined;
  inScope(ns: string): boolean;
  manifestSource(ref: ResourceRef): ManifestSource | undefined;
  serverRead<K extends ServerInputKey>(key: K): ServerInfo[K];
  readonly workloads: Workload[];
}

export class SnapshotIndex implements SnapshotView {
  readonly snapshot: Snapshot;
  private readonly facts = new FactCache();

  constructor(snapshot: Snapshot) {
    this.snapshot = snapshot;
  }

  /** A fact (src/k8s/fact.ts), computed once per index: the one cache the index, the facts and the checks share. */
  fact<T>(f: Fact<T, this>): T;
  fact<K, T>(f: FactFamily<K, T, this>, key: K): T;
  fact<K, T>(f: Fact<T, this> | FactFamily<K, T, this>, key?: K): T {
    return f.family ? this.facts.getKeyed(f, this, key as K) : this.facts.get(f, this);
  }

  /** The objects of a kind (empty when not read). */
  list(key: KindKey): K8sObject[] {
    return this.snapshot.objects[key] ?? [];
  }

  has(key: KindKey): boolean {
    return this.snapshot.objects[key] !== undefined;
  }

  /**
   * The kind was read in namespace `ns` (for a cluster-scoped kind, pass ''): read at all, and not
   * refused there (Snapshot.unavailableIn: a Role covering -n's namespace but not a mesh's).
   * Where it is false, the namespace's objects of that kind are unknown, never "none".
   */
  readIn(key: KindKey, ns: string): boolean {
    return this.has(key) && this.refusedIn(key, ns) === undefined;
  }

  /** Why a kind that was read could not be read in `ns` (Snapshot.unavailableIn); undefined when it was, or was not read at all. */
  refusedIn(key: KindKey, ns: string): string | undefined {
    return this.snapshot.unavailableIn?.[key]?.[ns];
  }

  /** Why `key` is not known in `ns` ("pods in namespace linkerd: forbidden: ..."), or undefined when it was read. */
  unread(key: KindKey, ns = ''): string | undefined {
    if (!this.has(key)) return `${key}: ${this.snapshot.unavailable[key] ?? 'not in the snapshot'}`;
    const why = this.refusedIn(key, ns);
    return why === undefined ? undefined : `${key} in namespace ${ns}: ${why}`;
  }

  /** Objects of a kind by namespace. */
  byNamespace(key: KindKey): Map<string, K8sObject[]> {
    return this.fact(BY_NAMESPACE, key);
  }

  inNamespace(key: KindKey, ns: string): K8sObject[] {
    return this.byNamespace(key).get(ns) ?? [];
  }

  /** One object by namespace and name. */
  get(key: KindKey, ns: string, name: string): K8sObject | undefined {
    return this.fact(BY_NAME, key).get(`${ns}/${name}`);
  }

  namespace(name: string): K8sObject | undefined {
    return this.get('namespaces', '', name);
  }

  /** Namespaces whose workloads the run reports on: the -n namespace, or all of them. */
  inScope(ns: string): boolean {
    const s = this.snapshot.scope;
    return s.allNamespaces || !s.namespace || s.namespace === ns;
  }

  /** `check -f`: the manifest document that holds this resource (undefined: not in the manifests). */
  manifestSource(ref: ResourceRef): ManifestSource | undefined {
    return this.fact(MANIFEST_SOURCES).get(refKey(ref));
  }

  /** What a read of the API server itself gave (undefined: not read; see Snapshot.server). */
  serverRead<K extends ServerInputKey>(key: K): ServerInfo[K] {
    return this.snapshot.server?.[key];
  }

  /** Every workload: controllers listed, plus bare and orphaned pods, in a stable order. */
  get workloads(): Workload[] {
    return this.fact(WORKLOADS);
  }
}

/** The objects of a kind by namespace. */
const BY_NAMESPACE = defineFactFamily({
  id: 'by-namespace',
  inputs: (key: KindKey) => [key],
  compute: (m: SnapshotView, key: KindKey) => groupBy(m.list(key), nsOf),
});

/** The objects of a kind by "namespace/name". */
const BY_NAME = defineFactFamily({
  id: 'by-name',
  inputs: (key: KindKey) => [key],
  // A loop, not new Map(list.map(pair)): no pair array per object (pods: 20k). The last of two equal keys wins, as before.
  compute: (m: SnapshotView, key: KindKey) => {
    const byName = new Map<string, K8sObject>();
    for (const o of m.list(key)) byName.set(`${nsOf(o)}/${nameOf(o)}`, o);
    return byName;
  },
});

const refKey = (r: ResourceRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

/** `check -f`: the manifest document of each resource the manifests hold (no kind read). */
const MANIFEST_SOURCES = defineFact({
  id: 'manifest-sources',
  inputs: [],
  compute: (m: SnapshotView) => new Map((m.snapshot.manifests ?? []).map((x) => [refKey(x.ref), x.source])),
});

/** Every workload (src/k8s/workloads.ts). */
export const WORKLOADS = defineFact({
  id: 'workloads',
  inputs: WORKLOAD_INPUTS,
  compute: (m: SnapshotView) => buildWorkloads(m),
});
