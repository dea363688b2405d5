/**
 * `watch`'s metrics: the names and labels are a contract (docs/metrics.md), changed only with a
 * note there. Label values from the cluster go through clusterValue (printable, bounded); the
 * per-finding and per-namespace families are capped at --max-series series each, the rest counted
 * in meshdoctor_series_overflow, so that a broken or hostile cluster cannot explode the series a
 * Prometheus stores.
 */
import type { KindKey } from '../k8s/kinds.js';
import type { KindStatus } from '../cluster/reflector.js';
import type { Severity } from '../util/types.js';
import { SEVERITIES } from '../util/types.js';
import type { StateCount } from '../facts/workload-states.js';
import type { Result } from './evaluate.js';
import { capSeries, clusterValue, Histogram, type MetricFamily, type Sample } from './exposition.js';

/** Evaluation times from 5 ms to a minute (a full evaluation of 50k pods takes about 1-2 s). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
export type EvaluationMode = 'full' | 'namespace';

/**
 * More metrics from elsewhere, rendered after meshdoctor's own: the extension point for the API
 * server's admission metrics about the meshes' webhooks (fail-open and rejection counts), which
 * need their own read of the API server's /metrics and are not built yet (docs/metrics.md).
 */
export interface MetricSource {
  collect(): MetricFamily[];
}

interface WatchMetricsState {
  version: string;
  ready: boolean;
  result: Result | undefined;
  states: readonly StateCount[];
  kinds: readonly KindKey[];
  status: (key: KindKey) => KindStatus;
  /** Kinds read once and unreadable now (their checks' findings held, marked stale). */
  failing: ReadonlyMap<KindKey, string>;
  /** Unix seconds of the last evaluation of any kind, and of the last full one (0: none yet). */
  lastEvaluation: number;
  lastFullEvaluation: number;
  durations: Record<EvaluationMode, Histogram>;
  /** NDJSON lines written: findings opened and resolved. */
  transitions: { opened: number; resolved: number };
  maxSeries: number;
  startTime: number;
  sources?: readonly MetricSource[];
}

const gauge = (name: string, help: string, samples: Sample[]): MetricFamily => ({ name, help, type: 'gauge', samples });
const counter = (name: string, help: string, samples: Sample[]): MetricFamily => ({
  name,
  help,
  type: 'counter',
  samples,
});

