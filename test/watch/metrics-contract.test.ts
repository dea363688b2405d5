/**
 * The metrics are a contract (docs/metrics.md): every family watch exports is documented with its
 * type and labels, and every documented one is exported.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIND_KEYS } from '../../src/k8s/kinds.js';
import { Histogram } from '../../src/watch/exposition.js';
import { DURATION_BUCKETS, watchMetrics } from '../../src/watch/metrics.js';

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
