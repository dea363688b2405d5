import { createHash } from 'node:crypto';
import { docsUrl, slotsOf } from '../checks/define.js';
import { printable } from '../util/errors.js';
import { escapeInvisible } from './json.js';
import type { Severity } from '../util/types.js';
import type { Finding, RunResult } from '../run/result.js';
import type { Reporter, ReportMeta } from './reporter.js';
import { fence, md } from './markdown.js';
import { clean } from './text.js';

/**
 * `-o sarif`: SARIF 2.1.0 for code-scanning UIs (GitHub, Azure DevOps, GitLab). One rule per
 * selected check, one result per finding, suppressed findings as results with `suppressions` (so
 * the UI shows them as dismissed), skipped checks and internal errors as tool notifications.
 *
 * What GitHub code scanning needs to take the file whole (github/docs
 * content/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning.md
 * @f0b7088b, and the SARIF validator's GitHub rules it points to, @microsoft/sarif-multitool 5.7.0
 * `validate --rule-kind Sarif;Gh`):
 * - every rule has shortDescription, fullDescription (at most 1000 characters) and `help` (text and
 *   markdown: the check's page, docs/checks/ID.md, when the CLI hands it in; GH2012);
 * - every result has a physical location: a result with only a logical location makes GitHub
 *   refuse the whole upload ("locationFromSarifResult: expected artifact location", an error
 *   github/codeql-action src/upload-lib.ts @f3f1edbe lists). `check -f` findings point at their
 *   manifest file and the line their document starts on; a cluster object has no file, so its
 *   location is the path Kind/namespace/name, line 1 (as Trivy locates an image's findings at the
 *   image name, pkg/report/sarif.go @d8a13ead), beside the logical location. Such a path names no
 *   file in the repository, so upload-sarif computes no fingerprint for it (src/fingerprints.ts
 *   @f3f1edbe): the result carries its own primaryLocationLineHash, stable across runs;
 * - a run has `results` even when it failed (upload-sarif refuses a run without the array);
 *   `invocations[0].executionSuccessful` false says the run failed (sarifFailure), which GitHub
 *   processes as an unsuccessful execution rather than as "no alerts".
 */
const LEVEL: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'note' };

const pascal = (id: string) => id.replace(/(^|-)([a-z])/g, (_, _d, c: string) => c.toUpperCase());
const qualifiedName = (f: Finding) =>
  [f.resource.kind, f.resource.namespace, f.resource.name].filter((p) => p !== undefined).join('/');
/** Text a code-scanning UI shows: one line, control characters shown escaped (a newline could fake a line of the alert). */
export const one = (s: string) => printable(s, 2000);
/** GitHub shows at most 1000 characters of a rule's fullDescription. */
const MAX_FULL_DESCRIPTION = 1000;
const cap = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A path of URI segments: each percent-encoded (a name cannot add a segment), `.` and `..` too. */
const uriPath = (parts: string[]) =>
  parts.map((p) => (p === '.' || p === '..' ? p.replaceAll('.', '%2E') : encodeURIComponent(p))).join('/');

/** The result's plain message: the finding's, then each consequence folded into it. */
const messageText = (f: Finding) =>
  [one(f.message), ...(f.also ?? []).map((a) => `Also ${a.code} ${a.id}: ${one(a.message)}`)].join(' ');

/** The result's markdown message: the finding, what was folded into it, and its fix to paste. */
function messageMarkdown(f: Finding): string {
  const parts = [md(f.message)];
  for (const a of f.also ?? []) parts.push(`Also \`${a.code}\` ${md(a.id)}: ${md(a.message)}`);
  if (f.fix.length) parts.push('**Fix:**', fence(f.fix.map(clean), 'sh'));
  return parts.join('\n\n');
}

type RuleCheck = Pick<RunResult['checks'][number], 'id' | 'code' | 'title' | 'description' | 'severity' | 'messages'>;

