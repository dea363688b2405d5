/**
 * The command line: flags -> options -> run -> report -> exit code. Each command is a module of
 * src/cli/ (its flags from the table in src/cli/options.ts); heavy modules (the checks,
 * reporters, YAML, the Kubernetes client) load only inside the commands that need them, so
 * `--help` and `--version` pay for commander alone.
 */
import { Command, CommanderError } from 'commander';
import { MESH_NAMES } from './mesh/names.js';
import { EXIT, errorLine, errorMessage, printable } from './util/errors.js';
import { checkCommand } from './cli/check.js';
import { checksCommand } from './cli/checks.js';
import { completionCommand } from './cli/completion.js';
import { explainCommand } from './cli/explain.js';
import type { IO } from './cli/io.js';
import { reporterChoices } from './cli/options.js';
import { snapshotCommand } from './cli/snapshot.js';
import { watchCommand } from './cli/watch.js';
import { VERSION } from './cli/version.js';

export { exitCode } from './cli/exit.js';
export type { IO } from './cli/io.js';
export { VERSION } from './cli/version.js';

/**
 * `name`: how the user called it, e.g. "kubectl meshdoctor" through the kubectl plugin. The -o
 * choices of check are set by main (reporterChoices), before a command line naming a command is parsed.
 */
export function buildProgram(io: IO, setExit: (code: number) => void, name = 'meshdoctor'): Command {
  const program = new Command(name)
    .description(
      `Tells you why service-mesh sidecars (${MESH_NAMES.join(', ')}) were not injected into your pods, and how to fix it.`,
    )
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError()
    .exitOverride()
    // One prefix for every error: commander's usage errors ("error: unknown option") say
    // "meshdoctor:" as the run's own errors do, so a script or a person greps one word.
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      outputError: (s, write) => write(`meshdoctor: ${s.replace(/^error: /, '')}`),
    });
  const context = { program, io, setExit };
  for (const add of [checkCommand, snapshotCommand, watchCommand, explainCommand, checksCommand, completionCommand])
    add(context);
  return program;
}

/** Run the CLI in-process; resolves to the exit code. Never throws. */
export async function main(argv: string[], io: IO, name = 'meshdoctor'): Promise<number> {
  let code: number = EXIT.OK;
  const program = buildProgram(io, (c) => (code = c), name);
  // No command: the help, on stdout, exit 0 (as kubectl, istioctl and linkerd do).
  if (argv.length === 0) {
    io.stdout(program.helpInformation());
    return EXIT.OK;
  }
  try {
    // check's -o choices are the keys of REPORTERS, which load every format (and chalk): a command
    // line naming a command needs them (to parse, for its help, for completion), --help and --version do not.
    if (!argv[0]!.startsWith('-')) await reporterChoices(program.commands);
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are successes; any other commander error is a usage error (exit 2, not 1).
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        return EXIT.OK;
      return EXIT.ERROR;
    }
    io.stderr(`meshdoctor: ${errorLine(e)}\n`);
    return EXIT.ERROR;
  }
}

/** The process entry point used by bin/meshdoctor.js. */
export async function run(): Promise<void> {
  // The first error writing stdout other than EPIPE (ENOSPC on /dev/full, EIO, EBADF): the output
  // is lost, so the run failed whatever main decided (exit 2, one line).
  let lost: Error | undefined;
  const written = (e?: Error | null) => {
    if (e && !lost && (e as NodeJS.ErrnoException).code !== 'EPIPE') lost = e;
  };
  const io: IO = {
    stdout: (s) => {
      if (!lost) process.stdout.write(s, written);
    },
    stderr: (s) => void process.stderr.write(s),
    stdoutTTY: !!process.stdout.isTTY,
    stderrTTY: !!process.stderr.isTTY,
    ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
    env: process.env,
    readStdin: async (maxBytes, deadline) => {
      const { decodeText, readStreamBounded } = await import('./util/io.js');
      return decodeText(await readStreamBounded(process.stdin, maxBytes, 'stdin', deadline));
    },
  };
  // Last line of defence: an error thrown outside main's promise chain (a timer, a stream event)
  // still ends in one line and exit 2, never a stack trace.
  const fatal = (e: unknown) => {
    process.stderr.write(`meshdoctor: ${errorLine(e)}\n`);
    process.exit(EXIT.ERROR);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0); // `| head` closed the pipe
    written(e);
  });
  // Through kubectl's plugin mechanism the binary is kubectl-meshdoctor: help says `kubectl meshdoctor`.
  const invoked = (process.argv[1] ?? '').split(/[\\/]/).pop() ?? '';
  const code = await main(
    process.argv.slice(2),
    io,
    invoked.startsWith('kubectl-meshdoctor') ? 'kubectl meshdoctor' : 'meshdoctor',
  );
  // The exit code is decided once stdout has taken everything: an empty write calls back after the
  // ones before it, with their error if one failed.
  if (!lost) await new Promise<void>((resolve) => process.stdout.write('', (e) => (written(e), resolve())));
  if (lost) {
    process.stderr.write(`meshdoctor: cannot write to stdout: ${printable(errorMessage(lost))}\n`);
    process.exitCode = EXIT.ERROR;
    return;
  }
  process.exitCode = code;
}
