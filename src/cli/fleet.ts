/**
 * `meshdoctor check --all-contexts` / `--contexts a,b` / `--snapshot DIR` of a fleet: each cluster
 * read and checked by the single-cluster run (runOnce), at most --max-parallel-contexts at a time,
 * each read under its own --request-timeout and all of them under the one --timeout. A cluster
 * that cannot be read is named with the reason; the others go on (docs/cli.md "A fleet").
 */
import type { Deadline } from '../util/deadline.js';
import { UserError, errorLine, printable } from '../util/errors.js';
import type { FleetEntry, FleetIndexEntry } from '../run/fleet.js';
import { afterReport, checkPages, prepareCheck, runOnce, type CheckOptions } from './run-check.js';
import { fleetExitCode } from './exit.js';
import { colorOf, widthOf, type IO } from './io.js';
import { limitsOf } from './options.js';
import { VERSION } from './version.js';

/** One cluster to read: a live context, or a snapshot file of a fleet directory. */
interface Target {
  context: string;
  server?: string;
  file?: string;
  unreachable?: string;
}

export async function checkFleet(
  o: CheckOptions,
  io: IO,
  deadline: Deadline,
  index: FleetIndexEntry[] | undefined,
): Promise<number> {
  if (o.filename?.length)
    throw new UserError('-f/--filename checks manifests against one cluster: not with --all-contexts or --contexts');
  if (o.output === 'name')
    throw new UserError('-o name lists the objects of one cluster: for a fleet use -o json (clusters[].findings)');
  if (o.snapshot?.length && !index)
    throw new UserError(
      '--snapshot with --all-contexts or --contexts needs a fleet snapshot directory (meshdoctor snapshot --all-contexts --output-dir DIR)',
    );
  const { mapBounded, selectContexts } = await import('../run/fleet.js');
  const prep = await prepareCheck(o, io);
  const limits = limitsOf(o);
  let targets: Target[];
  if (index) {
    const chosen = o.contexts?.length
      ? new Set(
          selectContexts(
            index.map((e) => ({ name: e.context })),
            o.contexts,
          ).map((c) => c.name),
        )
      : undefined;
    targets = index.filter((e) => !chosen || chosen.has(e.context));
  } else {
    const { kubeContexts } = await import('../cluster/kubeconfig.js');
    targets = selectContexts(await kubeContexts(o, limits), o.contexts).map((c) => ({
      context: c.name,
      ...(c.server ? { server: c.server } : {}),
    }));
  }
  const entries: FleetEntry[] = await mapBounded(targets, o.maxParallelContexts, async (t) => {
    const named = { context: t.context, ...(t.server ? { server: t.server } : {}) };
    if (t.unreachable !== undefined) return { ...named, unreachable: t.unreachable };
    if (index && !t.file) return { ...named, unreachable: 'the fleet index names no snapshot file for it' };
    const left = deadline.remainingMs();
    if (left <= 0)
      return { ...named, unreachable: `not read: the --timeout of ${o.timeout}s had passed before its turn` };
    try {
      const result = await runOnce(o, io, prep, deadline, {
        ...(index ? { snapshot: [t.file!] } : { context: t.context }),
        limits: { ...limits, deadlineMs: Math.min(limits.deadlineMs, left) },
        quiet: true,
      });
      const server = t.server ?? result.source.server;
      return { context: t.context, ...(server ? { server } : {}), result };
    } catch (e) {
      return { ...named, unreachable: errorLine(e) };
    }
  });
  const fleet = { clusters: entries };
  const { FLEET_REPORTERS } = await import('../report/fleet.js');
  const meta = { version: VERSION, failOn: o.failOn };
  const format: string = o.outputFile ? (o.output ?? 'json') : (o.output ?? 'table');
  const ids = entries.find((e) => e.result)?.result?.checks.map((c) => c.id) ?? [];
  const ruleHelp = format === 'sarif' ? await checkPages(ids) : undefined;
  const color = colorOf(io, o.color);
  const reporter = FLEET_REPORTERS[format];
  if (!reporter) throw new UserError(`-o ${format} has no fleet form`);
  if (o.outputFile) {
    const text = reporter(fleet, { ...meta, color: false, ...(ruleHelp ? { ruleHelp } : {}) });
    const { replaceFile } = await import('../util/io.js');
    replaceFile(o.outputFile, text, '--output-file');
    if (io.stdoutTTY) io.stdout(FLEET_REPORTERS.table!(fleet, { ...meta, color, width: widthOf(io) }));
  } else io.stdout(reporter(fleet, { ...meta, color, width: widthOf(io), ...(ruleHelp ? { ruleHelp } : {}) }));
  for (const e of entries)
    if (!e.result)
      io.stderr(`meshdoctor: context ${printable(e.context)} not read: ${printable(e.unreachable ?? '')}\n`);
  afterReport(
    o,
    io,
    prep,
    entries.flatMap((e) => (e.result ? [{ context: e.context, result: e.result }] : [])),
  );
  return fleetExitCode(entries, o.failOn, { allowPartial: !!o.allowPartial, strict: !!o.strict });
}
