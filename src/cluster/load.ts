import { closeSync, constants, fstatSync, openSync, readSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UserError, errorMessage } from '../util/errors.js';
import { decodeText, fsReason, readFileBounded, statPath } from '../util/io.js';
import { MAX_DEPTH, mib, type Limits } from '../util/limits.js';
import type { K8sObject, Scope } from '../util/types.js';
import type { Snapshot } from '../k8s/snapshot.js';
import { isObj } from '../util/objects.js';
import { KINDS, KIND_KEYS, kindOf, type KindKey } from '../k8s/kinds.js';
import { keepsManagedFields, sanitizeSecret, type Keeper } from './sanitize.js';
import { SNAPSHOT_KIND, isStreamable, readStreamed, tooMany } from './snapshot-file.js';
import { ListScan, TOO_DEEP, jsonShape, parseItem, scanJson, tooDense } from './json-scan.js';
import { SERVER_INPUTS, serverFromJson, type ServerInfo, type ServerInputKey } from '../k8s/server.js';

/** The largest YAML text parsed (the document model costs ~50x: 32 MiB is ~1.6 GB). */
const MAX_YAML_CHARS = 32 * 1024 * 1024;

const FILE_EXT = /\.(json|ya?ml)$/i;

/** An error about one input file: "cannot read <what> <file>: <why>". */
export type Fail = (why: string) => UserError;

/**
 * kubectl's -f: a path's files, a file as given (`explicit`), a directory's .json/.yaml/.yml files,
 * sorted, and with `recursive` those of its subdirectories. Links are followed, but each directory
 * is walked once (a link to a parent would loop forever) and at most MAX_DEPTH levels down; a
 * dangling link, a link loop or an unreadable directory is one line naming it.
 */
export function expandPath(
  path: string,
  what: string,
  recursive: boolean,
  out: { file: string; explicit: boolean }[],
): void {
  if (!statPath(path, what).isDirectory()) {
    out.push({ file: path, explicit: true });
    return;
  }
  const walked = new Set<string>(); // device:inode of each directory walked
  const walk = (dir: string, depth: number) => {
    const st = statPath(dir, what);
    const id = `${st.dev}:${st.ino}`;
    if (walked.has(id)) return; // a link back to a directory already walked
    walked.add(id);
    if (depth > MAX_DEPTH) throw new UserError(`cannot read ${what} ${dir}: directories ${TOO_DEEP}`);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (e) {
      throw new UserError(`cannot read ${what} ${dir}: ${fsReason(e)}`);
    }
    for (const entry of entries.sort()) {
      if (entry.startsWith('.')) continue;
      const child = join(dir, entry);
      if (statPath(child, what).isDirectory()) {
        if (recursive) walk(child, depth + 1);
      } else if (FILE_EXT.test(entry)) out.push({ file: child, explicit: false });
    }
  };
  walk(path, 0);
}

/**
 * A file's text, at most `maxBytes` (a UTF-8 BOM dropped, UTF-16 decoded). Only regular files:
 * the stat comes first, as opening a FIFO would wait for a writer.
 */
export function readText(file: string, what: string, maxBytes: number, fail: Fail, hint = ''): string {
  return textOf(readBytes(file, what, maxBytes, fail, hint), fail);
}

/** A file's bytes, at most `maxBytes`; only regular files (the stat comes first, see readText). */
function readBytes(file: string, what: string, maxBytes: number, fail: Fail, hint = ''): Buffer {
  const st = statPath(file, what);
  if (!st.isFile() && !st.isDirectory()) throw fail('not a regular file (a device, FIFO or socket)');
  return readFileBounded(file, maxBytes, what, hint);
}

function textOf(buf: Buffer, fail: Fail): string {
  try {
    return decodeText(buf);
  } catch (e) {
    throw fail(errorMessage(e)); // longer than a string can be (about 512 MiB)
  }
}

const isStackOverflow = (e: unknown) => e instanceof RangeError && /call stack/i.test(e.message);

