/**
 * meshdoctor's snapshot file. It is plain JSON, laid out one object per line so that a large
 * snapshot can be read as a stream (memory: the objects, not the objects plus the file's text):
 *
 *   {"kind":"MeshdoctorSnapshot","apiVersion":"meshdoctor.io/v1","source":…,"scope":…,"unavailable":…,["unavailableIn":…,]["server":…,]"objects":{
 *   "pods":[
 *   {…},
 *   {…}
 *   ],
 *   "namespaces":[
 *   …
 *   ]
 *   }}
 *
 * The bytes themselves are scanned by json-scan.ts.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { UserError, errorMessage } from '../util/errors.js';
import { fsReason } from '../util/io.js';
import { mib, type Limits } from '../util/limits.js';
import type { K8sObject } from '../util/types.js';
import type { Snapshot } from '../k8s/snapshot.js';
import { isObj } from '../util/objects.js';
import { KIND_KEYS } from '../k8s/kinds.js';
import type { Keeper } from './sanitize.js';
import { jsonShallow, TOO_DEEP } from './json-scan.js';

export const SNAPSHOT_KIND = 'MeshdoctorSnapshot';
const SNAPSHOT_API_VERSION = 'meshdoctor.io/v1';
const HEAD = `{"kind":"${SNAPSHOT_KIND}"`;
const OBJECTS = '"objects":{';

/** The snapshot file, as chunks of text to write in order (lines end with "\n"). */
export function* snapshotText(snap: Snapshot): Generator<string> {
  const head = {
    kind: SNAPSHOT_KIND,
    apiVersion: SNAPSHOT_API_VERSION,
    source: snap.source,
    scope: snap.scope,
    unavailable: snap.unavailable,
    // Kinds read in the scope but refused in another namespace: an offline run is as incomplete as the live one.
    ...(snap.unavailableIn && Object.keys(snap.unavailableIn).length ? { unavailableIn: snap.unavailableIn } : {}),
    // What was read of the API server itself (its version, the admission metrics' series, whether its pods were read), or why not: small, in the first line.
    ...(snap.server ? { server: snap.server } : {}),
  };
  yield `${JSON.stringify(head).slice(0, -1)},${OBJECTS}\n`;
  const kinds = Object.entries(snap.objects).filter(([, list]) => list !== undefined);
  for (let i = 0; i < kinds.length; i++) {
    const [key, list] = kinds[i]!;
    yield `${JSON.stringify(key)}:[\n`;
    for (let j = 0; j < list!.length; j++) yield `${JSON.stringify(list![j])}${j < list!.length - 1 ? ',' : ''}\n`;
    yield i < kinds.length - 1 ? '],\n' : ']\n';
  }
  yield '}}\n';
}

export const tooMany = (where: string, key: string, limits: Limits): UserError =>
  new UserError(`cannot read snapshot ${where}: more than ${limits.maxObjects} ${key} (--max-objects)`);

/**
 * Opening a FIFO for reading waits for a writer: open without waiting, then refuse anything but a
 * regular file (a device such as /dev/zero never ends).
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const notRegular = (file: string) =>
  new UserError(`cannot read snapshot ${file}: not a regular file (a device, FIFO or socket)`);
const cannotOpen = (file: string, e: unknown) => new UserError(`cannot read snapshot ${file}: ${fsReason(e)}`);
const BOM = '\uFEFF';

/**
 * Whether a file starts like a streamable snapshot (its first line ends with `"objects":{`). A
 * file that is not a regular file is a UserError.
 */
