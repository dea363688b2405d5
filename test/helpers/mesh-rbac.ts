/**
 * deploy/mesh-rbac/<mesh>.yaml (the default: ConfigMaps by name, no Secret) with the rules of its
 * opt-in deploy/mesh-rbac/secrets/<mesh>.yaml merged into the same Role: for the real-server tests
 * of a user that reads everything, bound to Role meshdoctor-reader as the README says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseObjects } from './fixtures.js';

const ROOT = join(import.meta.dirname, '..', '..');

export function meshRbacWithSecrets(mesh: string): any[] {
  const objects = parseObjects(readFileSync(join(ROOT, `deploy/mesh-rbac/${mesh}.yaml`), 'utf8')) as any[];
  const optIn = join(ROOT, `deploy/mesh-rbac/secrets/${mesh}.yaml`);
  if (!existsSync(optIn)) return objects;
  const extra = (parseObjects(readFileSync(optIn, 'utf8')) as any[]).find((o) => o.kind === 'Role')!.rules;
  return objects.map((o) => (o.kind === 'Role' ? { ...o, rules: [...(o.rules ?? []), ...extra] } : o));
}
