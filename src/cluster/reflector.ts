/**
 * LIST + WATCH: keeps the objects of a read plan in sync with the API server, for `meshdoctor
 * watch`. I/O only, and it knows no mesh: which streams run (kinds, the namespaces of each, the
 * objects read by name) is the caller's plan, asked again whenever a kind the plan reads changes.
 *
 * A list stream (a kind, cluster-wide or in one namespace) works as client-go's reflector does
 * (kubernetes/client-go tools/cache/reflector.go, ListAndWatch): a paged LIST (gather.ts's
 * listKind: the same pages, bounds and slimming as `check`), then a WATCH from the list's
 * resourceVersion with bookmarks and a server timeout of 5-10 minutes, opened again from the last
 * resourceVersion seen (an event's or a bookmark's) whenever it ends; a 410 Gone (an ERROR event
 * in the stream, as kube-apiserver v1.32 sends it for a resourceVersion older than its watch
 * cache, e.g. after it restarted) lists again, after client-go's relist backoff (RELIST_BACKOFF:
 * 0.8 s doubling to 30 s, reset after 2 quiet minutes). Nothing is listed periodically.
 *
 * A named stream (a ConfigMap or Secret the checks read by name in a mesh namespace: these are
 * never listed) GETs its object, then WATCHes it with `fieldSelector=metadata.name=NAME`, which a
 * Role granting `watch` with `resourceNames: [NAME]` authorizes (the API server takes the name
 * from the selector: k8s.io/apiserver pkg/endpoints/request/requestinfo.go at
 * kubernetes/kubernetes@db8b216c; checked on kube-apiserver v1.32.13 with `kubectl auth can-i`
 * and a watch as such a user). It watches from the freshest resourceVersion seen on any stream:
 * the object's own may be older than the server's watch cache. Where RBAC grants `get` on it but
 * not `watch` (a 403 on the watch), the object is read again every minute instead: one GET of one
 * object, never a list.
 *
 * Errors: a definite answer (403, 404, a response over a bound) makes the kind unavailable, as
 * `check` reports it, its objects dropped, retried every few minutes; anything else (no answer, a
 * dropped connection, 5xx, the server restarting) keeps the objects, marked stale, and retries
 * with exponential backoff and jitter (1 s to 1 min); a 401 asks for the credentials again (an
 * exec plugin is run again, a token file read again) before the next try.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, printable, UserError } from '../util/errors.js';
import type { Limits } from '../util/limits.js';
import type { K8sObject } from '../util/types.js';
import { isObj } from '../util/objects.js';
import { DEFAULT_PAGE_SIZE, listKind, readServer } from './gather.js';
import type { ServerReadPlan } from './endpoints.js';
import type { ServerInfo, ServerInputKey } from '../k8s/server.js';
import { get, KindFailure, statusFailure, type Conn } from './http.js';
import { KINDS, listPath, objectPath, type KindKey } from '../k8s/kinds.js';
import { sanitizeSecret, type Keeper } from './sanitize.js';
import { ObjectStore } from './store.js';
import { OversizedEvent, watchRequest, WatchNetError, WatchStatusError, type WatchEvent } from './watch-stream.js';

interface ListStream {
  key: KindKey;
  /** undefined: cluster-wide. */
  namespace?: string;
}

export interface NamedStream {
  key: KindKey;
  namespace: string;
  name: string;
}

/** What to keep in sync now. */
export interface ReadPlan {
  lists: ListStream[];
  named: NamedStream[];
  /** Kinds that cannot be read, and why (e.g. the named objects when their namespaces are unknown). */
  unavailable?: Partial<Record<KindKey, string>>;
}

export type Change =
  /** One object changed (namespace '' for a cluster-scoped one). */
  | { type: 'object'; key: KindKey; namespace: string; name: string }
  /** A stream's objects were replaced (a list after the first, a relist) or dropped. */
  | { type: 'reset'; key: KindKey; namespace?: string }
  /** A kind became readable, unavailable, stale or fresh again. */
  | { type: 'status'; key: KindKey };

