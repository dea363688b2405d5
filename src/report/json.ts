import type { Reporter } from './reporter.js';

/** `-o json`: the whole result, schema in schema/report.schema.json. */
export const json: Reporter = (result, meta) =>
  JSON.stringify(
    {
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
    },
    null,
    2,
  ) + '\n';