/** JSON text parsed, bounded in depth; every failure is `fail`'s one line. */
export function parseJson(text: string, fail: Fail): unknown {
  const shape = jsonShape(text);
  if (shape.deep) throw fail(`invalid JSON (${TOO_DEEP})`);
  const dense = tooDense(shape.values, text.length);
  if (dense) throw fail(dense);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw fail(`invalid JSON (${isStackOverflow(e) ? TOO_DEEP : errorMessage(e).split('\n')[0]})`);
  }
}

/**
 * Whether a value nests at most MAX_DEPTH deep. For YAML, whose aliases share nodes: a node is
 * walked again only when reached deeper than before, and a cycle (`&a [*a]`) is not followed (the
 * walks that follow visit each node once). Iterative: no stack to overflow.
 */
function valueShallow(doc: unknown): boolean {
  const deepest = new Map<object, number>();
  const onPath = new Set<object>();
  const stack: { node: object; children: Iterator<unknown> }[] = [];
  const enter = (v: unknown): boolean => {
    if (typeof v !== 'object' || v === null || onPath.has(v)) return true;
    const depth = stack.length + 1;
    if (depth > MAX_DEPTH) return false;
    if ((deepest.get(v) ?? 0) >= depth) return true;
    deepest.set(v, depth);
    onPath.add(v);
    stack.push({ node: v, children: (Array.isArray(v) ? v : Object.values(v)).values() });
    return true;
  };
  if (!enter(doc)) return false;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const next = top.children.next();
    if (next.done) {
      onPath.delete(top.node);
      stack.pop();
    } else if (!enter(next.value)) return false;
  }
  return true;
}

/**
 * The nesting of one YAML document's syntax tree (yaml's Parser is iterative), and whether it uses
 * aliases. Checked before the document is composed: composing recurses, and a stack overflow deep
 * in it can abort node itself (V8 compiling a regular expression with no stack left).
 */
function yamlShape(token: unknown): { depth: number; aliases: boolean } {
  let depth = 0;
  let aliases = false;
  const stack: [any, number][] = [[token, 0]];
  while (stack.length > 0) {
    const [t, d] = stack.pop()!;
    if (!isObj(t)) continue;
    if (t.type === 'alias') aliases = true;
    if (t.type === 'document') stack.push([t.value, d]);
    if (!Array.isArray(t.items)) continue;
    depth = Math.max(depth, d + 1);
    if (depth > MAX_DEPTH) break;
    for (const item of t.items) if (isObj(item)) stack.push([item.key, d + 1], [item.value, d + 1]);
  }
  return { depth, aliases };
}

/**
 * The documents of a (multi-document) YAML text, one per `---` (null for an empty one), bounded:
 * in depth (before and after aliases are resolved) and in alias expansion (a "billion laughs").
 * `starts` gets the offset in `text` where each document's content starts.
 */
export async function parseYaml(text: string, fail: Fail, starts?: number[]): Promise<unknown[]> {
  // The YAML library's document model costs about 50 times the text: bound the text it gets.
  if (text.length > MAX_YAML_CHARS) {
    throw fail(
      `${mib(text.length)} of YAML is more than meshdoctor parses (${mib(MAX_YAML_CHARS)}); save it as JSON (kubectl get ... -o json) or with meshdoctor snapshot`,
    );
  }
  const { Composer, Parser } = await import('yaml');
  const composer = new Composer({ prettyErrors: false });
  const out: unknown[] = [];
  const take = (d: any, aliases: boolean) => {
    if (d.errors?.length) {
      const err = d.errors[0];
      const at = typeof err.pos?.[0] === 'number' ? ` at line ${text.slice(0, err.pos[0]).split('\n').length}` : '';
      // yaml reports a stack overflow it caught as RESOURCE_EXHAUSTION (the check above should come first).
      throw fail(
        `invalid YAML${at} (${err.code === 'RESOURCE_EXHAUSTION' ? TOO_DEEP : String(err.code ?? err.message).split('\n')[0]})`,
      );
    }
    let v: unknown;
    try {
      v = d.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw fail(`invalid YAML (${errorMessage(e).split('\n')[0]})`); // "Excessive alias count …"
    }
    if (aliases && !valueShallow(v)) throw fail(`invalid YAML (${TOO_DEEP} once its aliases are resolved)`);
    out.push(v ?? null);
    // Where the document's content starts (its `---` when empty), for `starts`.
    starts?.push(d.contents?.range?.[0] ?? d.range?.[0] ?? 0);
  };
  let aliases = false;
  for (const token of new Parser().parse(text)) {
    const shape = yamlShape(token);
    if (shape.depth > MAX_DEPTH) throw fail(`invalid YAML (${TOO_DEEP})`);
    aliases ||= shape.aliases; // for the whole file: the composer hands a document on late
    for (const d of composer.next(token)) take(d, aliases);
  }
  for (const d of composer.end()) take(d, aliases);
  return out;
}

