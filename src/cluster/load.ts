import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, errorMessage } from '../errors.js';
import { DEFAULT_LIMITS, type Limits } from '../limits.js';
import type { K8sObject, Scope, Snapshot } from '../types.js';
import { isObj } from '../util.js';
import { KIND_KEYS, kindOf, type KindKey } from './kinds.js';
import { sanitizeSecret, slim } from './sanitize.js';
import { SNAPSHOT_KIND, isStreamable, readStreamed } from './snapshot-file.js';

export { SNAPSHOT_KIND, SNAPSHOT_API_VERSION } from './snapshot-file.js';

/**
 * Larger files are refused up front with a clear message instead of exhausting memory (a
 * string's limit is about 512 MiB); meshdoctor's own snapshots are streamed and exempt.
 */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

const FILE_EXT = /\.(json|ya?ml)$/i;

/** Expand paths: files as given, directories to their .json/.yaml/.yml files (recursively, sorted). */
function expand(paths: string[]): { file: string; explicit: boolean }[] {
  const files: { file: string; explicit: boolean }[] = [];
  const walk = (p: string, explicit: boolean) => {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      throw new UserError(`cannot read snapshot ${p}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : errorMessage(e)}`);
    }
    if (st.isDirectory()) {
      for (const entry of readdirSync(p).sort()) {
        if (entry.startsWith('.')) continue;
        const child = join(p, entry);
        if (statSync(child).isDirectory() || FILE_EXT.test(entry)) walk(child, false);
      }
    } else if (explicit || FILE_EXT.test(p)) {
      files.push({ file: p, explicit });
    }
  };
  for (const p of paths) walk(p, true);
  return files;
}

/** Parse one file's text into documents: JSON when it looks like JSON, else (multi-document) YAML. */
async function parseDocuments(path: string, text: string): Promise<unknown[]> {
  if (text.slice(0, 8192).includes('\u0000')) throw new UserError(`cannot read snapshot ${path}: binary file, expected JSON or YAML`);
  const trimmed = text.trimStart();
  if (trimmed === '') throw new UserError(`cannot read snapshot ${path}: the file is empty`);
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return [JSON.parse(text)];
    } catch (e) {
      throw new UserError(`cannot read snapshot ${path}: invalid JSON (${errorMessage(e)})`);
    }
  }
  const YAML = await import('yaml');
  const docs = YAML.parseAllDocuments(text, { prettyErrors: false });
  const out: unknown[] = [];
  for (const d of docs as any[]) {
    if (d.errors?.length) {
      const err = d.errors[0];
      const where = err.linePos?.[0] ? ` at line ${err.linePos[0].line}` : '';
      throw new UserError(`cannot read snapshot ${path}: invalid YAML${where} (${String(err.code ?? err.message).split('\n')[0]})`);
    }
    const v = d.toJS({ maxAliasCount: 100 });
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

/** The documents of one file: a streamed meshdoctor snapshot, or JSON/YAML text. */
async function readDocuments(file: string): Promise<unknown[]> {
  try {
    if (isStreamable(file)) return [await readStreamed(file)];
    const size = statSync(file).size;
    if (size > MAX_FILE_BYTES) {
      throw new UserError(`cannot read snapshot ${file}: ${Math.round(size / 1048576)} MiB is larger than the ${MAX_FILE_BYTES / 1048576} MiB meshdoctor reads from kubectl dumps; save it with \`meshdoctor snapshot\` (streamed, no limit), or dump fewer kinds or one namespace`);
    }
    return await parseDocuments(file, readFileSync(file, 'utf8'));
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`cannot read snapshot ${file}: ${errorMessage(e)}`);
  }
}

/** Adds every Kubernetes object found in a document (List, array, single object) to `sink`. */
function collect(doc: unknown, sink: K8sObject[], seen = new Set<unknown>()): void {
  // YAML aliases can make a document refer to itself: visit each node once.
  if (typeof doc !== 'object' || doc === null || seen.has(doc)) return;
  seen.add(doc);
  if (Array.isArray(doc)) {
    for (const d of doc) collect(d, sink, seen);
    return;
  }
  if (!isObj(doc)) return;
  if (Array.isArray(doc.items) && (typeof doc.kind !== 'string' || doc.kind.endsWith('List'))) {
    // kubectl drops kind/apiVersion from items of typed lists (PodList): restore them.
    const itemKind = typeof doc.kind === 'string' && doc.kind !== 'List' ? doc.kind.slice(0, -4) : undefined;
    for (const item of doc.items) {
      if (isObj(item) && itemKind && typeof item.kind !== 'string') item.kind = itemKind;
      collect(item, sink, seen);
    }
    return;
  }
  if (typeof doc.kind === 'string') sink.push(doc as K8sObject);
}

