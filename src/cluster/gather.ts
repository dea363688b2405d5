/**
 * The live snapshot: reads the requested kinds from the API server of a kubeconfig context, over
 * the transport of http.ts (connection, GETs, retries, bounds per request).
 *
 * Bounded (docs/limits.md): each kind at --max-objects objects and pages, the whole read at
 * --timeout. What is read beyond the kinds asked for (the control-plane namespaces of a -n run,
 * the named ConfigMaps and Secrets) is decided by the ReadPlan the caller hands in: this layer
 * knows no mesh.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { UserError } from '../util/errors.js';
import { DEFAULT_LIMITS, type Limits } from '../util/limits.js';
import type { K8sObject } from '../util/types.js';
import type { Snapshot } from '../k8s/snapshot.js';
import { resolveKubeContext, type Impersonation, type KubeContext } from './kubeconfig.js';
import { KINDS, listPath, objectPath, type KindInfo, type KindKey } from '../k8s/kinds.js';
import { sanitizeSecret, type Keeper } from './sanitize.js';
import {
  connect,
  confirmApiServer,
  get,
  invalidJson,
  KindFailure,
  seconds,
  statusFailure,
  timerMs,
  type Conn,
  type Reply,
} from './http.js';
import { readMetrics, readVersion, type ServerReadPlan } from './endpoints.js';
import { listNamespaces, namedRefs, type ReadPlan } from './read-streams.js';
import { APISERVER_NAMESPACE, APISERVER_SELECTOR, isApiserverPod } from '../k8s/apiserver.js';
import type { ServerInfo } from '../k8s/server.js';

export interface GatherOptions {
  kubeconfig?: string;
  context?: string;
  /** --as, --as-group, --as-uid: whom every request (WATCHes too) acts as. */
  impersonate?: Impersonation;
  /** The namespace to read (ignored with allNamespaces); default: the context's, else "default". */
  namespace?: string;
  allNamespaces: boolean;
  kinds: KindKey[];
  /** The run's bounds (request timeout, deadline, bytes, objects); defaults: DEFAULT_LIMITS. */
  limits?: Partial<Limits>;
  /** Items per LIST page (default 500). */
  pageSize?: number;
  onProgress?: (p: { kindsDone: number; kindsTotal: number; objects: number }) => void;
  /** What the objects keep (src/mesh/keep.ts: what the checks read). */
  keep: Keeper;
  /** Which further namespaces and named objects the checks need (src/mesh/read-plan.ts). */
  plan: ReadPlan;
  /** What to read of the API server itself (its version, /metrics, its pods): none when absent. */
  server?: ServerReadPlan;
}

export type { NamedRef, ReadPlan } from './read-streams.js';

export const DEFAULT_PAGE_SIZE = 500;

// ---------------------------------------------------------------------------------------------
// kubeconfig

/** The context meshdoctor would use, without contacting the server (nor running an exec plugin). */
export async function resolveContext(opts: {
  kubeconfig?: string;
  context?: string;
  limits?: Partial<Limits>;
}): Promise<{ contextName: string; namespace: string; server: string }> {
  const { contextName, namespace, server } = await resolveKubeContext(opts, { ...DEFAULT_LIMITS, ...opts.limits });
  return { contextName, namespace, server };
}

// ---------------------------------------------------------------------------------------------
// Reading

const apiVersionOf = (info: KindInfo) => (info.group ? `${info.group}/${info.version}` : info.version);

/**
 * All items of one kind, page by page; a 410 on a continue token restarts the list once. Bounded
 * against a server that never ends a list: a continue token seen before (a, b, a, ...) stops it,
 * and so do more than --max-objects objects (`budget` counts them over the namespaces of a kind)
 * or pages: a KindFailure, never a silently truncated list.
 */
