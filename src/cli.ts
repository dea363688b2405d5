/**
 * The command line: flags -> options -> run -> report -> exit code. Heavy modules (the checks,
 * reporters, YAML, the Kubernetes client) load only inside the commands that need them, so
 * `--help` and `--version` pay for commander alone.
 */
import { MESH_NAMES } from './mesh/names.js';
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { EXIT, UserError, errorMessage, printable } from './util/errors.js';
import { DEFAULT_LIMITS, type Limits } from './util/limits.js';

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
  /** The whole of stdin, for `check -f -`, at most maxBytes (a UserError beyond). */
  readStdin: (maxBytes: number) => Promise<string>;
  /** A monotonic clock in ms for --timeout over the checks (default: performance.now; tests inject one). */
  now?: () => number;
}

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

const FAIL_ON = ['error', 'warning', 'info', 'none'] as const;
type FailOn = (typeof FAIL_ON)[number];

function positiveNumber(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
    if (n > max) throw new InvalidArgumentError(`${name} must be at most ${max}`);
    return n;
  };
}
const list = (v: string, prev: string[] = []) =>
  prev.concat(
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
const collect = (v: string, prev: string[] = []) => prev.concat(v);

interface CommonOpts {
  namespace?: string;
  allNamespaces?: boolean;
  context?: string;
  kubeconfig?: string;
  snapshot?: string[];
  requestTimeout: number;
  timeout: number;
  maxBytes: number;
  maxObjects: number;
}

/** The bounds of a run from the flags (README "Limits"). */
function limitsOf(o: CommonOpts): Limits {
  return {
    requestTimeoutMs: o.requestTimeout * 1000,
    deadlineMs: o.timeout * 1000,
    maxBytes: Math.floor(o.maxBytes * 1024 * 1024),
    maxObjects: Math.floor(o.maxObjects),
  };
}

function addClusterOptions(cmd: Command, withSnapshot = true, withAll = true): Command {
  cmd.option('-n, --namespace <ns>', 'the namespace to check (default: the kubeconfig context namespace)');
  if (withAll) cmd.option('-A, --all-namespaces', 'check every namespace');
  cmd
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)')
    .option(
      '--request-timeout <seconds>',
      'timeout of each API request (and of an exec credential plugin)',
      positiveNumber('--request-timeout', 86400),
      DEFAULT_LIMITS.requestTimeoutMs / 1000,
    )
    .option(
      '--timeout <seconds>',
      'time limit of the whole run: the read of the cluster and the checks',
      positiveNumber('--timeout', 86400),
      DEFAULT_LIMITS.deadlineMs / 1000,
    )
    .option(
      '--max-bytes <MiB>',
      'largest file, stdin or API response (decompressed) meshdoctor reads',
      positiveNumber('--max-bytes', 4096),
      DEFAULT_LIMITS.maxBytes / 1024 / 1024,
    )
    .option(
      '--max-objects <n>',
      'most objects of one kind meshdoctor reads (and of all -f manifests)',
      positiveNumber('--max-objects', 100_000_000),
      DEFAULT_LIMITS.maxObjects,
    );
  if (withSnapshot) {
    cmd.option('--snapshot <path>', 'run offline on a snapshot: meshdoctor snapshot, kubectl -o json|yaml output, or a directory (repeatable)', collect);
  }
  return cmd;
}

function validateScope(o: CommonOpts): void {
  if (o.namespace !== undefined && o.allNamespaces) throw new UserError('-n/--namespace and -A/--all-namespaces cannot be used together');
  if (o.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(o.namespace)) {
    throw new UserError(`invalid namespace name "${o.namespace}"`);
  }
}

/** MESHDOCTOR_DOCS_URL, when set: an http(s) URL under which docs/checks/ID.md are published. */
function docsBaseOf(io: IO): string | undefined {
  const v = io.env.MESHDOCTOR_DOCS_URL;
  if (!v) return undefined;
  if (!/^https?:\/\/[^\s]+$/.test(v)) throw new UserError(`MESHDOCTOR_DOCS_URL must be an http(s) URL, not "${v}"`);
  return v;
}