export interface KindStatus {
  /** Every stream of the kind has read its objects (or given up for now). */
  synced: boolean;
  /** Why the kind cannot be read: its objects are not kept (a check would report it unavailable). */
  unavailable?: string;
  /** Why its objects may be out of date: a stream is failing now and retried. */
  stale?: string;
  objects: number;
  /** Watches opened again after an error or a 410 (not after the server's normal end). */
  restarts: number;
  /** LISTs (or GETs of a named object) after a stream's first. */
  relists: number;
  /** Watch events received (bookmarks included). */
  events: number;
}

interface ReflectorOptions {
  /** A connection with fresh credentials; called at start and again after a 401. */
  connect: () => Promise<Conn>;
  limits: Limits;
  kinds: KindKey[];
  /** What the objects keep (src/mesh/keep.ts: slimmed exactly as `check` keeps them). */
  keep: Keeper;
  /** The streams to run now, given what is read so far; asked again whenever a kind of `planKinds` changes. */
  plan: (store: ObjectStore, status: (key: KindKey) => KindStatus) => ReadPlan;
  planKinds: KindKey[];
  onChange: (c: Change) => void;
  /** One line for stderr. */
  log: (line: string) => void;
  pageSize?: number;
  /** Jitter for backoff and watch timeouts (tests pass a fixed one). */
  random?: () => number;
  /** Longest backoff after a transient error, and after a definite one (ms). */
  backoffCapMs?: number;
  definiteBackoffCapMs?: number;
  /** The server's watch timeout is minWatchSeconds to twice that (client-go: 5 min). */
  minWatchSeconds?: number;
  /** A named object that may be read but not watched is read again this often (default 60 s). */
  namedPollMs?: number;
  /**
   * What to read of the API server itself (the read plan's server reads, as gather reads them):
   * all of it once at start (synced() waits for it), /version again on each new connection, and
   * what refreshServer() is asked for. `apiserverPods` here means: list them by their labels
   * (the pods of kube-system are not listed anyway).
   */
  server?: ServerReadPlan;
  /** For tests: the clock of the relist backoff (ms) and the waits between tries. */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * LISTs again after a 410 Gone (or any relist) wait as client-go's reflector waits between two
 * ListAndWatch calls: its backoff manager, wait.NewExponentialBackoffManager(800ms, 30s, 2min,
 * 2.0, 1.0) (kubernetes/kubernetes staging/src/k8s.io/client-go/tools/cache/reflector.go,
 * NewReflectorWithOptions, v1.32): 800 ms doubled each time up to 30 s, each wait plus up to its
 * own length in jitter, back to 800 ms after 2 minutes without a relist. Events in between do not
 * reset it: a server that sends one event then 410 Gone gets one LIST every 30-60 s, not a storm.
 */
export const RELIST_BACKOFF = { initialMs: 800, capMs: 30_000, resetMs: 120_000 };

/** A 410 Gone: list again. */
class Expired extends Error {}

/**
 * A stream whose objects are kept drops them only after this many refusals (403, 404) in a row (with
 * backoff between, a few seconds): right after a restart kube-apiserver answers 403 for a moment
 * while its RBAC cache fills (seen on v1.32.13: `clusterrole ... not found`), which must not
 * resolve every finding and open them again.
 */
const REFUSALS_TO_DROP = 3;

/** A definite answer: the kind is unavailable until it changes (forbidden, not found, over a bound). */
const DEFINITE = /^(forbidden|not found):|^more than |larger than .*\(--max-bytes\)|^the API server (sent|repeated)/;

interface Stream {
  id: string;
  key: KindKey;
  namespace?: string;
  name?: string;
  abort: AbortController;
  /** Read at least once since it started (its objects are in the store). */
  listed: boolean;
  /** Why the kind is unavailable because of this stream (its objects dropped). */
  failure?: string;
  /** Why its objects may be out of date. */
  stale?: string;
  /** Not read yet, and the initial deadline passed (this says which): unavailable until it reads. */
  late?: string;
  lastError?: string;
  rv?: string;
  /** A named object: its own resourceVersion ('' when absent), to tell a re-read that changed it. */
  objectRv?: string;
  /** A named object whose watch is forbidden: read again every namedPollMs instead. */
  polling?: boolean;
  /** Definite refusals in a row while its objects are kept (see REFUSALS_TO_DROP). */
  refusals?: number;
  /** The last line logged and when (the same problem is logged at most every LOG_REPEAT_MS). */
  logged?: { text: string; at: number };
  /** The relist backoff (RELIST_BACKOFF): the next wait, and when the last one was asked for. */
  relist?: { nextMs: number; at: number };
}

const LOG_REPEAT_MS = 5 * 60_000;
const listId = (s: ListStream) => `list ${s.key} ${s.namespace ?? ''}`;
const namedId = (s: NamedStream) => `named ${s.key} ${s.namespace} ${s.name}`;
const numeric = (rv: string | undefined) => (rv !== undefined && /^\d{1,15}$/.test(rv) ? Number(rv) : undefined);

export class Reflector {
  readonly store = new ObjectStore();
  private conn: Conn | undefined;
  private connGen = 0;
  private reconnecting: Promise<void> | undefined;
  private streams = new Map<string, Stream>();
  private unavailable: Partial<Record<KindKey, string>> = {};
  private counters = new Map<KindKey, { restarts: number; relists: number; events: number }>();
  private stopped = false;
  private readonly stopper = new AbortController();
  private ready = false;
  private readyWaiters: (() => void)[] = [];
  private planned = false;
  private replanQueued = false;
  /** The resourceVersion most recently received on any stream (named streams watch from it). */
  private latestRv: string | undefined;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly wait: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Whether the server has answered any read (a fatal start is told apart from a slow one). */
  answered = false;
  /** What was read of the API server itself, last time each was read. */
  private serverInfo: ServerInfo = {};
  private serverPods: K8sObject[] = [];
  /** The server reads of the plan not done yet (coverage says "not read yet"). */
  private pending = new Set<ServerInputKey>();
  private serverReading: Promise<boolean> | undefined;
  private firstServerRead: Promise<unknown> = Promise.resolve();
  private lateServerResolve: () => void = () => {};
  private readonly lateServer = new Promise<void>((r) => (this.lateServerResolve = r));

