/**
 * The pipeline: select checks -> obtain one snapshot (live or files) -> run the checks over one
 * Model -> rank. No printing here; the CLI renders the result.
 */
import { causeKey, isControlPlaneCause } from '../facts/causes.js';
import { CHECKS } from '../checks/index.js';
import { namesCheck, unknownCheck } from '../checks/lookup.js';
import { SECRETS_DECLINED, coverageOf } from './coverage.js';
import { DeadlineError, type Deadline } from '../util/deadline.js';
import { docsUrl, paramsOf, renderMessage } from '../checks/define.js';
import type { KindKey } from '../k8s/kinds.js';
import { gather, loadSnapshot } from './read.js';
import { UserError, errorMessage, printable } from '../util/errors.js';
import { guardFix } from '../util/shell.js';
import type { Limits } from '../util/limits.js';
import { Model } from '../facts/model.js';
import { rank } from './rank.js';
import { foldConsequences } from './fold.js';
import { applySuppressions, type SuppressRule } from './suppress.js';
import type { RunConfig } from './config.js';
import { elsewhereOf, scopeFindings, selectFindings, type Selection } from './select.js';
import { cmp, note } from '../util/objects.js';
import type { Scope, Severity } from '../util/types.js';
import type { Finding, RunResult, SkippedCheck } from './result.js';
import type { MeshName } from '../mesh/names.js';
import type { Snapshot } from '../k8s/snapshot.js';
import type { Impersonation } from '../cluster/kubeconfig.js';
import type { ServerInputKey } from '../k8s/server.js';
import type { Check } from '../checks/define.js';
import { render } from '../fix/render.js';
import { fixData } from '../fix/steps.js';

export type MeshOption = 'auto' | MeshName;

export interface SnapshotOptions {
  snapshot?: string[];
  allNamespaces?: boolean;
  namespace?: string;
  context?: string;
  kubeconfig?: string;
  /** --as, --as-group, --as-uid. */
  impersonate?: Impersonation;
  limits: Limits;
  onProgress?: (p: { kindsDone: number; kindsTotal: number; objects: number }) => void;
  /** `--snapshot -`: stdin, at most maxBytes. */
  readStdin?: (maxBytes: number) => Promise<string>;
  /** What to read of the API server itself (live only): the read plan's server reads (src/run/plan.ts), e.g. GET /version. */
  server?: readonly ServerInputKey[];
  /** --no-secrets (false): no Secret is read, live or from a file; coverage says so (SECRETS_DECLINED). */
  secrets?: boolean;
}

export interface RunOptions extends SnapshotOptions {
  mesh: MeshOption;
  only?: string[];
  skip?: string[];
  certExpiryWarningDays: number;
  /** --expect-meshed: manifest workloads that no mesh would inject are errors (will-not-be-meshed). */
  expectMeshed?: boolean;
  /** "now" for time-based checks; defaults to the time the snapshot was read, else the clock. */
  now?: Date;
  /** --suppress rules (parseSuppressions); meshdoctor.io/ignore annotations apply always. */
  suppress?: SuppressRule[];
  /** `.meshdoctor.yaml` / --config and --baseline (src/run/config.ts): severities, suppressions, excludes, known findings. */
  config?: RunConfig;
  /** MESHDOCTOR_DOCS_URL: the base URL of the published check pages (none: no docsUrl). */
  docsBase?: string;
  /** --timeout over the checks: asked between checks and per workload (none: unbounded, as in tests). */
  deadline?: Deadline;
  /** -l/--selector, --field-selector: only the findings that concern the selected workloads (src/run/select.ts). */
  selection?: Selection;
  /**
   * `check -n`: only the findings that concern the snapshot's namespace scope; the rest is counted
   * in `elsewhere` (src/run/select.ts scopeFindings). Not for -A, -f, nor explain and watch.
   */
  namespaceScope?: boolean;
}

