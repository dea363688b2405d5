/**
 * The per-check cost table of docs/performance.md (written by `npm run bench:checks`,
 * bench/per-check.ts): its structure only, never its figures (timings belong to the bench, not
 * to tests on a shared machine). Every row names a registered check, none twice; the budget a new
 * check must stay under is stated where contributors look.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';

const ROOT = join(import.meta.dirname, '..');
const doc = readFileSync(join(ROOT, 'docs/performance.md'), 'utf8');
const table = /<!-- per-check:start -->\n([\s\S]*?)<!-- per-check:end -->/.exec(doc)?.[1] ?? '';
const rows = table.split('\n').filter((l) => l.startsWith('| '));

describe('per-check cost table', () => {
  it('is in docs/performance.md between its markers, with the columns the bench writes', () => {
    expect(rows.length).toBeGreaterThan(2);
    const head = rows[0]!.split('|').map((c) => c.trim());
    expect(head[1]).toBe('check');
    for (const input of ['20k slim', '5k real-size'])
      for (const col of ['in the run ms', 'share of floor', 'alone ms']) expect(head).toContain(`${input} ${col}`);
    const width = rows[0]!.split('|').length;
    for (const r of rows) expect(r.split('|').length).toBe(width);
  });

  it('has a row per registered check at most once, and the totals and the floor', () => {
    const known = new Set(CHECKS.map((c) => c.id));
    const names = rows.slice(1).map((r) => r.split('|')[1]!.trim());
    const checks = names.filter((n) => !n.startsWith('**') && !n.startsWith('('));
    expect(checks.filter((n) => !known.has(n))).toEqual([]);
    expect(new Set(checks).size).toBe(checks.length);
    expect(names).toContain('**all checks**');
    expect(names.some((n) => n.startsWith('(the floor'))).toBe(true);
  });

  it('states the budget of a new check in docs/performance.md and docs/contributing.md', () => {
    expect(doc).toMatch(/budget/i);
    expect(readFileSync(join(ROOT, 'docs/contributing.md'), 'utf8')).toMatch(/bench:checks/);
  });
});