export function isStreamable(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (e) {
    throw cannotOpen(file, e);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) return false;
    if (!st.isFile()) throw notRegular(file);
    const buf = Buffer.alloc(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    let text = buf.subarray(0, n).toString('utf8');
    if (text.startsWith(BOM)) text = text.slice(1);
    const eol = text.indexOf('\n');
    return text.startsWith(HEAD) && eol > 0 && text.slice(0, eol).trimEnd().endsWith(OBJECTS);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw cannotOpen(file, e);
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of a regular file, without their "\n", a batch for each read (one promise per MiB,
 * not per line: a snapshot has a line per object). readline would hold a line without end in
 * memory for ever (`/dev/zero`, a file of one huge line): a line longer than `maxLine` bytes is
 * refused with its number.
 */
async function* linesOf(file: string, maxLine: number): AsyncGenerator<string[]> {
  let fh;
  try {
    fh = await open(file, OPEN_FLAGS);
  } catch (e) {
    throw cannotOpen(file, e);
  }
  try {
    if (!(await fh.stat()).isFile()) throw notRegular(file);
    const buf = Buffer.alloc(1024 * 1024);
    let parts: Buffer[] = []; // the line read so far
    let length = 0;
    let n = 1;
    for (;;) {
      let read: number;
      try {
        read = (await fh.read(buf, 0, buf.length, null)).bytesRead;
      } catch (e) {
        throw cannotOpen(file, e);
      }
      if (read === 0) break;
      const chunk = buf.subarray(0, read);
      const lines: string[] = [];
      for (let start = 0; start < read;) {
        const nl = chunk.indexOf(0x0a, start);
        const piece = chunk.subarray(start, nl < 0 ? read : nl);
        length += piece.length;
        if (length > maxLine) {
          if (lines.length) yield lines; // the lines before it are read as before (their errors first)
          throw new UserError(`cannot read snapshot ${file}: line ${n}: longer than ${mib(maxLine)} (--max-bytes)`);
        }
        if (nl < 0) {
          parts.push(Buffer.from(piece)); // copied: buf is read into again
          break;
        }
        lines.push((parts.length ? Buffer.concat([...parts, piece]) : piece).toString('utf8'));
        parts = [];
        length = 0;
        n++;
        start = nl + 1;
      }
      if (lines.length) yield lines;
    }
    if (parts.length) yield [Buffer.concat(parts).toString('utf8')];
  } finally {
    await fh.close();
  }
}

/**
 * Read a streamable snapshot line by line into the document it encodes ({…head, objects}).
 * Any line out of the layout is an error naming the line. Bounded: each line by limits.maxBytes,
 * the objects of each kind by limits.maxObjects, each object's nesting by MAX_DEPTH; kinds
 * meshdoctor does not read are skipped unparsed.
 */
export async function readStreamed(file: string, limits: Limits, keep: Keeper): Promise<Record<string, any>> {
  const bad = (n: number, why: string) => new UserError(`cannot read snapshot ${file}: line ${n}: ${why}`);
  const parse = (n: number, text: string): unknown => {
    if (!jsonShallow(text)) throw bad(n, `invalid JSON (${TOO_DEEP})`);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw bad(n, `invalid JSON (${errorMessage(e).split('\n')[0]})`);
    }
  };
  const kinds = new Set<string>(KIND_KEYS);
  let doc: Record<string, any> | undefined;
  let list: K8sObject[] | null | undefined; // null: a kind meshdoctor does not read
  let key = '';
  let done = false;
  let n = 0;
  for await (const batch of linesOf(file, limits.maxBytes)) {
    for (const raw of batch) {
      n++;
      const line = raw.trimEnd();
      if (n === 1) {
        const head = parse(n, `${line.startsWith(BOM) ? line.slice(1) : line}}}`);
        if (!isObj(head) || head.kind !== SNAPSHOT_KIND || !isObj(head.objects))
          throw bad(n, `not the first line of a ${SNAPSHOT_KIND}`);
        doc = head;
        continue;
      }
      if (done) {
        if (line) throw bad(n, 'text after the end of the snapshot');
        continue;
      }
      if (list === undefined) {
        const start = /^"([a-z][a-z-]{0,62})":\[$/.exec(line);
        if (start) {
          key = start[1]!;
          list = !kinds.has(key)
            ? null
            : Array.isArray(doc!.objects[key])
              ? doc!.objects[key]
              : (doc!.objects[key] = []);
        } else if (line === '}}') done = true;
        else throw bad(n, 'expected "<kind>":[ or }}');
        continue;
      }
      if (line === ']' || line === '],') {
        list = undefined;
        continue;
      }
      if (list === null) continue;
      const obj = parse(n, line.endsWith(',') ? line.slice(0, -1) : line);
      if (!isObj(obj)) continue; // as in a snapshot read whole: only objects are kept
      if (list.length >= limits.maxObjects) throw tooMany(file, key, limits);
      const kept = keep.keepObject(key, obj as K8sObject); // slimmed as it is read, so the dropped fields never all live at once
      if (kept) list.push(kept);
    }
  }
  if (!done) throw new UserError(`cannot read snapshot ${file}: the file ends early (truncated?)`);
  return doc!;
}
