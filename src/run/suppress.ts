/**
 * Suppressions: findings a team has decided to accept, taken out of `findings` (and so out of the
 * exit code) but always reported under `suppressed` with the reason, never silently dropped.
 *
 * - `--suppress ID=Kind/namespace/name` (cluster-scoped: `ID=Kind/name`); `*` is a wildcard in
 *   every part (`*=*\/kube-system/*`). Kinds compare case-insensitively, as kubectl's do.
 * - the annotation `meshdoctor.io/ignore: "id,code,..."` on the workload's pod template, on the
 *   workload object itself, or on the finding's namespace (or the Namespace the finding is about).
 */
import { CHECKS } from '../checks/index.js';
import { UserError } from '../util/errors.js';
import { unknownCheck } from '../checks/lookup.js';
import type { Model } from '../facts/model.js';
import { workloadByRef } from '../k8s/events.js';
import type { K8sObject } from '../util/types.js';
import type { Finding, SuppressedFinding } from './result.js';
import { isObj } from '../util/objects.js';

const IGNORE_ANNOTATION = 'meshdoctor.io/ignore';

export interface SuppressRule {
  spec: string;
  id: RegExp;
  kind: RegExp;
  namespace?: RegExp;
  name: RegExp;
}

const glob = (s: string, flags = '') =>
  new RegExp(
    `^${s
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    flags,
  );

/** Parse --suppress specs; a malformed one or an unknown check id (without `*`) is a usage error. */
export function parseSuppressions(specs: string[] = []): SuppressRule[] {
  const known = new Set(CHECKS.flatMap((c) => [c.id, c.code]));
  return specs.map((spec) => {
    const eq = spec.indexOf('=');
    const id = spec.slice(0, eq);
    const parts = spec.slice(eq + 1).split('/');
    if (eq <= 0 || (parts.length !== 2 && parts.length !== 3) || parts.some((p) => p === '')) {
      throw new UserError(
        `invalid --suppress "${spec}": expected ID=Kind/namespace/name or ID=Kind/name (* as wildcard)`,
      );
    }
    if (!id.includes('*') && !known.has(id))
      throw new UserError(`invalid --suppress "${spec}": ${unknownCheck(id)} (see: meshdoctor checks)`);
    const [kind, a, b] = parts as [string, string, string?];
    return b === undefined
      ? { spec, id: glob(id), kind: glob(kind, 'i'), name: glob(a) }
      : { spec, id: glob(id), kind: glob(kind, 'i'), namespace: glob(a), name: glob(b) };
  });
}

/** Whether a suppression pattern (a --suppress flag, a config file entry) names this finding. */
export function flagMatch(f: Finding, r: SuppressRule): boolean {
  const res = f.resource;
  // A 2-part pattern names cluster-scoped resources only, a 3-part one namespaced ones only.
  if ((r.namespace === undefined) !== (res.namespace === undefined)) return false;
  return (
    (r.id.test(f.id) || r.id.test(f.code)) &&
    r.kind.test(res.kind) &&
    (!r.namespace || r.namespace.test(res.namespace!)) &&
    r.name.test(res.name)
  );
}

/** The ids/codes listed in an object's meshdoctor.io/ignore annotation. */
function ignored(meta: unknown): string[] {
  const v = isObj(meta) && isObj(meta.annotations) ? meta.annotations[IGNORE_ANNOTATION] : undefined;
  return typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

/** Where an annotation ignores this finding, if anywhere: pod template, workload, namespace. */
function annotationReason(f: Finding, m: Model): string | undefined {
  const r = f.resource;
  const hit = (meta: unknown) => ignored(meta).some((x) => x === f.id || x === f.code);
  const w = r.namespace !== undefined ? workloadByRef(m, r.kind, r.namespace, r.name) : undefined;
  const where = `${r.kind} ${r.namespace}/${r.name}`;
  if (w && w.kind !== 'Pod' && hit(w.template.metadata))
    return `annotation ${IGNORE_ANNOTATION} on the pod template of ${where}`;
  if (w && hit((w.obj as K8sObject | undefined)?.metadata)) return `annotation ${IGNORE_ANNOTATION} on ${where}`;
  const ns = r.kind === 'Namespace' && r.namespace === undefined ? r.name : r.namespace;
  if (ns !== undefined && hit(m.namespace(ns)?.metadata)) return `annotation ${IGNORE_ANNOTATION} on Namespace ${ns}`;
  return undefined;
}

/** Split findings into kept and suppressed; the flag wins over annotations in the reason. */
export function applySuppressions(
  findings: Finding[],
  rules: SuppressRule[],
  m: Model,
  /** The configuration file and --baseline (src/run/config.ts): after the flags, before annotations. */
  configured?: (f: Finding) => string | undefined,
): { kept: Finding[]; suppressed: SuppressedFinding[] } {
  const kept: Finding[] = [];
  const suppressed: SuppressedFinding[] = [];
  for (const f of findings) {
    const rule = rules.find((r) => flagMatch(f, r));
    const reason = rule ? `flag --suppress ${rule.spec}` : (configured?.(f) ?? annotationReason(f, m));
    if (reason) suppressed.push({ finding: f, reason });
    else kept.push(f);
  }
  return { kept, suppressed };
}
