/**
 * When `watch` evaluates: changes are debounced (an evaluation after QUIET ms without a change,
 * at most MAX_DELAY ms after the first), then
 * - a change in an app namespace (its pods, workloads, events, ...) evaluates that namespace;
 * - a change of the control planes, webhooks, named objects, namespaces, or of what can be read
 *   evaluates everything ("urgent"), at most once every max(MIN_FULL_GAP, 2 x the last full
 *   evaluation's time), so full evaluations take at most a third of a CPU however the cluster churns;
 * - after namespace evaluations, a full one follows once the namespaces are quiet for LAZY_FULL
 *   ms, at most LAZY_MAX ms after the first (the control planes' findings count pods everywhere:
 *   their numbers catch up; a busy cluster's new pods are not held up behind full evaluations);
 * - Events in the control planes' namespaces (they churn: probes, restarts) only ask for that
 *   catch-up evaluation: the objects they describe (pods, Deployments) change too, and those are urgent;
 * - every PERIODIC_FULL ms, a full evaluation anyway: certificates expire and Jobs age without events;
 * - more than MAX_NAMESPACES dirty namespaces at once: one full evaluation instead;
 * - one CPU budget for every evaluation, namespace ones included: after evaluations that took T ms
 *   (full, or each of a tick's namespaces: each rebuilds the model over every cluster-scoped
 *   object), none starts for 2T, so all of them together take at most a third of a CPU, whatever
 *   churns (16 busy namespaces among 4,000 are evaluated less often, not more CPU).
 * Pure scheduling: the clock and timers are given (tests drive them), the evaluations are callbacks.
 */
export interface ScheduleTimings {
  quietMs: number;
  maxDelayMs: number;
  minFullGapMs: number;
  lazyFullMs: number;
  lazyMaxMs: number;
  periodicFullMs: number;
  maxNamespaces: number;
}

export const DEFAULT_TIMINGS: ScheduleTimings = {
  quietMs: 100,
  maxDelayMs: 500,
  minFullGapMs: 1000,
  lazyFullMs: 10_000,
  lazyMaxMs: 60_000,
  periodicFullMs: 300_000,
  maxNamespaces: 16,
};

interface SchedulerHooks {
  now(): number;
  setTimer(f: () => void, ms: number): unknown;
  clearTimer(t: unknown): void;
  /** Evaluate everything; returns how long it took (ms). */
  full(): number;
  /** Evaluate one namespace; how long it took (ms), or false when a full evaluation is needed instead. */
  namespace(ns: string): number | false;
}

export class Scheduler {
  private dirty = new Set<string>();
  private firstDirtyAt: number | undefined;
  private urgent = false;
  private lazyAt: number | undefined;
  private lazyFirst: number | undefined;
  private nextFullAllowed = 0;
  /** No evaluation of any kind before this (the CPU budget). */
  private nextAllowed = 0;
  private periodicAt: number;
  private timer: unknown;
  private timerAt = Infinity;
  private stopped = false;

  constructor(
    private readonly hooks: SchedulerHooks,
    private readonly t: ScheduleTimings = DEFAULT_TIMINGS,
  ) {
    this.periodicAt = hooks.now() + t.periodicFullMs;
  }

  /** The first evaluation, done: the clocks start from it. */
  started(fullMs: number): void {
    const now = this.hooks.now();
    this.nextFullAllowed = now + Math.max(this.t.minFullGapMs, 2 * fullMs);
    this.nextAllowed = now + 2 * fullMs;
    this.periodicAt = now + this.t.periodicFullMs;
    this.arm();
  }

  namespaceChanged(ns: string): void {
    this.dirty.add(ns);
    this.firstDirtyAt ??= this.hooks.now();
    this.arm();
  }

  everythingChanged(): void {
    this.urgent = true;
    this.firstDirtyAt ??= this.hooks.now();
    this.arm();
  }

  /** A change everything may depend on, but that need not be seen at once: evaluated in the next catch-up full evaluation. */
  eventuallyEverything(): void {
    const now = this.hooks.now();
    this.lazyFirst ??= now;
    this.lazyAt = Math.min(this.lazyFirst + this.t.lazyMaxMs, now + this.t.lazyFullMs);
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.hooks.clearTimer(this.timer);
    this.timer = undefined;
  }

  /** When the next evaluation is due (Infinity: none). */
  private due(): number {
    const now = this.hooks.now();
    const debounced =
      this.firstDirtyAt === undefined
        ? Infinity
        : Math.min(now + this.t.quietMs, this.firstDirtyAt + this.t.maxDelayMs);
    let at = this.dirty.size ? debounced : Infinity;
    if (this.urgent) at = Math.min(at, Math.max(debounced, this.nextFullAllowed));
    if (this.lazyAt !== undefined) at = Math.min(at, Math.max(this.lazyAt, this.nextFullAllowed));
    at = Math.min(at, Math.max(this.periodicAt, this.nextFullAllowed));
    return at === Infinity ? at : Math.max(at, this.nextAllowed);
  }

  private arm(): void {
    if (this.stopped) return;
    const at = this.due();
    if (at === this.timerAt) return;
    if (this.timer !== undefined) this.hooks.clearTimer(this.timer);
    this.timerAt = at;
    this.timer =
      at === Infinity ? undefined : this.hooks.setTimer(() => this.tick(), Math.max(0, at - this.hooks.now()));
  }

  private runFull(): number {
    const ms = this.hooks.full();
    const now = this.hooks.now();
    this.urgent = false;
    this.lazyAt = this.lazyFirst = undefined;
    this.dirty.clear();
    this.firstDirtyAt = undefined;
    this.nextFullAllowed = now + Math.max(this.t.minFullGapMs, 2 * ms);
    this.periodicAt = now + this.t.periodicFullMs;
    return ms;
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.stopped) return;
    const now = this.hooks.now();
    if (now < this.nextAllowed) return this.arm();
    let spent = 0;
    if (this.dirty.size > this.t.maxNamespaces) {
      this.urgent = true;
      this.dirty.clear();
    }
    if (this.dirty.size) {
      for (const ns of [...this.dirty].sort()) {
        const ms = this.hooks.namespace(ns);
        if (ms === false) this.urgent = true;
        else spent += ms;
      }
      this.dirty.clear();
      const at = this.hooks.now();
      this.lazyFirst ??= at;
      this.lazyAt = Math.min(this.lazyFirst + this.t.lazyMaxMs, at + this.t.lazyFullMs);
    }
    if (!this.urgent) this.firstDirtyAt = undefined;
    const fullDue =
      (this.urgent || (this.lazyAt !== undefined && now >= this.lazyAt) || now >= this.periodicAt) &&
      now >= this.nextFullAllowed;
    if (fullDue) spent += this.runFull();
    this.nextAllowed = this.hooks.now() + 2 * spent;
    this.arm();
  }
}
