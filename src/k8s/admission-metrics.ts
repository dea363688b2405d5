/**
 * The API server's own admission metrics (GET /metrics): the few families that tell what happened
 * to the calls to a webhook, read from the Prometheus text line by line and kept as their series.
 *
 * Families (kubernetes/apiserver@9529108a5dff5a998bca0afd61510c9c0e34b2e3 (v0.33.0)
 * pkg/admission/metrics/metrics.go, namespace `apiserver`, subsystem `admission`):
 * - webhook_fail_open_count{name,type}: calls that failed and were let through because of
 *   failurePolicy Ignore (mutating/dispatcher.go: ObserveWebhookFailOpen(ctx, hook.Name, "admit")).
 *   First in 1.24 (commit dccc77dd "add failopen metric"; absent at v0.23.0, present at v0.24.0).
 * - webhook_rejection_count{name,type,operation,error_type,rejection_code}: calls that rejected
 *   the request; error_type calling_webhook_error (not reached, failurePolicy Fail),
 *   apiserver_internal_error, or no_error (the webhook answered allowed: false). Since 1.16.
 * - webhook_admission_duration_seconds{name,type,operation,rejected}: the latency histogram,
 *   buckets 0.005 0.025 0.1 0.5 1 2.5 10 25 (STABLE since 1.23, commit 193bf2c4).
 * - webhook_request_total{name,type,operation,code,rejected}: every call. Since 1.23.
 * The webhook series use type "admit" for mutating webhooks, "validating" for validating ones.
 * Every value is per API server instance and counts since that instance started
 * (process_start_time_seconds), never cluster-wide and never a rate.
 */
import { isObj } from '../util/objects.js';

const PREFIX = 'apiserver_admission_webhook_';
const FAIL_OPEN = `${PREFIX}fail_open_count`;
const REJECTION = `${PREFIX}rejection_count`;
const DURATION = `${PREFIX}admission_duration_seconds`;
const REQUESTS = `${PREFIX}request_total`;
const START = 'process_start_time_seconds';

/** The families kept, with the suffixes of their series. */
const FAMILIES: Record<string, readonly string[]> = {
  [FAIL_OPEN]: [''],
  [REJECTION]: [''],
  [REQUESTS]: [''],
  [DURATION]: ['_bucket', '_count', '_sum'],
  [START]: [''],
};
const SERIES = new Map<string, string>(
  Object.entries(FAMILIES).flatMap(([f, sfx]) => sfx.map((s) => [f + s, f] as const)),
);

/** The labels kept of a series: what the checks group by. Others are dropped. */
const LABELS = new Set(['name', 'type', 'operation', 'rejected', 'error_type', 'rejection_code', 'code', 'le']);
/** Most series kept of one read; most characters of a label value (a webhook name is a DNS name, at most 253). */
export const MAX_SERIES = 2000;
const MAX_LABEL = 256;

/** One series: its name (e.g. ..._bucket), its kept labels, its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** What a snapshot keeps of /metrics: the relevant series only. */
export interface AdmissionMetrics {
  /** When the instance that answered started (process_start_time_seconds, ISO time). */
  startTime?: string;
  /** The families of FAMILIES the server exports (TYPE lines), so that "no series" reads as "no calls", not "not exported". */
  families: string[];
  samples: Sample[];
  /** More series matched than MAX_SERIES: the rest were not kept. */
  truncated?: boolean;
}

/** A label value's escapes (\\, \", \n) undone; undefined at the closing quote's absence. */
function readLabels(text: string, from: number): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = Object.create(null);
  let i = from;
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i++;
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0 || text[eq + 1] !== '"') return undefined;
    const key = text.slice(i, eq).trim();
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const n = text[++j];
        value += n === 'n' ? '\n' : (n ?? '');
      } else value += text[j];
    }
    if (j >= text.length) return undefined;
    if (LABELS.has(key)) {
      if (value.length > MAX_LABEL) return undefined; // no webhook's: not kept
      labels[key] = value;
    }
    i = j + 1;
  }
}

