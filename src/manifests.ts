/**
 * `check -f`: manifests about to be applied (files, directories, stdin), overlaid on the cluster
 * snapshot the way `kubectl apply` would change it, so that the checks judge each workload as it
 * will be created: from its template, with the cluster's webhooks, injectors, quotas and
 * ServiceAccounts (or those in the manifests).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { kindOf, type KindKey } from './cluster/kinds.js';
import { sanitizeSecret } from './cluster/sanitize.js';
import { UserError, errorMessage } from './errors.js';
import { DEFAULT_LIMITS, type Limits } from './limits.js';
import { obtainSnapshot, type SnapshotOptions } from './run.js';
import type { K8sObject, ManifestSource, Snapshot } from './types.js';
import { isObj, nameOf, nsOf, str } from './util.js';

export interface ManifestObject {
  obj: K8sObject;
  source: ManifestSource;
}

export interface Manifests {
  /** The files read, in order ('-' for stdin). */
  files: string[];
  objects: ManifestObject[];
}

const FILE_EXT = /\.(json|ya?ml)$/i;
const HELM_HOOK = 'helm.sh/hook';

/** kubectl's -f: a file as given; a directory's .json/.yaml/.yml files, sorted (subdirectories only with -R). */
function expand(path: string, recursive: boolean, out: string[]): void {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new UserError(`cannot read manifests ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : errorMessage(e)}`);
  }
  if (!st.isDirectory()) {
    out.push(path);
    return;
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry.startsWith('.')) continue;
    const child = join(path, entry);
    if (statSync(child).isDirectory()) {
      if (recursive) expand(child, true, out);
    } else if (FILE_EXT.test(entry)) out.push(child);
  }
}

/**
 * The Kubernetes objects of one document: the object, or a List's items. Anything else (a values
 * file, a comment-only or empty document) is not for Kubernetes and is ignored, as are Helm hooks
 * (tests, pre-install Jobs): Helm runs them at lifecycle points, they are not the release.
 */
function objectsOf(doc: unknown): K8sObject[] {
  if (!isObj(doc)) return [];
  if (Array.isArray(doc.items) && typeof doc.kind === 'string' && doc.kind.endsWith('List')) return doc.items.flatMap(objectsOf);
  if (typeof doc.kind !== 'string' || typeof doc.apiVersion !== 'string' || !isObj(doc.metadata) || !str(doc.metadata.name)) return [];
  if (isObj(doc.metadata.annotations) && doc.metadata.annotations[HELM_HOOK] !== undefined) return [];
  return [doc as K8sObject];
}

/** Parse one file's text: JSON when it looks like JSON (one document), else multi-document YAML. */
async function parse(file: string, text: string): Promise<ManifestObject[]> {
  const where = file === '-' ? 'stdin' : file;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new UserError(`cannot read manifests ${where}: invalid JSON (${errorMessage(e).split('\n')[0]})`);
    }
    return (Array.isArray(doc) ? doc : [doc]).flatMap(objectsOf).map((obj) => ({ obj, source: { file, document: 1 } }));
  }
  const YAML = await import('yaml');
  const out: ManifestObject[] = [];
  // Documents are numbered as `---` separates them, empty ones included, so file#N finds the Nth.
  YAML.parseAllDocuments(text, { prettyErrors: false }).forEach((d: any, i: number) => {
    if (d.errors?.length) {
      const err = d.errors[0];
      const at = err.linePos?.[0]?.line ?? (typeof err.pos?.[0] === 'number' ? text.slice(0, err.pos[0]).split('\n').length : undefined);
      const line = at ? ` at line ${at}` : '';
      throw new UserError(`cannot read manifests ${where}: invalid YAML${line} (${String(err.code ?? err.message).split('\n')[0]})`);
    }
    for (const obj of objectsOf(d.toJS({ maxAliasCount: 100 }))) out.push({ obj, source: { file, document: i + 1 } });
  });
  return out;
}

/** Read -f paths (files, directories, '-' for stdin) into the Kubernetes objects they hold. */
export async function readManifests(paths: string[], recursive: boolean, readStdin: (maxBytes: number) => Promise<string>, limits: Limits = DEFAULT_LIMITS): Promise<Manifests> {
  if (paths.filter((p) => p === '-').length > 1) throw new UserError('-f - (stdin) can be given only once');
  const files: string[] = [];
  for (const p of paths) {
    if (p === '-') files.push('-');
    else expand(p, recursive, files);
  }
  if (files.length === 0) throw new UserError(`cannot read manifests ${paths.join(', ')}: no .json or .yaml files found`);
  const objects: ManifestObject[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = file === '-' ? await readStdin(limits.maxBytes) : readFileSync(file, 'utf8');
    } catch (e) {
      throw new UserError(`cannot read manifests ${file === '-' ? 'stdin' : file}: ${errorMessage(e)}`);
    }
    objects.push(...(await parse(file, text)));
  }
  // Nothing to check is more likely a broken pipeline (helm failed, wrong path) than a pass.
  if (objects.length === 0) throw new UserError(`no Kubernetes objects found in the manifests (${files.map((f) => (f === '-' ? 'stdin' : f)).join(', ')})`);
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
  const read = live && !opts.allNamespaces && oneNs ? { ...opts, namespace: target } : live ? { ...opts, allNamespaces: true } : opts;
  const snap = await obtainSnapshot(read, kinds);
  let defaultNs = opts.namespace ?? (snap.scope.allNamespaces ? undefined : snap.scope.namespace);
  if (!defaultNs && live && implicit) {
    const { resolveContext } = await import('./cluster/gather.js');
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
  const objects: Snapshot['objects'] = Object.fromEntries(Object.entries(snap.objects).map(([k, list]) => [k, [...(list ?? [])]]));
  const refs = new Map<string, NonNullable<Snapshot['manifests']>[number]>();
  const gone = new Set<string>();
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
    const i = list.findIndex((x) => nameOf(x) === ref.name && (ns === undefined || nsOf(x) === ns));
    if (i >= 0) {
      const uid = str(list[i]!.metadata?.uid);
      if (uid) gone.add(uid);
      list[i] = info.key === 'secrets' ? sanitizeSecret(o) : o;
    } else list.push(info.key === 'secrets' ? sanitizeSecret(o) : o);
  }
  // Owners before what they own: Deployment -> ReplicaSet -> Pod, CronJob -> Job -> Pod.
  const owned = (o: K8sObject) => (o.metadata?.ownerReferences ?? []).some((r) => isObj(r) && gone.has(String(r.uid)));
  for (const key of ['replicasets', 'jobs', 'pods'] as const) {
    objects[key] = objects[key]?.filter((o) => {
      if (!owned(o)) return true;
      const uid = str(o.metadata?.uid);
      if (uid) gone.add(uid);
      return false;
    });
    if (!objects[key]) delete objects[key];
  }
  if (objects.events) objects.events = objects.events.filter((e) => !(isObj(e.involvedObject) && gone.has(String(e.involvedObject.uid))));
  // kubectl apply fails on a namespace that neither the cluster nor the manifests hold.
  const namespaces = objects.namespaces;
  for (const { ref } of refs.values()) {
    if (namespaces?.length && ref.namespace && !namespaces.some((n) => nameOf(n) === ref.namespace)) {
      throw new UserError(`namespace "${ref.namespace}" of ${ref.kind} ${ref.name} not found in the cluster nor in the manifests`);
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
