import { docsUrl } from '../checks/define.js';
import { printable } from '../util/errors.js';
import type { Severity } from '../util/types.js';
import type { Finding } from '../run/result.js';
import type { Reporter } from './reporter.js';

/**
 * `-o sarif`: SARIF 2.1.0 for code-scanning UIs (GitHub, Azure DevOps, GitLab). One rule per
 * selected check, one result per finding, suppressed findings as results with `suppressions` (so
 * the UI shows them as dismissed), skipped checks and internal errors as tool notifications.
 * Findings from `check -f` point at their manifest file; the rest have only a logical location
 * (the Kubernetes resource), which some UIs (GitHub code scanning) do not display.
 */
const LEVEL: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'note' };

const pascal = (id: string) => id.replace(/(^|-)([a-z])/g, (_, _d, c: string) => c.toUpperCase());
const qualifiedName = (f: Finding) => [f.resource.kind, f.resource.namespace, f.resource.name].filter((p) => p !== undefined).join('/');
/** Text a code-scanning UI shows: one line, control characters shown escaped (a newline could fake a line of the alert). */
const one = (s: string) => printable(s, 2000);

export const sarif: Reporter = (result, meta) => {
  const index = new Map(result.checks.map((c, i) => [c.id, i]));
  const toResult = (f: Finding, suppression?: string) => ({
    ruleId: f.id,
    ruleIndex: index.get(f.id) ?? -1,
    level: LEVEL[f.severity],
    message: { text: one(f.message) },
    locations: [
      {
        // '-' (stdin) is not a file a UI could open.
        ...(f.source && f.source.file !== '-' ? { physicalLocation: { artifactLocation: { uri: encodeURI(f.source.file.replaceAll('\\', '/')) } } } : {}),
        logicalLocations: [{ kind: 'resource', fullyQualifiedName: one(qualifiedName(f)) }],
      },
    ],
    // Stable identity across runs, so that a code-scanning alert is tracked, not re-opened.
    partialFingerprints: { 'meshdoctor/v1': `${f.id}:${qualifiedName(f)}:${f.mesh}` },
    ...(suppression ? { suppressions: [{ kind: suppression.startsWith('flag') ? 'external' : 'inSource', justification: one(suppression) }] } : {}),
    properties: {
      code: f.code,
      mesh: f.mesh,
      evidence: f.evidence,
      fix: f.fix,
      affectedPods: f.affectedPods,
      ...(f.source ? { source: f.source } : {}),
    },
  });
  /** The reasons of the kinds that kept a check from running (said once per kind in coverage). */
  const whyNot = (r: typeof result, check: string) => {
    const why = r.coverage.unavailable
      .filter((u) => u.checks.includes(check))
      .map((u) => `${u.kind}${u.namespace !== undefined ? ` in namespace ${one(u.namespace)}` : ''}: ${one(u.reason)}`);
    return why.length ? ` (${why.join('; ')})` : '';
  };
  const notifications = [
    ...result.skipped.map((s) => ({
      level: 'warning',
      message: { text: `check ${s.check} not run: ${one(s.reason)}${whyNot(result, s.check)}` },
      ...(index.has(s.check) ? { associatedRule: { id: s.check, index: index.get(s.check) } } : {}),
    })),
    // A kind read in the scope but not in another namespace: the checks ran, not on everything.
    ...result.coverage.unavailable
      .filter((u) => u.namespace !== undefined)
      .map((u) => ({
        level: 'warning',
        message: { text: `${u.kind} in namespace ${one(u.namespace!)} not read: ${one(u.reason)}; what the checks look for there was not examined` },
      })),
    ...(result.errors ?? []).map((e) => ({ level: 'error', message: { text: one(e) } })),
  ];
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'meshdoctor',
            version: meta.version,
            ...(result.docsBase ? { informationUri: result.docsBase } : {}),
            rules: result.checks.map((c) => ({
              id: c.id,
              name: pascal(c.id),
              shortDescription: { text: c.title },
              fullDescription: { text: c.description },
              ...(result.docsBase ? { helpUri: docsUrl(c.id, result.docsBase) } : {}),
              defaultConfiguration: { level: LEVEL[c.severity] },
              properties: { code: c.code },
            })),
          },
        },
        invocations: [{ executionSuccessful: !result.errors?.length, toolExecutionNotifications: notifications }],
        results: [...result.findings.map((f) => toResult(f)), ...result.suppressed.map((s) => toResult(s.finding, s.reason))],
        properties: { source: result.source, scope: result.scope, meshes: result.meshes, summary: result.summary },
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
};
