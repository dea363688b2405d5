/**
 * What a cluster looks like to users with less than full read access: the snapshot gather would
 * make, from a snapshot of everything (test fixtures).
 */
import { KINDS, KIND_KEYS, type KindKey } from '../../src/k8s/kinds.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';

export const FORBIDDEN_IN = (kind: string, ns: string) =>
  `forbidden: User "alice" cannot list resource "${kind}" in API group "" in the namespace "${ns}"`;
export const FORBIDDEN_CLUSTER = (kind: string) =>
  `forbidden: User "alice" cannot list resource "${kind}" in API group "" at the cluster scope`;

/** The namespaced kinds gather lists (not those read by name). */
export const LISTED_NAMESPACED = KIND_KEYS.filter((k) => KINDS[k].namespaced && !KINDS[k].byName);

/**
 * What gather gives when `kinds` cannot be read in namespace `ns` (the scope is another one): a
 * listed kind keeps its other namespaces' objects and names `ns` in unavailableIn; a kind read by
 * name (ConfigMaps, Secrets), of which an object lives in `ns`, fails whole (as gather's named()).
 */
export function refuse(snap: Snapshot, ns: string, kinds: readonly KindKey[]): Snapshot {
  const objects: Snapshot['objects'] = { ...snap.objects };
  const unavailable: Snapshot['unavailable'] = { ...snap.unavailable };
  const unavailableIn: NonNullable<Snapshot['unavailableIn']> = { ...snap.unavailableIn };
  for (const k of kinds) {
    const list = snap.objects[k];
    if (!list) continue;
    if (KINDS[k].byName) {
      if (!list.some((o) => o.metadata?.namespace === ns)) continue;
      delete objects[k];
      unavailable[k] = FORBIDDEN_IN(k, ns);
      continue;
    }
    objects[k] = list.filter((o) => o.metadata?.namespace !== ns);
    unavailableIn[k] = { ...unavailableIn[k], [ns]: FORBIDDEN_IN(k, ns) };
  }
  return { ...snap, objects, unavailable, ...(Object.keys(unavailableIn).length ? { unavailableIn } : {}) };
}

/** `kinds` not read at all (forbidden cluster-wide): absent from objects, named in unavailable. */
export function without(snap: Snapshot, kinds: readonly KindKey[]): Snapshot {
  const objects: Snapshot['objects'] = { ...snap.objects };
  const unavailable: Snapshot['unavailable'] = { ...snap.unavailable };
  for (const k of kinds) {
    delete objects[k];
    unavailable[k] = FORBIDDEN_CLUSTER(k);
  }
  return { ...snap, objects, unavailable };
}

/**
 * What a namespaced Role shows: the cluster-scoped kinds forbidden, and only that namespace's
 * objects (ConfigMaps and Secrets, read by name in the mesh namespaces, unknown), scope -n.
 */
export function namespaceOnly(snap: Snapshot, ns: string): Snapshot {
  const objects: Snapshot['objects'] = {};
  const unavailable: Snapshot['unavailable'] = { ...snap.unavailable };
  for (const k of KIND_KEYS) {
    const list = snap.objects[k];
    if (!list) continue;
    if (!KINDS[k].namespaced) unavailable[k] = FORBIDDEN_CLUSTER(k);
    else if (KINDS[k].byName)
      unavailable[k] = 'the mesh namespaces are unknown: namespaces and mutatingwebhookconfigurations were not read';
    else objects[k] = list.filter((o) => o.metadata?.namespace === ns);
  }
  return { ...snap, scope: { allNamespaces: false, namespace: ns }, objects, unavailable };
}
