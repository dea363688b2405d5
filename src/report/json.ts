import { controlCharsButNewline } from '../util/errors.js';
import type { Reporter } from './reporter.js';

/**
 * JSON text with every invisible or separator character that JSON.stringify leaves raw (Unicode Cf:
 * bidi overrides, zero-width characters; U+2028/U+2029; DEL and C1 controls) written as a `\u` escape: the same value,
 * nothing a viewer of the file would not see. (JSON.stringify escapes C0 controls and lone surrogates itself.)
 */
export const escapeInvisible = (text: string): string =>
  // The line feeds are the layout's own line breaks: JSON.stringify escapes every one inside a string.
  text.replace(controlCharsButNewline(), (c) =>
    c.length === 2
      ? `\\u${c.charCodeAt(0).toString(16)}\\u${c.charCodeAt(1).toString(16)}`
      : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** `-o json`: the whole result, schema in schema/report.schema.json. */
export const json: Reporter = (result, meta) =>
  escapeInvisible(JSON.stringify(reportDoc(result, meta), null, 2)) + '\n';

/** The JSON report as a value: `-o json` of one cluster, and each entry of a fleet's (src/report/fleet.ts). */
export const reportDoc = (result: Parameters<Reporter>[0], meta: Parameters<Reporter>[1]) => ({
  schemaVersion: 2,
  tool: { name: 'meshdoctor', version: meta.version },
  source: result.source,
  scope: result.scope,
  ...(result.selection ? { selection: result.selection } : {}),
  ...(result.elsewhere ? { elsewhere: result.elsewhere } : {}),
  meshes: result.meshes,
  ...(result.meshesNotInstalled ? { meshesNotInstalled: result.meshesNotInstalled } : {}),
  summary: result.summary,
  findings: result.findings,
  suppressed: result.suppressed.map(({ finding: f, reason }) => ({
    id: f.id,
    code: f.code,
    resource: f.resource,
    reason,
  })),
  skipped: result.skipped,
  coverage: result.coverage,
  ...(result.config ? { config: result.config } : {}),
});
