/** `meshdoctor check`: read the cluster (or a snapshot, or manifests) once, run the checks, report, exit code. */
import { UserError, errorLine } from '../util/errors.js';
import { exitCode } from './exit.js';
import { colorOf, runDeadline, widthOf, type CommandContext, type IO } from './io.js';
import { addFlags, limitsOf, validateScope, type OptionsOf } from './options.js';
import { afterReport, checkPages, prepareCheck, runOnce } from './run-check.js';
import { VERSION } from './version.js';

type CheckOptions = OptionsOf<'check'>;

export function checkCommand({ program, io, setExit }: CommandContext): void {
  addFlags(
    program
      .command('check')
      .description('read the cluster (or a snapshot) once, run every check, print ranked findings with fixes'),
    'check',
  ).action(async (o: CheckOptions) => {
    try {
      setExit(await check(o, io));
    } catch (e) {
      // A CI step that uploads the SARIF `if: always()` must find it after a failed run too.
      if (o.output === 'sarif' && o.outputFile) await writeFailedSarif(o, io, e);
      throw e;
    }
  });
}

async function check(o: CheckOptions, io: IO): Promise<number> {
  validateScope(o);
  if (!o.filename && (o.recursive || o.expectMeshed))
    throw new UserError(`${o.recursive ? '-R/--recursive' : '--expect-meshed'} needs -f/--filename`);
  if (o.filename?.includes('-') && o.snapshot?.includes('-'))
    throw new UserError('stdin can be read once: -f - and --snapshot - cannot both be given');
  if (o.allowPartial && o.strict) throw new UserError('--allow-partial and --strict cannot be used together');
  const jsonpath = await jsonPathOf(o.output);
  const deadline = await runDeadline(io, limitsOf(o)); // --timeout from here: the read, then the checks
  const { readFleetIndex } = await import('../run/fleet.js');
  const index = readFleetIndex(o.snapshot, limitsOf(o).maxBytes);
  if (o.allContexts || o.contexts?.length || index) {
    if (jsonpath) throw new UserError('-o jsonpath reads one cluster: for a fleet use -o json with jq');
    const { checkFleet } = await import('./fleet.js');
    return checkFleet(o, io, deadline, index);
  }
  const prep = await prepareCheck(o, io);
  const result = await runOnce(o, io, prep, deadline, {});
  const meta = { version: VERSION, failOn: o.failOn };
  const format: string = o.outputFile ? (o.output ?? 'json') : (o.output ?? 'table');
  const report = jsonpath ?? prep.REPORTERS[format]!;
  const ruleHelp = format === 'sarif' ? await checkPages(result.checks.map((c) => c.id)) : undefined;
  const color = colorOf(io, o.color);
  if (o.outputFile) {
    // The report goes to the file (never colored); a person at a terminal still sees the table.
    const text = report(result, { ...meta, color: false, ...(ruleHelp ? { ruleHelp } : {}) });
    // Whole or not at all: a failed write leaves the previous report, and a link planted at the path is replaced, not followed.
    const { replaceFile } = await import('../util/io.js');
    replaceFile(o.outputFile, text, '--output-file');
    if (io.stdoutTTY) io.stdout(prep.REPORTERS.table!(result, { ...meta, color, width: widthOf(io) }));
  } else {
    // Human output unless -o asks for a machine format, piped or not (kubectl's convention).
    io.stdout(report(result, { ...meta, color, width: widthOf(io), ...(ruleHelp ? { ruleHelp } : {}) }));
  }
  afterReport(o, io, prep, [{ result }]);
  return exitCode(result, o.failOn, { allowPartial: !!o.allowPartial, strict: !!o.strict });
}

/** `-o jsonpath=TEMPLATE`: its reporter, the template parsed before anything is read (kubectl's one-line error). */
async function jsonPathOf(output: string | undefined) {
  if (!output?.startsWith('jsonpath=')) return undefined;
  const { compileJsonPath, jsonPathReporter } = await import('../report/jsonpath.js');
  return jsonPathReporter(compileJsonPath(output.slice('jsonpath='.length)));
}

/**
 * After a failed run (exit 2) with `-o sarif --output-file F`: F is written all the same (replaced
 * whole, as a report is), saying the run failed and why. Never a second error: if even this cannot
 * be written, the run's own error is the one reported.
 */
async function writeFailedSarif(o: CheckOptions, io: IO, e: unknown): Promise<void> {
  try {
    const { CHECK_META } = await import('../checks/catalog.js');
    const { namesCheck } = await import('../checks/lookup.js');
    const hit = (c: { id: string; code: string }, list?: string[]) => !!list?.some((x) => namesCheck(x, c));
    const checks = CHECK_META.filter((c) => (!o.only?.length || hit(c, o.only)) && !hit(c, o.skip));
    const { sarifFailure } = await import('../report/sarif.js');
    const docsBase =
      io.env.MESHDOCTOR_DOCS_URL && /^https?:\/\/[^\s]+$/.test(io.env.MESHDOCTOR_DOCS_URL)
        ? io.env.MESHDOCTOR_DOCS_URL
        : undefined;
    const text = sarifFailure(
      checks,
      errorLine(e),
      { version: VERSION, color: false, ruleHelp: await checkPages(checks.map((c) => c.id)) },
      docsBase,
    );
    const { replaceFile } = await import('../util/io.js');
    replaceFile(o.outputFile!, text, '--output-file');
  } catch {
    // the run's own error is reported by the caller
  }
}
