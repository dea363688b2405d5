/**
 * A snapshot (what meshdoctor read from one cluster, once) and its index: the mesh-free half of
 * the Model. Objects by kind, by namespace and by name, what was read where, the manifests of
 * `check -f`, and the workloads (src/k8s/workloads.ts), each built once on first use.
 */
import type { KindKey } from './kinds.js';
import type { ServerInfo, ServerInputKey } from './server.js';
import { buildWorkloads, type Workload } from './workloads.js';
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
  memo<T>(key: string, f: () => T): T;
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
  private readonly memos = new Map<string, unknown>();

  constructor(snapshot: Snapshot) {
    this.snapshot = snapshot;
  }

  /** Compute once per index: the one memo the index, the facts and the checks share. */
  memo<T>(key: string, f: () => T): T {
    // One lookup where the value is there (called per workload and pod by many checks); `has` only for a memoized undefined.
    const v = this.memos.get(key);
    if (v !== undefined || this.memos.has(key)) return v as T;
    const made = f();
    this.memos.set(key, made);
    return made;
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
    return this.memo(`ns:${key}`, () => groupBy(this.list(key), nsOf));
  }

  inNamespace(key: KindKey, ns: string): K8sObject[] {
    return this.byNamespace(key).get(ns) ?? [];
  }

  /** One object by namespace and name. */
  get(key: KindKey, ns: string, name: string): K8sObject | undefined {
    const idx = this.memo(`name:${key}`, () => new Map(this.list(key).map((o) => [`${nsOf(o)}/${nameOf(o)}`, o])));
    return idx.get(`${ns}/${name}`);
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
    const key = (r: ResourceRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;
    return this.memo(
      'manifest-sources',
      () => new Map((this.snapshot.manifests ?? []).map((x) => [key(x.ref), x.source])),
    ).get(key(ref));
  }

  /** What a read of the API server itself gave (undefined: not read; see Snapshot.server). */
  serverRead<K extends ServerInputKey>(key: K): ServerInfo[K] {
    return this.snapshot.server?.[key];
  }

  /** Every workload: controllers listed, plus bare and orphaned pods, in a stable order. */
  get workloads(): Workload[] {
    return this.memo('workloads', () => buildWorkloads(this));
  }
}
