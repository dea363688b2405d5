/**
 * Re-evaluation for `watch`: the checks run over snapshots the plan builds, and the result kept
 * as `check -o json` would print it.
 *
 * A full evaluation runs every check over the whole scope: its result is exactly `check`'s.
 * A namespace evaluation runs them over what `check -n NS` reads (that namespace, the meshes'
 * control planes, the cluster-scoped kinds) and replaces only the findings about NS's own
 * objects; findings about the control planes and cluster-scoped objects (a webhook, an injector,
 * a certificate, whose blast radius counts pods everywhere) keep the last full evaluation's until
 * the next one. The merged findings are ranked again (rank.ts is a function of the set). When the
 * namespace's evaluation sees other meshes than the last full one (a mesh known only from pods
 * elsewhere), its result is not used: the caller runs a full evaluation instead.
 *
 * A kind that was read and cannot be read any more (a RoleBinding removed: 403; a bound crossed)
 * is not news that its findings are fixed: the checks that read it (inputs or optional inputs)
 * keep their last findings, each marked `stale` with the reason, until it is read again; the
 * result's coverage says the kind is unavailable, as `check` says it. No finding of theirs is
 * resolved, and none opened from what is left, while it fails.
 */
import type { Check } from '../checks/define.js';
import { CATALOG, type CatalogEntry, type CheckId } from '../checks/catalog.js';
import type { KindKey } from '../k8s/kinds.js';
import { rank } from '../run/rank.js';
import { makeModel, runChecks, type RunOptions } from '../run/run.js';
import type { ResourceRef } from '../util/types.js';
import type { Finding, RunResult, SuppressedFinding } from '../run/result.js';
import type { Snapshot } from '../k8s/snapshot.js';
import { cmp } from '../util/objects.js';
import { workloadStates, type StateCount } from '../facts/workload-states.js';

type ModelOptions = Pick<RunOptions, 'mesh' | 'certExpiryWarningDays' | 'suppress' | 'docsBase'>;
export type Result = RunResult & { errors: string[] };

/** Kinds read once and failing now, with why (the kinds' `unavailable` reasons). */
type Failing = ReadonlyMap<KindKey, string>;

/** The partition of findings not about an app namespace's own objects. */
export const CLUSTER = '\u0000cluster';

/** The app namespace a finding is about (its resource's, or the Namespace it names), else CLUSTER. */
function partitionOf(ref: ResourceRef, controlPlane: ReadonlySet<string>): string {
  const ns = ref.namespace ?? (ref.kind === 'Namespace' ? ref.name : undefined);
  return ns && !controlPlane.has(ns) ? ns : CLUSTER;
}

/** A finding's partition: its resource's, or CLUSTER for a check whose findings count pods of every namespace. */
export function findingPartition(f: Pick<Finding, 'id' | 'resource'>, controlPlane: ReadonlySet<string>): string {
  const entry: CatalogEntry | undefined = Object.hasOwn(CATALOG, f.id) ? CATALOG[f.id as CheckId] : undefined;
  return entry?.spansNamespaces || entry?.readsOtherNamespaces ? CLUSTER : partitionOf(f.resource, controlPlane);
}

interface Part {
  findings: Finding[];
  suppressed: SuppressedFinding[];
  states: StateCount[];
}

const refText = (f: Finding) => `${f.resource.kind}/${f.resource.namespace ?? ''}/${f.resource.name}`;

export class Evaluator {
  private base: Result | undefined;
  private parts = new Map<string, Part>();
  private merged: Result | undefined;
  private states: StateCount[] = [];
  /** The failing kinds when the last full evaluation ran (a namespace evaluation under others needs a full one). */
  private baseFailing = '';

  constructor(
    private readonly checks: readonly Check[],
    private readonly options: ModelOptions,
  ) {}

  /** The current result (undefined before the first full evaluation). */
  get result(): Result | undefined {
    return this.merged;
  }

  /** Workloads by namespace, mesh and state, sorted. */
  get workloadStates(): readonly StateCount[] {
    return this.states;
  }

