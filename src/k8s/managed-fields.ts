/**
 * When was an injection marker set? Read from `metadata.managedFields`: every entry whose
 * fieldsV1 owns the field carries the time its manager last changed one of its fields. The
 * latest such time is the latest moment the marker can have been (re)set: an upper bound, since
 * a manager's time also moves when it changes another field it owns. Unknown (undefined) when the
 * object has no managedFields (kubectl dumps without --show-managed-fields) or an owning entry
 * has no time.
 */
import { arr, isObj, time } from '../util/objects.js';

/** The latest time a manager set the field at this fieldsV1 path, e.g. ['f:metadata', 'f:labels', 'f:x']. */
export function fieldSetAt(obj: { metadata?: unknown } | undefined, path: string[]): Date | undefined {
  const entries = arr(
    isObj(obj?.metadata) ? (obj!.metadata as Record<string, unknown>).managedFields : undefined,
  ).filter(isObj);
  let latest: Date | undefined;
  for (const e of entries) {
    let node: unknown = e.fieldsV1;
    for (const p of path) node = isObj(node) ? node[p] : undefined;
    if (!isObj(node)) continue;
    const t = time(e.time);
    if (!t) return undefined; // an owner without a time could be the latest one
    if (!latest || t > latest) latest = t;
  }
  return latest;
}