  constructor(private readonly opts: ReflectorOptions) {
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
    this.wait = opts.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
  }

  /** Connect (a UserError when the kubeconfig or credentials cannot be used) and start the plan's streams. */
  async start(): Promise<void> {
    this.conn = await this.opts.connect();
    const plan = this.opts.server ?? {};
    for (const key of ['version', 'metrics', 'apiserverPods'] as const) if (plan[key]) this.pending.add(key);
    this.firstServerRead = this.refreshServer();
    this.replan();
  }

  /**
   * Resolves once every stream of the plan has read its objects (or was given up on by timeOut()),
   * and the first read of the server itself has ended (read, refused or failed).
   */
  async synced(): Promise<void> {
    if (!this.ready) await new Promise<void>((r) => this.readyWaiters.push(r));
    // Past the initial deadline (timeOut) the server reads not done stay pending: "not read yet".
    await Promise.race([this.firstServerRead, this.lateServer]);
  }

  /** What was read of the API server itself (each key absent until read, or when not asked for). */
  get server(): ServerInfo {
    return this.serverInfo;
  }

  /** The kube-apiserver pods read by their labels (ServerReadPlan.apiserverPods), as the pods of a snapshot get them. */
  get apiserverPods(): readonly K8sObject[] {
    return this.serverPods;
  }

  /** The server reads of the plan not done yet: never read, nor refused, nor failed. */
  get serverPending(): ServerInputKey[] {
    return [...this.pending];
  }

