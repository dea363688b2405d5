/** `meshdoctor snapshot`: save what `check` reads (never Secret data) as JSON on stdout. */
import { EXIT, printable } from '../util/errors.js';
import { progress, type CommandContext } from './io.js';
import { addFlags, impersonationOf, limitsOf, validateScope, type OptionsOf } from './options.js';

export function snapshotCommand({ program, io, setExit }: CommandContext): void {
  addFlags(
    program
      .command('snapshot')
      .description('save what `check` reads (never Secret data) as JSON on stdout, for offline runs and bug reports'),
    'snapshot',
  ).action(async (o: OptionsOf<'snapshot'>) => {
    validateScope(o);
    const { KIND_KEYS } = await import('../k8s/kinds.js');
    const { SERVER_INPUTS, SERVER_INPUT_LABEL } = await import('../k8s/server.js');
    const { obtainSnapshot } = await import('../run/run.js');
    const { snapshotText } = await import('../cluster/snapshot-file.js');
    const p = progress(io);
    const impersonate = impersonationOf(o);
    const snap = await obtainSnapshot(
      {
        ...o,
        limits: limitsOf(o),
        onProgress: p?.update,
        server: SERVER_INPUTS,
        ...(impersonate ? { impersonate } : {}),
      },
      [...KIND_KEYS],
    );
    p?.done();
    for (const chunk of snapshotText(snap)) io.stdout(chunk);
    const missing = Object.entries(snap.unavailable);
    for (const [k, why] of missing) io.stderr(`meshdoctor: ${k} not saved: ${printable(why)}\n`);
    for (const [k, where] of Object.entries(snap.unavailableIn ?? {}))
      for (const [ns, why] of Object.entries(where ?? {}))
        io.stderr(`meshdoctor: ${k} in namespace ${printable(ns)} not saved: ${printable(why)}\n`);
    // What was asked of the API server itself and refused or failed (optional: the snapshot is complete without it).
    for (const k of SERVER_INPUTS) {
      const p = snap.server?.[k];
      if (p && p.state !== 'read')
        io.stderr(`meshdoctor: ${SERVER_INPUT_LABEL[k]} not saved: ${printable(p.reason)}\n`);
    }
    setExit(EXIT.OK);
  });
}
