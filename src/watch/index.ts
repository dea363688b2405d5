/**
 * `meshdoctor watch`: the checks of `check`, kept current. The kinds the selected checks read are
 * kept in sync by LIST + WATCH (cluster/reflector.ts), changes are evaluated as they come
 * (schedule.ts: one namespace after a change in it, everything after a control-plane change), and
 * the result is served on --listen: /metrics (metrics.ts, docs/metrics.md), /healthz, /readyz
 * (200 once the first full sync is evaluated), /findings (`check -o json`'s report). stdout gets
 * one NDJSON line per finding opened or resolved and nothing else; the log goes to stderr.
 *
 * Memory: the objects of the plan, slimmed as `check` keeps them (bounded by --max-objects per
 * kind and --max-bytes per response or event), plus one evaluation's Model at a time.
 */
import { KEEPER } from '../mesh/keep.js';
import { setMaxListeners } from 'node:events';
import { connect } from '../cluster/http.js';
import { KINDS, type KindKey } from '../k8s/kinds.js';
import { resolveKubeContext, type Impersonation } from '../cluster/kubeconfig.js';
import { Reflector, type Change } from '../cluster/reflector.js';
import { UserError, errorMessage, printable } from '../util/errors.js';
import type { Limits } from '../util/limits.js';
import { json } from '../report/json.js';
import { kindsFor, selectChecks, withoutSecrets, type MeshOption } from '../run/run.js';
import { openSession } from '../run/session.js';
import { SECRETS_DECLINED } from '../run/coverage.js';
import type { SuppressRule } from '../run/suppress.js';
import type { Scope, SnapshotSource } from '../util/types.js';
import type { Finding } from '../run/result.js';
import { Evaluator, type Result } from './evaluate.js';
import { CONTENT_TYPE, Histogram, render } from './exposition.js';
import { DURATION_BUCKETS, watchMetrics, type EvaluationMode, type MetricSource } from './metrics.js';
import { WatchPlan } from './plan.js';
import { DEFAULT_TIMINGS, Scheduler, type ScheduleTimings } from './schedule.js';
import { DEFAULT_ACCEPT_HOSTS, parseAcceptHosts, parseListen, serve, type Answer } from './server.js';
import { ndjsonLine, transitions } from './transitions.js';

export interface WatchOptions {
  kubeconfig?: string;
  context?: string;
  /** --as, --as-group, --as-uid: whom every LIST and WATCH acts as. */
  impersonate?: Impersonation;
  namespace?: string;
  allNamespaces: boolean;
  /** HOST:PORT to serve on. */
  listen: string;
  /** --accept-hosts: comma-separated regular expressions the Host header (less its port) must match (default: loopback names). */
  acceptHosts?: string;
  /** --no-findings-endpoint: false leaves /findings out (metrics and probes only). */
  findingsEndpoint?: boolean;
  /** --no-secrets (false): no Secret is read or watched; coverage says so. */
  secrets?: boolean;
  only?: string[];
  skip?: string[];
  mesh: MeshOption;
  certExpiryWarningDays: number;
  suppress?: SuppressRule[];
  docsBase?: string;
  limits: Limits;
  maxSeries: number;
  version: string;
  /** For tests: evaluation timings, the server's watch timeout, how often unwatchable named objects are read. */
  timings?: Partial<ScheduleTimings>;
  minWatchSeconds?: number;
  namedPollMs?: number;
  /** More metrics (see MetricSource). */
  sources?: MetricSource[];
  /** Least time between two reads of /metrics (and of the kube-apiserver pods), on full evaluations (default 30 s). */
  serverRefreshMs?: number;
}

/** The least time between two reads of the server's /metrics: a large cluster's is tens of MiB. */
const SERVER_REFRESH_MS = 30_000;

interface WatchIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Ends the watch (SIGTERM, SIGINT). */
  signal: AbortSignal;
  /** Told the address once listening (tests ask for port 0). */
  onListening?: (address: string) => void;
  /** The clock of evaluations ("now" for the checks and the NDJSON lines). */
  now?: () => Date;
}

/** Kinds whose change may touch every namespace's findings: evaluated in full. */
const EVERYWHERE = new Set<KindKey>(['namespaces', 'mutatingwebhookconfigurations', 'configmaps', 'secrets']);
const PLAN_KINDS: KindKey[] = ['namespaces', 'mutatingwebhookconfigurations'];