  /**
   * Read the server itself again (`which`: by default everything the plan asks for), one read at a
   * time (a call while one runs gets that one's answer). Resolves true when what is kept changed;
   * never rejects (a fatal error, the server unreachable, is logged and changes nothing).
   */
  refreshServer(which?: Partial<Record<ServerInputKey, boolean>>): Promise<boolean> {
    const plan = this.opts.server ?? {};
    const asked: ServerReadPlan = {
      ...(plan.version && (which?.version ?? true) ? { version: true } : {}),
      ...(plan.metrics && (which?.metrics ?? true) ? { metrics: plan.metrics } : {}),
      ...(plan.apiserverPods && (which?.apiserverPods ?? true) ? { apiserverPods: true } : {}),
    };
    if (this.serverReading || this.stopped || !this.conn || !Object.keys(asked).length)
      return this.serverReading ?? Promise.resolve(false);
    const conn = this.conn;
    const before = JSON.stringify([this.serverInfo, this.serverPods]);
    this.serverReading = readServer(conn, asked, { apiserverPods: true, keep: this.opts.keep })
      .then((r) => {
        if (this.stopped) return false;
        const next: ServerInfo = { ...this.serverInfo };
        // A 404 /version (no version document: not an API server's) records nothing, as in gather.
        if (asked.version) {
          delete next.version;
          this.pending.delete('version');
        }
        if (asked.apiserverPods) this.serverPods = r.apiserverPods ?? [];
        Object.assign(next, r.info);
        for (const key of Object.keys(r.info) as ServerInputKey[]) this.pending.delete(key);
        this.serverInfo = next;
        return JSON.stringify([this.serverInfo, this.serverPods]) !== before;
      })
      .catch((e: unknown) => {
        if (!this.stopped) this.opts.log(`reading the API server itself: ${printable(errorMessage(e), 300)}`);
        return false;
      })
      .finally(() => {
        this.serverReading = undefined;
      });
    return this.serverReading;
  }

  /** The initial deadline passed: streams that have not read yet count as unavailable (they keep trying). */
  timeOut(reason: string): void {
    this.lateServerResolve();
    for (const s of this.streams.values()) if (!s.listed && !s.failure) s.late = reason;
    for (const key of new Set([...this.streams.values()].filter((s) => s.late).map((s) => s.key)))
      this.opts.onChange({ type: 'status', key });
    this.checkReady();
  }

  stop(): void {
    this.stopped = true;
    this.stopper.abort();
    for (const s of this.streams.values()) s.abort.abort();
    this.conn?.agent.destroy();
  }

  status = (key: KindKey): KindStatus => {
    const mine = [...this.streams.values()].filter((s) => s.key === key).sort((a, b) => (a.id < b.id ? -1 : 1));
    const c = this.counters.get(key) ?? { restarts: 0, relists: 0, events: 0 };
    const late = mine.find((s) => !s.listed && s.late);
    const unavailable =
      this.unavailable[key] ??
      mine.find((s) => s.failure)?.failure ??
      (late ? `${late.late}${late.lastError ? `: ${late.lastError}` : ''}` : undefined);
    const stale = mine.find((s) => s.stale)?.stale;
    return {
      synced: mine.every((s) => s.listed || s.failure || s.late),
      ...(unavailable ? { unavailable } : {}),
      ...(stale && !unavailable ? { stale } : {}),
      objects: this.store.count(key),
      ...c,
    };
  };

  private count(key: KindKey, what: 'restarts' | 'relists' | 'events') {
    let c = this.counters.get(key);
    if (!c) this.counters.set(key, (c = { restarts: 0, relists: 0, events: 0 }));
    c[what]++;
  }

  // --- the plan ---------------------------------------------------------------------------

