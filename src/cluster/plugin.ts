/**
 * Running a credential helper named by a kubeconfig (an exec plugin's `command`, a gcp or azure
 * auth provider's `cmd-path`): found on PATH as Go's os/exec finds it, run asynchronously under
 * a time limit, its output capped, its stderr kept only as printable text for a message.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { errorMessage, printable } from '../util/errors.js';
import { MAX_EXEC_OUTPUT_BYTES, MAX_TIMER_MS, mib, type Limits } from '../util/limits.js';

const firstLine = (s: string) => s.split('\n')[0]!.trim();
const seconds = (ms: number) => `${+(ms / 1000).toFixed(1)}s`;

/** What a helper may print on stderr that is kept for the message. */
const STDERR_KEPT = 1024;

/** Why a command cannot be run: `notFound` when no file of that name was found at all. */
export class LookPathError extends Error {
  constructor(
    message: string,
    readonly notFound = false,
  ) {
    super(message);
  }
}

/** Go's findExecutable (os/exec lp_unix.go): a file, not a directory, that we may execute. */
function executable(path: string): boolean {
  try {
    if (statSync(path).isDirectory()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The file `command` runs, found as Go's exec.LookPath finds it (golang/go src/os/exec/lp_unix.go,
 * go1.19 and later), which kubectl's exec.Command uses (client-go
 * plugin/pkg/client/auth/exec/exec.go): a name with a slash is used as it is; a bare name is
 * looked up in each PATH entry in turn, an empty entry meaning the current directory. A match
 * through a relative entry (an empty one, ".", "bin") is an error (Go's ErrDot), not a reason to
 * try the next entry: with `PATH=":$PATH"` a `kubelogin` in a cloned repository must never run.
 * On Windows the name is left to the system.
 */
export function lookPath(command: string, path = process.env.PATH ?? ''): string {
  if (command.includes('/') || process.platform === 'win32') return command;
  // Go's filepath.SplitList: an empty PATH has no entries (it is not one empty entry).
  for (const dir of path === '' ? [] : path.split(delimiter)) {
    const file = join(dir || '.', command);
    if (!executable(file)) continue;
    if (!isAbsolute(file)) {
      throw new LookPathError(
        `was found as ${printable(file, 200)} through a PATH entry relative to the current directory; it is not run (as kubectl does not): put an absolute directory in PATH or an absolute command in the kubeconfig`,
      );
    }
    return file;
  }
  throw new LookPathError('was not found', true);
}

interface RunOptions {
  /** The command as given (resolved with lookPath here). */
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  limits: Limits;
  signal?: AbortSignal;
  /** The UserError for one reason ("did not finish within 30s ..."). */
  fail: (why: string) => Error;
  /** Added to "was not found" (a plugin's installHint). */
  notFoundHint?: string;
}

/**
 * Run a credential helper and return what it printed on stdout. Bounded: killed after
 * --request-timeout (or when `signal` aborts), or once it prints more than MAX_EXEC_OUTPUT_BYTES;
 * stdin is not a terminal; 1 KiB of its stderr is kept for the message, made printable (its
 * terminal escapes never reach our stderr). Never blocks the event loop.
 */
export async function runHelper(o: RunOptions): Promise<Buffer> {
  let file: string;
  try {
    file = lookPath(o.command);
  } catch (e) {
    if (!(e instanceof LookPathError)) throw e;
    throw o.fail(e.notFound ? `was not found${o.notFoundHint ?? ''}` : e.message);
  }
  return new Promise<Buffer>((resolveOut, reject) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    const err: Buffer[] = [];
    let errBytes = 0;
    let done = false;
    // eslint-disable-next-line prefer-const -- the handlers may run before the timer is set: a const would be in its TDZ
    let timer: NodeJS.Timeout | undefined;
    let child: ReturnType<typeof spawn> | undefined;
    const finish = (e: Error | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (!e) return resolveOut(Buffer.concat(out, outBytes));
      child?.kill('SIGKILL');
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      reject(e);
    };
    const onAbort = () => finish(o.fail('was stopped: reading the cluster was cancelled'));
    try {
      child = spawn(file, o.args, {
        argv0: o.command,
        env: o.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (e) {
      return finish(o.fail(`cannot be started: ${printable(firstLine(errorMessage(e)))}`)); // e.g. a NUL byte in an argument
    }
    timer = setTimeout(
      () => finish(o.fail(`did not finish within ${seconds(o.limits.requestTimeoutMs)} (--request-timeout)`)),
      Math.min(Math.max(0, o.limits.requestTimeoutMs), MAX_TIMER_MS),
    );
    if (o.signal?.aborted) return onAbort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (c: Buffer) => {
      outBytes += c.length;
      if (outBytes > MAX_EXEC_OUTPUT_BYTES) return finish(o.fail(`printed more than ${mib(MAX_EXEC_OUTPUT_BYTES)}`));
      out.push(c);
    });
    child.stderr!.on('data', (c: Buffer) => {
      if (errBytes < STDERR_KEPT) err.push(c.subarray(0, STDERR_KEPT - errBytes));
      errBytes += c.length;
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      finish(
        e.code === 'ENOENT'
          ? o.fail(`was not found${o.notFoundHint ?? ''}`)
          : o.fail(`cannot be started: ${printable(firstLine(errorMessage(e)))}`),
      );
    });
    child.on('close', (code, sig) => {
      if (code === 0) return finish(undefined);
      const line = Buffer.concat(err)
        .toString('utf8')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .find(Boolean);
      finish(
        o.fail(
          `failed (${code !== null ? `exit code ${code}` : `killed by ${sig}`})${line ? `: ${printable(line, 300)}` : ''}`,
        ),
      );
    });
  });
}