  /**
   * The findings of the checks that read a failing kind: the last ones known (marked stale), never
   * the ones computed without the kind. Everything else as computed.
   */
  private hold(result: Result, failing: Failing): Result {
    if (!failing.size) return result;
    const reasons = (c: Check) =>
      [...new Set([...c.inputs, ...(c.optionalInputs ?? [])])]
        .filter((k) => failing.has(k))
        .sort()
        .map((k) => `${k}: ${failing.get(k)}`);
    const held = new Map(this.checks.flatMap((c) => (reasons(c).length ? [[c.id, reasons(c)] as const] : [])));
    if (!held.size) return result;
    const before = this.merged?.findings ?? [];
    const findings = rank([
      ...result.findings.filter((f) => !held.has(f.id)),
      ...before
        .filter((f) => held.has(f.id))
        .map((f) => ({
          ...f,
          stale: `not examined now, the last finding seen is kept: could not read again ${held.get(f.id)!.join('; ')}`,
        })),
    ]);
    const count = (s: string) => findings.filter((f) => f.severity === s).length;
    return {
      ...result,
      findings,
      summary: {
        ...result.summary,
        error: count('error'),
        warning: count('warning'),
        info: count('info'),
        total: findings.length,
      },
    };
  }

  /** Every check over the whole scope. */
  full(snapshot: Snapshot, now: Date, controlPlane: ReadonlySet<string>, failing: Failing = new Map()): Result {
    const model = makeModel(snapshot, { ...this.options, now });
    const result = runChecks(snapshot, this.checks, { ...this.options, now }, model);
    const states = workloadStates(model);
    this.parts.clear();
    const part = (key: string) =>
      this.parts.get(key) ?? this.parts.set(key, { findings: [], suppressed: [], states: [] }).get(key)!;
    for (const f of result.findings) part(findingPartition(f, controlPlane)).findings.push(f);
    for (const s of result.suppressed) part(findingPartition(s.finding, controlPlane)).suppressed.push(s);
    for (const s of states) part(partitionOf({ kind: 'Namespace', name: s.namespace }, controlPlane)).states.push(s);
    this.base = result;
    this.baseFailing = [...failing.keys()].sort().join();
    // Exactly check's result, in its order (ties in rank keep the order the checks found them).
    this.merged = this.hold(result, failing);
    this.states = states;
    return this.merged;
  }

  /**
   * The checks over one app namespace (`snapshot`: as `check -n ns` reads it), replacing that
   * namespace's findings. Returns false, changing nothing, when a full evaluation is needed
   * instead: none ran yet, or this one sees other meshes.
   */
  namespace(
    ns: string,
    snapshot: Snapshot,
    now: Date,
    controlPlane: ReadonlySet<string>,
    failing: Failing = new Map(),
  ): boolean {
    const base = this.base;
    if (!base || controlPlane.has(ns) || [...failing.keys()].sort().join() !== this.baseFailing) return false;
    const model = makeModel(snapshot, { ...this.options, now });
    const result = runChecks(snapshot, this.checks, { ...this.options, now }, model);
    if (result.meshes.join() !== base.meshes.join()) return false;
    const mine = (f: Finding) => findingPartition(f, controlPlane) === ns;
    this.parts.set(ns, {
      findings: result.findings.filter((f) => mine(f)),
      suppressed: result.suppressed.filter((s) => mine(s.finding)),
      states: workloadStates(model).filter((s) => s.namespace === ns),
    });
    const parts = [...this.parts.values()];
    const findings = rank(parts.flatMap((p) => p.findings));
    const suppressed = parts
      .flatMap((p) => p.suppressed)
      .sort((a, b) => cmp(a.finding.code, b.finding.code) || cmp(refText(a.finding), refText(b.finding)));
    const count = (s: string) => findings.filter((f) => f.severity === s).length;
    this.merged = this.hold(
      {
        ...base,
        source: { ...base.source, readAt: now.toISOString() },
        findings,
        suppressed,
        errors: [...new Set([...base.errors, ...result.errors])],
        summary: {
          ...base.summary,
          error: count('error'),
          warning: count('warning'),
          info: count('info'),
          total: findings.length,
          suppressed: suppressed.length,
        },
      },
      failing,
    );
    this.states = parts
      .flatMap((p) => p.states)
      .sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.mesh, b.mesh) || cmp(a.state, b.state));
    return true;
  }
}
