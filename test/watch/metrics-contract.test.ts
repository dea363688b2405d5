/**
 * The metrics are a contract (docs/metrics.md): every family watch exports is documented with its
 * type and labels, and every documented one is exported. What /metrics exposes is also compared
 * with schema/metrics.json, and that with the last release's copy (schema/released/metrics.vN.json):
 * a family removed or renamed, or its type or label set changed, fails without a version increment
 * (docs/cli.md "Compatibility"); a new family is added to the contract file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIND_KEYS } from '../../src/k8s/kinds.js';
import type { Result } from '../../src/watch/evaluate.js';
import { Histogram, render } from '../../src/watch/exposition.js';
import { DURATION_BUCKETS, watchMetrics } from '../../src/watch/metrics.js';
import {
  metricBreaks,
  releasedVersions,
  versionProblem,
  type FamilyContract,
  type MetricsContract,
} from '../helpers/contract.js';
import { cluster, findings } from '../helpers/fixtures.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'metrics.md'), 'utf8');
const rows = new Map(
  [...doc.matchAll(/^\| `([a-z_]+)` \| (gauge|counter|histogram) \|([^|]*)\|/gm)].map((m) => [
    m[1]!,
    { type: m[2]!, labels: [...m[3]!.matchAll(/`([a-z_]+)`/g)].map((x) => x[1]!) },
  ]),
);

describe('docs/metrics.md', () => {
  const families = watchMetrics({
    version: '0.1.0',
    ready: true,
    result: undefined,
    states: [{ namespace: 'shop', mesh: 'linkerd', state: 'meshed', workloads: 1 }],
    kinds: [...KIND_KEYS],
    status: () => ({ synced: true, objects: 1, restarts: 0, relists: 0, events: 0 }),
    failing: new Map(),
    lastEvaluation: 1,
    lastFullEvaluation: 1,
    durations: { full: new Histogram(DURATION_BUCKETS), namespace: new Histogram(DURATION_BUCKETS) },
    transitions: { opened: 0, resolved: 0 },
    maxSeries: 10,
    startTime: 0,
  });
  it('documents every family with its type and labels, and nothing that is not exported', () => {
    expect(rows.size).toBeGreaterThan(15);
    expect([...rows.keys()].sort()).toEqual(families.map((f) => f.name).sort());
    for (const f of families) {
      const row = rows.get(f.name)!;
      expect(row.type, f.name).toBe(f.type);
      const labels = new Set(f.samples.flatMap((s) => Object.keys(s.labels ?? {})).filter((l) => l !== 'le'));
      if (f.samples.length) expect([...labels].sort(), f.name).toEqual([...row.labels].sort());
    }
  });
});

/** The families of exposition text: `# TYPE` lines, and the label names of their samples. */
function exposed(text: string): Record<string, FamilyContract> {
  const out: Record<string, FamilyContract> = {};
  for (const line of text.split('\n')) {
    const t = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/.exec(line);
    if (t) out[t[1]!] = { type: t[2]!, labels: [] };
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!m) continue;
    const family = out[m[1]!] ? m[1]! : m[1]!.replace(/_(bucket|sum|count)$/, '');
    const f = out[family]!;
    for (const [, k] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g))
      if (k !== 'le' && !f.labels.includes(k!)) f.labels.push(k!);
  }
  for (const f of Object.values(out)) f.labels.sort();
  return out;
}

describe('schema/metrics.json: the metric families against what /metrics exposes and the last release', () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  const current = JSON.parse(readFileSync(join(ROOT, 'schema', 'metrics.json'), 'utf8')) as MetricsContract;
  const released = releasedVersions(join(ROOT, 'schema', 'released'), 'metrics', 'json') as unknown as Map<
    number,
    MetricsContract
  >;
  const last = Math.max(...released.keys());

  it('the contract file is what /metrics exposes: every family, its type and labels', () => {
    // A state where every family has samples: a finding open, a kind failing.
    const fs = findings(cluster('linkerd', ['checks/sidecar-missing/fires-linkerd.yaml']));
    expect(fs.length).toBeGreaterThan(0);
    const text = render(
      watchMetrics({
        version: '0.1.0',
        ready: true,
        result: { findings: fs, coverage: { complete: true }, errors: [] } as unknown as Result,
        states: [{ namespace: 'shop', mesh: 'linkerd', state: 'meshed', workloads: 1 }],
        kinds: [...KIND_KEYS],
        status: () => ({ synced: true, objects: 1, restarts: 0, relists: 0, events: 0 }),
        failing: new Map([['pods', 'forbidden']]),
        lastEvaluation: 1,
        lastFullEvaluation: 1,
        durations: { full: new Histogram(DURATION_BUCKETS), namespace: new Histogram(DURATION_BUCKETS) },
        transitions: { opened: 0, resolved: 0 },
        maxSeries: 10,
        startTime: 0,
      }),
    );
    expect(exposed(text)).toEqual(current.families);
  });

  it('every released version is kept; no breaking change without a version increment, no increment without one', () => {
    expect([...released.keys()]).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    for (const [v, c] of released) expect(c.version, `metrics.v${v}.json`).toBe(v);
    expect(versionProblem(last, current.version, metricBreaks(released.get(last)!, current))).toBeUndefined();
  });

  it('the comparison finds a family removed or renamed, retyped, a label added or removed (made up here)', () => {
    const edit = (f: (c: MetricsContract) => void) => {
      const c = structuredClone(current);
      f(c);
      return metricBreaks(current, c);
    };
    expect(edit((c) => void (c.families.meshdoctor_new = { type: 'gauge', labels: [] }))).toEqual([]);
    expect(edit((c) => delete c.families.meshdoctor_objects)).toEqual(['meshdoctor_objects: removed']);
    expect(edit((c) => (c.families.meshdoctor_relists_total!.type = 'gauge'))).toEqual([
      'meshdoctor_relists_total: type counter changed to gauge',
    ]);
    expect(edit((c) => c.families.meshdoctor_findings!.labels.push('mesh'))).toEqual([
      'meshdoctor_findings: labels {severity} changed to {mesh,severity}',
    ]);
    expect(edit((c) => (c.families.meshdoctor_workloads!.labels = ['namespace', 'state']))).toEqual([
      'meshdoctor_workloads: labels {mesh,namespace,state} changed to {namespace,state}',
    ]);
  });
});