/** The checks selected by --only / --skip; an unknown id is an error, not a silent no-op. */
export function selectChecks(only?: string[], skip?: string[]): Check[] {
  // Ids are kebab-case and codes upper-case; either is matched without regard to case (md1001).
  const known = new Set(CHECKS.flatMap((c) => [c.id, c.code.toLowerCase()]));
  for (const id of [...(only ?? []), ...(skip ?? [])]) {
    if (!known.has(id.toLowerCase())) throw new UserError(`${unknownCheck(id)} (see: meshdoctor checks)`);
  }
  const hit = (c: Check, list: string[]) => list.some((x) => namesCheck(x, c));
  return CHECKS.filter((c) => (!only?.length || hit(c, only)) && !(skip?.length && hit(c, skip)));
}

// The read plan of a set of checks (src/run/plan.ts), here too for the commands that import the pipeline.
export { kindsFor } from './plan.js';

/** Read the snapshot: files when --snapshot is given (no Kubernetes client loaded), else live. */
export async function obtainSnapshot(opts: SnapshotOptions, kinds: KindKey[]): Promise<Snapshot> {
  const scope: Scope | undefined = opts.allNamespaces
    ? { allNamespaces: true }
    : opts.namespace
      ? { allNamespaces: false, namespace: opts.namespace }
      : undefined;
  if (opts.secrets === false)
    return declineSecrets(await obtainSnapshot({ ...opts, secrets: true }, withoutSecrets(kinds)));
  if (opts.snapshot?.length) return loadSnapshot(opts.snapshot, scope, opts.limits, opts.readStdin);
  return gather({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
    namespace: opts.namespace,
    allNamespaces: !!opts.allNamespaces,
    kinds,
    limits: opts.limits,
    onProgress: opts.onProgress,
    ...(opts.server?.length ? { serverInputs: opts.server } : {}),
  });
}

/** What a report says of the configuration: the file, the suppressions past their expiry, the baseline. */
function configInfo(c: RunConfig): NonNullable<RunResult['config']> {
  return {
    ...(c.file ? { file: c.file } : {}),
    suppressions: c.active.length,
    expiredSuppressions: c.expired,
    ...(Object.keys(c.severity).length ? { severity: c.severity } : {}),
    ...(c.baseline ? { baseline: c.baseline } : {}),
  };
}

/** The kinds to read under --no-secrets: no Secret (they are never requested). */
export const withoutSecrets = (kinds: readonly KindKey[]): KindKey[] => kinds.filter((k) => k !== 'secrets');

/**
 * --no-secrets: no Secret in the snapshot (a snapshot file's are dropped too), and `unavailable`
 * says why (SECRETS_DECLINED): coverage reports the checks that need one as not run by choice.
 */
function declineSecrets(snapshot: Snapshot): Snapshot {
  const objects = { ...snapshot.objects };
  delete objects.secrets;
  return { ...snapshot, objects, unavailable: { ...snapshot.unavailable, secrets: SECRETS_DECLINED } };
}

/**
 * A namespace asked for with -n that the snapshot's namespace list lacks is a typo, not a healthy
 * namespace: say so instead of "no findings". (Unknowable when namespaces were not read.)
 */
export function assertNamespaceExists(snapshot: Snapshot): void {
  const ns = snapshot.scope.allNamespaces ? undefined : snapshot.scope.namespace;
  const known = snapshot.objects.namespaces;
  if (ns && known?.length && !known.some((o) => o.metadata?.name === ns))
    throw new UserError(`namespace "${ns}" not found`);
}

const refText = (f: Finding) => `${f.resource.kind}/${f.resource.namespace ?? ''}/${f.resource.name}`;

/**
 * `check -f`: the findings about the manifests' objects, each with the file and document it came
 * from, plus the control-plane causes (webhook broken, injector down or OOMKilled) of a mesh that
 * would inject one of their workloads: those stop them being meshed however they are written.
 */
function manifestFindings(findings: Finding[], m: Model): Finding[] {
  const injecting = new Set(
    m.manifestWorkloads.flatMap((w) =>
      m
        .decisions(w)
        .filter((d) => d.inject)
        .map((d) => d.mesh),
    ),
  );
  return findings.flatMap((f) => {
    const source = m.manifestSource(f.resource);
    if (source) return [{ ...f, source }];
    return f.cause && isControlPlaneCause(f.cause) && injecting.has(f.cause.mesh) ? [f] : [];
  });
}

