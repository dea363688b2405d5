/**
 * What `watch` keeps in sync and the snapshots it evaluates: the read plan of `check` (gather.ts
 * readCluster) as a function of what is read so far, for the reflector to run, and the snapshot
 * `check` would have read, built from the reflector's objects: the whole scope, or one namespace
 * as `check -n NS` reads it (that namespace and the meshes' control-plane namespaces, every
 * cluster-scoped kind, the named ConfigMaps and Secrets), judged in the watch's own scope.
 */
import { KINDS, type KindKey } from '../k8s/kinds.js';
import { meshNamespaces, namedObjects } from '../mesh/read-plan.js';
import type { KindStatus, NamedStream, ReadPlan } from '../cluster/reflector.js';
import type { ObjectStore } from '../cluster/store.js';
import type { K8sObject, Scope, SnapshotSource } from '../util/types.js';
import type { Snapshot } from '../k8s/snapshot.js';

const UNKNOWN_MESH_NAMESPACES =
  'the mesh namespaces are unknown: namespaces and mutatingwebhookconfigurations were not read';

export class WatchPlan {
  /** The named objects of the last plan, in the order `check` fetches them. */
  private named: NamedStream[] = [];

  constructor(
    readonly kinds: readonly KindKey[],
    readonly scope: Scope,
    /** Kinds not read on purpose, with why (--no-secrets: SECRETS_DECLINED). */
    readonly declined: Partial<Record<KindKey, string>> = {},
  ) {}

  /** The meshes' control-plane namespaces, from the namespaces and webhook configurations read so far. */
  controlPlane(store: ObjectStore): Set<string> {
    return new Set(
      Object.values(meshNamespaces(store.all('namespaces'), store.all('mutatingwebhookconfigurations'))).flat(),
    );
  }

  /** The streams: gather.ts's readCluster, as a function of what is read so far. */
  readPlan = (store: ObjectStore, status: (key: KindKey) => KindStatus): ReadPlan => {
    const listable = this.kinds.filter((key) => !KINDS[key].byName);
    const lists = this.scope.allNamespaces
      ? listable.map((key) => ({ key }))
      : [
          ...listable.filter((key) => !KINDS[key].namespaced).map((key) => ({ key })),
          ...[...new Set([this.scope.namespace!, ...this.controlPlane(store)])].flatMap((namespace) =>
            listable.filter((key) => KINDS[key].namespaced).map((key) => ({ key, namespace })),
          ),
        ];
    const byName = this.kinds.filter((key) => KINDS[key].byName);
    const read = (key: KindKey) => this.kinds.includes(key) && !status(key).unavailable;
    if (byName.length && !read('namespaces') && !read('mutatingwebhookconfigurations')) {
      this.named = [];
      return { lists, named: [], unavailable: Object.fromEntries(byName.map((key) => [key, UNKNOWN_MESH_NAMESPACES])) };
    }
    // Each object once, however many webhooks name its namespace.
    const refs = namedObjects(
      store.all('namespaces'),
      store.all('mutatingwebhookconfigurations'),
      store.all('deployments'),
    ).filter((r) => byName.includes(r.key));
    this.named = [
      ...new Map(
        refs.map((r) => [`${r.key}/${r.namespace}/${r.name}`, { key: r.key, namespace: r.namespace, name: r.name }]),
      ).values(),
    ];
    return { lists, named: this.named };
  };

  /**
   * The snapshot `check` would read now: every kind of the plan, in the order asked for, each in
   * LIST order (named objects in the order they are named); `namespace` narrows its objects to
   * what `check -n NAMESPACE` reads.
   */
  snapshot(
    store: ObjectStore,
    status: (key: KindKey) => KindStatus,
    source: SnapshotSource,
    namespace?: string,
  ): Snapshot {
    const objects: Snapshot['objects'] = {};
    const unavailable: Snapshot['unavailable'] = {};
    const namespaces = namespace === undefined ? undefined : new Set([namespace, ...this.controlPlane(store)]);
    for (const key of this.kinds) {
      const why = status(key).unavailable;
      if (why) {
        unavailable[key] = why;
        continue;
      }
      let list: K8sObject[];
      if (KINDS[key].byName)
        list = this.named
          .filter((r) => r.key === key)
          .flatMap((r): K8sObject[] => {
            const o = store.get(key, r.namespace, r.name);
            return o ? [o] : [];
          });
      else if (namespaces && KINDS[key].namespaced) list = store.inNamespaces(key, namespaces);
      else list = store.all(key).slice();
      objects[key] = list;
    }
    // The watch's own scope, also for one namespace: `check -n` judges some things differently
    // (namespace-not-enabled speaks up for the namespace asked about); the objects make it one namespace.
    // Kinds not read on purpose (--no-secrets): said as `check` says them.
    for (const [key, why] of Object.entries(this.declined) as [KindKey, string][]) unavailable[key] = why;
    return { source, scope: this.scope, objects, unavailable };
  }
}
