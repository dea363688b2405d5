/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: metric families with
 * HELP and TYPE, label values escaped, histograms as _bucket/_sum/_count. The format: label values
 * escape backslash, double quote and line feed (`\\`, `\"`, `\n`); HELP text escapes backslash and
 * line feed (prometheus/docs content/docs/instrumenting/exposition_formats.md, "Text format
 * details"). Values from the cluster are made printable first (control characters shown as
 * `\x1b`, as in every other output) and bounded in length, so a hostile name can neither break a
 * line nor drive a terminal reading /metrics.
 */
import { printable } from '../util/errors.js';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type MetricType = 'gauge' | 'counter' | 'histogram';

export interface Sample {
  /** Label names are meshdoctor's own; values may come from the cluster (see clusterValue). */
  labels?: Readonly<Record<string, string>>;
  value: number;
  /** Appended to the family name (a histogram's _bucket, _sum, _count). */
  suffix?: string;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

/** A label value escaped as the format requires: backslash, double quote, line feed. */
export function escapeLabelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

/** The longest label value taken from the cluster (Kubernetes names are at most 253 characters). */
export const MAX_LABEL_VALUE = 253;

/** A value from the cluster as a label value: printable (control characters as escapes) and bounded. */
export const clusterValue = (v: string): string => printable(v, MAX_LABEL_VALUE);

/** A sample value as Go's ParseFloat (Prometheus) reads it. */
function formatValue(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

const escapeHelp = (s: string) => s.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));

/** The families as exposition text, in the order given. */
export function render(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  for (const f of families) {
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) {
      const labels =
        s.labels && Object.keys(s.labels).length
          ? `{${Object.entries(s.labels)
              .map(([k, v]) => `${k}="${escapeLabelValue(v)}"`)
              .join(',')}}`
          : '';
      out.push(`${f.name}${s.suffix ?? ''}${labels} ${formatValue(s.value)}`);
    }
  }
  return out.join('\n') + '\n';
}

/** A histogram with fixed buckets (cumulative counts, as the format wants them). */
export class Histogram {
  private counts: number[];
  private sum = 0;
  private count = 0;

  constructor(readonly buckets: readonly number[]) {
    this.counts = buckets.map(() => 0);
  }

  observe(v: number): void {
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]!) this.counts[i]!++;
    this.sum += v;
    this.count++;
  }

  samples(labels: Readonly<Record<string, string>> = {}): Sample[] {
    return [
      ...this.buckets.map((le, i) => ({
        suffix: '_bucket',
        labels: { ...labels, le: formatValue(le) },
        value: this.counts[i]!,
      })),
      { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: this.count },
      { suffix: '_sum', labels, value: this.sum },
      { suffix: '_count', labels, value: this.count },
    ];
  }
}

/**
 * At most `max` distinct label sets, in the order given (the most important first): samples with
 * the same labels are one series; the number left out is returned for the overflow gauge.
 */
export function capSeries(samples: Iterable<Sample>, max: number): { samples: Sample[]; dropped: number } {
  const seen = new Set<string>();
  const kept: Sample[] = [];
  let dropped = 0;
  for (const s of samples) {
    const id = JSON.stringify(s.labels ?? {});
    if (seen.has(id)) continue;
    seen.add(id);
    if (kept.length < max) kept.push(s);
    else dropped++;
  }
  return { samples: kept, dropped };
}