/**
 * At most this many lines in one finding's fix, besides the line rootFirst puts first (docs/cli.md "Fix
 * lines"). Fixes that grow with the cluster summarise themselves (recreateAll); this is the last
 * bound for any other: the lines past it are counted in a comment line, never pasted half-read.
 */
export const MAX_FIX_LINES = 40;

export function capFix(lines: string[]): string[] {
  if (lines.length <= MAX_FIX_LINES) return lines;
  const left = lines.length - (MAX_FIX_LINES - 1);
  return [
    ...lines.slice(0, MAX_FIX_LINES - 1),
    `# ${left} more fix lines left out to keep this fix short: the evidence of this finding names the objects, see -o json`,
  ];
}

/** The longest message kept: messages are one sentence, and a cluster value in one is shown whole up to this. */
const MAX_MESSAGE = 2000;

/**
 * Fixes in the right order: a finding caused by another one in the report (pods without a proxy
 * because the injector is down) first says to fix that root cause: re-creating the pods before it
 * is fixed gives them no proxy again (with failurePolicy Ignore, silently).
 */
function rootFirst(findings: Finding[]): Finding[] {
  const byKey = new Map(findings.filter((f) => f.causeKey).map((f) => [f.causeKey!, f]));
  const rootOf = (f: Finding): Finding => {
    let r = f;
    for (let i = 0; i < 8 && r.causedBy && byKey.get(r.causedBy) && byKey.get(r.causedBy) !== r; i++)
      r = byKey.get(r.causedBy)!;
    return r;
  };
  return findings.map((f) => {
    const root = f.causedBy ? rootOf(f) : f;
    if (root === f || !f.fix.length) return f;
    const ref = `${note(root.resource.kind)} ${note(`${root.resource.namespace ? `${root.resource.namespace}/` : ''}${root.resource.name}`)}`;
    const first = `# fix ${root.code} ${root.id} on ${ref} first: until then re-created pods get no proxy`;
    return { ...f, fix: [first, ...f.fix], fixData: [{ kind: 'note', text: first.slice(2) }, ...f.fixData] };
  });
}

/** Run checks over a snapshot: skipped when a required kind is unavailable; never throws per check. */
type ModelOptions = Pick<
  RunOptions,
  | 'mesh'
  | 'certExpiryWarningDays'
  | 'now'
  | 'expectMeshed'
  | 'suppress'
  | 'config'
  | 'docsBase'
  | 'deadline'
  | 'selection'
  | 'namespaceScope'
>;

/** The Model checks run on; "now" is the time the snapshot was read unless given. */
export function makeModel(snapshot: Snapshot, opts: ModelOptions): Model {
  const readAt = snapshot.source.readAt ? new Date(snapshot.source.readAt) : undefined;
  const now = opts.now ?? (readAt && !Number.isNaN(readAt.getTime()) ? readAt : new Date());
  return new Model({
    snapshot,
    now,
    options: { certExpiryWarningDays: opts.certExpiryWarningDays, mesh: opts.mesh, expectMeshed: !!opts.expectMeshed },
    ...(opts.deadline ? { deadline: opts.deadline } : {}),
  });
}