export function watchMetrics(s: WatchMetricsState): MetricFamily[] {
  const findings = s.result?.findings ?? [];
  const overflow: Sample[] = [];
  const capped = (metric: string, samples: Iterable<Sample>) => {
    const r = capSeries(samples, s.maxSeries);
    overflow.push({ labels: { metric }, value: r.dropped });
    return r.samples;
  };
  // Ranked order: the most severe findings keep their series when there are too many.
  const findingSamples = capped(
    'meshdoctor_finding',
    findings.map((f) => ({
      labels: {
        code: f.code,
        check: f.id,
        severity: f.severity,
        mesh: f.mesh,
        namespace: clusterValue(f.resource.namespace ?? ''),
        kind: clusterValue(f.resource.kind),
        name: clusterValue(f.resource.name),
      },
      value: 1,
    })),
  );
  const stateSamples = capped(
    'meshdoctor_workloads',
    s.states.map((x) => ({
      labels: { namespace: clusterValue(x.namespace), mesh: x.mesh, state: x.state },
      value: x.workloads,
    })),
  );
  const count = (sev: Severity) => findings.filter((f) => f.severity === sev).length;
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  const families: MetricFamily[] = [
    gauge('meshdoctor_build_info', 'meshdoctor version; always 1.', [{ labels: { version: s.version }, value: 1 }]),
    gauge('meshdoctor_ready', '1 once the first full sync of the cluster has been evaluated.', [
      { value: s.ready ? 1 : 0 },
    ]),
    gauge(
      'meshdoctor_finding',
      'One series per open finding (value 1), as `meshdoctor check` reports it; at most --max-series.',
      findingSamples,
    ),
    gauge(
      'meshdoctor_findings',
      'Open findings by severity (not capped).',
      SEVERITIES.map((sev) => ({ labels: { severity: sev }, value: count(sev) })),
    ),
    gauge(
      'meshdoctor_workloads',
      'App workloads by namespace, mesh and state (meshed, unmeshed, opted_out, not_asked, no_pods).',
      stateSamples,
    ),
    gauge('meshdoctor_series_overflow', 'Series left out of a family because it reached --max-series.', overflow),
    gauge('meshdoctor_coverage_complete', '1 when every selected check ran (no kind unreadable), else 0.', [
      { value: s.result?.coverage.complete ? 1 : 0 },
    ]),
    gauge(
      'meshdoctor_kind_readable',
      '1 when the kind is read (its objects kept in sync), 0 when it cannot be read (see the log and /findings coverage).',
      s.kinds.map((k) => ({ labels: { kind: k }, value: s.status(k).unavailable ? 0 : 1 })),
    ),
    gauge(
      'meshdoctor_kind_stale',
      '1 while the kind may be out of date: its watch or list is failing and retried (its last objects are kept).',
      s.kinds.map((k) => ({ labels: { kind: k }, value: s.status(k).stale ? 1 : 0 })),
    ),
    gauge(
      'meshdoctor_read_failing',
      '1 while a kind that was read cannot be read any more (e.g. 403 after a RoleBinding was removed): the findings of the checks that read it are the last ones seen, kept (not resolved), marked stale in /findings.',
      s.kinds.map((k) => ({ labels: { kind: k }, value: s.failing.has(k) ? 1 : 0 })),
    ),
    gauge('meshdoctor_findings_stale', 'Open findings kept from before a read started failing (not examined now).', [
      { value: findings.filter((f) => f.stale).length },
    ]),
    gauge(
      'meshdoctor_objects',
      'Objects kept in sync, by kind.',
      s.kinds.map((k) => ({ labels: { kind: k }, value: s.status(k).objects })),
    ),
    gauge(
      'meshdoctor_last_evaluation_timestamp_seconds',
      'When the findings were last evaluated (Unix seconds; 0 before the first evaluation).',
      [{ value: s.lastEvaluation }],
    ),
    gauge(
      'meshdoctor_last_full_evaluation_timestamp_seconds',
      'When every check last ran over the whole scope (Unix seconds; 0 before).',
      [{ value: s.lastFullEvaluation }],
    ),
    {
      name: 'meshdoctor_evaluation_duration_seconds',
      help: 'Time one evaluation took: full (every namespace) or namespace (one namespace after a change in it).',
      type: 'histogram',
      samples: (['full', 'namespace'] as const).flatMap((mode) => s.durations[mode].samples({ mode })),
    },
    counter(
      'meshdoctor_finding_transitions_total',
      'Findings opened and resolved (one NDJSON line each on stdout).',
      (['opened', 'resolved'] as const).map((t) => ({ labels: { transition: t }, value: s.transitions[t] })),
    ),
    counter(
      'meshdoctor_watch_restarts_total',
      'Watches opened again after an error or a 410 Gone (not after the API server ended one normally).',
      s.kinds.map((k) => ({ labels: { kind: k }, value: s.status(k).restarts })),
    ),
    counter(
      'meshdoctor_relists_total',
      'LISTs (GETs for named objects) after the first, by kind: after a 410 Gone or an error, never periodic.',
      s.kinds.map((k) => ({ labels: { kind: k }, value: s.status(k).relists })),
    ),
    counter(
      'meshdoctor_watch_events_total',
      'Watch events received (bookmarks included), by kind.',
      s.kinds.map((k) => ({ labels: { kind: k }, value: s.status(k).events })),
    ),
    gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', [{ value: mem.rss }]),
    gauge('nodejs_heap_size_used_bytes', 'V8 heap used, in bytes.', [{ value: mem.heapUsed }]),
    counter('process_cpu_seconds_total', 'User and system CPU time spent, in seconds.', [
      { value: (cpu.user + cpu.system) / 1e6 },
    ]),
    gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.', [
      { value: s.startTime },
    ]),
  ];
  for (const src of s.sources ?? []) families.push(...src.collect());
  return families;
}