/** Parse one file's text into documents: JSON when it looks like JSON, else (multi-document) YAML. */
async function parseDocuments(text: string, fail: Fail): Promise<unknown[]> {
  if (text.slice(0, 8192).includes('\u0000')) throw fail('binary file, expected JSON or YAML');
  const trimmed = text.trimStart();
  if (trimmed === '') throw fail('the file is empty');
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return [parseJson(text, fail)];
  return (await parseYaml(text, fail)).filter((v) => v !== null && v !== undefined);
}

/**
 * What one file holds: the documents of a streamed meshdoctor snapshot or of JSON/YAML text, or
 * (a kubectl List in JSON, read item by item) its objects, already slimmed, with the number of
 * Kubernetes objects found (those of kinds meshdoctor does not read included).
 */
type FileContent = { docs: unknown[] } | { objects: K8sObject[]; found: number };

/** The documents of one file: a streamed meshdoctor snapshot, a kubectl List in JSON, or JSON/YAML text. */
async function readDocuments(file: string, limits: Limits, keep: Keeper, stdin?: StdinReader): Promise<FileContent> {
  const fail: Fail = (why) => new UserError(`cannot read snapshot ${file === '-' ? 'stdin' : file}: ${why}`);
  try {
    let buf: Buffer;
    if (file === '-') {
      // `kubectl get ... -o json | meshdoctor check --snapshot -`: stdin, bounded by --max-bytes as a file is.
      if (!stdin) throw fail('stdin cannot be read here');
      buf = Buffer.from(await stdin(limits.maxBytes), 'utf8');
    } else {
      if (isStreamable(file)) return { docs: [await readStreamed(file, limits, keep)] };
      const size = statPath(file, 'snapshot').size;
      if (size > limits.maxBytes) {
        throw fail(
          `${mib(size)} is larger than the ${mib(limits.maxBytes)} meshdoctor reads from kubectl dumps (--max-bytes); ${HINT}`,
        );
      }
      // A large kubectl List in JSON is read a window at a time, each item parsed as it ends.
      if (size >= LIST_FILE_MIN) {
        const read = readJsonListFile(file, size, limits.maxBytes, keep);
        if (read) return read;
      }
      // Otherwise (or when it is not such a List) the file is read once, as bytes; a kubectl List
      // in JSON is parsed from them item by item.
      buf = readBytes(file, 'snapshot', limits.maxBytes, fail, HINT);
    }
    const list = jsonListStart(buf);
    if (list >= 0) {
      const read = readJsonList(buf, list, fail, keep);
      if (read) return read;
    }
    return { docs: await parseDocuments(textOf(buf, fail), fail) };
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw fail(isStackOverflow(e) ? TOO_DEEP : errorMessage(e).split('\n')[0]!);
  }
}

/** Where JSON text starting with `{` begins in UTF-8 bytes (after a BOM and whitespace); -1 for anything else (UTF-16 included). */
function jsonListStart(buf: Buffer): number {
  let i = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  const bom = i;
  while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i++;
  return buf[i] === 0x7b ? bom : -1;
}

/**
 * A List's text without its items, parsed: a List as collect() takes one, items (all of them here: the one "items"
 * key, emptied) and a kind that is none or a *List; undefined for anything else.
 */
