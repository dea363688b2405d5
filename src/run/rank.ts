import type { Severity } from '../util/types.js';
import type { Finding } from './result.js';
import { cmp } from '../util/objects.js';

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * Rank findings, most useful first: severity; then findings linked by cause (root causes first,
 * by their depth in the causedBy chain) before standalone ones; then blast radius (affected pods); then a stable order
 * (code, namespace, kind, name, message). Links to causes that were not found are dropped, so
 * `causedBy` always names a finding in the same report.
 */
export function rank(findings: Finding[]): Finding[] {
  const causes = new Set(findings.map((f) => f.causeKey).filter((k): k is string => !!k));
  const byCause = new Map(findings.filter((f) => f.causeKey).map((f) => [f.causeKey!, f]));
  const linked = findings.map((f) => {
    if (f.causedBy && !causes.has(f.causedBy)) {
      const { causedBy: _dropped, ...rest } = f;
      return rest as Finding;
    }
    return f;
  });
  const depth = (f: Finding, seen = new Set<Finding>()): number => {
    if (!f.causedBy || seen.has(f)) return 0;
    seen.add(f);
    const parent = byCause.get(f.causedBy);
    return parent && parent !== f ? 1 + depth(parent, seen) : 0;
  };
  const depths = new Map(linked.map((f) => [f, depth(f)]));
  // A chain (a cause and the findings it explains) goes before standalone findings, so that the
  // one root cause is said first and its consequences follow it.
  const referenced = new Set(linked.map((f) => f.causedBy).filter((k): k is string => !!k));
  const chain = (f: Finding) => (f.causedBy || (f.causeKey && referenced.has(f.causeKey)) ? 0 : 1);
  return linked.sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      chain(a) - chain(b) ||
      depths.get(a)! - depths.get(b)! ||
      b.affectedPods - a.affectedPods ||
      cmp(a.code, b.code) ||
      cmp(a.resource.namespace ?? '', b.resource.namespace ?? '') ||
      cmp(a.resource.kind, b.resource.kind) ||
      cmp(a.resource.name, b.resource.name) ||
      cmp(a.mesh, b.mesh) ||
      cmp(a.message, b.message),
  );
}