  private replan(): void {
    if (this.stopped) return;
    const plan = this.opts.plan(this.store, this.status);
    const before = this.unavailable;
    this.unavailable = plan.unavailable ?? {};
    const wanted = new Map<string, { key: KindKey; namespace?: string; name?: string }>();
    for (const l of plan.lists) wanted.set(listId(l), l);
    for (const n of plan.named) wanted.set(namedId(n), n);
    for (const [id, s] of this.streams) {
      if (wanted.has(id)) continue;
      // Left the plan (a namespace no longer a mesh's, a named object no longer named): its objects go.
      s.abort.abort();
      this.streams.delete(id);
      if (s.name !== undefined) this.store.remove(s.key, s.namespace!, s.name);
      else this.store.replace(s.key, s.namespace, []);
      this.opts.onChange({
        type: 'reset',
        key: s.key,
        ...(s.namespace !== undefined ? { namespace: s.namespace } : {}),
      });
    }
    for (const [id, w] of wanted) {
      if (this.streams.has(id)) continue;
      const s: Stream = { id, ...w, abort: new AbortController(), listed: false };
      this.streams.set(id, s);
      void this.run(s);
    }
    for (const key of new Set([...Object.keys(before), ...Object.keys(this.unavailable)] as KindKey[])) {
      if (before[key] !== this.unavailable[key]) this.opts.onChange({ type: 'status', key });
    }
  }

  private queueReplan(): void {
    if (this.replanQueued || this.stopped) return;
    this.replanQueued = true;
    setImmediate(() => {
      this.replanQueued = false;
      this.replan();
      this.checkReady();
    });
  }

  private checkReady(): void {
    if (this.ready || this.stopped) return;
    const settled = (s: Stream) => s.listed || !!s.failure || !!s.late;
    const planStreams = [...this.streams.values()].filter((s) => this.opts.planKinds.includes(s.key));
    if (!planStreams.every(settled)) return;
    // The first plan asked before the plan's own kinds were read: ask again now that they are.
    if (!this.planned) {
      this.planned = true;
      this.replan();
    }
    if (![...this.streams.values()].every(settled)) return;
    this.ready = true;
    for (const r of this.readyWaiters.splice(0)) r();
  }

  // --- one stream ---------------------------------------------------------------------------

  private what(s: Stream): string {
    if (s.name !== undefined) return `${KINDS[s.key].kind} ${s.namespace}/${s.name}`;
    return s.namespace !== undefined ? `${s.key} in namespace ${s.namespace}` : s.key;
  }

  private logOnce(s: Stream, text: string): void {
    const now = Date.now();
    if (s.logged?.text === text && now - s.logged.at < LOG_REPEAT_MS) return;
    s.logged = { text, at: now };
    this.opts.log(text);
  }

  /** How long to wait before this stream's next LIST (RELIST_BACKOFF). */
  private relistWaitMs(s: Stream): number {
    const now = this.now();
    const { initialMs, capMs, resetMs } = RELIST_BACKOFF;
    const next = s.relist && now - s.relist.at < resetMs ? s.relist.nextMs : initialMs;
    s.relist = { nextMs: Math.min(capMs, next * 2), at: now };
    return next * (1 + this.random());
  }

  private backoffMs(attempt: number, cap: number): number {
    return Math.min(cap, 1000 * 2 ** Math.min(attempt, 20)) * (0.5 + this.random() / 2);
  }

  private async reconnect(gen: number): Promise<void> {
    if (gen !== this.connGen) return; // another stream got new credentials already
    this.reconnecting ??= (async () => {
      try {
        this.conn = await this.opts.connect();
        this.connGen++;
        // A new connection (new credentials, perhaps after an upgrade): its version again.
        void this.refreshServer({ version: true, metrics: false, apiserverPods: false });
      } finally {
        this.reconnecting = undefined;
      }
    })();
    await this.reconnecting;
  }

  /** An object from an event or a GET, slimmed as `check` keeps it (a Secret reduced to its certificates). */
  private prepare(key: KindKey, raw: Record<string, any>): K8sObject {
    const info = KINDS[key];
    const obj = raw as K8sObject;
    if (obj.kind === undefined) obj.kind = info.kind;
    if (obj.apiVersion === undefined) obj.apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
    return key === 'secrets' ? sanitizeSecret(obj) : this.opts.keep.slim(key, obj);
  }

