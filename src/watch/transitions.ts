/**
 * What `watch` writes on stdout: one NDJSON line per finding opened or resolved (for Loki, Fluent
 * Bit, any log pipeline), nothing else. A finding is the same finding while its check, mesh,
 * severity and resource stay the same (its message, pod count and fix may change: no line);
 * a severity change is one resolved and one opened line.
 */
import { escapeInvisible } from '../report/json.js';
import type { Finding } from '../run/result.js';

/** The identity of a finding across evaluations. */
const findingKey = (f: Finding): string =>
  [f.code, f.mesh, f.severity, f.resource.kind, f.resource.namespace ?? '', f.resource.name].join('\u0000');

/** Findings opened and resolved from `before` to `after` (duplicates of one identity counted). */
export function transitions(
  before: readonly Finding[],
  after: readonly Finding[],
): { opened: Finding[]; resolved: Finding[] } {
  const group = (fs: readonly Finding[]) => {
    const m = new Map<string, Finding[]>();
    for (const f of fs) {
      const k = findingKey(f);
      (m.get(k) ?? m.set(k, []).get(k)!).push(f);
    }
    return m;
  };
  const a = group(before);
  const b = group(after);
  const opened: Finding[] = [];
  const resolved: Finding[] = [];
  for (const [k, now] of b) opened.push(...now.slice(a.get(k)?.length ?? 0));
  for (const [k, was] of a) resolved.push(...was.slice(b.get(k)?.length ?? 0));
  return { opened, resolved };
}

/**
 * One line: the time of the evaluation, the transition, and the finding as `check -o json` has it
 * less its evidence (which can be long). JSON escapes every control character; U+2028 and U+2029,
 * which JSON leaves as they are, are escaped too (some log readers split lines on them), and so is
 * every invisible format character (a bidi override in a name: escapeInvisible).
 */
export function ndjsonLine(event: 'opened' | 'resolved', f: Finding, time: Date): string {
  const line = JSON.stringify({
    time: time.toISOString(),
    event,
    id: f.id,
    code: f.code,
    severity: f.severity,
    mesh: f.mesh,
    resource: f.resource,
    message: f.message,
    affectedPods: f.affectedPods,
    ...(f.causedBy ? { causedBy: f.causedBy } : {}),
    fix: f.fix,
  });
  return escapeInvisible(line) + '\n';
}
