/**
 * The text exposition (src/watch/exposition.ts): label values from the cluster escaped as the
 * format requires and made printable, so that any name — quotes, backslashes, newlines, escape
 * sequences, NUL, lone surrogates — gives one line that promtool (Prometheus' own parser) reads
 * back exactly; histograms cumulative; series capped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capSeries,
  clusterValue,
  escapeLabelValue,
  Histogram,
  MAX_LABEL_VALUE,
  render,
  type MetricFamily,
} from '../../src/watch/exposition.js';
import { PROMTOOL, promtool } from '../helpers/prometheus.js';

/** A label value as the format reads it (the escapes undone), for a round trip. */
const unescape = (s: string) => s.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));

const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    'a"b',
    'a\\b',
    'a\nb',
    '\\"\n',
    'x\u001b]52;c;ZWNobyBoaQ==\u0007',
    '\u0000',
    'line\r\nbreak',
    '\ud800',
    'é∑😀',
    'a\u2028b',
    '\\'.repeat(300),
  ),
);

describe('label values', () => {
  it('escapeLabelValue: no raw line feed, and reading it back gives the value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (v) => {
        const e = escapeLabelValue(v);
        expect(e).not.toContain('\n');
        expect(unescape(e)).toBe(v);
        // Every double quote is escaped: an even run of backslashes never precedes one.
        expect(/(^|[^\\])(\\\\)*"/.test(e)).toBe(false);
      }),
    );
  });

  it('clusterValue: printable and bounded, whatever the cluster sends', () => {
    fc.assert(
      fc.property(hostile, (v) => {
        const c = clusterValue(v);
        expect(c).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        expect(c.length).toBeLessThanOrEqual(MAX_LABEL_VALUE + 1);
      }),
    );
    expect(clusterValue('a\nb\u001b')).toBe('a\\nb\\x1b');
  });

  it.skipIf(!PROMTOOL)('promtool parses hostile names as one series each, lint-clean', async () => {
    const values = fc.sample(hostile, { numRuns: 300, seed: 7 });
    const text = render([
      {
        name: 'meshdoctor_finding',
        help: 'An open finding (1). Help with a \\ and a\nnewline.',
        type: 'gauge',
        samples: values.map((v, i) => ({ labels: { name: clusterValue(v), i: String(i) }, value: 1 })),
      },
    ]);
    const r = await promtool(['check', 'metrics'], text);
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
    // One line per sample, each reading back as the printable value.
    const lines = text.split('\n').filter((l) => l.startsWith('meshdoctor_finding{'));
    expect(lines).toHaveLength(values.length);
    lines.forEach((l, i) => expect(unescape(/name="((?:[^"\\]|\\.)*)"/.exec(l)![1]!)).toBe(clusterValue(values[i]!)));
  });

  it.skipIf(!PROMTOOL)('promtool refuses the same text unescaped (the check can fail)', async () => {
    const r = await promtool(['check', 'metrics'], '# HELP m x\n# TYPE m gauge\nm{name="a\nb"} 1\n');
    expect(r.code).toBe(1);
  });
});

describe('families', () => {
  it('render: HELP, TYPE, labels, +Inf and NaN as Prometheus writes them', () => {
    const f: MetricFamily[] = [
      { name: 'x', help: 'h', type: 'gauge', samples: [{ value: Infinity }, { labels: { a: 'b' }, value: NaN }] },
      { name: 'y_total', help: 'h', type: 'counter', samples: [{ labels: { k: 'v' }, value: 3 }] },
    ];
    expect(render(f)).toBe(
      '# HELP x h\n# TYPE x gauge\nx +Inf\nx{a="b"} NaN\n# HELP y_total h\n# TYPE y_total counter\ny_total{k="v"} 3\n',
    );
  });

  it('Histogram: cumulative buckets, sum and count', () => {
    const h = new Histogram([0.1, 1]);
    for (const v of [0.05, 0.5, 0.5, 3]) h.observe(v);
    expect(h.samples({ mode: 'full' }).map((s) => `${s.suffix}${JSON.stringify(s.labels)} ${s.value}`)).toEqual([
      '_bucket{"mode":"full","le":"0.1"} 1',
      '_bucket{"mode":"full","le":"1"} 3',
      '_bucket{"mode":"full","le":"+Inf"} 4',
      '_sum{"mode":"full"} 4.05',
      '_count{"mode":"full"} 4',
    ]);
  });

  it('capSeries: the first distinct label sets, the rest counted', () => {
    const s = [
      { labels: { a: '1' }, value: 1 },
      { labels: { a: '1' }, value: 1 },
      { labels: { a: '2' }, value: 1 },
      { labels: { a: '3' }, value: 1 },
    ];
    const r = capSeries(s, 2);
    expect(r.samples.map((x) => x.labels!.a)).toEqual(['1', '2']);
    expect(r.dropped).toBe(1);
  });
});

if (!PROMTOOL)
  console.log(
    'test/watch/exposition.test.ts: the promtool tests skipped: promtool not installed (apt-get install prometheus)',
  );
