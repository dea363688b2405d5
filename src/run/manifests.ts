/**
 * `check -f`: manifests about to be applied (files, directories, stdin), overlaid on the cluster
 * snapshot the way `kubectl apply` would change it, so that the checks judge each workload as it
 * will be created: from its template, with the cluster's webhooks, injectors, quotas and
 * ServiceAccounts (or those in the manifests).
 */
import { kindOf, type KindKey } from '../k8s/kinds.js';
import { expandPath, parseJson, parseYaml, readText, type Fail } from '../cluster/load.js';
import { sanitizeSecret } from '../cluster/sanitize.js';
import { UserError, errorMessage } from '../util/errors.js';
import { DEFAULT_LIMITS, type Limits } from '../util/limits.js';
import { obtainSnapshot, type SnapshotOptions } from './run.js';
import type { K8sObject, ManifestSource } from '../util/types.js';
import type { Snapshot } from '../k8s/snapshot.js';
import { isObj, nameOf, nsOf, str } from '../util/objects.js';

export interface ManifestObject {
  obj: K8sObject;
  source: ManifestSource;
}

interface Manifests {
  /** The files read, in order ('-' for stdin). */
  files: string[];
  objects: ManifestObject[];
}

const HELM_HOOK = 'helm.sh/hook';

/**
 * The Kubernetes objects of one document: the object, or a List's items. Anything else (a values
 * file, a comment-only or empty document) is not for Kubernetes and is ignored, as are Helm hooks
 * (tests, pre-install Jobs): Helm runs them at lifecycle points, they are not the release.
 */
function objectsOf(doc: unknown, out: K8sObject[]): void {
  const todo = [doc]; // iterative: Lists may hold Lists
  const seen = new Set<unknown>(); // and a YAML alias can make a List hold itself
  while (todo.length > 0) {
    const o = todo.pop();
    if (!isObj(o) || seen.has(o)) continue;
    seen.add(o);
    if (Array.isArray(o.items) && typeof o.kind === 'string' && o.kind.endsWith('List')) {
      for (let i = o.items.length - 1; i >= 0; i--) todo.push(o.items[i]); // reversed: popped in order
      continue;
    }
    if (typeof o.kind !== 'string' || typeof o.apiVersion !== 'string' || !isObj(o.metadata) || !str(o.metadata.name))
      continue;
    if (isObj(o.metadata.annotations) && o.metadata.annotations[HELM_HOOK] !== undefined) continue;
    out.push(o as K8sObject);
  }
}

/**
 * Parse one file's text into `out`: JSON when it looks like JSON (one document), else
 * multi-document YAML. At most `limits.maxObjects` objects in `out` (all files together).
 */
async function parse(file: string, text: string, out: ManifestObject[], limits: Limits): Promise<void> {
  const where = file === '-' ? 'stdin' : file;
  const fail: Fail = (why) => new UserError(`cannot read manifests ${where}: ${why}`);
  if (text.startsWith('\uFEFF')) text = text.slice(1); // a BOM (stdin is decoded by the CLI, a file by readText)
  // Lines from offsets, counted once through the text (the offsets come in order).
  let counted = 0;
  let line = 1;
  const lineAt = (offset: number) => {
    for (; counted < offset && counted < text.length; counted++) if (text.charCodeAt(counted) === 10) line++;
    return line;
  };
  const take = (doc: unknown, document: number, at: number) => {
    const objs: K8sObject[] = [];
    // A JSON array holds documents (kubectl reads it so); a List its items.
    for (const d of Array.isArray(doc) ? doc : [doc]) objectsOf(d, objs);
    for (const obj of objs) {
      if (out.length >= limits.maxObjects)
        throw new UserError(
          `cannot read manifests ${where}: more than ${limits.maxObjects} objects in the manifests (--max-objects)`,
        );
      out.push({ obj, source: { file, document, line: lineAt(at) } });
    }
  };
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    take(parseJson(text, fail), 1, text.length - trimmed.length);
    return;
  }
  // Documents are numbered as `---` separates them, empty ones included, so file#N finds the Nth.
  const starts: number[] = [];
  (await parseYaml(text, fail, starts)).forEach((doc, i) => take(doc, i + 1, starts[i] ?? 0));
}