/** The width human output wraps to: the terminal's, else $COLUMNS, else 80. */
function widthOf(io: IO): number {
  const env = Number(io.env.COLUMNS);
  return io.columns ?? (Number.isInteger(env) && env > 0 ? env : 80);
}

function progress(io: IO) {
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
async function runDeadline(io: IO, limits: Limits) {
  const { Deadline, monotonic } = await import('./util/deadline.js');
  return new Deadline(limits.deadlineMs, io.now ?? monotonic);
}

/** `name`: how the user called it, e.g. "kubectl meshdoctor" through the kubectl plugin. */
export function buildProgram(io: IO, setExit: (code: number) => void, name = 'meshdoctor'): Command {
  const program = new Command(name)
    .description(`Tells you why service-mesh sidecars (${MESH_NAMES.join(', ')}) were not injected into your pods, and how to fix it.`)
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  addClusterOptions(
    program
      .command('check')
      .description('read the cluster (or a snapshot) once, run every check, print ranked findings with fixes')
      .addOption(
        new Option('-o, --output <format>', 'output format (table: compact; wide: with evidence, every fix line and causes)').choices([
          'table',
          'wide',
          'json',
          'sarif',
          'junit',
          'markdown',
        ]),
      )
      .option('--output-file <file>', 'write the report to this file (format: -o, default json); stdout gets the table on a terminal, else nothing')
      .option(
        '--suppress <ID=Kind/ns/name>',
        'suppress matching findings (reported as suppressed, not counted for the exit code; * wildcards; cluster-scoped: ID=Kind/name; repeatable)',
        collect,
      )
      .addOption(new Option('--mesh <mesh>', 'which mesh to check').choices(['auto', ...MESH_NAMES]).default('auto'))
      .addOption(new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity').choices([...FAIL_ON]).default('error'))
      .option('--only <ids>', 'run only these checks (ids or codes, comma-separated)', list)
      .option('--skip <ids>', 'skip these checks (ids or codes, comma-separated)', list)
      .option('--cert-expiry-warning <days>', 'warn when a certificate expires within this many days', positiveNumber('--cert-expiry-warning'), 60)
      .option('--allow-partial', 'exit 0 instead of 3 when some checks could not run (missing permissions) and no finding decided the exit code')
      .option('--strict', 'exit 3 when some checks could not run, even when findings would exit 1')
      .option('-f, --filename <path>', 'check manifests before applying them: a file, a directory, or - for stdin (repeatable)', collect)
      .option('-R, --recursive', 'with -f, read directories recursively')
      .option('--expect-meshed', 'with -f, an error for each workload in the manifests that no mesh would inject')
      .option('--no-color', 'disable colors (also: NO_COLOR, or stdout not a terminal)'),
  ).action(async (o) => {
    validateScope(o);
    if (!o.filename && (o.recursive || o.expectMeshed)) throw new UserError(`${o.recursive ? '-R/--recursive' : '--expect-meshed'} needs -f/--filename`);
    const deadline = await runDeadline(io, limitsOf(o)); // --timeout from here: the read, then the checks
    const { assertNamespaceExists, selectChecks, kindsFor, obtainSnapshot, runChecks } = await import('./run/run.js');
    const { REPORTERS } = await import('./report/index.js');
    const checks = selectChecks(o.only, o.skip);
    const { parseSuppressions } = await import('./run/suppress.js');
    const suppress = parseSuppressions(o.suppress);
    const p = progress(io);
    const snapOpts = { ...o, limits: limitsOf(o), onProgress: p?.update };
    let snapshot;
    if (o.filename) {
      // Manifests first: a bad file fails before the cluster is read.
      const { readManifests, manifestSnapshot } = await import('./run/manifests.js');
      const manifests = await readManifests(o.filename, !!o.recursive, io.readStdin, snapOpts.limits);
      snapshot = await manifestSnapshot(snapOpts, kindsFor(checks), manifests);
    } else {
      snapshot = await obtainSnapshot(snapOpts, kindsFor(checks));
      assertNamespaceExists(snapshot);
    }
    p?.done();
    const docsBase = docsBaseOf(io);
    const result = runChecks(snapshot, checks, {
      mesh: o.mesh,
      certExpiryWarningDays: o.certExpiryWarning,
      expectMeshed: !!o.expectMeshed,
      suppress,
      ...(docsBase ? { docsBase } : {}),
      deadline,
    });
    const color = o.color !== false && io.stdoutTTY && !io.env.NO_COLOR;
    if (o.outputFile) {
      // The report goes to the file (never colored); a person at a terminal still sees the table.
      const text = REPORTERS[o.output ?? 'json']!(result, { version: VERSION, color: false });
      // Whole or not at all: a failed write leaves the previous report, and a link planted at the path is replaced, not followed.
      const { replaceFile } = await import('./util/io.js');
      replaceFile(o.outputFile, text, '--output-file');
      if (io.stdoutTTY) io.stdout(REPORTERS.table!(result, { version: VERSION, color, width: widthOf(io) }));
    } else {
      // Human output unless -o asks for a machine format, piped or not (kubectl's convention).
      const format: string = o.output ?? 'table';
      io.stdout(REPORTERS[format]!(result, { version: VERSION, color, width: widthOf(io) }));
    }
    for (const e of result.errors) io.stderr(`meshdoctor: ${printable(e)}\n`);
    // A --suppress that matched nothing is most likely a typo: say so (stderr: stdout stays the report).
    const used = new Set(result.suppressed.map((x) => x.reason));
    for (const r of suppress) if (!used.has(`flag --suppress ${r.spec}`)) io.stderr(`meshdoctor: --suppress ${printable(r.spec)} matched no finding\n`);
    if (o.allowPartial && o.strict) throw new UserError('--allow-partial and --strict cannot be used together');
    setExit(exitCode(result, o.failOn as FailOn, { allowPartial: !!o.allowPartial, strict: !!o.strict }));
  });

  addClusterOptions(
    program.command('snapshot').description('save what `check` reads (never Secret data) as JSON on stdout, for offline runs and bug reports'),
    false,
  ).action(async (o) => {
    validateScope(o);
    const { KIND_KEYS } = await import('./k8s/kinds.js');
    const { obtainSnapshot } = await import('./run/run.js');
    const { snapshotText } = await import('./cluster/snapshot-file.js');
    const p = progress(io);
    const snap = await obtainSnapshot({ ...o, limits: limitsOf(o), onProgress: p?.update }, [...KIND_KEYS]);
    p?.done();
    for (const chunk of snapshotText(snap)) io.stdout(chunk);
    const missing = Object.entries(snap.unavailable);
    for (const [k, why] of missing) io.stderr(`meshdoctor: ${k} not saved: ${printable(why)}\n`);
    for (const [k, where] of Object.entries(snap.unavailableIn ?? {}))
      for (const [ns, why] of Object.entries(where ?? {})) io.stderr(`meshdoctor: ${k} in namespace ${printable(ns)} not saved: ${printable(why)}\n`);
    setExit(EXIT.OK);
  });

  addClusterOptions(
    program
      .command('watch')
      .description('keep the checks current (LIST+WATCH); serve /metrics, /healthz, /readyz, /findings; NDJSON on stdout per finding opened or resolved')
      .option('--listen <addr>', 'where to serve: HOST:PORT, or :PORT for every interface (in a pod)', '127.0.0.1:9090')
      .option('--suppress <ID=Kind/ns/name>', 'suppress matching findings (as check does; repeatable)', collect)
      .addOption(new Option('--mesh <mesh>', 'which mesh to check').choices(['auto', ...MESH_NAMES]).default('auto'))
      .option('--only <ids>', 'run only these checks (ids or codes, comma-separated)', list)
      .option('--skip <ids>', 'skip these checks (ids or codes, comma-separated)', list)
      .option('--cert-expiry-warning <days>', 'warn when a certificate expires within this many days', positiveNumber('--cert-expiry-warning'), 60)
      .option(
        '--max-series <n>',
        'most series of meshdoctor_finding and of meshdoctor_workloads (the rest are counted)',
        positiveNumber('--max-series', 1_000_000),
        10_000,
      ),
    false,
  ).action(async (o) => {
    // Everything lives in src/watch/, loaded only for this command.
    validateScope(o);
    const { parseSuppressions } = await import('./run/suppress.js');
    const { runWatch } = await import('./watch/index.js');
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      const docsBase = docsBaseOf(io);
      await runWatch(
        {
          ...o,
          allNamespaces: !!o.allNamespaces,
          limits: limitsOf(o),
          certExpiryWarningDays: o.certExpiryWarning,
          suppress: parseSuppressions(o.suppress),
          maxSeries: Math.floor(o.maxSeries),
          version: VERSION,
          ...(docsBase ? { docsBase } : {}),
        },
        { stdout: io.stdout, stderr: io.stderr, signal: stop.signal },
      );
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    setExit(EXIT.OK);
  });

  addClusterOptions(
    program
      .command('explain')
      .argument('<kind/name>', 'the workload: deployment/NAME, statefulset/NAME, daemonset/NAME, job/NAME, cronjob/NAME, replicaset/NAME or pod/NAME')
      .description('walk one workload through the injection decision of every installed mesh, step by step')
      .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']))
      .addOption(new Option('--mesh <mesh>', 'which mesh to explain').choices(['auto', ...MESH_NAMES]).default('auto'))
      .option('--allow-partial', 'exit 0 instead of 3 when something the explanation or the checks need could not be read')
      .option('--no-color', 'disable colors (also: NO_COLOR, or stdout not a terminal)'),
    true,
    false,
  ).action(async (targetArg: string, o) => {
    validateScope(o);
    const deadline = await runDeadline(io, limitsOf(o));
    const { parseTarget, explain } = await import('./run/explain.js');
    const target = parseTarget(targetArg);
    const { CHECKS } = await import('./checks/index.js');
    const { kindsFor, makeModel, obtainSnapshot, runChecks } = await import('./run/run.js');
    const snapshot = await obtainSnapshot({ ...o, limits: limitsOf(o) }, kindsFor(CHECKS));
    const ns = o.namespace ?? snapshot.scope.namespace ?? 'default';
    const scoped = { ...snapshot, scope: { allNamespaces: false, namespace: ns } };
    const model = makeModel(scoped, { mesh: o.mesh, certExpiryWarningDays: 60, deadline });
    const result = runChecks(scoped, CHECKS, { mesh: o.mesh, certExpiryWarningDays: 60, deadline }, model);
    const e = explain(model, target, ns, result.findings, result);
    if (o.output === 'json') {
      io.stdout(JSON.stringify({ schemaVersion: 2, tool: { name: 'meshdoctor', version: VERSION }, ...e }, null, 2) + '\n');
    } else {
      const { renderExplanation } = await import('./report/explain.js');
      io.stdout(renderExplanation(e, o.color !== false && io.stdoutTTY && !io.env.NO_COLOR, widthOf(io)));
    }
    // Findings do not decide explain's exit code; what was not read does, as for check (3, incomplete).
    setExit(result.coverage.complete || o.allowPartial ? EXIT.OK : EXIT.INCOMPLETE);
  });

  program
    .command('checks')
    .argument('[check]', 'a check id or code: print its documentation (shipped with meshdoctor, no network)')
    .description("list every check (id, code, default severity, title), or print one check's documentation")
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (which: string | undefined, o) => {
      // The catalog only: listing the checks loads no check, model or mesh profile.
      const { CHECK_META: CHECKS } = await import('./checks/catalog.js');
      const { docsUrl } = await import('./checks/define.js');
      if (which !== undefined) {
        const c = CHECKS.find((x) => x.id === which.toLowerCase() || x.code.toLowerCase() === which.toLowerCase());
        if (!c) throw new UserError(`unknown check "${which}" (see: meshdoctor checks)`);
        let doc: string;
        try {
          doc = readFileSync(new URL(`../docs/checks/${c.id}.md`, import.meta.url), 'utf8');
        } catch {
          throw new UserError(`the documentation of ${c.id} is not installed (docs/checks/${c.id}.md)`);
        }
        io.stdout(
          o.output === 'json'
            ? JSON.stringify(
                { id: c.id, code: c.code, severity: c.severity, title: c.title, description: c.description, inputs: [...c.inputs], doc },
                null,
                2,
              ) + '\n'
            : doc,
        );
        setExit(EXIT.OK);
        return;
      }
      const base = docsBaseOf(io);
      const rows = CHECKS.map((c) => ({
        id: c.id,
        code: c.code,
        severity: c.severity,
        title: c.title,
        description: c.description,
        inputs: [...c.inputs],
        ...(base ? { docsUrl: docsUrl(c.id, base) } : {}),
      }));
      if (o.output === 'json') io.stdout(JSON.stringify(rows, null, 2) + '\n');
      else {
        const w = Math.max(...rows.map((r) => r.id.length));
        io.stdout(
          ['CODE    SEVERITY  ' + 'ID'.padEnd(w) + '  TITLE', ...rows.map((r) => `${r.code}  ${r.severity.padEnd(8)}  ${r.id.padEnd(w)}  ${r.title}`)].join(
            '\n',
          ) + '\n',
        );
        io.stdout('\nDocumentation of one check: meshdoctor checks ID\n');
      }
      setExit(EXIT.OK);
    });

  program
    .command('completion')
    .description('print a shell completion script: source <(meshdoctor completion bash)')
    .addArgument(program.createArgument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action(async (shell: 'bash' | 'zsh') => {
      const { completionScript } = await import('./cli/completion.js');
      const { CHECK_META: CHECKS } = await import('./checks/catalog.js');
      io.stdout(
        completionScript(
          shell,
          program,
          CHECKS.flatMap((c) => [c.id, c.code]),
        ),
      );
      setExit(EXIT.OK);
    });

  return program;
}

/**
 * 2: a check failed internally; 1: findings at or above --fail-on; 3: some checks could not run,
 * or could not see everything (a kind refused in a namespace), and no finding decided (--strict:
 * also when one did; --allow-partial: never); else 0.
 */
export function exitCode(
  result: { findings: { severity: string }[]; skipped: unknown[]; errors?: string[]; coverage?: { complete: boolean } },
  failOn: FailOn,
  partial: { allowPartial?: boolean; strict?: boolean } = {},
): number {
  if (result.errors?.length) return EXIT.ERROR;
  // Incomplete: checks skipped, or (coverage) a kind not read in some namespace they look at.
  const incomplete = (result.skipped.length > 0 || result.coverage?.complete === false) && !partial.allowPartial;
  if (incomplete && partial.strict) return EXIT.INCOMPLETE;
  const order = ['error', 'warning', 'info'];
  const limit = failOn === 'none' ? -1 : order.indexOf(failOn);
  if (result.findings.some((f) => order.indexOf(f.severity) <= limit)) return EXIT.FINDINGS;
  return incomplete ? EXIT.INCOMPLETE : EXIT.OK;
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
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are successes; any other commander error is a usage error (exit 2, not 1).
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.OK;
      return EXIT.ERROR;
    }
    io.stderr(`meshdoctor: ${errorLine(e)}\n`);
    return EXIT.ERROR;
  }
}

/** One line for any error: a UserError's message, else "internal error", never a stack trace. */
export function errorLine(e: unknown): string {
  if (e instanceof UserError) return printable(e.message);
  return `internal error: ${printable(errorMessage(e))} (please report this with the output of --version)`;
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
    readStdin: async (maxBytes) => {
      const { decodeText, readStreamBounded } = await import('./util/io.js');
      return decodeText(await readStreamBounded(process.stdin, maxBytes, 'stdin'));
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
  const code = await main(process.argv.slice(2), io, invoked.startsWith('kubectl-meshdoctor') ? 'kubectl meshdoctor' : 'meshdoctor');
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