export async function listKind(
  conn: Conn,
  info: KindInfo,
  namespace: string | undefined,
  pageSize: number,
  budget: { objects: number },
  onPage: (n: number) => void,
  keep: Keeper,
  /** Set to the list's resourceVersion (a watch continues from it). */
  meta?: { resourceVersion?: string },
  /** Only the objects with these labels (a label selector). */
  labelSelector?: string,
): Promise<K8sObject[]> {
  const path = listPath(info, namespace);
  const stamp = { apiVersion: apiVersionOf(info), kind: info.kind };
  const max = conn.limits.maxObjects;
  let items: K8sObject[] = [];
  let cont: string | undefined;
  let restarted = false;
  // Tokens as digests: a server may send huge ones, and only their identity matters.
  let seen = new Set<string>();
  let pages = 0;
  /** The GET of the page at `cont` (the first page without one). */
  const request = (): Promise<Reply> => {
    // The last page may be empty: max objects take at most max + 1 pages.
    if (++pages > max + 1)
      throw new KindFailure(`the API server sent more than ${max + 1} pages of ${info.plural} (--max-objects)`);
    const query = new URLSearchParams({ limit: String(pageSize) });
    if (labelSelector) query.set('labelSelector', labelSelector);
    if (cont) query.set('continue', cont);
    return get(conn, `${path}?${query}`, info.key);
  };
  /** The next page's GET, asked for before this page's items are parsed and slimmed (the server works meanwhile). */
  let ahead: Promise<Reply> | undefined;
  try {
    for (;;) {
      const reply = await (ahead ?? request());
      ahead = undefined;
      // An API the cluster does not serve (OpenShift's, elsewhere): none of its objects, not a failure.
      if (reply.status === 404 && info.optionalApi && !cont) return [];
      if (reply.status === 410 && cont && !restarted) {
        restarted = true;
        budget.objects -= items.length;
        items = [];
        cont = undefined;
        seen = new Set();
        pages = 0;
        continue;
      }
      if (reply.status < 200 || reply.status >= 300) throw statusFailure(conn, reply);
      const list = reply.json as {
        items?: unknown;
        metadata?: { continue?: unknown; resourceVersion?: unknown };
      } | null;
      if (!list || !Array.isArray(list.items))
        throw new KindFailure(`the API server sent a ${info.kind} list without items`);
      const count = reply.items ? reply.items.count : list.items.length;
      budget.objects += count;
      if (budget.objects > max) throw new KindFailure(`more than ${max} ${info.plural} (--max-objects)`);
      const next = list.metadata?.continue;
      const last = typeof next !== 'string' || !next;
      if (!last) {
        const digest = createHash('sha256').update(next).digest('base64');
        if (seen.has(digest) || next === cont)
          throw new KindFailure(`the API server repeated a continue token for ${info.plural}`);
        seen.add(digest);
      }
      // This page's items, parsed now (the next page already asked for: an invalid page fails the kind as before).
      let parsed: unknown[];
      if (reply.items) {
        if (!last) {
          cont = next as string;
          ahead = request();
        }
        try {
          parsed = reply.items.parse();
        } catch {
          throw invalidJson(conn);
        }
      } else parsed = list.items;
      // Lists strip kind and apiVersion from their items; put them back.
      for (const item of parsed) {
        if (!item || typeof item !== 'object') continue;
        // In place (the parsed page is ours): copying 50k objects costs more than parsing them.
        const obj = item as K8sObject;
        if (obj.kind === undefined) obj.kind = stamp.kind;
        if (obj.apiVersion === undefined) obj.apiVersion = stamp.apiVersion;
        const kept = keep.keepObject(info.key, obj); // nothing of an Event no check reads
        if (kept) items.push(kept);
      }
      onPage(count);
      if (meta)
        meta.resourceVersion =
          typeof list.metadata?.resourceVersion === 'string' ? list.metadata.resourceVersion : undefined;
      if (last) return items;
      if (!ahead) {
        cont = next as string;
        ahead = request();
      }
    }
  } finally {
    // A page asked for ahead of a failure: its answer (or failure) is of no interest.
    ahead?.catch(() => {});
  }
}

/**
 * Read a snapshot of the requested kinds from the live cluster, within --timeout: when it passes,
 * everything in flight is aborted (an exec plugin killed) and the read fails with one line.
 */
export async function gather(opts: GatherOptions): Promise<Snapshot> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const resolved = await resolveKubeContext(opts, limits);
  const abort = new AbortController();
  setMaxListeners(Infinity, abort.signal); // one listener per request in flight
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new UserError(`reading the cluster took longer than the --timeout of ${seconds(limits.deadlineMs)}`));
      abort.abort();
    }, timerMs(limits.deadlineMs));
  });
  const work = readCluster(opts, limits, resolved, abort);
  work.catch(() => {}); // past the deadline its rejection (aborted requests) is of no interest
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