const text = (status: number, body: string): Answer => ({ status, type: 'text/plain; charset=utf-8', body });
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );

/** Runs until io.signal aborts; throws a UserError when it cannot start (bad flags, kubeconfig, --listen, a cluster never read). */
export async function runWatch(o: WatchOptions, io: WatchIO): Promise<void> {
  const clock = io.now ?? (() => new Date());
  const log = (line: string) => io.stderr(`meshdoctor: ${line}\n`);
  // The session of check (src/run/session.ts): the same checks, read plan and options.
  const session = openSession({
    only: o.only,
    skip: o.skip,
    mesh: o.mesh,
    certExpiryWarningDays: o.certExpiryWarningDays,
    ...(o.suppress ? { suppress: o.suppress } : {}),
    ...(o.docsBase ? { docsBase: o.docsBase } : {}),
  });
  const kinds = o.secrets === false ? withoutSecrets([...session.plan.kinds]) : [...session.plan.kinds];
  const listen = parseListen(o.listen);
  const acceptHosts = parseAcceptHosts(o.acceptHosts ?? DEFAULT_ACCEPT_HOSTS);
  const withFindings = o.findingsEndpoint !== false;
  if (!Number.isInteger(o.maxSeries) || o.maxSeries < 1) throw new UserError('--max-series must be a positive integer');
  const kube = {
    kubeconfig: o.kubeconfig,
    context: o.context,
    ...(o.impersonate ? { impersonate: o.impersonate } : {}),
  };
  const ctx = await resolveKubeContext(kube, o.limits);
  const scope: Scope = o.allNamespaces
    ? { allNamespaces: true }
    : { allNamespaces: false, namespace: o.namespace ?? ctx.namespace };
  const plan = new WatchPlan(
    kinds,
    scope,
    session.plan.server,
    o.secrets === false ? { secrets: SECRETS_DECLINED } : {},
  );
  const evaluator = new Evaluator(session.checks, session.options);
  const stopper = new AbortController();
  setMaxListeners(Infinity, stopper.signal); // one listener per request in flight, as in gather

  let ready = false;
  /**
   * Kinds read at least once, learnt at evaluations (after the first sync: before it, a kind whose
   * streams are not even planned yet looks read): one of them unavailable now is failing
   * (evaluate.ts holds its checks' findings).
   */
  const everRead = new Set<KindKey>();
  const failing = (learn = false): Map<KindKey, string> => {
    const m = new Map<KindKey, string>();
    for (const k of kinds) {
      const why = reflector.status(k).unavailable;
      if (!why && learn) everRead.add(k);
      else if (why && everRead.has(k)) m.set(k, why);
    }
    return m;
  };
  let cp: Set<string> | undefined;
  let previous: readonly Finding[] = [];
  let report: string | undefined;
  const loggedErrors = new Set<string>();
  const metrics = {
    lastEvaluation: 0,
    lastFullEvaluation: 0,
    durations: { full: new Histogram(DURATION_BUCKETS), namespace: new Histogram(DURATION_BUCKETS) } as Record<
      EvaluationMode,
      Histogram
    >,
    transitions: { opened: 0, resolved: 0 },
    startTime: Math.floor(Date.now() / 1000 - process.uptime()),
  };

  let scheduler: Scheduler | undefined;
  const reflector: Reflector = new Reflector({
    connect: async () => {
      const conn = await connect(await resolveKubeContext(kube, o.limits), o.limits, stopper.signal);
      // Every watch holds a connection for minutes: the pool must not make lists wait for them
      // (lists stay bounded by gather's request slots).
      conn.agent.maxSockets = Infinity;
      return conn;
    },
    limits: o.limits,
    kinds,
    keep: KEEPER,
    planKinds: PLAN_KINDS,
    plan: plan.readPlan,
    server: plan.serverPlan(),
    onChange: (c) => onChange(c),
    log,
    ...(o.minWatchSeconds ? { minWatchSeconds: o.minWatchSeconds } : {}),
    ...(o.namedPollMs ? { namedPollMs: o.namedPollMs } : {}),
  });
  const controlPlane = () => (cp ??= plan.controlPlane(reflector.store));
  const source = (now: Date): SnapshotSource => ({
    type: 'live',
    context: ctx.contextName,
    server: ctx.server,
    readAt: now.toISOString(),
  });

  function onChange(c: Change): void {
    if (PLAN_KINDS.includes(c.key)) cp = undefined;
    if (!ready || !scheduler) return;
    if (c.type === 'object' && c.key === 'events' && controlPlane().has(c.namespace)) {
      scheduler.eventuallyEverything();
    } else if (
      c.type !== 'object' ||
      EVERYWHERE.has(c.key) ||
      !scope.allNamespaces ||
      c.namespace === '' ||
      controlPlane().has(c.namespace)
    ) {
      scheduler.everythingChanged();
    } else {
      scheduler.namespaceChanged(c.namespace);
    }
  }

  /** After an evaluation: the NDJSON lines, the metrics, the cached report. */
  function evaluated(now: Date, mode: EvaluationMode, ms: number): void {
    const result = evaluator.result!;
    metrics.durations[mode].observe(ms / 1000);
    metrics.lastEvaluation = now.getTime() / 1000;
    if (mode === 'full') metrics.lastFullEvaluation = metrics.lastEvaluation;
    const t = transitions(previous, result.findings);
    for (const f of t.resolved) io.stdout(ndjsonLine('resolved', f, now));
    for (const f of t.opened) io.stdout(ndjsonLine('opened', f, now));
    metrics.transitions.opened += t.opened.length;
    metrics.transitions.resolved += t.resolved.length;
    previous = result.findings;
    report = undefined;
    for (const e of result.errors) {
      if (loggedErrors.has(e) || loggedErrors.size > 1000) continue;
      loggedErrors.add(e);
      log(printable(e));
    }
  }

  const serverReads = () => ({
    info: reflector.server,
    apiserverPods: reflector.apiserverPods,
    pending: reflector.serverPending,
  });
  /**
   * After a full evaluation, /metrics (and the kube-apiserver pods) read again, at most every
   * serverRefreshMs, one read at a time: what changed is evaluated in full soon after (the
   * webhooks' series follow pod creations, which are evaluated anyway: no loop of evaluations).
   */
  let serverReadAt = performance.now();
  const refreshServer = () => {
    if (performance.now() - serverReadAt < (o.serverRefreshMs ?? SERVER_REFRESH_MS)) return;
    serverReadAt = performance.now();
    void reflector.refreshServer({ version: false }).then((changed) => {
      serverReadAt = performance.now();
      if (changed) scheduler?.eventuallyEverything();
    });
  };

  function full(): number {
    const t0 = performance.now();
    const now = clock();
    evaluator.full(
      plan.snapshot(reflector.store, reflector.status, source(now), undefined, serverReads()),
      now,
      controlPlane(),
      failing(true),
    );
    const ms = performance.now() - t0;
    evaluated(now, 'full', ms);
    refreshServer();
    return ms;
  }

  function namespace(ns: string): number | false {
    const t0 = performance.now();
    const now = clock();
    if (
      !evaluator.namespace(
        ns,
        plan.snapshot(reflector.store, reflector.status, source(now), ns, serverReads()),
        now,
        controlPlane(),
        failing(true),
      )
    )
      return false;
    const ms = performance.now() - t0;
    evaluated(now, 'namespace', ms);
    return ms;
  }

  /**
   * After the first evaluation, one that fails (a bug: each check's own errors are caught by
   * runChecks) is logged and the last result stays served: meshdoctor_last_evaluation_timestamp_seconds
   * stops moving, which the MeshdoctorNotEvaluating alert watches, rather than the process dying.
   */
  const guarded = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (e) {
      const line = `internal error while evaluating: ${printable(errorMessage(e))}`;
      if (!loggedErrors.has(line) && loggedErrors.size <= 1000) {
        loggedErrors.add(line);
        log(line);
      }
      return fallback;
    }
  };

  const notReady = () => {
    const done = kinds.filter((k) => reflector.status(k).synced).length;
    return `not ready: reading the cluster (${done} of ${kinds.length} kinds read)\n`;
  };
  const problems = () => {
    const f = failing();
    return kinds.flatMap((k) => {
      const s = reflector.status(k);
      return f.has(k)
        ? [`read failing: ${k}: ${f.get(k)} (its checks' last findings are kept, marked stale)`]
        : s.unavailable
          ? [`unavailable: ${k}: ${s.unavailable}`]
          : s.stale
            ? [`stale: ${k}: ${s.stale}`]
            : [];
    });
  };
  const paths = withFindings ? '/metrics /healthz /readyz /findings' : '/metrics /healthz /readyz';
  const routes: Record<string, () => Answer> = {
    '/': () => text(200, `meshdoctor watch: ${paths}\n`),
    '/metrics': () => ({
      status: 200,
      type: CONTENT_TYPE,
      body: render(
        watchMetrics({
          version: o.version,
          ready,
          result: evaluator.result,
          states: evaluator.workloadStates,
          kinds,
          status: reflector.status,
          failing: failing(),
          maxSeries: o.maxSeries,
          ...metrics,
          ...(o.sources ? { sources: o.sources } : {}),
        }),
      ),
    }),
    '/healthz': () => text(200, 'ok\n'),
    // Not ready while a kind read before fails: what is served is not current (the findings held).
    '/readyz': () =>
      !ready
        ? text(503, [notReady().trimEnd(), ...problems()].join('\n') + '\n')
        : failing().size
          ? text(503, ['not ready: reads failing', ...problems()].join('\n') + '\n')
          : text(200, ['ok', ...problems()].join('\n') + '\n'),
  };
  if (withFindings)
    routes['/findings'] = () =>
      ready && evaluator.result
        ? {
            status: 200,
            type: 'application/json',
            body: (report ??= json(evaluator.result as Result, { version: o.version, color: false })),
          }
        : text(503, notReady());
  const server = await serve(listen, routes, { acceptHosts });
  const where = scope.allNamespaces ? 'every namespace' : `namespace ${scope.namespace}`;
  log(
    `watching ${where} of context "${printable(ctx.contextName)}" (${printable(ctx.server)}); serving ${paths.replaceAll(' ', ', ')} on http://${server.address}`,
  );
  io.onListening?.(server.address);

  let deadline: NodeJS.Timeout | undefined;
  try {
    await reflector.start();
    const t0 = performance.now();
    deadline = setTimeout(
      () => reflector.timeOut(`not read within the --timeout of ${o.limits.deadlineMs / 1000}s`),
      Math.min(o.limits.deadlineMs, 2 ** 31 - 1),
    );
    await Promise.race([reflector.synced(), aborted(io.signal)]);
    clearTimeout(deadline);
    if (io.signal.aborted) return;
    if (!reflector.answered) {
      const why = kinds.map((k) => reflector.status(k).unavailable).find(Boolean);
      throw new UserError(`cannot read the cluster at ${ctx.server}${why ? `: ${why}` : ''}`);
    }
    if (
      scope.namespace &&
      reflector.store.count('namespaces') > 0 &&
      !reflector.store.get('namespaces', '', scope.namespace)
    ) {
      throw new UserError(`namespace "${scope.namespace}" not found`);
    }
    const readSeconds = (performance.now() - t0) / 1000;
    serverReadAt = performance.now();
    const ms = full();
    ready = true;
    const r = evaluator.result!;
    const objects = kinds.reduce((n, k) => n + reflector.status(k).objects, 0);
    log(
      `ready: ${objects} objects of ${kinds.length} kinds read in ${readSeconds.toFixed(1)}s, evaluated in ${(ms / 1000).toFixed(2)}s: ` +
        `${r.summary.error} errors, ${r.summary.warning} warnings, ${r.summary.info} info${r.coverage.complete ? '' : ` (incomplete: ${r.skipped.length} checks could not run)`}`,
    );
    for (const p of problems()) log(p);
    scheduler = new Scheduler(
      {
        now: Date.now,
        setTimer: (f, ms) => setTimeout(f, ms),
        clearTimer: (t) => clearTimeout(t as NodeJS.Timeout),
        full: () => guarded(full, 0),
        namespace: (ns) => guarded(() => namespace(ns), 0),
      },
      { ...DEFAULT_TIMINGS, ...o.timings },
    );
    scheduler.started(ms);
    await aborted(io.signal);
  } finally {
    clearTimeout(deadline);
    scheduler?.stop();
    reflector.stop();
    stopper.abort();
    await server.close();
  }
}

/** The kinds `watch` keeps in sync for these checks (for the docs and the RBAC test). */
export const watchedKinds = (only?: string[], skip?: string[]): { listed: KindKey[]; named: KindKey[] } => {
  const kinds = kindsFor(selectChecks(only, skip));
  return { listed: kinds.filter((k) => !KINDS[k].byName), named: kinds.filter((k) => KINDS[k].byName) };
};
