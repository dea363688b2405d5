/** `meshdoctor check`: read the cluster (or a snapshot, or manifests) once, run the checks, report, exit code. */
import { UserError, errorLine, printable } from '../util/errors.js';
import { exitCode } from './exit.js';
import { colorOf, docsBaseOf, progress, runDeadline, widthOf, type CommandContext, type IO } from './io.js';
import { addFlags, impersonationOf, limitsOf, validateScope, type OptionsOf } from './options.js';
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
  const deadline = await runDeadline(io, limitsOf(o)); // --timeout from here: the read, then the checks
  const { assertNamespaceExists, selectChecks, kindsFor, obtainSnapshot, runChecks, serverFor } =
    await import('../run/run.js');
  const { REPORTERS } = await import('../report/index.js');
  const checks = selectChecks(o.only, o.skip);
  const { parseSuppressions } = await import('../run/suppress.js');
  const suppress = parseSuppressions(o.suppress);
  // The configuration file and the baseline: a bad one fails before the cluster is read.
  const { loadRunConfig } = await import('../run/config.js');
  const config = loadRunConfig({
    ...(o.config !== undefined ? { config: o.config } : {}),
    ...(o.baseline !== undefined ? { baseline: o.baseline } : {}),
    cwd: io.cwd ?? process.cwd(),
    now: io.clock?.() ?? new Date(),
  });
  const { parseSelection } = await import('../run/select.js');
  const selection = parseSelection(o.selector, o.fieldSelector);
  const impersonate = impersonationOf(o);
  const p = progress(io);
  const snapOpts = {
    ...o,
    limits: limitsOf(o),
    onProgress: p?.update,
    readStdin: (maxBytes: number) => io.readStdin(maxBytes, deadline),
    server: serverFor(checks),
    ...(impersonate ? { impersonate } : {}),
  };
  let snapshot;
  if (o.filename) {
    // Manifests first: a bad file fails before the cluster is read.
    const { readManifests, manifestSnapshot } = await import('../run/manifests.js');
    const manifests = await readManifests(o.filename, !!o.recursive, snapOpts.readStdin, snapOpts.limits);
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
    ...(config ? { config } : {}),
    ...(selection ? { selection } : {}),
    ...(docsBase ? { docsBase } : {}),
    namespaceScope: true,
    deadline,
  });
  const color = colorOf(io, o.color);
  const meta = { version: VERSION, failOn: o.failOn };
  const format: string = o.outputFile ? (o.output ?? 'json') : (o.output ?? 'table');
  const ruleHelp = format === 'sarif' ? await checkPages(result.checks.map((c) => c.id)) : undefined;
  if (o.outputFile) {
    // The report goes to the file (never colored); a person at a terminal still sees the table.
    const text = REPORTERS[format]!(result, { ...meta, color: false, ...(ruleHelp ? { ruleHelp } : {}) });
    // Whole or not at all: a failed write leaves the previous report, and a link planted at the path is replaced, not followed.
    const { replaceFile } = await import('../util/io.js');
    replaceFile(o.outputFile, text, '--output-file');
    if (io.stdoutTTY) io.stdout(REPORTERS.table!(result, { ...meta, color, width: widthOf(io) }));
  } else {
    // Human output unless -o asks for a machine format, piped or not (kubectl's convention).
    io.stdout(REPORTERS[format]!(result, { ...meta, color, width: widthOf(io), ...(ruleHelp ? { ruleHelp } : {}) }));
  }
  for (const e of result.errors) io.stderr(`meshdoctor: ${printable(e)}\n`);
  // A --suppress that matched nothing is most likely a typo: say so (stderr: stdout stays the report).
  const used = new Set(result.suppressed.map((x) => x.reason));
  for (const r of suppress)
    if (!used.has(`flag --suppress ${r.spec}`))
      io.stderr(`meshdoctor: --suppress ${printable(r.spec)} matched no finding\n`);
  // An expired suppression stops suppressing: said once per entry (the report's config.expiredSuppressions too).
  for (const x of config?.expired ?? [])
    io.stderr(
      `meshdoctor: suppression ${printable(`${x.check}=${x.resource}`)} in ${printable(config!.file ?? '')} expired on ${printable(x.expires)} (owner ${printable(x.owner)}): no longer suppressing\n`,
    );
  // So is a selector that selects nothing (kubectl's "No resources found"): nothing was checked.
  if (result.selection && result.selection.workloads.selected === 0) {
    const given = [
      o.selector !== undefined ? `-l ${o.selector}` : '',
      o.fieldSelector !== undefined ? `--field-selector ${o.fieldSelector}` : '',
    ].filter(Boolean);
    io.stderr(
      `meshdoctor: ${printable(given.join(' '))} selects none of the ${result.selection.workloads.total} workloads in scope\n`,
    );
  }
  return exitCode(result, o.failOn, { allowPartial: !!o.allowPartial, strict: !!o.strict });
}

/** Each check's page, docs/checks/ID.md as shipped (the rules' help in SARIF); a page not installed is left out. */
async function checkPages(ids: string[]): Promise<Record<string, string>> {
  const { readFileSync } = await import('node:fs');
  const pages: Record<string, string> = {};
  for (const id of ids) {
    try {
      pages[id] = readFileSync(new URL(`../../docs/checks/${id}.md`, import.meta.url), 'utf8');
    } catch {
      // not installed: the rule's help falls back to its description
    }
  }
  return pages;
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