function listShell(text: string): Record<string, any> | undefined {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (
    !isObj(list) ||
    !Array.isArray(list.items) ||
    list.items.length > 0 ||
    (typeof list.kind === 'string' && !list.kind.endsWith('List'))
  )
    return undefined;
  return list;
}
/**
 * A kubectl List in JSON (`kubectl get ... -o json`), parsed item by item from its bytes and each
 * object slimmed at once (sanitized, for Secrets): the file's objects never all live at once
 * whole, and no string as large as the file is made (a List larger than a string can be is read
 * too). Bounded as the whole text would be: nesting and density are checked on the bytes before
 * anything is parsed. Undefined when the bytes are not such a List or are not valid JSON: the
 * whole text is then parsed as before, and says what is wrong.
 */
function readJsonList(
  buf: Buffer,
  start: number,
  fail: Fail,
  keeper: Keeper,
): { objects: K8sObject[]; found: number } | undefined {
  const scan = scanJson(buf, start);
  if (scan.deep) throw fail(`invalid JSON (${TOO_DEEP})`);
  if (scan.dense) throw fail(scan.dense);
  if (!scan.list) return undefined;
  const { open, close, items, managed } = scan.list;
  const list = listShell(buf.toString('utf8', start, open + 1) + buf.toString('utf8', close));
  if (!list) return undefined;
  const itemKind = typeof list.kind === 'string' && list.kind !== 'List' ? list.kind.slice(0, -4) : undefined;
  const { objects, keep, keepManaged, count } = listKeeper(keeper, itemKind);
  for (let k = 0; k < items.length; k += 2) {
    let item: unknown;
    try {
      item = parseItem(buf, items[k]!, items[k + 1]!, managed[k]!, managed[k + 1]!, keepManaged);
    } catch {
      return undefined;
    }
    if (isObj(item)) {
      if (itemKind && typeof item.kind !== 'string') item.kind = itemKind;
      // An object (the usual item): kept at once; a nested List or anything else goes through collect().
      if (typeof item.kind === 'string' && !(Array.isArray(item.items) && item.kind.endsWith('List'))) {
        keep(item as K8sObject);
        continue;
      }
    }
    const nested: K8sObject[] = [];
    collect(item, nested);
    for (const o of nested) keep(o);
  }
  return { objects, found: count() };
}

/** What keeps a List's items: each object slimmed at once (sanitized, for Secrets), and the objects found counted. */
function listKeeper(keeper: Keeper, itemKind: string | undefined) {
  const objects: K8sObject[] = [];
  let found = 0;
  const keep = (o: K8sObject) => {
    found++;
    const info = kindOf(o.kind);
    const kept = !info ? undefined : info.key === 'secrets' ? sanitizeSecret(o) : keeper.keepObject(info.key, o);
    if (kept) objects.push(kept);
  };
  // managedFields are parsed only for the objects whose slim keeps them.
  const keepManaged = (o: Record<string, any>) => {
    const info = kindOf(typeof o.kind === 'string' ? o.kind : itemKind);
    return info !== undefined && keepsManagedFields(info.key, o);
  };
  return { objects, keep, keepManaged, count: () => found };
}

/** Files from this size on are read a window at a time when they are kubectl Lists (readJsonListFile). */
const LIST_FILE_MIN = 4 << 20;
/** Bytes before a List's items array beyond which readJsonListFile leaves the file to the whole-file path. */
const LIST_HEAD_MAX = 16 << 20;
/** The window readJsonListFile starts with (grown for an item, or a string, larger than it). */
const LIST_WINDOW = 1 << 20;

/**
 * readJsonList of a file read a window at a time: the bytes of each window scanned (ListScan: the
 * pass of scanJson, with its bounds) and the items that ended in it parsed and slimmed at once;
 * the window is reused, so the file's bytes are never all in memory (a buffer as large as the
 * file costs more to fill, in fresh memory, than reading it: 1.1 CPU s for 205 MB here, against
 * 0.06 s through a window of 1 MiB). The result is readJsonList's for the same bytes. Undefined
 * for anything else (not such a List, or refused: deeper than MAX_DEPTH, too dense; an item whose
 * kind is not its own, which may be the List's, written after the items; a file that changes
 * size while read): the caller then reads the whole file as before, with its messages.
 */