  private onEvent(s: Stream, e: WatchEvent): void {
    this.count(s.key, 'events');
    const rv: unknown = e.object.metadata?.resourceVersion;
    if (e.type === 'ERROR') {
      const code = e.object.code;
      const message = printable(typeof e.object.message === 'string' ? e.object.message : `code ${String(code)}`, 300);
      if (code === 410) throw new Expired(`expired: ${message}`);
      throw new WatchNetError(`the watch ended with an error: ${message}`);
    }
    if (typeof rv === 'string') this.latestRv = s.rv = rv;
    if (e.type === 'BOOKMARK') return;
    const md = e.object.metadata;
    const ns = isObj(md) && typeof md.namespace === 'string' ? md.namespace : '';
    const name = isObj(md) && typeof md.name === 'string' ? md.name : undefined;
    // Only what this stream asked for (a server sending more is not believed).
    if (
      name === undefined ||
      (s.namespace !== undefined && ns !== s.namespace) ||
      (s.name !== undefined && name !== s.name)
    )
      return;
    if (e.type === 'DELETED') {
      if (!this.store.remove(s.key, ns, name)) return;
    } else {
      const added = this.store.upsert(s.key, this.prepare(s.key, e.object));
      if (added && this.store.count(s.key) > this.opts.limits.maxObjects) {
        throw new KindFailure(`more than ${this.opts.limits.maxObjects} ${KINDS[s.key].plural} (--max-objects)`);
      }
    }
    this.opts.onChange({ type: 'object', key: s.key, namespace: ns, name });
  }

  /** LIST (or GET) the stream's objects into the store; returns the resourceVersion to watch from. */
  private async read(s: Stream, conn: Conn): Promise<string | undefined> {
    const info = KINDS[s.key];
    if (s.name !== undefined) {
      const reply = await get(conn, objectPath(info, s.namespace!, s.name));
      if (reply.status === 404) {
        this.store.remove(s.key, s.namespace!, s.name);
        s.objectRv = '';
        return this.latestRv;
      }
      if (reply.status < 200 || reply.status >= 300) throw statusFailure(conn, reply);
      if (!isObj(reply.json)) throw new KindFailure(`the API server sent a ${info.kind} that is not an object`);
      const obj = this.prepare(s.key, reply.json);
      if (obj.metadata?.namespace !== s.namespace || obj.metadata?.name !== s.name)
        throw new KindFailure(`the API server sent another ${info.kind} than the one asked for`);
      const own =
        typeof reply.json.metadata?.resourceVersion === 'string'
          ? (reply.json.metadata.resourceVersion as string)
          : undefined;
      this.store.upsert(s.key, obj);
      s.objectRv = own ?? '?';
      const [a, b] = [numeric(own), numeric(this.latestRv)];
      return a !== undefined && b !== undefined ? String(Math.max(a, b)) : (this.latestRv ?? own);
    }
    const meta: { resourceVersion?: string } = {};
    const items = await listKind(
      conn,
      info,
      s.namespace,
      this.opts.pageSize ?? DEFAULT_PAGE_SIZE,
      { objects: 0 },
      () => {},
      this.opts.keep,
      meta,
    );
    if (s.abort.signal.aborted) return undefined;
    this.store.replace(s.key, s.namespace, items);
    if (meta.resourceVersion) this.latestRv = meta.resourceVersion;
    return meta.resourceVersion;
  }

  private watchPath(s: Stream, rv: string): string {
    const info = KINDS[s.key];
    const min = this.opts.minWatchSeconds ?? 300;
    const q = new URLSearchParams({
      watch: '1',
      resourceVersion: rv,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(Math.floor(min * (1 + this.random()))),
    });
    if (s.name !== undefined) q.set('fieldSelector', `metadata.name=${s.name}`);
    return `${listPath(info, s.namespace)}?${q}`;
  }

