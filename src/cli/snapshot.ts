/** `meshdoctor snapshot`: save what `check` reads (never Secret data) as JSON on stdout, or a fleet's into a directory. */
import { EXIT, UserError, errorLine, printable } from '../util/errors.js';
import type { Limits } from '../util/limits.js';
import { progress, type CommandContext, type IO } from './io.js';
import { addFlags, impersonationOf, limitsOf, validateScope, type OptionsOf } from './options.js';

type SnapshotOptions = OptionsOf<'snapshot'>;

export function snapshotCommand({ program, io, setExit }: CommandContext): void {
  addFlags(
    program
      .command('snapshot')
      .description('save what `check` reads (never Secret data) as JSON on stdout, for offline runs and bug reports'),
    'snapshot',
  ).action(async (o: SnapshotOptions) => {
    validateScope(o);
    if (o.allContexts || o.contexts?.length) {
      setExit(await snapshotFleet(o, io));
      return;
    }
    if (o.outputDir !== undefined)
      throw new UserError('--output-dir is for a fleet: with --all-contexts or --contexts');
    const { snapshotText } = await import('../cluster/snapshot-file.js');
    const snap = await readOne(o, io, {});
    for (const chunk of snapshotText(snap)) io.stdout(chunk);
    await sayMissing(snap, io, '');
    setExit(EXIT.OK);
  });
}

/** One cluster read for a snapshot: every kind, what the API server itself tells. */
async function readOne(o: SnapshotOptions, io: IO, at: { context?: string; limits?: Limits; quiet?: boolean }) {
  const { KIND_KEYS } = await import('../k8s/kinds.js');
  const { SERVER_INPUTS } = await import('../k8s/server.js');
  const { obtainSnapshot } = await import('../run/run.js');
  const p = at.quiet ? undefined : progress(io);
  const impersonate = impersonationOf(o);
  const snap = await obtainSnapshot(
    {
      ...o,
      ...(at.context !== undefined ? { context: at.context } : {}),
      limits: at.limits ?? limitsOf(o),
      onProgress: p?.update,
      server: SERVER_INPUTS,
      ...(impersonate ? { impersonate } : {}),
    },
    [...KIND_KEYS],
  );
  p?.done();
  return snap;
}

/** What was not saved, on stderr (`prefix`: the context of a fleet's snapshot). */
async function sayMissing(snap: Awaited<ReturnType<typeof readOne>>, io: IO, prefix: string): Promise<void> {
  const { SERVER_INPUTS, SERVER_INPUT_LABEL } = await import('../k8s/server.js');
  for (const [k, why] of Object.entries(snap.unavailable))
    io.stderr(`meshdoctor: ${prefix}${k} not saved: ${printable(why)}\n`);
  for (const [k, where] of Object.entries(snap.unavailableIn ?? {}))
    for (const [ns, why] of Object.entries(where ?? {}))
      io.stderr(`meshdoctor: ${prefix}${k} in namespace ${printable(ns)} not saved: ${printable(why)}\n`);
  // What was asked of the API server itself and refused or failed (optional: the snapshot is complete without it).
  for (const k of SERVER_INPUTS) {
    const p = snap.server?.[k];
    if (p && p.state !== 'read')
      io.stderr(`meshdoctor: ${prefix}${SERVER_INPUT_LABEL[k]} not saved: ${printable(p.reason)}\n`);
  }
}

/**
 * `snapshot --all-contexts --output-dir DIR`: one snapshot file per context (read as check reads a
 * fleet: --max-parallel-contexts at a time, all under --timeout) and DIR/meshdoctor-fleet.json
 * naming each context, its server, its file or why it could not be read; `check --snapshot DIR`
 * reads them back as the fleet. Exit 3 when a context could not be saved (the others are).
 */
async function snapshotFleet(o: SnapshotOptions, io: IO): Promise<number> {
  if (o.outputDir === undefined) throw new UserError('a fleet snapshot is one file per context: give --output-dir DIR');
  const { mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { FLEET_INDEX, FLEET_KIND, mapBounded, selectContexts, snapshotFileName } = await import('../run/fleet.js');
  const { kubeContexts } = await import('../cluster/kubeconfig.js');
  const { snapshotText } = await import('../cluster/snapshot-file.js');
  const { replaceFile } = await import('../util/io.js');
  const { runDeadline } = await import('./io.js');
  const limits = limitsOf(o);
  const deadline = await runDeadline(io, limits);
  const targets = selectContexts(await kubeContexts(o, limits), o.contexts);
  try {
    mkdirSync(o.outputDir, { recursive: true });
  } catch (e) {
    throw new UserError(`cannot create --output-dir ${o.outputDir}: ${errorLine(e)}`);
  }
  const taken = new Set<string>([FLEET_INDEX]);
  const files = targets.map((t) => snapshotFileName(t.name, taken));
  const entries = await mapBounded(
    targets.map((t, i) => ({ ...t, file: files[i]! })),
    o.maxParallelContexts,
    async (t) => {
      const named = { context: t.name, ...(t.server ? { server: t.server } : {}) };
      const left = deadline.remainingMs();
      if (left <= 0)
        return { ...named, unreachable: `not read: the --timeout of ${o.timeout}s had passed before its turn` };
      try {
        const snap = await readOne(o, io, {
          context: t.name,
          limits: { ...limits, deadlineMs: Math.min(limits.deadlineMs, left) },
          quiet: true,
        });
        replaceFile(join(o.outputDir!, t.file), [...snapshotText(snap)].join(''), '--output-dir');
        await sayMissing(snap, io, `context ${printable(t.name)}: `);
        return { ...named, file: t.file };
      } catch (e) {
        return { ...named, unreachable: errorLine(e) };
      }
    },
  );
  replaceFile(
    join(o.outputDir, FLEET_INDEX),
    JSON.stringify({ kind: FLEET_KIND, apiVersion: 'meshdoctor/v1', clusters: entries }, null, 2) + '\n',
    '--output-dir',
  );
  for (const e of entries)
    if ('unreachable' in e)
      io.stderr(`meshdoctor: context ${printable(e.context)} not saved: ${printable(e.unreachable)}\n`);
  return entries.some((e) => 'unreachable' in e) ? EXIT.INCOMPLETE : EXIT.OK;
}