export function readJsonListFile(
  file: string,
  size: number,
  maxBytes: number,
  keeper: Keeper,
  window = LIST_WINDOW,
): { objects: K8sObject[]; found: number } | undefined {
  let fd: number;
  try {
    // O_NONBLOCK as readFileBounded: opening a FIFO must not wait for a writer.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile() || size > maxBytes) return undefined;
    const { objects, keep, keepManaged, count } = listKeeper(keeper, undefined);
    let buf = Buffer.allocUnsafe(window);
    let base = 0; // the file offset of buf[0]
    let len = 0; // bytes in buf
    let pos = 0; // where in buf the scan goes on
    let total = 0;
    let scan: ListScan | undefined;
    let start = 0;
    let head: string | undefined;
    let next = 0; // the next item (its offsets' index) to parse
    for (;;) {
      if (len === buf.length) {
        // No items array in the first MiBs: not a kubectl List (they begin with it); read whole.
        if (scan && scan.open < 0 && len >= LIST_HEAD_MAX) return undefined;
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const n = readSync(fd, buf, len, buf.length - len, null);
      const end = n === 0;
      len += n;
      total += n;
      if (total > size) return undefined; // grew while read
      if (!scan) {
        if (!end && len < Math.min(size, buf.length)) continue;
        start = jsonListStart(buf.subarray(0, len));
        if (start < 0) return undefined;
        scan = new ListScan(size - start);
        pos = start;
      }
      pos = scan.feed(buf.subarray(0, len), base, pos, end);
      if (scan.refused) return undefined;
      if (head === undefined && scan.open >= 0) head = buf.toString('utf8', start - base, scan.open + 1 - base);
      // The items that ended in this window (their bytes are in it: kept from where each started).
      const items = scan.items;
      const managed = scan.managed;
      for (const found = scan.found; next < found; next += 2) {
        const mf = managed[next + 1]! > managed[next]!;
        let item: unknown;
        try {
          item = parseItem(
            buf,
            items[next]! - base,
            items[next + 1]! - base,
            mf ? managed[next]! - base : 0,
            mf ? managed[next + 1]! - base : 0,
            keepManaged,
          );
        } catch {
          return undefined;
        }
        if (isObj(item)) {
          if (typeof item.kind !== 'string') return undefined; // its kind may be the List's, after the items
          if (!(Array.isArray(item.items) && item.kind.endsWith('List'))) {
            keep(item as K8sObject);
            continue;
          }
        }
        const nested: K8sObject[] = [];
        collect(item, nested);
        for (const o of nested) keep(o);
      }
      if (end) break;
      const from = scan.keepFrom(base + pos);
      if (from > base) {
        buf.copy(buf, 0, from - base, len);
        len -= from - base;
        pos -= from - base;
        base = from;
      }
    }
    if (total !== size || !scan || head === undefined) return undefined;
    const scanned = scan.result();
    if (!scanned.list) return undefined;
    // As readJsonList (the items' kinds are their own: the List's kind was not needed).
    if (!listShell(head + buf.toString('utf8', scanned.list.close - base, len))) return undefined;
    return { objects, found: count() };
  } finally {
    closeSync(fd);
  }
}

const HINT =
  'save it with `meshdoctor snapshot` (read line by line, not capped as a whole), or dump fewer kinds or one namespace';

/**
 * Adds every Kubernetes object found in a document (List, array, single object) to `sink`.
 * Iterative, each node once (YAML aliases can make a document refer to itself).
 */
function collect(doc: unknown, sink: K8sObject[]): void {
  const seen = new Set<unknown>();
  const todo: unknown[] = [doc];
  while (todo.length > 0) {
    const d = todo.pop();
    if (typeof d !== 'object' || d === null || seen.has(d)) continue;
    seen.add(d);
    if (Array.isArray(d)) {
      for (let i = d.length - 1; i >= 0; i--) todo.push(d[i]); // reversed: popped in order
      continue;
    }
    const o = d as Record<string, any>;
    if (Array.isArray(o.items) && (typeof o.kind !== 'string' || o.kind.endsWith('List'))) {
      // kubectl drops kind/apiVersion from items of typed lists (PodList): restore them.
      const itemKind = typeof o.kind === 'string' && o.kind !== 'List' ? o.kind.slice(0, -4) : undefined;
      for (let i = o.items.length - 1; i >= 0; i--) {
        const item = o.items[i];
        if (isObj(item) && itemKind && typeof item.kind !== 'string') item.kind = itemKind;
        todo.push(item);
      }
      continue;
    }
    if (typeof o.kind === 'string') sink.push(o as K8sObject);
  }
}

/**
 * The kind a dump file is named after: `configmaps.json`, `mutatingwebhookconfigurations.yaml`
 * (the kind's plural as meshdoctor lists it, KIND_KEYS). Such a file is how a kubectl dump proves
 * what it read: it holds every object of that kind in the dump's scope, none when it holds none
 * (docs/snapshot.md, "A kubectl dump").
 */
function kindNamed(file: string): KindKey | undefined {
  const base = basename(file).replace(/\.(json|ya?ml)$/i, '');
  return (KIND_KEYS as readonly string[]).includes(base) ? (base as KindKey) : undefined;
}

const NOT_COLLECTED = (key: KindKey) =>
  `not collected: the dump has no file named ${key}.json (or .yaml) holding them (docs/snapshot.md)`;

function emptySnapshot(files: string[], scope: Scope): Snapshot {
  return { source: { type: 'file', files }, scope, objects: {}, unavailable: {} };
}

/**
 * Load an offline snapshot: meshdoctor's own snapshot file, `kubectl get -o json|yaml` output
 * (a List), multi-document YAML, or a directory of such files. Several paths merge. Objects of
 * kinds meshdoctor does not read are ignored; Secrets are reduced to their public certificates.
 * Every kind is treated as read (present, possibly empty), except where meshdoctor's own
 * snapshot records it as unavailable. Bounded by `limits`: each file by maxBytes (meshdoctor's
 * own, streamed, by line), each kind by maxObjects.
 */
/** The whole of stdin, decoded, at most maxBytes (a UserError beyond). */
export type StdinReader = (maxBytes: number) => Promise<string>;

export async function loadSnapshot(
  paths: string[],
  scope: Scope | undefined,
  limits: Limits,
  keep: Keeper,
  stdin?: StdinReader,
): Promise<Snapshot> {
  if (paths.filter((p) => p === '-').length > 1) throw new UserError('--snapshot - (stdin) can be given only once');
  const found: { file: string; explicit: boolean }[] = [];
  for (const p of paths) {
    if (p === '-') found.push({ file: '-', explicit: true });
    else expandPath(p, 'snapshot', true, found);
  }
  const files = found.map((f) => f.file);
  if (files.length === 0)
    throw new UserError(`cannot read snapshot ${paths.join(', ')}: no .json or .yaml files found`);
  const loose: K8sObject[] = [];
  /** Where `loose` holds objects already slimmed (read from a kubectl List item by item): [start, end) ranges. */
  const slimmed: number[] = [];
  let objectsFound = 0;
  let own: Snapshot | undefined;
  const noObjects = (where: string) =>
    new UserError(
      `cannot read snapshot ${where}: no Kubernetes objects found (expected a List, objects, or a meshdoctor snapshot)`,
    );
  for (const { file, explicit } of found) {
    const before = loose.length;
    const read = await readDocuments(file, limits, keep, stdin);
    let foundHere = 0;
    let ownHere = false;
    if ('objects' in read) {
      slimmed.push(loose.length, loose.length + read.objects.length);
      for (const o of read.objects) loose.push(o);
      foundHere = read.found;
    } else {
      for (const doc of read.docs) {
        if (isObj(doc) && doc.kind === SNAPSHOT_KIND) {
          own = mergeOwn(own, doc, file, limits, keep);
          ownHere = true;
        } else {
          collect(doc, loose);
        }
      }
      foundHere = loose.length - before;
    }
    objectsFound += foundHere;
    // A file named on the command line must hold objects; one found in a directory may not
    // (a kustomization.yaml beside the dump), as long as the whole snapshot has some.
    if (explicit && !ownHere && foundHere === 0) throw noObjects(file === '-' ? 'stdin' : file);
  }
  if (!own && objectsFound === 0) throw noObjects(paths.join(', '));
  const snap = own ?? emptySnapshot(files, scope ?? { allNamespaces: true });
  snap.source = { ...snap.source, type: 'file', files };
  if (scope) snap.scope = scope;
  const ownKinds = new Set(Object.keys(own?.objects ?? {}).filter((k) => own!.objects[k as KindKey]));
  /** Kinds a file of the dump is named after: read whole, even when it holds none. */
  const named = new Set(own ? [] : files.map(kindNamed).filter((k): k is KindKey => k !== undefined));
  for (const key of KIND_KEYS) if (!snap.unavailable[key] && !snap.objects[key]) snap.objects[key] = [];
  let range = 0; // the first range of `slimmed` not wholly before the object
  for (let i = 0; i < loose.length; i++) {
    const obj = loose[i]!;
    while (range < slimmed.length && slimmed[range + 1]! <= i) range += 2;
    const info = kindOf(obj.kind);
    if (!info) continue;
    const list = (snap.objects[info.key] ??= []); // a loose object makes a kind the snapshot lacked read
    if (list.length >= limits.maxObjects) throw tooMany(paths.join(', '), info.key, limits);
    const isSlim = range < slimmed.length && slimmed[range]! <= i;
    const kept = isSlim ? obj : info.key === 'secrets' ? sanitizeSecret(obj) : keep.keepObject(info.key, obj);
    if (kept) list.push(kept);
    delete snap.unavailable[info.key];
    // An object of a namespace the saved snapshot could not read: that namespace is read now (from the dump).
    const ns = obj.metadata?.namespace;
    if (typeof ns === 'string' && snap.unavailableIn?.[info.key]?.[ns] !== undefined)
      delete snap.unavailableIn[info.key]![ns];
  }
  // A kubectl dump does not say which kinds were asked for: an empty kind may be "none" or "not
  // dumped". For the kinds every cluster running a mesh has, none at all means not dumped: say so
  // (the checks that need them do not run, exit 3) instead of reporting webhooks or pods missing.
  if (!own) dumpCoverage(snap, named);
  for (const key of ALWAYS_PRESENT) {
    if (ownKinds.has(key) || named.has(key) || snap.unavailable[key] || snap.objects[key]?.length) continue;
    delete snap.objects[key];
    snap.unavailable[key] =
      `not in the snapshot: the files hold no ${KINDS[key].kind}, which a cluster running a mesh always has (add kubectl get ${KINDS[key].plural} -A -o json)`;
  }
  // Only kinds that were read have namespaces they were not read in.
  for (const key of KIND_KEYS)
    if (snap.unavailableIn?.[key] && (!snap.objects[key] || !Object.keys(snap.unavailableIn[key]!).length))
      delete snap.unavailableIn[key];
  if (snap.unavailableIn && !Object.keys(snap.unavailableIn).length) delete snap.unavailableIn;
  return snap;
}

/**
 * What a kubectl dump (no meshdoctor snapshot among the files) proves it read. A kind with a file
 * named after it was read whole. Once any file is named after a kind, the dump says what it read:
 * a kind with neither such a file nor objects was not collected. A kind read by name (ConfigMaps,
 * Secrets) whose objects came from other files (`kubectl get configmaps -n linkerd linkerd-config`)
 * was read only for those names: in every namespace where the dump holds none of it, it was not
 * collected in the namespaces its webhooks call (so Istio's injector ConfigMap is "not collected",
 * never "not found", beside Linkerd's).
 */
function dumpCoverage(snap: Snapshot, named: ReadonlySet<KindKey>): void {
  for (const key of named) {
    snap.objects[key] ??= [];
    delete snap.unavailable[key];
  }
  for (const key of KIND_KEYS) {
    if (named.has(key)) continue;
    const objects = snap.objects[key] ?? [];
    if (!objects.length && (named.size > 0 || KINDS[key].byName)) {
      delete snap.objects[key];
      snap.unavailable[key] = NOT_COLLECTED(key);
    } else if (objects.length && KINDS[key].byName) {
      const holding = new Set(objects.map((o) => o.metadata?.namespace));
      for (const ns of webhookNamespaces(snap))
        if (!holding.has(ns)) ((snap.unavailableIn ??= {})[key] ??= {})[ns] = NOT_COLLECTED(key);
    }
  }
}

/**
 * The namespaces the dump's admission webhooks call Services in: where control planes run, and
 * where meshdoctor reads ConfigMaps and Secrets by name (it reads them nowhere else).
 */
function webhookNamespaces(snap: Snapshot): string[] {
  const out = new Set<string>();
  for (const c of snap.objects.mutatingwebhookconfigurations ?? [])
    for (const h of Array.isArray(c.webhooks) ? c.webhooks : []) {
      const ns =
        isObj(h) && isObj(h.clientConfig) && isObj(h.clientConfig.service)
          ? h.clientConfig.service.namespace
          : undefined;
      if (typeof ns === 'string' && /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ns)) out.add(ns); // a namespace name, never an Object member
    }
  return [...out].sort();
}

