import { createRequire } from 'node:module';
import type { Reporter } from './reporter.js';
import { controlCharsButNewline, hasControl } from '../util/errors.js';
import { json } from './json.js';

/**
 * `-o yaml` (kubectl's other machine format): the JSON report (schema/report.schema.json) as YAML.
 * Strings that need it are quoted (control characters escaped, so cluster text stays on its
 * line), long ones are never folded: a fix line stays one line to copy. The YAML library is loaded
 * only when this format is asked for (reporters are loaded for every command's -o choices).
 */
export function toYaml(value: unknown): string {
  const YAML = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const doc = new YAML.Document(value, { aliasDuplicateObjects: false });
  // A string holding an invisible or control character (a bidi override in a name) is written
  // double-quoted, and each such character as a `\u` escape: the same value, nothing hidden.
  YAML.visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && hasControl(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  // The line feeds left are the layout's own: inside a double-quoted string one is written \n.
  return doc.toString({ lineWidth: 0 }).replace(controlCharsButNewline(), (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export const yaml: Reporter = (result, meta) => toYaml(JSON.parse(json(result, meta)));
