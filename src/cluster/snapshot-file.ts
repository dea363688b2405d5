/**
 * meshdoctor's snapshot file. It is plain JSON, laid out one object per line so that a large
 * snapshot can be read as a stream (memory: the objects, not the objects plus the file's text):
 *
 *   {"kind":"MeshdoctorSnapshot","apiVersion":"meshdoctor.io/v1","source":…,"scope":…,"unavailable":…,"objects":{
 *   "pods":[
 *   {…},
 *   {…}
 *   ],
 *   "namespaces":[
 *   …
 *   ]
 *   }}
 */
import { createReadStream, openSync, readSync, closeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { UserError, errorMessage } from '../errors.js';
import type { K8sObject, Snapshot } from '../types.js';
import { slim } from './sanitize.js';

export const SNAPSHOT_KIND = 'MeshdoctorSnapshot';
export const SNAPSHOT_API_VERSION = 'meshdoctor.io/v1';
const HEAD = `{"kind":"${SNAPSHOT_KIND}"`;
const OBJECTS = '"objects":{';

/** The snapshot file, as chunks of text to write in order (lines end with "\n"). */
export function* snapshotText(snap: Snapshot): Generator<string> {
  const head = { kind: SNAPSHOT_KIND, apiVersion: SNAPSHOT_API_VERSION, source: snap.source, scope: snap.scope, unavailable: snap.unavailable };
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

/** Whether a file starts like a streamable snapshot (its first line ends with `"objects":{`). */
export function isStreamable(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString('utf8');
    const eol = text.indexOf('\n');
    return text.startsWith(HEAD) && eol > 0 && text.slice(0, eol).trimEnd().endsWith(OBJECTS);
  } finally {
    closeSync(fd);
  }
}

/**
 * Read a streamable snapshot line by line into the document it encodes ({…head, objects}).
 * Any line out of the layout is an error naming the line.
 */
export async function readStreamed(file: string): Promise<Record<string, any>> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  const bad = (n: number, why: string) => new UserError(`cannot read snapshot ${file}: line ${n}: ${why}`);
  let doc: Record<string, any> | undefined;
  let list: K8sObject[] | undefined;
  let key = '';
  let done = false;
  let n = 0;
  for await (const raw of lines) {
    n++;
    const line = raw.trimEnd();
    if (n === 1) {
      try {
        doc = JSON.parse(`${line}}}`);
      } catch (e) {
        throw bad(n, `invalid JSON (${errorMessage(e)})`);
      }
      continue;
    }
    if (done) {
      if (line) throw bad(n, 'text after the end of the snapshot');
      continue;
    }
    if (list === undefined) {
      const start = /^"([a-z]+)":\[$/.exec(line);
      if (start) doc!.objects[(key = start[1]!)] = list = [];
      else if (line === '}}') done = true;
      else throw bad(n, 'expected "<kind>":[ or }}');
      continue;
    }
    if (line === ']' || line === '],') {
      list = undefined;
      continue;
    }
    try {
      // Slimmed as it is read, so the dropped fields never all live at once.
      list.push(slim(key, JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line)));
    } catch (e) {
      throw bad(n, `invalid JSON (${errorMessage(e)})`);
    }
  }
  if (!done) throw new UserError(`cannot read snapshot ${file}: the file ends early (truncated?)`);
  return doc!;
}