/**
 * A check's message templates as SARIF messageStrings (SARIF 2.1.0 §3.11.5, §3.49.11): each
 * `{param}` slot as its placeholder `{n}`, in the order of first appearance (slotsOf, the order of
 * a result's `arguments`), and any other brace doubled.
 */
function messageStrings(messages: Readonly<Record<string, string>>) {
  return Object.fromEntries(
    Object.entries(messages).map(([id, template]) => {
      const slots = slotsOf(template);
      const text = template
        .split(/(\{[A-Za-z0-9_]+\})/)
        .map((part, i) => (i % 2 ? `{${slots.indexOf(part.slice(1, -1))}}` : part.replace(/[{}]/g, (c) => c + c)))
        .join('');
      return [id, { text }];
    }),
  );
}

/** The result's message id (the rule's messageStrings key) and arguments, for a finding with a messageId. */
function messageRef(f: Finding, checks: ReadonlyMap<string, RuleCheck>) {
  const template = f.messageId ? checks.get(f.id)?.messages?.[f.messageId.slice(f.id.length + 1)] : undefined;
  if (template === undefined || !f.params) return {};
  return {
    id: f.messageId!.slice(f.id.length + 1),
    arguments: slotsOf(template).map((s) => one(String(f.params![s] ?? ''))),
  };
}

/** A rule per check: GitHub needs the descriptions and help; the help is the check's page when given. */
function rules(checks: readonly RuleCheck[], meta: Pick<ReportMeta, 'ruleHelp'>, docsBase: string | undefined) {
  return checks.map((c) => {
    const page = meta.ruleHelp?.[c.id];
    const fallback = `${c.description}\n\nThe check's documentation: meshdoctor checks ${c.id}`;
    return {
      id: c.id,
      name: pascal(c.id),
      shortDescription: { text: c.title },
      fullDescription: { text: cap(c.description, MAX_FULL_DESCRIPTION) },
      help: {
        text: page ?? fallback,
        markdown: page ?? `${c.description}\n\nThe check's documentation: \`meshdoctor checks ${c.id}\``,
      },
      ...(docsBase ? { helpUri: docsUrl(c.id, docsBase) } : {}),
      ...(c.messages ? { messageStrings: messageStrings(c.messages) } : {}),
      defaultConfiguration: { level: LEVEL[c.severity] },
      properties: { code: c.code, tags: ['kubernetes', 'service-mesh'] },
    };
  });
}

export const sarifTool = (meta: ReportMeta, checks: readonly RuleCheck[], docsBase: string | undefined) => ({
  driver: {
    name: 'meshdoctor',
    version: meta.version,
    semanticVersion: meta.version,
    ...(docsBase ? { informationUri: docsBase } : {}),
    rules: rules(checks, meta, docsBase),
  },
});

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/**
 * One run's results and notifications. `context`: a fleet run's cluster, the first segment of each
 * cluster object's location (`prod-eu/Deployment/shop/cart`) and part of its fingerprint, so that
 * the same object in two clusters is two alerts; notifications name it.
 */