/**
 * Read -f paths (files, directories, '-' for stdin) into the Kubernetes objects they hold. Bounded:
 * each file and stdin by limits.maxBytes, the objects of all of them by limits.maxObjects.
 */
export async function readManifests(
  paths: string[],
  recursive: boolean,
  readStdin: (maxBytes: number) => Promise<string>,
  limits: Limits = DEFAULT_LIMITS,
): Promise<Manifests> {
  if (paths.filter((p) => p === '-').length > 1) throw new UserError('-f - (stdin) can be given only once');
  const files: string[] = [];
  for (const p of paths) {
    if (p === '-') files.push('-');
    else {
      const found: { file: string; explicit: boolean }[] = [];
      expandPath(p, 'manifests', recursive, found);
      for (const f of found) files.push(f.file);
    }
  }
  if (files.length === 0)
    throw new UserError(`cannot read manifests ${paths.join(', ')}: no .json or .yaml files found`);
  const objects: ManifestObject[] = [];
  for (const file of files) {
    const fail: Fail = (why) => new UserError(`cannot read manifests ${file === '-' ? 'stdin' : file}: ${why}`);
    let text: string;
    try {
      text = file === '-' ? await readStdin(limits.maxBytes) : readText(file, 'manifests', limits.maxBytes, fail);
    } catch (e) {
      if (e instanceof UserError) throw e; // already names stdin or the file
      throw fail(errorMessage(e));
    }
    await parse(file, text, objects, limits);
  }
  // Nothing to check is more likely a broken pipeline (helm failed, wrong path) than a pass.
  if (objects.length === 0)
    throw new UserError(
      `no Kubernetes objects found in the manifests (${files.map((f) => (f === '-' ? 'stdin' : f)).join(', ')})`,
    );
  return { files, objects };
}

// Kinds meshdoctor does not read (Ingress, CRDs, RBAC) play no part: no check looks at them.
const NAMESPACED = (o: K8sObject) => kindOf(o.kind)?.namespaced === true;
const explicitNs = (o: K8sObject) => (NAMESPACED(o) ? str(o.metadata?.namespace) : undefined);

/**
 * The snapshot to overlay the manifests on. Live, one namespace is read when every namespaced
 * manifest object lands in it (the -n namespace, else the context's); otherwise the whole cluster.
 */
export async function manifestSnapshot(opts: SnapshotOptions, kinds: KindKey[], m: Manifests): Promise<Snapshot> {
  const namespaced = m.objects.filter((x) => NAMESPACED(x.obj));
  const explicit = [...new Set(namespaced.map((x) => explicitNs(x.obj)).filter((n): n is string => !!n))];
  const implicit = namespaced.some((x) => !explicitNs(x.obj));
  const target = opts.namespace ?? (implicit ? undefined : explicit[0]);
  const oneNs = explicit.every((n) => n === target) || (!implicit && explicit.length === 1);
  const live = !opts.snapshot?.length;
  const read =
    live && !opts.allNamespaces && oneNs
      ? { ...opts, namespace: target }
      : live
        ? { ...opts, allNamespaces: true }
        : opts;
  const snap = await obtainSnapshot(read, kinds);
  let defaultNs = opts.namespace ?? (snap.scope.allNamespaces ? undefined : snap.scope.namespace);
  if (!defaultNs && live && implicit) {
    const { resolveContext } = await import('../cluster/gather.js');
    defaultNs = (await resolveContext(opts)).namespace;
  }
  return overlayManifests(snap, m, defaultNs ?? 'default');
}

