/**
 * One cluster read and checked, shared by `check` (src/cli/check.ts) and a fleet's run of it for
 * each cluster (src/cli/fleet.ts): the same code path, never a fork of it.
 */
import { printable } from '../util/errors.js';
import type { Deadline } from '../util/deadline.js';
import type { Limits } from '../util/limits.js';
import { docsBaseOf, progress, type IO } from './io.js';
import { impersonationOf, limitsOf, type OptionsOf } from './options.js';

export type CheckOptions = OptionsOf<'check'>;

/** What every cluster of a run shares: the checks, the suppressions, the selection, the run's modules. */
export async function prepareCheck(o: CheckOptions, io: IO) {
  const run = await import('../run/run.js');
  const { openSession } = await import('../run/session.js');
  const { REPORTERS } = await import('../report/index.js');
  const { parseSuppressions } = await import('../run/suppress.js');
  const suppress = parseSuppressions(o.suppress);
  const docsBase = docsBaseOf(io);
  // The checks, their read plan and the options of every run of them: the same session as explain and watch.
  const session = openSession({
    only: o.only,
    skip: o.skip,
    mesh: o.mesh,
    certExpiryWarningDays: o.certExpiryWarning,
    suppress,
    ...(docsBase ? { docsBase } : {}),
  });
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
  return {
    run,
    REPORTERS,
    session,
    config,
    checks: session.checks,
    suppress,
    selection,
    impersonate: impersonationOf(o),
  };
}
type Prepared = Awaited<ReturnType<typeof prepareCheck>>;

/**
 * One cluster read and checked: the live context (o.context, or `at.context` in a fleet), a
 * snapshot, or manifests over either. `at.limits`: a fleet's, whose --timeout is what is left of the
 * whole run's. The very same run for one cluster and for each of a fleet's.
 */
export async function runOnce(
  o: CheckOptions,
  io: IO,
  prep: Prepared,
  deadline: Deadline,
  at: { context?: string; snapshot?: string[]; limits?: Limits; quiet?: boolean },
) {
  const { run, session, suppress, selection, impersonate, config } = prep;
  const p = at.quiet ? undefined : progress(io);
  const snapOpts = {
    ...o,
    ...(at.context !== undefined ? { context: at.context } : {}),
    ...(at.snapshot ? { snapshot: at.snapshot } : {}),
    limits: at.limits ?? limitsOf(o),
    onProgress: p?.update,
    readStdin: (maxBytes: number) => io.readStdin(maxBytes, deadline),
    server: session.plan.server,
    ...(impersonate ? { impersonate } : {}),
  };
  let snapshot;
  if (o.filename) {
    // Manifests first: a bad file fails before the cluster is read.
    const { readManifests, manifestSnapshot } = await import('../run/manifests.js');
    const manifests = await readManifests(o.filename, !!o.recursive, snapOpts.readStdin, snapOpts.limits);
    snapshot = await manifestSnapshot(snapOpts, [...session.plan.kinds], manifests);
  } else {
    snapshot = await run.obtainSnapshot(snapOpts, [...session.plan.kinds]);
    run.assertNamespaceExists(snapshot);
  }
  p?.done();
  return run.runChecks(snapshot, session.checks, {
    ...session.options,
    suppress,
    expectMeshed: !!o.expectMeshed,
    ...(config ? { config } : {}),
    ...(selection ? { selection } : {}),
    namespaceScope: true,
    deadline,
  });
}

/**
 * What goes to stderr after the report: checks that failed, a --suppress that matched nothing in
 * any cluster, a selector that selected nothing; in a fleet each line names its context.
 */
export function afterReport(
  o: CheckOptions,
  io: IO,
  prep: Prepared,
  runs: { context?: string; result: Awaited<ReturnType<typeof runOnce>> }[],
): void {
  const ctx = (c: string | undefined) => (c === undefined ? '' : `context ${printable(c)}: `);
  for (const { context, result } of runs)
    for (const e of result.errors) io.stderr(`meshdoctor: ${ctx(context)}${printable(e)}\n`);
  // A --suppress that matched nothing is most likely a typo: say so (stderr: stdout stays the report).
  const used = new Set(runs.flatMap(({ result }) => result.suppressed.map((x) => x.reason)));
  for (const r of prep.suppress)
    if (!used.has(`flag --suppress ${r.spec}`))
      io.stderr(`meshdoctor: --suppress ${printable(r.spec)} matched no finding\n`);
  // An expired suppression stops suppressing: said once per entry (the report's config.expiredSuppressions too).
  const { config } = prep;
  for (const x of config?.expired ?? [])
    io.stderr(
      `meshdoctor: suppression ${printable(`${x.check}=${x.resource}`)} in ${printable(config!.file ?? '')} expired on ${printable(x.expires)} (owner ${printable(x.owner)}): no longer suppressing\n`,
    );
  // So is a selector that selects nothing (kubectl's "No resources found"): nothing was checked.
  for (const { context, result } of runs) {
    if (result.selection && result.selection.workloads.selected === 0) {
      const given = [
        o.selector !== undefined ? `-l ${o.selector}` : '',
        o.fieldSelector !== undefined ? `--field-selector ${o.fieldSelector}` : '',
      ].filter(Boolean);
      io.stderr(
        `meshdoctor: ${ctx(context)}${printable(given.join(' '))} selects none of the ${result.selection.workloads.total} workloads in scope\n`,
      );
    }
  }
}

/** Each check's page, docs/checks/ID.md as shipped (the rules' help in SARIF); a page not installed is left out. */
export async function checkPages(ids: string[]): Promise<Record<string, string>> {
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
