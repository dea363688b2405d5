/**
 * When `watch` evaluates (src/watch/schedule.ts), on a fake clock: changes debounced, a namespace
 * evaluated alone, control-plane changes evaluated in full but throttled by the last full
 * evaluation's cost, a full evaluation after namespace ones and periodically, a flood of
 * namespaces turned into one full evaluation.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler, type ScheduleTimings } from '../../src/watch/schedule.js';

const T: ScheduleTimings = {
  quietMs: 100,
  maxDelayMs: 500,
  minFullGapMs: 1000,
  lazyFullMs: 10_000,
  lazyMaxMs: 60_000,
  periodicFullMs: 300_000,
  maxNamespaces: 3,
};

/** A fake clock with timers; `full` takes `fullMs` of it, a namespace `nsMs`. */
function harness(fullMs = 0, escalate = new Set<string>(), nsMs = 0, timings: ScheduleTimings = T) {
  let now = 0;
  const timers = new Map<number, { at: number; f: () => void }>();
  let id = 0;
  const log: string[] = [];
  let spent = 0;
  const s = new Scheduler(
    {
      now: () => now,
      setTimer: (f, ms) => (timers.set(++id, { at: now + ms, f }), id),
      clearTimer: (t) => timers.delete(t as number),
      full: () => {
        log.push(`${now} full`);
        now += fullMs;
        spent += fullMs;
        return fullMs;
      },
      namespace: (ns) => {
        log.push(`${now} ns ${ns}`);
        if (escalate.has(ns)) return false;
        now += nsMs;
        spent += nsMs;
        return nsMs;
      },
    },
    timings,
  );
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const next = [...timers.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      timers.delete(next[0]);
      now = Math.max(now, next[1].at);
      next[1].f();
    }
    now = Math.max(now, end);
  };
  return { s, log, advance, at: (t: number) => advance(t - now), timers, spent: () => spent, now: () => now };
}

describe('Scheduler', () => {
  it('debounces changes in a namespace: one evaluation after the quiet period, within the longest delay', () => {
    const h = harness();
    h.s.started(0);
    h.s.namespaceChanged('shop');
    h.advance(50);
    h.s.namespaceChanged('shop');
    h.advance(99);
    expect(h.log).toEqual([]);
    h.advance(1);
    expect(h.log).toEqual(['150 ns shop']);
    // A steady stream of changes is evaluated every maxDelay, never starved.
    h.log.length = 0;
    for (let t = 0; t < 1200; t += 50) {
      h.s.namespaceChanged('shop');
      h.advance(50);
    }
    expect(h.log.length).toBeGreaterThanOrEqual(2);
    expect(h.log.every((l) => l.endsWith('ns shop'))).toBe(true);
  });

  it('after namespace evaluations, a full one within lazyFull; then one every periodicFull', () => {
    const h = harness();
    h.s.started(0);
    h.s.namespaceChanged('a');
    h.advance(10_200);
    expect(h.log).toEqual(['100 ns a', '10100 full']);
    h.log.length = 0;
    h.advance(300_000);
    expect(h.log).toEqual(['310100 full']);
  });

  it('namespaces changing all the time: the full evaluation waits for quiet, but at most lazyMax after the first change', () => {
    const h = harness();
    h.s.started(0);
    for (let t = 0; t < 80_000; t += 5000) {
      h.s.namespaceChanged('busy');
      h.advance(5000);
    }
    expect(h.log.filter((l) => l.endsWith('full'))).toEqual(['60100 full']);
  });

  it('changes that need not be seen at once (control-plane Events): one catch-up full evaluation once quiet, never more often', () => {
    const h = harness();
    h.s.started(0);
    for (let t = 0; t < 30_000; t += 2000) {
      h.s.eventuallyEverything();
      h.advance(2000);
    }
    h.advance(10_000);
    expect(h.log).toEqual(['38000 full']);
  });

  it('control-plane changes: a full evaluation, at most once every max(minFullGap, 2 x its cost)', () => {
    const h = harness(2000);
    h.s.started(2000); // the first one took 2 s: the next full one not before 4 s from now
    h.s.everythingChanged();
    h.advance(3000);
    expect(h.log).toEqual([]);
    h.advance(1000);
    expect(h.log).toEqual(['4000 full']);
    h.s.everythingChanged();
    h.s.namespaceChanged('shop'); // one budget: the 2 s evaluation is followed by 4 s without any
    h.advance(200);
    expect(h.log).toEqual(['4000 full']);
    h.advance(4000);
    expect(h.log).toEqual(['4000 full', '10000 ns shop', '10000 full']);
  });

  it('a namespace evaluation that needs a full one gets it; more dirty namespaces than maxNamespaces: one full evaluation', () => {
    const h = harness(0, new Set(['odd']));
    h.s.started(0);
    h.at(1000);
    h.s.namespaceChanged('odd');
    h.advance(100);
    expect(h.log).toEqual(['1100 ns odd', '1100 full']);
    h.log.length = 0;
    h.at(5000);
    for (const ns of ['a', 'b', 'c', 'd']) h.s.namespaceChanged(ns);
    h.advance(100);
    expect(h.log).toEqual(['5100 full']);
  });

  it('stop(): nothing runs after it', () => {
    const h = harness();
    h.s.started(0);
    h.s.namespaceChanged('shop');
    h.s.stop();
    h.advance(1_000_000);
    expect(h.log).toEqual([]);
    expect(h.timers.size).toBe(0);
  });

  it('one CPU budget for every evaluation: 16 namespaces churning without pause take at most a third of the clock', () => {
    // Each namespace evaluation rebuilds the model over every cluster-scoped object: 40 ms each
    // (4,000 namespaces), a full one 400 ms. 16 namespaces change every 50 ms for 10 minutes.
    const h = harness(400, new Set(), 40, { ...T, maxNamespaces: 16 });
    h.s.started(400);
    const busy = Array.from({ length: 16 }, (_, i) => `ns-${i}`);
    const start = h.now();
    for (let step = 0; step < 12_000; step++) {
      for (const ns of busy) h.s.namespaceChanged(ns);
      h.advance(50);
    }
    const elapsed = h.now() - start;
    expect(h.spent() / elapsed).toBeLessThanOrEqual(1 / 3 + 0.01);
    // Still evaluated: every namespace again and again, and the catch-up full evaluations.
    expect(h.log.filter((l) => l.endsWith(' ns ns-0')).length).toBeGreaterThan(100);
    expect(h.log.filter((l) => l.endsWith(' full')).length).toBeGreaterThan(5);
  });
});