export function sarifParts(result: RunResult, meta: ReportMeta, context?: string) {
  const index = new Map(result.checks.map((c, i) => [c.id, i]));
  const byId = new Map(result.checks.map((c) => [c.id, c]));
  const ctx = context === undefined ? [] : [context];
  const said = (text: string) => (context === undefined ? text : `context ${one(context)}: ${text}`);
  const toResult = (f: Finding, suppression?: string) => {
    const file = f.source && f.source.file !== '-' ? f.source : undefined;
    const fingerprint = `${context === undefined ? '' : `${context}:`}${f.id}:${qualifiedName(f)}:${f.mesh}`;
    return {
      ruleId: f.id,
      ruleIndex: index.get(f.id) ?? -1,
      level: LEVEL[f.severity],
      // GitHub shows a result's message: the fix there (markdown), not only in properties; and
      // the consequences folded into it (one alert per root cause).
      message: { ...messageRef(f, byId), text: messageText(f), markdown: messageMarkdown(f) },
      locations: [
        {
          physicalLocation: file
            ? {
                artifactLocation: { uri: encodeURI(file.file.replaceAll('\\', '/')) },
                region: { startLine: file.line ?? 1 },
              }
            : {
                artifactLocation: {
                  uri: uriPath([
                    ...ctx,
                    f.resource.kind,
                    ...(f.resource.namespace !== undefined ? [f.resource.namespace] : []),
                    f.resource.name,
                  ]),
                },
                region: { startLine: 1 },
              },
          logicalLocations: [{ kind: 'resource', fullyQualifiedName: one([...ctx, qualifiedName(f)].join('/')) }],
        },
      ],
      // Stable identity across runs, so that a code-scanning alert is tracked, not re-opened. A
      // manifest's line hash is upload-sarif's to compute from the file; a cluster object's is ours.
      partialFingerprints: {
        'meshdoctor/v1': fingerprint,
        ...(file
          ? {}
          : { primaryLocationLineHash: `${createHash('sha256').update(fingerprint).digest('hex').slice(0, 16)}:1` }),
      },
      ...(suppression
        ? {
            suppressions: [
              { kind: suppression.startsWith('flag') ? 'external' : 'inSource', justification: one(suppression) },
            ],
          }
        : {}),
      properties: {
        code: f.code,
        mesh: f.mesh,
        evidence: f.evidence,
        fix: f.fix,
        affectedPods: f.affectedPods,
        ...(f.also?.length ? { also: f.also } : {}),
        ...(f.source ? { source: f.source } : {}),
        ...(context !== undefined ? { context } : {}),
      },
    };
  };
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
      message: { text: said(`check ${s.check} not run: ${one(s.reason)}${whyNot(result, s.check)}`) },
      ...(index.has(s.check) ? { associatedRule: { id: s.check, index: index.get(s.check) } } : {}),
    })),
    // A kind read in the scope but not in another namespace: the checks ran, not on everything.
    ...result.coverage.unavailable
      .filter((u) => u.namespace !== undefined)
      .map((u) => ({
        level: 'warning',
        message: {
          text: said(
            `${u.kind} in namespace ${one(u.namespace!)} not read: ${one(u.reason)}; what the checks look for there was not examined`,
          ),
        },
      })),
    ...(result.errors ?? []).map((e) => ({ level: 'error', message: { text: said(one(e)) } })),
  ];
  const results = [
    ...result.findings.map((f) => toResult(f)),
    ...result.suppressed.map((s) => toResult(s.finding, s.reason)),
  ];
  return { results, notifications };
}

export const sarif: Reporter = (result, meta) => {
  const { results, notifications } = sarifParts(result, meta);
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: sarifTool(meta, result.checks, result.docsBase),
        invocations: [{ executionSuccessful: !result.errors?.length, toolExecutionNotifications: notifications }],
        results,
        properties: {
          source: result.source,
          scope: result.scope,
          ...(result.selection ? { selection: result.selection } : {}),
          meshes: result.meshes,
          summary: result.summary,
        },
      },
    ],
  };
  return escapeInvisible(JSON.stringify(log, null, 2)) + '\n';
};

/**
 * The SARIF of a run that failed (exit 2: a cluster that cannot be reached, a snapshot that cannot
 * be read, --timeout), for `--output-file`: the rules of the checks that were to run, no results,
 * `executionSuccessful: false` and the error, so that a CI step uploading it `if: always()` finds
 * the file and code scanning shows the failure instead of keeping a stale analysis quietly.
 */
export function sarifFailure(checks: readonly RuleCheck[], error: string, meta: ReportMeta, docsBase?: string): string {
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: sarifTool(meta, checks, docsBase),
        invocations: [
          {
            executionSuccessful: false,
            exitCode: 2,
            exitCodeDescription: 'the run could not be done',
            toolExecutionNotifications: [{ level: 'error', message: { text: one(error) } }],
          },
        ],
        results: [],
      },
    ],
  };
  return escapeInvisible(JSON.stringify(log, null, 2)) + '\n';
}