  /** Why a read failed, and whether the answer is definite (see the top of this file). */
  private classify(e: unknown): { reason: string; definite: boolean } {
    if (e instanceof KindFailure) return { reason: e.reason, definite: DEFINITE.test(e.reason) };
    if (e instanceof WatchStatusError) {
      const label = e.status === 403 ? 'forbidden' : e.status === 404 ? 'not found' : `HTTP ${e.status}`;
      return { reason: `${label}: ${e.message}`, definite: e.status === 403 || e.status === 404 };
    }
    if (e instanceof WatchNetError || e instanceof UserError || e instanceof Expired || e instanceof OversizedEvent)
      return { reason: e.message, definite: false };
    return { reason: `internal error: ${errorMessage(e)}`, definite: false };
  }

  private async run(s: Stream): Promise<void> {
    const { signal } = s.abort;
    const scope = s.namespace !== undefined ? { namespace: s.namespace } : {};
    let attempt = 0;
    /** Watches in a row that the server ended within a second (events do not reset it). */
    let quickEnds = 0;
    while (!signal.aborted) {
      const gen = this.connGen;
      const conn = this.conn!;
      let watching = false;
      const started = this.now();
      try {
        if (s.polling) {
          await this.wait(this.opts.namedPollMs ?? 60_000, signal);
          const was = s.objectRv;
          await this.read(s, conn);
          if (signal.aborted) return;
          const changedStatus = !!(s.failure || s.stale);
          s.listed = true;
          s.failure = s.late = s.lastError = s.stale = s.refusals = undefined;
          if (s.objectRv !== was)
            this.opts.onChange({ type: 'object', key: s.key, namespace: s.namespace!, name: s.name! });
          if (changedStatus) this.opts.onChange({ type: 'status', key: s.key });
          attempt = 0;
          continue;
        }
        if (s.rv === undefined) {
          const first = !s.listed && !s.failure;
          const rv = await this.read(s, conn);
          if (signal.aborted) return;
          this.answered = true;
          if (!first) this.count(s.key, 'relists');
          const changedStatus = !!(s.failure || s.late || s.stale);
          if (s.stale || s.failure) this.logOnce(s, `${this.what(s)}: read again`);
          s.listed = true;
          s.failure = s.late = s.lastError = s.stale = s.refusals = undefined;
          s.rv = rv;
          this.opts.onChange({ type: 'reset', key: s.key, ...scope });
          if (changedStatus) this.opts.onChange({ type: 'status', key: s.key });
          if (this.opts.planKinds.includes(s.key)) this.queueReplan();
          this.checkReady();
          if (rv === undefined && KINDS[s.key].optionalApi) {
            // The cluster does not serve this API (listKind read its 404 as none): nothing to watch; look again now and then.
            await this.wait(this.opts.definiteBackoffCapMs ?? 300_000, signal);
            continue;
          }
          if (rv === undefined) throw new WatchNetError('the API server sent no resourceVersion to watch from');
        }
        watching = true;
        await watchRequest(conn, this.watchPath(s, s.rv!), {
          signal,
          maxMs: ((this.opts.minWatchSeconds ?? 300) * 2 + 60) * 1000,
          onEvent: (e) => {
            this.onEvent(s, e);
            attempt = 0;
            s.refusals = undefined;
            if (s.stale) {
              s.stale = undefined;
              this.logOnce(s, `${this.what(s)}: watching again`);
              this.opts.onChange({ type: 'status', key: s.key });
            }
            if (this.opts.planKinds.includes(s.key) && e.type !== 'BOOKMARK') this.queueReplan();
          },
        });
        if (signal.aborted) return;
        // The server ended the watch (its timeoutSeconds, 5-10 min): open it again from where it
        // was. One that ends within a second, with or without events, is not asked again at once
        // (a broken or hostile server must not make a busy loop of watches).
        if (this.now() - started < 1000) {
          await this.wait(this.backoffMs(quickEnds++, this.opts.backoffCapMs ?? 60_000), signal);
        } else quickEnds = 0;
        continue;
      } catch (e) {
        if (signal.aborted) return;
        if (watching && s.name !== undefined && e instanceof WatchStatusError && e.status === 403) {
          // Readable (the GET worked) but not watchable: read it again periodically instead.
          s.polling = true;
          this.logOnce(
            s,
            `${this.what(s)}: its watch is forbidden (${printable(e.message, 200)}): reading it again every ${Math.round((this.opts.namedPollMs ?? 60_000) / 1000)}s instead`,
          );
          continue;
        }
        if (watching) this.count(s.key, 'restarts');
        let cap = this.opts.backoffCapMs ?? 60_000;
        if (e instanceof OversizedEvent) {
          // An event no object can make: not believed, the objects kept (stale), read again by a
          // LIST after the relist backoff (a watch from the same resourceVersion would send it again).
          s.rv = undefined;
          if (s.listed && !s.stale) {
            s.stale = e.message;
            this.opts.onChange({ type: 'status', key: s.key });
          }
          const wait = this.relistWaitMs(s);
          this.logOnce(s, `${this.what(s)}: ${printable(e.message, 300)}`);
          try {
            await this.wait(wait, signal);
          } catch {
            return;
          }
          continue;
        }
        const expired =
          e instanceof Expired ||
          (e instanceof WatchStatusError && e.status === 410) ||
          (e instanceof KindFailure && /^expired:/.test(e.reason));
        if (expired) {
          // Too old a resourceVersion: list (or GET) again, after the relist backoff (RELIST_BACKOFF).
          s.rv = undefined;
          const wait = this.relistWaitMs(s);
          this.logOnce(s, `${this.what(s)}: ${printable(this.classify(e).reason, 300)}: reading it again`);
          try {
            await this.wait(wait, signal);
          } catch {
            return;
          }
          continue;
        }
        const classified = this.classify(e);
        let definite = classified.definite;
        let reason = classified.reason;
        if (
          definite &&
          s.listed &&
          /^(forbidden|not found):/.test(reason) &&
          (s.refusals = (s.refusals ?? 0) + 1) < REFUSALS_TO_DROP
        )
          definite = false;
        if (
          (e instanceof WatchStatusError && e.status === 401) ||
          (e instanceof UserError && /\(401 Unauthorized\)/.test(e.message))
        ) {
          reason = 'the API server rejected the credentials (401 Unauthorized)';
          try {
            await this.reconnect(gen);
          } catch (c) {
            reason += `, and new ones could not be had: ${printable(errorMessage(c))}`;
          }
        }
        if (definite) {
          cap = this.opts.definiteBackoffCapMs ?? 300_000;
          const had = s.listed;
          s.rv = undefined;
          s.listed = false;
          s.refusals = undefined;
          s.stale = undefined;
          const changed = s.failure !== reason;
          s.failure = reason;
          if (s.name !== undefined) this.store.remove(s.key, s.namespace!, s.name);
          else this.store.replace(s.key, s.namespace, []);
          if (had) this.opts.onChange({ type: 'reset', key: s.key, ...scope });
          if (changed) this.opts.onChange({ type: 'status', key: s.key });
          this.checkReady();
        } else if (s.listed) {
          const changed = !s.stale;
          s.stale = reason;
          if (changed) this.opts.onChange({ type: 'status', key: s.key });
        } else {
          const changed = s.late !== undefined && s.lastError !== reason;
          s.lastError = reason;
          if (changed) this.opts.onChange({ type: 'status', key: s.key });
        }
        const wait = this.backoffMs(attempt++, cap);
        this.logOnce(
          s,
          `${this.what(s)}: ${printable(reason, 300)} (retrying in ${Math.max(1, Math.round(wait / 1000))}s)`,
        );
        try {
          await this.wait(wait, signal);
        } catch {
          return;
        }
      }
    }
  }
}
