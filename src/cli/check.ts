/** `meshdoctor check`: read the cluster (or a snapshot, or manifests) once, run the checks, report, exit code. */
import { UserError, printable } from '../util/errors.js';
import { exitCode } from './exit.js';
import { docsBaseOf, progress, runDeadline, widthOf, type CommandContext } from './io.js';
import { addFlags, limitsOf, validateScope, type OptionsOf } from './options.js';
import { VERSION } from './version.js';

export function checkCommand({ program, io, setExit }: CommandContext): void {
  addFlags(program.command('check').description('read the cluster (or a snapshot) once, run every check, print ranked findings with fixes'), 'check').action(
    async (o: OptionsOf<'check'>) => {
      validateScope(o);
      if (!o.filename && (o.recursive || o.expectMeshed)) throw new UserError(`${o.recursive ? '-R/--recursive' : '--expect-meshed'} needs -f/--filename`);
      const deadline = await runDeadline(io, limitsOf(o)); // --timeout from here: the read, then the checks
      const { assertNamespaceExists, selectChecks, kindsFor, obtainSnapshot, runChecks, serverInputsFor } = await import('../run/run.js');
      const { REPORTERS } = await import('../report/index.js');
      const checks = selectChecks(o.only, o.skip);
      const { parseSuppressions } = await import('../run/suppress.js');
      const suppress = parseSuppressions(o.suppress);
      const p = progress(io);
      const snapOpts = { ...o, limits: limitsOf(o), onProgress: p?.update };
      let snapshot;
      if (o.filename) {
        // Manifests first: a bad file fails before the cluster is read.
        const { readManifests, manifestSnapshot } = await import('../run/manifests.js');
        const manifests = await readManifests(o.filename, !!o.recursive, io.readStdin, snapOpts.limits);
        snapshot = await manifestSnapshot(snapOpts, kindsFor(checks), manifests, serverInputsFor(checks));
      } else {
        snapshot = await obtainSnapshot(snapOpts, kindsFor(checks), serverInputsFor(checks));
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
        const { replaceFile } = await import('../util/io.js');
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
      setExit(exitCode(result, o.failOn, { allowPartial: !!o.allowPartial, strict: !!o.strict }));
    },
  );
}