/** A sample value as Prometheus writes it (+Inf, -Inf, NaN, floats). */
function readValue(text: string): number | undefined {
  const v = text.trim().split(/\s+/)[0] ?? '';
  if (v === '+Inf' || v === 'Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  const n = Number(v);
  return v !== '' && !Number.isNaN(n) ? n : undefined;
}

/**
 * Reads /metrics text a line at a time (the caller streams the body: a large cluster's /metrics
 * is tens of MiB) and keeps only the families above, only `type="admit"` webhook series (mutating
 * webhooks: the injectors), only those `keepWebhook` accepts, at most MAX_SERIES of them.
 */
export class MetricsReader {
  private readonly samples: Sample[] = [];
  private readonly families = new Set<string>();
  private startTime?: number;
  private truncated = false;

  constructor(private readonly keepWebhook: (name: string) => boolean = () => true) {}

  line(line: string): void {
    if (line.startsWith('# TYPE ')) {
      const family = line.slice(7).split(' ')[0]!;
      if (FAMILIES[family] && family !== START) this.families.add(family);
      return;
    }
    if (!line.startsWith(PREFIX) && !line.startsWith(START)) return;
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    const nameEnd = brace >= 0 && (space < 0 || brace < space) ? brace : space;
    if (nameEnd < 0) return;
    const name = line.slice(0, nameEnd);
    const family = SERIES.get(name);
    if (!family) return;
    let labels: Record<string, string> = Object.create(null);
    let rest = nameEnd;
    if (line[nameEnd] === '{') {
      const read = readLabels(line, nameEnd + 1);
      if (!read) return;
      ({ labels, end: rest } = read);
    }
    const value = readValue(line.slice(rest));
    if (value === undefined || !Number.isFinite(value)) return; // counts are finite; JSON has no Infinity
    if (family === START) {
      if (Number.isFinite(value) && value > 0) this.startTime = value;
      return;
    }
    if (labels.type !== 'admit' || !labels.name || !this.keepWebhook(labels.name)) return;
    if (this.samples.length >= MAX_SERIES) {
      this.truncated = true;
      return;
    }
    this.samples.push({ name, labels: { ...labels }, value });
  }

  result(): AdmissionMetrics {
    return {
      ...(this.startTime !== undefined ? { startTime: new Date(Math.round(this.startTime * 1000)).toISOString() } : {}),
      families: [...this.families].sort(),
      samples: this.samples,
      ...(this.truncated ? { truncated: true } : {}),
    };
  }
}

/** The kept metrics of a saved snapshot, checked as untrusted input (only kept families, labels and bounds). */
export function metricsFromJson(v: unknown): AdmissionMetrics | undefined {
  if (!isObj(v) || !Array.isArray(v.samples)) return undefined;
  const samples: Sample[] = [];
  for (const s of v.samples.slice(0, MAX_SERIES)) {
    if (!isObj(s) || typeof s.name !== 'string' || !SERIES.has(s.name) || s.name === START || !isObj(s.labels))
      continue;
    const value = typeof s.value === 'number' && Number.isFinite(s.value) ? s.value : undefined;
    if (value === undefined) continue;
    const labels: Record<string, string> = {};
    for (const [k, l] of Object.entries(s.labels))
      if (LABELS.has(k) && typeof l === 'string' && l.length <= MAX_LABEL) labels[k] = l;
    if (labels.type !== 'admit' || !labels.name) continue;
    samples.push({ name: s.name, labels, value });
  }
  const start =
    typeof v.startTime === 'string' && !Number.isNaN(Date.parse(v.startTime))
      ? new Date(v.startTime).toISOString()
      : undefined;
  return {
    ...(start ? { startTime: start } : {}),
    families: Array.isArray(v.families)
      ? v.families.filter((f): f is string => typeof f === 'string' && !!FAMILIES[f] && f !== START).sort()
      : [],
    samples,
    ...(v.truncated === true || v.samples.length > MAX_SERIES ? { truncated: true } : {}),
  };
}

const of = (m: AdmissionMetrics, series: string, webhook: string) =>
  m.samples.filter((s) => s.name === series && s.labels.name === webhook);
const total = (samples: Sample[]) => samples.reduce((n, s) => n + s.value, 0);

/** Calls to a mutating webhook that failed open (undefined: the server does not export the family, before 1.24). */
export function failOpenCount(m: AdmissionMetrics, webhook: string): number | undefined {
  return m.families.includes(FAIL_OPEN) ? total(of(m, FAIL_OPEN, webhook)) : undefined;
}

/** Calls to a mutating webhook that rejected the request, by error_type (and the HTTP codes seen). */
export function rejections(
  m: AdmissionMetrics,
  webhook: string,
): { errorType: string; count: number; codes: string[] }[] {
  const by = new Map<string, { count: number; codes: Set<string> }>();
  for (const s of of(m, REJECTION, webhook)) {
    if (!(s.value > 0)) continue;
    const t = s.labels.error_type ?? '';
    const e = by.get(t) ?? { count: 0, codes: new Set<string>() };
    e.count += s.value;
    if (s.labels.rejection_code && s.labels.rejection_code !== '0') e.codes.add(s.labels.rejection_code);
    by.set(t, e);
  }
  return [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([errorType, e]) => ({ errorType, count: e.count, codes: [...e.codes].sort() }));
}

/** Every call to a mutating webhook: request_total, else the latency histogram's count. */
export function callCount(m: AdmissionMetrics, webhook: string): number | undefined {
  if (m.families.includes(REQUESTS)) return total(of(m, REQUESTS, webhook));
  if (m.families.includes(DURATION)) return total(of(m, `${DURATION}_count`, webhook));
  return undefined;
}

/** The latency histogram of a mutating webhook, summed over operations and outcomes: cumulative counts by upper bound. */
export function latency(
  m: AdmissionMetrics,
  webhook: string,
): { buckets: { le: number; count: number }[]; count: number } | undefined {
  const byLe = new Map<number, number>();
  for (const s of of(m, `${DURATION}_bucket`, webhook)) {
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    if (Number.isNaN(le)) continue;
    byLe.set(le, (byLe.get(le) ?? 0) + s.value);
  }
  if (!byLe.size) return undefined;
  const buckets = [...byLe.entries()].sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count }));
  const count = byLe.get(Infinity) ?? total(of(m, `${DURATION}_count`, webhook));
  return { buckets, count };
}