/** Kinds of which a cluster running a mesh always has objects (its namespaces, webhooks, pods, services, service accounts). */
const ALWAYS_PRESENT: KindKey[] = [
  'namespaces',
  'mutatingwebhookconfigurations',
  'pods',
  'services',
  'serviceaccounts',
  // Every cluster has nodes and the API server's own RBAC (system:*): none at all means not
  // dumped (or a snapshot saved before meshdoctor read them), never "the injector lost its binding".
  'nodes',
  'clusterroles',
  'clusterrolebindings',
];

/** Where a saved snapshot says it came from: its text fields only (reporters print them). */
function sourceOf(v: unknown): Snapshot['source'] {
  const source: Snapshot['source'] = { type: 'file' };
  if (!isObj(v)) return source;
  for (const key of ['context', 'server', 'readAt', 'user'] as const)
    if (typeof v[key] === 'string') source[key] = v[key];
  return source;
}

function mergeOwn(
  prev: Snapshot | undefined,
  doc: Record<string, any>,
  file: string,
  limits: Limits,
  keep: Keeper,
): Snapshot {
  if (!isObj(doc.objects)) throw new UserError(`cannot read snapshot ${file}: a ${SNAPSHOT_KIND} without "objects"`);
  const snap: Snapshot = prev ?? {
    source: sourceOf(doc.source),
    scope: isObj(doc.scope)
      ? {
          allNamespaces: doc.scope.allNamespaces === true,
          ...(typeof doc.scope.namespace === 'string' ? { namespace: doc.scope.namespace } : {}),
        }
      : { allNamespaces: true },
    objects: {},
    unavailable: {},
  };
  // What was read of the API server itself, checked as untrusted input. Several snapshot files: per
  // read, the first that was read wins; a refusal or failure stays only while no file has it read.
  const server = serverFromJson(doc.server);
  if (server) {
    const merged: ServerInfo = { ...snap.server };
    const take = <K extends ServerInputKey>(key: K) => {
      const p = server[key];
      const q = merged[key];
      if (p && (!q || (p.state === 'read' && q.state !== 'read'))) merged[key] = p;
    };
    for (const key of SERVER_INPUTS) take(key);
    snap.server = merged;
  }
  for (const key of KIND_KEYS) {
    const list = doc.objects[key];
    if (Array.isArray(list)) {
      const kept = list.filter(isObj) as K8sObject[];
      const into = (snap.objects[key] ??= []);
      if (into.length + kept.length > limits.maxObjects) throw tooMany(file, key, limits);
      for (const o of kept) {
        const k = key === 'secrets' ? sanitizeSecret(o) : keep.keepObject(key, o);
        if (k) into.push(k);
      }
      delete snap.unavailable[key];
    }
    const why = isObj(doc.unavailable) ? doc.unavailable[key] : undefined;
    if (typeof why === 'string' && !snap.objects[key]) snap.unavailable[key as KindKey] = why;
    // Namespaces a kind could not be read in (text only, as the reasons above).
    const where = isObj(doc.unavailableIn) ? doc.unavailableIn[key] : undefined;
    if (isObj(where) && Array.isArray(list)) {
      // Keys that are namespace names only (DNS-1123 labels): never __proto__ or text for a terminal.
      for (const [ns, reason] of Object.entries(where))
        if (typeof reason === 'string' && /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ns))
          ((snap.unavailableIn ??= {})[key] ??= {})[ns] = reason;
    }
  }
  return snap;
}
