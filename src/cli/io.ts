/** What a command is given of the process (streams, terminal, environment), and helpers over it. */
import type { Command } from 'commander';
import type { Deadline } from '../util/deadline.js';
import { UserError } from '../util/errors.js';
import type { Limits } from '../util/limits.js';

export interface IO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** stdout is a terminal (colors, table by default). */
  stdoutTTY: boolean;
  /** stderr is a terminal (progress). */
  stderrTTY: boolean;
  /** Columns of the terminal stdout is (undefined: not a terminal; COLUMNS, else 80, is used). */
  columns?: number;
  env: NodeJS.ProcessEnv;
  /**
   * The whole of stdin, for `check -f -` and `--snapshot -`, at most maxBytes (a UserError beyond),
   * ended by the deadline when one is given (a DeadlineError: a pipe never closed).
   */
  readStdin: (maxBytes: number, deadline?: Deadline) => Promise<string>;
  /** A monotonic clock in ms for --timeout over the checks (default: performance.now; tests inject one). */
  now?: () => number;
  /** The wall clock suppressions' expiry is compared with (default: the system clock; tests inject one). */
  clock?: () => Date;
  /** Where `.meshdoctor.yaml` and relative --config/--baseline paths are found (default: process.cwd()). */
  cwd?: string;
}

/** What each command module is handed: the program to add its command to, the process, and where its exit code goes. */
export interface CommandContext {
  program: Command;
  io: IO;
  setExit: (code: number) => void;
}

/** MESHDOCTOR_DOCS_URL, when set: an http(s) URL under which docs/checks/ID.md are published. */
export function docsBaseOf(io: IO): string | undefined {
  const v = io.env.MESHDOCTOR_DOCS_URL;
  if (!v) return undefined;
  if (!/^https?:\/\/[^\s]+$/.test(v)) throw new UserError(`MESHDOCTOR_DOCS_URL must be an http(s) URL, not "${v}"`);
  return v;
}

/**
 * Whether stdout gets colors: --no-color always wins; then FORCE_COLOR as Node reads it
 * (nodejs/node lib/internal/tty.js getColorDepth @0f01f38a: '', 1, 2, 3 or true force colors,
 * whatever stdout is, and win over NO_COLOR; any other value, 0 or false, turns them off); then
 * NO_COLOR when not empty (no-color.org); then whether stdout is a terminal.
 */
export function colorOf(io: IO, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return ['', '1', '2', '3', 'true'].includes(force);
  return io.stdoutTTY && !io.env.NO_COLOR;
}

/** The width human output wraps to: the terminal's, else $COLUMNS, else 80. */
export function widthOf(io: IO): number {
  const env = Number(io.env.COLUMNS);
  return io.columns ?? (Number.isInteger(env) && env > 0 ? env : 80);
}

export function progress(io: IO) {
  if (!io.stderrTTY) return undefined;
  const started = Date.now();
  let shown = false;
  return {
    update(p: { kindsDone: number; kindsTotal: number; objects: number }) {
      if (Date.now() - started < 1000) return; // quick runs stay silent
      shown = true;
      io.stderr(`\rreading cluster: ${p.kindsDone}/${p.kindsTotal} kinds, ${p.objects} objects\u001b[K`);
    },
    done() {
      if (shown) io.stderr('\r\u001b[K');
    },
  };
}

/** --timeout over the whole run: started as a command starts, asked by the checks (src/util/deadline.ts). */
export async function runDeadline(io: IO, limits: Limits) {
  const { Deadline, monotonic } = await import('../util/deadline.js');
  return new Deadline(limits.deadlineMs, io.now ?? monotonic);
}
