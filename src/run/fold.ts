/**
 * One root cause, one finding. A finding whose fix is, as data, the fix of another finding that is
 * its cause (the other names it in `causedBy`, or is the root cause on the same object and mesh:
 * an invalid marker and the workload it leaves unmeshed) says nothing the root does not: it is
 * folded into the root as an `also` entry, in every format (one JUnit failure, one SARIF alert),
 * instead of being a second finding with the same fix. The root keeps the higher severity and
 * blast radius of the two, so neither the exit code nor the ranking changes.
 */
import type { AlsoFinding, Finding } from './result.js';
import type { Severity } from '../util/types.js';

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** JSON with object keys sorted: two fixes built apart compare equal when they are the same data. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

const refKey = (f: Finding) => `${f.resource.kind}/${f.resource.namespace ?? ''}/${f.resource.name}`;

const alsoOf = (f: Finding): AlsoFinding => ({
  id: f.id,
  code: f.code,
  severity: f.severity,
  title: f.title,
  message: f.message,
  resource: f.resource,
  affectedPods: f.affectedPods,
});

export function foldConsequences(findings: Finding[]): Finding[] {
  const fixOf = new Map(findings.map((f) => [f, f.fixData.length ? canonical(f.fixData) : undefined]));
  const byCause = new Map(findings.filter((f) => f.causeKey).map((f) => [f.causeKey!, f]));
  // Roots by object, mesh and fix: one lookup per finding (linear in the findings).
  const rootAt = new Map<string, Finding>();
  for (const r of findings) {
    const fix = fixOf.get(r);
    const at = `${r.mesh}\u0000${refKey(r)}\u0000${fix}`;
    if (r.causeKey && fix !== undefined && !rootAt.has(at)) rootAt.set(at, r);
  }
  const rootOf = (f: Finding): Finding | undefined => {
    const fix = fixOf.get(f);
    if (fix === undefined) return undefined;
    const named = f.causedBy ? byCause.get(f.causedBy) : undefined;
    if (named && named !== f && fixOf.get(named) === fix) return named;
    if (f.causeKey) return undefined; // a root itself: kept
    const root = rootAt.get(`${f.mesh}\u0000${refKey(f)}\u0000${fix}`);
    return root !== f ? root : undefined;
  };
  const folded = new Map<Finding, Finding[]>();
  const gone = new Set<Finding>();
  for (const f of findings) {
    const root = rootOf(f);
    if (!root || gone.has(root)) continue;
    gone.add(f);
    folded.set(root, [...(folded.get(root) ?? []), f]);
  }
  if (!gone.size) return findings;
  // A finding that named a folded one as its cause now names its root.
  const redirect = new Map<string, string>();
  for (const [root, also] of folded)
    for (const f of also) if (f.causeKey && root.causeKey) redirect.set(f.causeKey, root.causeKey);
  return findings
    .filter((f) => !gone.has(f))
    .map((f) => {
      const also = folded.get(f);
      const causedBy = f.causedBy && redirect.get(f.causedBy);
      if (!also && !causedBy) return f;
      const out: Finding = { ...f, ...(causedBy ? { causedBy } : {}) };
      if (also) {
        out.also = [...(f.also ?? []), ...also.map(alsoOf)];
        out.severity = [f, ...also].map((x) => x.severity).sort((a, b) => ORDER[a] - ORDER[b])[0]!;
        out.affectedPods = Math.max(f.affectedPods, ...also.map((x) => x.affectedPods));
      }
      return out;
    });
}