async function readCluster(
  opts: GatherOptions,
  limits: Limits,
  resolved: KubeContext,
  abort: AbortController,
): Promise<Snapshot> {
  const scope = opts.allNamespaces
    ? { allNamespaces: true }
    : { allNamespaces: false, namespace: opts.namespace ?? resolved.namespace };
  const kinds = [...new Set(opts.kinds)];
  const wanted = new Set(kinds);
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;

  const objects: Snapshot['objects'] = {};
  const unavailable: Snapshot['unavailable'] = {};
  const unavailableIn: NonNullable<Snapshot['unavailableIn']> = {};
  const failures = new Map<KindKey, KindFailure>();
  const fail = (key: KindKey, f: KindFailure) => {
    if (failures.has(key)) return;
    failures.set(key, f);
    unavailable[key] = f.reason;
  };
  let kindsDone = 0;
  let objectCount = 0;
  const progress = () => opts.onProgress?.({ kindsDone, kindsTotal: kinds.length, objects: objectCount });

  const conn = await connect(resolved, limits, abort.signal);
  const server: ServerInfo = {};
  try {
    // The server's own reads (optional: a refusal is their state, never the run's end), beside the lists.
    const own = readServer(conn, opts.server ?? {}, {
      apiserverPods: wanted.has('pods') && !(scope.allNamespaces || scope.namespace === APISERVER_NAMESPACE),
      pageSize,
      keep: opts.keep,
    }).then((r) => {
      Object.assign(server, r.info);
      return r.apiserverPods;
    });
    own.catch(() => {}); // awaited below; a fatal error (401) is the lists' too
    const onPage = (n: number) => {
      objectCount += n;
      progress();
    };
    /**
     * List one kind in each of the namespaces (undefined: cluster-wide), merged in that order. The
     * first is the scope: if it cannot be read, neither can the kind. A refusal in a later one (a
     * mesh's control-plane namespace a Role does not cover) loses that namespace only: the kind
     * keeps what was read and `unavailableIn` says where it was not. Past --max-objects over all
     * of them the kind fails whole (which list crossed the limit is a matter of timing).
     */
    const listInto = async (key: KindKey, namespaces: (string | undefined)[]) => {
      const budget = { objects: 0 };
      const lists = await Promise.allSettled(
        namespaces.map((ns) => listKind(conn, KINDS[key], ns, pageSize, budget, onPage, opts.keep)),
      );
      const other = lists.find(
        (r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof KindFailure),
      );
      if (other) throw other.reason; // fatal (401, unreachable, aborted): as before
      const failed = (r: PromiseSettledResult<K8sObject[]>) =>
        r.status === 'rejected' ? (r.reason as KindFailure) : undefined;
      const whole = budget.objects > limits.maxObjects ? lists.map(failed).find((f) => f) : failed(lists[0]!);
      if (whole) fail(key, whole);
      else {
        objects[key] = lists.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
        lists.forEach((r, i) => {
          const f = failed(r);
          if (f) (unavailableIn[key] ??= {})[namespaces[i]!] = f.reason;
        });
      }
      kindsDone++;
      progress();
    };
    /**
     * Phase 2: the ConfigMaps and Secrets the checks need, by name, in the mesh namespaces (also
     * when reading a single namespace: the control-plane checks need them).
     */
    async function named(): Promise<void> {
      const byName = kinds.filter((key) => KINDS[key].byName);
      if (byName.length) {
        const plan = namedRefs(kinds, opts.plan, objects);
        if ('unavailable' in plan) {
          // Not a server failure: nothing was asked, so this does not count towards "every request failed".
          for (const key of byName) unavailable[key] = plan.unavailable;
        } else {
          const refs = plan.refs;
          const found: (K8sObject | undefined)[] = await Promise.all(
            refs.map(async (ref) => {
              const info = KINDS[ref.key];
              try {
                const reply = await get(conn, objectPath(info, ref.namespace, ref.name));
                if (reply.status === 404) return undefined;
                if (reply.status < 200 || reply.status >= 300) throw statusFailure(conn, reply);
                const obj = reply.json as K8sObject;
                if (!obj || typeof obj !== 'object' || Array.isArray(obj))
                  throw new KindFailure(`the API server sent a ${info.kind} that is not an object`);
                // Secrets are reduced to their certificates at once: key material is never kept.
                return ref.key === 'secrets'
                  ? sanitizeSecret(obj)
                  : opts.keep.slim(ref.key, { apiVersion: apiVersionOf(info), kind: info.kind, ...obj });
              } catch (e) {
                if (!(e instanceof KindFailure)) throw e;
                fail(ref.key, e);
                return undefined;
              }
            }),
          );
          for (const key of byName) {
            if (failures.has(key)) continue;
            objects[key] = found.filter((o, i): o is K8sObject => !!o && refs[i]!.key === key);
            objectCount += objects[key]!.length;
          }
        }
        kindsDone += byName.length;
        progress();
      }
    }
    // Phase 1: list every listable kind, concurrently. With -n, the namespaced kinds are listed in
    // that namespace and in the meshes' control-plane namespaces (the control-plane checks need
    // the injector's pods, service and endpoints), which the cluster-scoped kinds name first.
    // Phase 2 (the named objects) starts as soon as namespaces, webhook configurations and
    // Deployments (a control plane's Deployment names the Secret it mounts) are read, while the
    // large lists (pods, events, ...) are still being read.
    const listable = kinds.filter((key) => !KINDS[key].byName);
    const naming = new Set<KindKey>(['namespaces', 'mutatingwebhookconfigurations', 'deployments']);
    if (scope.allNamespaces) {
      const lists = listable.map((key) => ({ key, done: listInto(key, [undefined]) }));
      await Promise.all([
        Promise.all(lists.map((l) => l.done)),
        Promise.all(lists.filter((l) => naming.has(l.key)).map((l) => l.done)).then(named),
      ]);
    } else {
      await Promise.all(listable.filter((key) => !KINDS[key].namespaced).map((key) => listInto(key, [undefined])));
      const namespaces = listNamespaces(scope, opts.plan, objects);
      const lists = listable
        .filter((key) => KINDS[key].namespaced)
        .map((key) => ({ key, done: listInto(key, namespaces) }));
      await Promise.all([
        ...lists.map((l) => l.done),
        Promise.all(lists.filter((l) => naming.has(l.key)).map((l) => l.done)).then(named),
      ]);
    }
    const apiserverPods = await own;
    if (apiserverPods?.length && objects.pods) {
      // Merged into the pods of the scope (a -n of kube-system has them already).
      const seen = new Set(objects.pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
      objects.pods.push(...apiserverPods.filter((p) => !seen.has(`${p.metadata?.namespace}/${p.metadata?.name}`)));
    }
    if (!conn.answered && conn.notFound) await confirmApiServer(conn);
  } finally {
    abort.abort();
    conn.agent.destroy();
  }

  // A server that failed every single request is an error, not a snapshot of unavailable kinds.
  const first = kinds.map((key) => failures.get(key)).find((f) => f !== undefined);
  if (!conn.answered && first) throw new UserError(first.fatal);

  // The kinds in the order asked for, not the order their reads ended (a saved snapshot is the same every time).
  const ordered: Snapshot['objects'] = {};
  const partial: NonNullable<Snapshot['unavailableIn']> = {};
  for (const key of kinds) {
    if (objects[key]) ordered[key] = objects[key];
    if (objects[key] && unavailableIn[key])
      partial[key] = Object.fromEntries(Object.entries(unavailableIn[key]).sort(([a], [b]) => (a < b ? -1 : 1)));
  }
  return {
    source: {
      type: 'live',
      context: resolved.contextName,
      server: resolved.server,
      readAt: new Date().toISOString(),
      // Impersonating: the API server authorizes that user, whom coverage's RBAC commands bind.
      ...(resolved.impersonate?.user ? { user: resolved.impersonate.user } : {}),
    },
    scope,
    objects: ordered,
    unavailable,
    ...(Object.keys(partial).length ? { unavailableIn: partial } : {}),
    ...(Object.keys(server).length ? { server } : {}),
  };
}

/**
 * The reads of the server itself the plan asks for: /version, /metrics, and (when `apiserverPods`:
 * under -n, where the pods of kube-system are not listed) the kube-apiserver pods of kube-system by
 * their kubeadm labels, returned for the pods of the snapshot. No other pod of kube-system is read.
 * Shared by the two executors of a read plan: gather (read once) and the reflector (watch: /version
 * on connect, /metrics and the pods again on full evaluations). Bounded as every read: --max-bytes,
 * --request-timeout, --max-objects; a refusal or failure is the read's state, never an exception
 * (but for the run's own abort).
 */
export async function readServer(
  conn: Conn,
  plan: ServerReadPlan,
  o: { apiserverPods: boolean; pageSize?: number; keep: Keeper },
): Promise<{ info: ServerInfo; apiserverPods?: K8sObject[] }> {
  const info: ServerInfo = {};
  const version = plan.version ? readVersion(conn).then((p) => void (p && (info.version = p))) : undefined;
  const metrics = plan.metrics
    ? readMetrics(conn, plan.metrics.keepWebhook).then((p) => void (info.metrics = p))
    : undefined;
  const apiserverPods = async (): Promise<K8sObject[] | undefined> => {
    if (!plan.apiserverPods || !o.apiserverPods) return undefined;
    try {
      const all = await listKind(
        conn,
        KINDS.pods,
        APISERVER_NAMESPACE,
        o.pageSize ?? DEFAULT_PAGE_SIZE,
        { objects: 0 },
        () => {},
        o.keep,
        undefined,
        APISERVER_SELECTOR,
      );
      info.apiserverPods = { state: 'read', value: true };
      return all.filter(isApiserverPod); // the selector again: a server that ignores it sends every pod
    } catch (e) {
      if (!(e instanceof KindFailure)) throw e;
      info.apiserverPods = { state: /^forbidden\b/.test(e.reason) ? 'refused' : 'failed', reason: e.reason };
      return undefined;
    }
  };
  // All three awaited together: when one fails fatally (the server unreachable) the others, aborted
  // in their retry sleep, still have a handler (an unawaited one reached unhandledRejection: issue 35).
  const [, , pods] = await Promise.all([version, metrics, apiserverPods()]);
  return { info, ...(pods ? { apiserverPods: pods } : {}) };
}
