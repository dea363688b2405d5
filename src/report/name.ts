import { kindOf } from '../k8s/kinds.js';
import type { Reporter } from './reporter.js';
import { clean } from './text.js';

/**
 * `-o name`, as kubectl prints it: one line per object the findings are about, `kind.group/name`
 * (`deployment.apps/cart`, `namespace/orders`), lower-case kind, no namespace (kubectl's
 * `-o name` prints none either), in the findings' ranked order, each object once. Pipe it:
 * `meshdoctor check -n shop -o name | xargs kubectl describe -n shop`. Nothing when there is no
 * finding; the exit code is the run's.
 */
export const name: Reporter = (result) => {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const f of result.findings) {
    const r = f.resource;
    const key = `${r.kind}/${r.namespace ?? ''}/${r.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const group = kindOf(r.kind)?.group;
    lines.push(clean(`${r.kind.toLowerCase()}${group ? `.${group}` : ''}/${r.name}`));
  }
  return lines.length ? lines.join('\n') + '\n' : '';
};
