import { createRequire } from 'node:module';
import type { Reporter } from './reporter.js';
import { json } from './json.js';

/**
 * `-o yaml` (kubectl's other machine format): the JSON report (schema/report.schema.json) as YAML.
 * Strings that need it are quoted (control characters escaped, so cluster text stays on its
 * line), long ones are never folded: a fix line stays one line to copy. The YAML library is loaded
 * only when this format is asked for (reporters are loaded for every command's -o choices).
 */
export function toYaml(value: unknown): string {
  const YAML = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return YAML.stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

export const yaml: Reporter = (result, meta) => toYaml(JSON.parse(json(result, meta)));
