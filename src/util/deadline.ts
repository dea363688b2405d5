/**
 * --timeout over the whole run, not only the read of the cluster: the checks are synchronous, so
 * no timer can stop them. They ask a Deadline instead, between checks and inside the loops that
 * grow with the cluster (one decision per workload); once it has passed, the run ends with one
 * line and exit 2 (docs/limits.md). The clock is injected: tests never wait for the wall clock.
 */
import { UserError } from './errors.js';

/** The run went past --timeout (a UserError: one line, exit 2). */
export class DeadlineError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineError';
  }
}

/** A monotonic clock in milliseconds. */
type Clock = () => number;

export const monotonic: Clock = () => performance.now();

export class Deadline {
  private readonly at: number;

  /** `ms` from now on `clock`; `what` names the limit in the message ("the --timeout of 300s"). */
  constructor(
    ms: number,
    private readonly clock: Clock = monotonic,
    private readonly what = `the --timeout of ${+(ms / 1000).toFixed(1)}s`,
  ) {
    this.at = clock() + ms;
  }

  /** Throws DeadlineError once the deadline has passed. */
  check(): void {
    if (this.clock() > this.at) throw this.late('the run');
  }

  /** Milliseconds left (0 once passed): a read that waits (stdin) ends when they run out. */
  remainingMs(): number {
    return Math.max(0, this.at - this.clock());
  }

  /** The error of `doing` ("reading stdin") not done in time. */
  late(doing: string): DeadlineError {
    return new DeadlineError(`${doing} took longer than ${this.what}`);
  }
}
