/**
 * What `watch` keeps in sync and the snapshots it evaluates: the read plan of `check`
 * (src/run/plan.ts: the kinds, the named objects, the reads of the server itself) as the reflector
 * runs it, a function of what is read so far, and the snapshot `check` would have read, built from
 * the reflector's objects and server reads: the whole scope, or one namespace as `check -n NS`
 * reads it (that namespace and the meshes' control-plane namespaces, every cluster-scoped kind,
 * the named ConfigMaps and Secrets, the kube-apiserver pods), judged in the watch's own scope.
 */
import { KINDS, type KindKey } from '../k8s/kinds.js';
import { meshNamespaces, READ_PLAN } from '../mesh/read-plan.js';
import { listNamespaces, namedRefs } from '../cluster/read-streams.js';
import type { KindStatus, NamedStream, ReadPlan } from '../cluster/reflector.js';
import type { ServerReadPlan } from '../cluster/endpoints.js';
import type { ObjectStore } from '../cluster/store.js';
import type { ServerInfo, ServerInputKey } from '../k8s/server.js';
import { serverReadPlan } from '../run/plan.js';
import type { K8sObject, Scope, SnapshotSource } from '../util/types.js';
import type { Snapshot } from '../k8s/snapshot.js';

/** What the reflector read of the API server itself (Reflector.server, apiserverPods, serverPending). */
interface ServerReads {
  info: ServerInfo;
  apiserverPods: readonly K8sObject[];
  pending: readonly ServerInputKey[];
}

export class WatchPlan {
  /** The named objects of the last plan, in the order `check` fetches them. */
  private named: NamedStream[] = [];

  constructor(
    readonly kinds: readonly KindKey[],
    readonly scope: Scope,
    /** The reads of the server itself (the read plan's `server`). */
    readonly server: readonly ServerInputKey[] = [],
    /** Kinds not read on purpose, with why (--no-secrets: SECRETS_DECLINED). */
    readonly declined: Partial<Record<KindKey, string>> = {},
  ) {}

  /** The server reads as the reflector runs them (the kube-apiserver pods by label only where kube-system is not listed). */
  serverPlan(): ServerReadPlan {
    return serverReadPlan(this.server, { scope: this.scope, kinds: this.kinds });
  }

  /** The meshes' control-plane namespaces, from the namespaces and webhook configurations read so far. */
  controlPlane(store: ObjectStore): Set<string> {
    return new Set(
      Object.values(meshNamespaces(store.all('namespaces'), store.all('mutatingwebhookconfigurations'))).flat(),
    );
  }

  /** The streams: what gather reads (src/cluster/read-streams.ts, the same answer), as a function of what is read so far. */
  readPlan = (store: ObjectStore, status: (key: KindKey) => KindStatus): ReadPlan => {
    const read = (key: KindKey) => (this.kinds.includes(key) && !status(key).unavailable ? store.all(key) : undefined);
    const so = {
      namespaces: read('namespaces'),
      mutatingwebhookconfigurations: read('mutatingwebhookconfigurations'),
      deployments: read('deployments'),
    };
    const listable = this.kinds.filter((key) => !KINDS[key].byName);
    const namespaces = listNamespaces(this.scope, READ_PLAN, so);
    const lists = [
      ...listable.filter((key) => !KINDS[key].namespaced).map((key) => ({ key })),
      ...namespaces.flatMap((namespace) =>
        listable
          .filter((key) => KINDS[key].namespaced)
          .map((key) => (namespace === undefined ? { key } : { key, namespace })),
      ),
    ];
    const named = namedRefs(this.kinds, READ_PLAN, so);
    if ('unavailable' in named) {
      this.named = [];
      const byName = this.kinds.filter((key) => KINDS[key].byName);
      return { lists, named: [], unavailable: Object.fromEntries(byName.map((key) => [key, named.unavailable])) };
    }
    this.named = named.refs.map((r) => ({ key: r.key, namespace: r.namespace, name: r.name }));
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
    server?: ServerReads,
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
    // The kube-apiserver pods read by their labels, after the pods of the scope (as gather merges them).
    if (server?.apiserverPods.length && objects.pods) {
      const seen = new Set(objects.pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
      const more = server.apiserverPods.filter((p) => !seen.has(`${p.metadata?.namespace}/${p.metadata?.name}`));
      if (more.length) objects.pods = [...objects.pods, ...more];
    }
    const pending = server?.pending.filter((k) => this.server.includes(k)) ?? [];
    // The watch's own scope, also for one namespace: `check -n` judges some things differently
    // (namespace-not-enabled speaks up for the namespace asked about); the objects make it one namespace.
    // Kinds not read on purpose (--no-secrets): said as `check` says them.
    for (const [key, why] of Object.entries(this.declined) as [KindKey, string][]) unavailable[key] = why;
    return {
      source,
      scope: this.scope,
      objects,
      unavailable,
      ...(server && Object.keys(server.info).length ? { server: server.info } : {}),
      ...(pending.length ? { serverPending: [...pending] } : {}),
    };
  }
}