export function runChecks(
  snapshot: Snapshot,
  checks: readonly Check[],
  opts: ModelOptions,
  model = makeModel(snapshot, opts),
): RunResult & { errors: string[] } {
  const findings: Finding[] = [];
  const skipped: SkippedCheck[] = [];
  const errors: string[] = [];
  for (const [i, check] of checks.entries()) {
    const missing = check.inputs.filter((k) => !snapshot.objects[k]);
    if (missing.length) {
      // The reasons are said once per kind, in coverage.unavailable.
      skipped.push({ check: check.id, reason: `cannot read ${missing.join(', ')}` });
      continue;
    }
    try {
      opts.deadline?.check();
      for (const f of check.run(model)) {
        opts.deadline?.check();
        findings.push({
          id: check.id,
          code: check.code,
          severity: opts.config?.severity[check.id] ?? f.severity ?? check.severity,
          mesh: f.mesh,
          title: f.title ?? check.title,
          // One line wherever it is shown (a CI tab, a terminal): cluster text with a newline cannot fake a line of the report.
          message: printable(renderMessage(check, f), MAX_MESSAGE),
          ...(f.messageId !== undefined ? { messageId: `${check.id}/${f.messageId}`, params: paramsOf(check, f) } : {}),
          resource: f.resource,
          evidence: f.evidence,
          fix: capFix(render(f.fix).map(guardFix)),
          fixData: fixData(f.fix),
          ...(opts.docsBase ? { docsUrl: docsUrl(check.id, opts.docsBase)! } : {}),
          affectedPods: f.affectedPods ?? 0,
          ...(f.causeKey ? { causeKey: causeKey(f.causeKey), cause: f.causeKey } : {}),
          ...(f.causedBy ? { causedBy: causeKey(f.causedBy) } : {}),
        });
      }
    } catch (e) {
      // --timeout passed: the run ends (one line, exit 2), saying where it stopped.
      if (e instanceof DeadlineError)
        throw new DeadlineError(`${e.message}: stopped in check ${check.id} (${i} of ${checks.length} checks done)`);
      // A check that trips over a malformed object must not take the run down with it.
      errors.push(`check ${check.id} failed: ${errorMessage(e)}`);
      skipped.push({ check: check.id, reason: `internal error: ${errorMessage(e)}` });
    }
  }
  // --mesh M reports on M alone: a check that judges pods (a hung Job, say) can find another mesh's.
  const ofMesh = opts.mesh === 'auto' ? findings : findings.filter((f) => f.mesh === opts.mesh);
  // Suppress before ranking, so that no kept finding names a suppressed one as its cause.
  const narrowed = snapshot.manifests ? manifestFindings(ofMesh, model) : ofMesh;
  // check -n: another mesh's control plane is set apart (elsewhere), never part of this namespace's findings.
  const ns = snapshot.scope.allNamespaces ? undefined : snapshot.scope.namespace;
  const scoped =
    opts.namespaceScope && ns !== undefined && !snapshot.manifests ? scopeFindings(narrowed, model, ns) : undefined;
  const inScope = scoped ? scoped.findings : narrowed;
  const selected = opts.selection ? selectFindings(inScope, model, opts.selection) : undefined;
  const configured = opts.config?.reasonFor;
  const { kept, suppressed } = applySuppressions(
    selected ? selected.findings : inScope,
    opts.suppress ?? [],
    model,
    configured,
  );
  const elsewhere = scoped
    ? elsewhereOf(rank(applySuppressions(scoped.elsewhere, opts.suppress ?? [], model, configured).kept), ns!)
    : undefined;
  const ranked = rootFirst(rank(foldConsequences(kept)));
  const count = (s: Severity) => ranked.filter((f) => f.severity === s).length;
  const notInstalled = model.askedNotInstalled();
  return {
    source: snapshot.source,
    scope: snapshot.scope,
    ...(selected ? { selection: selected.info } : {}),
    ...(elsewhere ? { elsewhere } : {}),
    meshes: model.meshes.map((m) => m.mesh),
    ...(notInstalled ? { meshesNotInstalled: [notInstalled] } : {}),
    checks: checks.map((c) => ({
      id: c.id,
      code: c.code,
      title: c.title,
      description: c.description,
      severity: c.severity,
      ...(c.messages ? { messages: c.messages } : {}),
    })),
    findings: ranked,
    suppressed: suppressed.sort(
      (a, b) => cmp(a.finding.code, b.finding.code) || cmp(refText(a.finding), refText(b.finding)),
    ),
    skipped,
    coverage: coverageOf(snapshot, checks, skipped),
    ...(opts.config ? { config: configInfo(opts.config) } : {}),
    ...(opts.docsBase ? { docsBase: opts.docsBase } : {}),
    errors,
    summary: {
      error: count('error'),
      warning: count('warning'),
      info: count('info'),
      total: ranked.length,
      suppressed: suppressed.length,
      checksRun: checks.length - skipped.length,
      checksSkipped: skipped.length,
    },
  };
}
