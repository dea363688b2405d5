/**
 * The budget of a check (bench/budget.ts, `npm run bench:checks -- --strict`): judged and rendered from injected
 * measurements, never from a timing taken here (a shared machine's load would decide the test).
 */
import { describe, expect, it } from 'vitest';
import { ALLOWANCES, BUDGETS, judge, overLines, renderTable, type InputCost } from '../bench/budget.js';
import { CHECKS } from '../src/checks/index.js';

const input = (pods: number, realistic: boolean, floorMs: number, rows: [string, number][]): InputCost => ({
  label: realistic ? 'kubectl List JSON, real-size' : 'kubectl List JSON, slim',
  pods,
  realistic,
  floorMs,
  loadMs: 1500,
  checksMs: rows.reduce((a, [, ms]) => a + ms, 0),
  rows: rows.map(([check, inRunMs]) => ({ check, inRunMs, aloneMs: inRunMs * 2 })),
});

describe('check budget', () => {
  it('is 2% of the floor on 20k slim and 1% on 5k real-size, in the run', () => {
    expect(BUDGETS).toEqual({ '20k slim': 0.02, '5k real-size': 0.01 });
  });

  it('names each check over its budget on each input, and only those', () => {
    const results = [
      input(20_000, false, 1000, [
        ['new-a', 20], // exactly 2%: within
        ['new-b', 21], // over
        ['new-c', 3],
      ]),
      input(5_000, true, 700, [
        ['new-a', 7], // 1%: within
        ['new-b', 2],
        ['new-c', 7.5], // over
      ]),
    ];
    const { over, allowed } = judge(results, {});
    expect(allowed).toEqual([]);
    expect(over.map((o) => [o.check, o.input])).toEqual([
      ['new-b', '20k slim'],
      ['new-c', '5k real-size'],
    ]);
    expect(overLines(over)).toEqual([
      'over budget: new-b on 20k slim: 21 ms in the run, 2.1% of the floor > budget 2.0%',
      'over budget: new-c on 5k real-size: 8 ms in the run, 1.1% of the floor > budget 1.0%',
    ]);
  });

  it('lets a listed check cost up to its allowance, and names it once it exceeds that', () => {
    const allowances = { old: { shares: { '20k slim': 0.1 }, why: 'pays for the shared facts' } };
    const within = judge([input(20_000, false, 1000, [['old', 100]])], allowances);
    expect(within.over).toEqual([]);
    expect(within.allowed.map((o) => o.check)).toEqual(['old']);
    const beyond = judge([input(20_000, false, 1000, [['old', 101]])], allowances);
    expect(overLines(beyond.over)).toEqual([
      'over budget: old on 20k slim: 101 ms in the run, 10.1% of the floor > its allowance 10.0% (budget 2.0%)',
    ]);
    // An allowance for one input is none for the other.
    expect(judge([input(5_000, true, 1000, [['old', 11]])], allowances).over.map((o) => o.input)).toEqual([
      '5k real-size',
    ]);
  });

  it('judges no input without a budget, and no run without a floor', () => {
    expect(judge([input(50_000, false, 1000, [['x', 900]])], {}).over).toEqual([]);
    expect(judge([input(20_000, false, 0, [['x', 900]])], {}).over).toEqual([]);
  });

  it('allows only registered checks, each at least its budget, each with a reason', () => {
    const known = new Set(CHECKS.map((c) => c.id));
    for (const [id, a] of Object.entries(ALLOWANCES)) {
      expect(known.has(id), id).toBe(true);
      expect(a.why.length, id).toBeGreaterThan(0);
      for (const [inp, share] of Object.entries(a.shares)) expect(share, `${id} ${inp}`).toBeGreaterThan(BUDGETS[inp]!);
    }
  });

  it('renders the table docs/performance.md keeps, a row per check in the order given', () => {
    const results = [
      input(20_000, false, 1000, [
        ['a', 12.4],
        ['b', 30],
      ]),
      input(5_000, true, 800, [
        ['a', 1],
        ['b', 9],
      ]),
    ];
    const lines = renderTable(results, 3, ['a', 'b']);
    expect(lines[0]).toContain('budget 2.0% on 20k slim, 1.0% on 5k real-size');
    expect(lines.slice(2)).toEqual([
      '| check | 20k slim in the run ms | 20k slim share of floor | 20k slim alone ms | 5k real-size in the run ms | 5k real-size share of floor | 5k real-size alone ms |',
      '|---|---:|---:|---:|---:|---:|---:|',
      '| a | 12 | 1.2% | 25 | 1 | 0.1% | 2 |',
      '| b | 30 | 3.0% | 60 | 9 | 1.1% | 18 |',
      '| **all checks** | 42 | 4.2% |  | 10 | 1.3% |  |',
      '| (loading the file) | 1500 | 150.0% |  | 1500 | 187.5% |  |',
      '| (the floor: node + read + JSON.parse) | 1000 | 100% |  | 800 | 100% |  |',
    ]);
  });
});