/**
 * Apply the manifests to a snapshot: an object replaces the cluster's object of the same
 * kind/namespace/name, a new one is added; namespaced objects without a namespace take
 * `defaultNs`, as kubectl apply does. The cluster's ReplicaSets, Jobs, pods and events owned by a
 * replaced object are dropped: they come from the old template. Kinds the snapshot could not read
 * stay unread (a check must not take one manifest object for the whole kind).
 */
export function overlayManifests(snap: Snapshot, m: Manifests, defaultNs: string): Snapshot {
  const objects: Snapshot['objects'] = Object.fromEntries(
    Object.entries(snap.objects).map(([k, list]) => [k, [...(list ?? [])]]),
  );
  const refs = new Map<string, NonNullable<Snapshot['manifests']>[number]>();
  const gone = new Set<string>();
  // Per kind: "namespace/name" (namespaced) or "name" -> the index of the first such object in
  // the list, built when a kind is first met, so that the overlay is linear, not objects x manifests.
  const indexes = new Map<KindKey, Map<string, number>>();
  const keyOf = (namespaced: boolean, ns: string, name: string) => (namespaced ? `${ns}/${name}` : name);
  for (const { obj, source } of m.objects) {
    const info = kindOf(obj.kind);
    if (!info) continue; // a kind meshdoctor does not read
    const o = structuredClone(obj);
    const ns = info.namespaced ? (str(o.metadata?.namespace) ?? defaultNs) : undefined;
    if (ns) o.metadata!.namespace = ns;
    else delete o.metadata!.namespace;
    const ref = { kind: String(o.kind), ...(ns ? { namespace: ns } : {}), name: nameOf(o) };
    refs.set(`${ref.kind}/${ns ?? ''}/${ref.name}`, { ref, source }); // the last document wins, as with kubectl apply
    const list = objects[info.key];
    if (!list) continue; // a kind the snapshot could not read
    let index = indexes.get(info.key);
    if (!index) {
      index = new Map();
      for (let j = 0; j < list.length; j++) {
        const k = keyOf(info.namespaced, nsOf(list[j]!), nameOf(list[j]!));
        if (!index.has(k)) index.set(k, j);
      }
      indexes.set(info.key, index);
    }
    const k = keyOf(info.namespaced, ns ?? '', ref.name);
    const i = index.get(k);
    const kept = info.key === 'secrets' ? sanitizeSecret(o) : o;
    if (i !== undefined) {
      const uid = str(list[i]!.metadata?.uid);
      if (uid) gone.add(uid);
      list[i] = kept;
    } else index.set(k, list.push(kept) - 1);
  }
  // Owners before what they own: Deployment -> ReplicaSet -> Pod, CronJob -> Job -> Pod.
  const owned = (o: K8sObject) => {
    const refs: unknown = o.metadata?.ownerReferences; // from a file: not always a list
    return Array.isArray(refs) && refs.some((r) => isObj(r) && gone.has(String(r.uid)));
  };
  for (const key of ['replicasets', 'jobs', 'pods'] as const) {
    objects[key] = objects[key]?.filter((o) => {
      if (!owned(o)) return true;
      const uid = str(o.metadata?.uid);
      if (uid) gone.add(uid);
      return false;
    });
    if (!objects[key]) delete objects[key];
  }
  if (objects.events)
    objects.events = objects.events.filter((e) => !(isObj(e.involvedObject) && gone.has(String(e.involvedObject.uid))));
  // kubectl apply fails on a namespace that neither the cluster nor the manifests hold.
  const namespaces = objects.namespaces?.length ? new Set(objects.namespaces.map(nameOf)) : undefined;
  for (const { ref } of refs.values()) {
    if (namespaces && ref.namespace && !namespaces.has(ref.namespace)) {
      throw new UserError(
        `namespace "${ref.namespace}" of ${ref.kind} ${ref.name} not found in the cluster nor in the manifests`,
      );
    }
  }
  return {
    ...snap,
    source: { ...snap.source, manifests: m.files },
    // Findings are limited to the manifests' objects, wherever they are: judge every namespace.
    scope: { allNamespaces: true },
    objects,
    manifests: [...refs.values()],
  };
}