function emptySnapshot(files: string[], scope: Scope): Snapshot {
  return { source: { type: 'file', files }, scope, objects: {}, unavailable: {} };
}

/**
 * Load an offline snapshot: meshdoctor's own snapshot file, `kubectl get -o json|yaml` output
 * (a List), multi-document YAML, or a directory of such files. Several paths merge. Objects of
 * kinds meshdoctor does not read are ignored; Secrets are reduced to their public certificates.
 * Every kind is treated as read (present, possibly empty), except where meshdoctor's own
 * snapshot records it as unavailable.
 */
export async function loadSnapshot(paths: string[], scope?: Scope, limits: Limits = DEFAULT_LIMITS): Promise<Snapshot> {
  const found = expand(paths);
  const files = found.map((f) => f.file);
  if (files.length === 0) throw new UserError(`cannot read snapshot ${paths.join(', ')}: no .json or .yaml files found`);
  const loose: K8sObject[] = [];
  let own: Snapshot | undefined;
  const noObjects = (where: string) => new UserError(`cannot read snapshot ${where}: no Kubernetes objects found (expected a List, objects, or a meshdoctor snapshot)`);
  for (const { file, explicit } of found) {
    const before = loose.length;
    const docs = await readDocuments(file);
    for (const doc of docs) {
      if (isObj(doc) && doc.kind === SNAPSHOT_KIND) {
        own = mergeOwn(own, doc, file);
      } else {
        collect(doc, loose);
      }
    }
    // A file named on the command line must hold objects; one found in a directory may not
    // (a kustomization.yaml beside the dump), as long as the whole snapshot has some.
    if (explicit && !docs.some((d) => isObj(d) && d.kind === SNAPSHOT_KIND) && loose.length === before) throw noObjects(file);
  }
  if (!own && loose.length === 0) throw noObjects(paths.join(', '));
  const snap = own ?? emptySnapshot(files, scope ?? { allNamespaces: true });
  snap.source = { ...snap.source, type: 'file', files };
  if (scope) snap.scope = scope;
  for (const key of KIND_KEYS) if (!snap.unavailable[key] && !snap.objects[key]) snap.objects[key] = [];
  for (const obj of loose) {
    const info = kindOf(obj.kind);
    if (!info) continue;
    snap.objects[info.key]!.push(info.key === 'secrets' ? sanitizeSecret(obj) : slim(info.key, obj));
    delete snap.unavailable[info.key];
  }
  return snap;
}

function mergeOwn(prev: Snapshot | undefined, doc: Record<string, any>, file: string): Snapshot {
  if (!isObj(doc.objects)) throw new UserError(`cannot read snapshot ${file}: a ${SNAPSHOT_KIND} without "objects"`);
  const snap: Snapshot = prev ?? {
    source: isObj(doc.source) ? (doc.source as Snapshot['source']) : { type: 'file' },
    scope: isObj(doc.scope) ? { allNamespaces: doc.scope.allNamespaces === true, ...(typeof doc.scope.namespace === 'string' ? { namespace: doc.scope.namespace } : {}) } : { allNamespaces: true },
    objects: {},
    unavailable: {},
  };
  for (const key of KIND_KEYS) {
    const list = doc.objects[key];
    if (Array.isArray(list)) {
      const kept = list.filter(isObj) as K8sObject[];
      snap.objects[key] = (snap.objects[key] ?? []).concat(key === 'secrets' ? kept.map(sanitizeSecret) : kept.map((o) => slim(key, o)));
    }
    const why = isObj(doc.unavailable) ? doc.unavailable[key] : undefined;
    if (typeof why === 'string' && !snap.objects[key]) snap.unavailable[key as KindKey] = why;
  }
  return snap;
}
