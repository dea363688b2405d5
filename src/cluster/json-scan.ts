/**
 * The byte scanner behind every JSON meshdoctor reads (files, stdin, API responses): the shape of
 * a document (nesting, density) before anything is parsed, the item ranges of a kubectl List,
 * and an object parsed without its managedFields. Bounds are docs/limits.md (MAX_DEPTH, density).
 */
import { MAX_DEPTH, mib } from '../util/limits.js';
import { isObj } from '../util/objects.js';

/** Why a JSON/YAML document is refused as too deep (MAX_DEPTH). */
export const TOO_DEEP = `nested more than ${MAX_DEPTH} levels deep`;

/** JSON values above which a document must not be denser than one value per MIN_BYTES_PER_VALUE bytes. */
const MAX_DENSE_VALUES = 8_000_000;
const MIN_BYTES_PER_VALUE = 6;

/**
 * Why JSON of `values` values (containers and separators, as jsonShape and scanJson count them)
 * in `bytes` bytes is refused, or undefined. Values packed denser than any Kubernetes object
 * (`[],[],...`) would make JSON.parse allocate far more memory than the bytes suggest: real
 * kubectl output and API responses have about one value per 10-20 bytes. The same rule bounds
 * files, stdin and API response bodies.
 */
export function tooDense(values: number, bytes: number): string | undefined {
  if (values <= MAX_DENSE_VALUES || values * MIN_BYTES_PER_VALUE <= bytes) return undefined;
  return `${values} JSON values in ${mib(bytes)}: denser than Kubernetes objects, refused to bound memory`;
}

/**
 * The shape of JSON text without parsing it: whether it nests deeper than MAX_DEPTH (JSON.parse
 * would overflow the stack) and how many values it holds (containers and separators: what
 * JSON.parse allocates objects for). One pass, strings skipped.
 */
export function jsonShape(text: string): { deep: boolean; values: number } {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump to the quote that ends it (one not escaped by an odd run of backslashes).
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return { deep: false, values }; // unterminated: JSON.parse says so
        let b = i - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((i - b) % 2 === 1) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      values++;
      if (++depth > MAX_DEPTH) return { deep: true, values };
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c) values++;
  }
  return { deep: false, values };
}

export const jsonShallow = (text: string): boolean => !jsonShape(text).deep;

/** The shape of JSON bytes (jsonShape), and where the items of a top-level `"items": [...]` lie. */
interface JsonScan {
  deep: boolean;
  values: number;
  /** tooDense's reason when the bytes are too dense (then no `list`: its offsets were not kept). */
  dense?: string;
  /** Set when the List holds more than `maxItems` items (then no `list`: their offsets were not kept). */
  tooManyItems?: boolean;
  /**
   * When the bytes hold one object with one `"items"` array: the offsets of `[` and `]`, and of
   * each item (start and end, whitespace excluded). Undefined for any other shape, and for text
   * that is not well-formed between the items (JSON.parse of the whole text says what is wrong).
   */
  list?: { open: number; close: number; items: Uint32Array; managed: Uint32Array };
}

/** Token kinds of ListFinder.token besides the bracket and comma bytes themselves. */
const STRING = 1;
const OTHER = 2;

/**
 * Finds a kubectl List's items from the tokens scanJson reports at nesting levels 0-2 (the List
 * object, its members, the items array's own level). Everything deeper is an item's inside.
 */
class ListFinder {
  topIsObject = false;
  tokens = 0;
  /** At level 1: 1 after the string "items", 2 after its colon. */
  key = 0;
  /** Values of "items" keys seen (JSON.parse keeps the last of duplicates: split only one). */
  lists = 0;
  open = -1;
  close = -1;
  bad = false;
  /** In the items array: 1 waiting for an item, 2 in a scalar item, 3 in an object or array item, 4 after an item. */
  state = 0;
  itemStart = 0;
  lastEnd = 0;
  /** Start and end of each item, 4 bytes an offset (a byte array is never larger than 4 GiB here). */
  items = new Uint32Array(64);
  /** Beside each item's start and end: where its `metadata.managedFields` list lies (managedFieldsRange), 0 and 0 for none. */
  managed = new Uint32Array(64);
  /** The current item's managedFields range, as the scan found it (taken by the next push). */
  mfStart = 0;
  mfEnd = 0;
  count = 0;
  full = false;
  /** The offset in the whole document of `b`'s first byte (a window of it: ListScan); token offsets are `b`'s. */
  base = 0;
  constructor(
    public b: Uint8Array,
    private maxItems: number,
  ) {}

  push(from: number, to: number): void {
    if (this.full || this.count >= 2 * this.maxItems) {
      this.full = true;
      return;
    }
    if (this.count + 2 > this.items.length) {
      const more = new Uint32Array(this.items.length * 2);
      more.set(this.items);
      this.items = more;
      const managed = new Uint32Array(this.items.length);
      managed.set(this.managed);
      this.managed = managed;
    }
    // A range found inside this item only (never one of another member's objects).
    const mf = this.mfEnd > this.mfStart && this.mfStart > from && this.mfEnd < to;
    this.managed[this.count] = mf ? this.mfStart : 0;
    this.managed[this.count + 1] = mf ? this.mfEnd : 0;
    this.mfStart = this.mfEnd = 0;
    this.items[this.count++] = from;
    this.items[this.count++] = to;
  }

  token(kind: number, from: number, to: number, level: number): void {
    const at = this.base + from;
    if (level === 0) {
      if (this.tokens++ === 0) this.topIsObject = kind === 0x7b;
      return;
    }
    if (level === 1) {
      if (this.state !== 0 && kind === 0x5d) {
        // the end of the items array
        if (this.state === 2 || this.state === 4) this.push(this.itemStart, this.lastEnd + 1);
        else if (this.count > 0) this.bad = true; // a trailing comma
        this.state = 0;
        this.close = at;
        return;
      }
      if (this.key === 2) {
        this.lists++;
        if (kind === 0x5b && this.open < 0) {
          this.open = at;
          this.state = 1;
          this.mfStart = this.mfEnd = 0;
        }
        this.key = 0;
      } else if (kind === STRING) {
        const b = this.b;
        this.key =
          to - from === 6 &&
          b[from + 1] === 0x69 &&
          b[from + 2] === 0x74 &&
          b[from + 3] === 0x65 &&
          b[from + 4] === 0x6d &&
          b[from + 5] === 0x73
            ? 1
            : 0;
      } else this.key = this.key === 1 && kind === OTHER && this.b[from] === 0x3a ? 2 : 0;
      return;
    }
    if (this.state === 0) return; // level 2 of another member
    if (kind === 0x2c) {
      if (this.state === 2 || this.state === 4) this.push(this.itemStart, this.lastEnd + 1);
      else this.bad = true; // `[,` or `,,`
      this.state = 1;
      return;
    }
    if (kind === 0x7d || kind === 0x5d) {
      if (this.state === 3) this.state = 4;
      this.lastEnd = at;
      return;
    }
    if (this.state === 1) {
      this.itemStart = at;
      this.state = kind === 0x7b || kind === 0x5b ? 3 : 2;
    } else if (this.state !== 2 || kind !== OTHER) this.bad = true; // two values without a comma
    this.lastEnd = this.base + to;
  }
}

/** What scanRange carries from one stretch of bytes to the next (scanJson's loop state). */
interface ScanState {
  depth: number;
  values: number;
  /** The deepest level whose tokens go to the finder (-1 once the values passed denseAt). */
  top: number;
  denseAt: number;
  /** Where an item's metadata.managedFields lie (as managedFieldsRange finds them, so that the
   * items need no second scan): item members are at depth 3, its metadata's at depth 4. */
  metaKey: boolean; // the last key at depth 3 was "metadata"
  inMeta: boolean; // in the item's first metadata object
  metaDone: boolean; // the first metadata object ended, or its managedFields were decided
  mfOpen: boolean; // in the managedFields list (it ends back at depth 4)
  deep: boolean;
  /** Set by scanRange when the bytes end inside a string or before what follows a key (more are to come). */
  more: boolean;
}

/** Bytes scanRange takes at a time: the loop is a function V8 optimizes (and re-optimizes) per call. */
const STRETCH = 1 << 16;

/**
 * One pass over JSON bytes from `start`: nesting (stops past MAX_DEPTH), values (as jsonShape)
 * and, for a kubectl List, the byte ranges of its items, so that each can be parsed (and slimmed)
 * on its own: the whole document's objects never all live at once, and no string as large as
 * the file is made. The offsets of at most `maxItems` items are kept (then `tooManyItems`). Strings are skipped by their quotes and escapes (UTF-8 needs nothing more: no
 * byte of a multi-byte character is ASCII); the List's structure is followed only at the top
 * three levels, so an item's inside costs the scan nothing more than jsonShape's.
 */
export function scanJson(b: Uint8Array, start = 0, maxItems = Infinity): JsonScan {
  const scan = new ListScan(b.length - start, maxItems);
  scan.feed(b, 0, start, true);
  return scan.result();
}

/**
 * scanJson of a document given a window at a time (a file read in pieces, its windows never all
 * in memory): the same pass, the same result, offsets in the whole document. `feed` scans a
 * window and says where its unscanned bytes start (a string or a key running past its end):
 * give them again, followed by the next bytes. The items found so far (`found`) can be parsed at
 * once: each is whole in the window it ended in, if the window was kept from `keepFrom()`.
 */
export class ListScan {
  private readonly st: ScanState;
  private readonly finder: ListFinder;
  /** `bytes`: the length of the document from where the scan starts (the density bound's). */
  constructor(
    private readonly bytes: number,
    maxItems = Infinity,
  ) {
    this.finder = new ListFinder(new Uint8Array(0), maxItems);
    // Once there are more values than the length allows (tooDense), the offsets of items stop
    // being kept (the List's level is never reached again): millions of tiny items must not
    // cost an offset array first. Counting goes on, for the message.
    this.st = {
      depth: 0,
      values: 0,
      top: 2,
      denseAt: Math.max(MAX_DENSE_VALUES, Math.floor(bytes / MIN_BYTES_PER_VALUE)),
      metaKey: false,
      inMeta: false,
      metaDone: false,
      mfOpen: false,
      deep: false,
      more: false,
    };
  }

  /**
   * Scans `b` (the document's bytes from offset `base`) from `from`; `end` when they are the
   * document's last. Returns where in `b` the bytes not scanned yet start.
   */
  feed(b: Uint8Array, base: number, from: number, end: boolean): number {
    const { st, finder } = this;
    finder.b = b;
    finder.base = base;
    const n = b.length;
    // In stretches of STRETCH bytes (a string may run past one: the next starts after it). One
    // call over hundreds of MB would run in code V8 compiled on the stack (OSR) and, once a rare
    // branch deoptimized it, the rest of the bytes in slower code.
    let i = from;
    while (i < n && !st.deep) {
      i = scanRange(b, st, finder, i, Math.min(n, i + STRETCH), end);
      if (st.more) {
        st.more = false;
        break;
      }
    }
    return i;
  }

  /** Past MAX_DEPTH (nothing more is scanned), or denser than the length allows (items no longer kept). */
  get refused(): boolean {
    return this.st.deep || this.st.top < 0 || this.finder.full;
  }

  /** The number of item offsets found (twice the items: start and end of each). */
  get found(): number {
    return this.finder.count;
  }

  /** Start and end of each item found, and its managedFields' range (0 and 0 for none), in the document. */
  get items(): Uint32Array {
    return this.finder.items;
  }

  get managed(): Uint32Array {
    return this.finder.managed;
  }

  /**
   * The first byte a window must still hold: the List's start until its items begin, the item
   * being read, everything after the items.
   */
  keepFrom(scanned: number): number {
    const f = this.finder;
    if (f.open < 0 || f.close >= 0) return Math.min(scanned, f.open < 0 ? 0 : f.close);
    return f.state >= 2 ? Math.min(scanned, f.itemStart) : scanned;
  }

  /** Where the items array opens and closes (-1 before it is seen). */
  get open(): number {
    return this.finder.open;
  }

  get close(): number {
    return this.finder.close;
  }

  /** What scanJson returns, once every byte was fed. */
  result(): JsonScan {
    const { st, finder: f } = this;
    const values = st.values;
    if (st.deep) return { deep: true, values };
    const dense = tooDense(values, this.bytes);
    if (dense) return { deep: false, values, dense };
    if (f.full) return { deep: false, values, tooManyItems: true };
    const list =
      f.topIsObject && f.lists === 1 && f.open >= 0 && f.close > f.open && !f.bad && f.state === 0
        ? { open: f.open, close: f.close, items: f.items.subarray(0, f.count), managed: f.managed.subarray(0, f.count) }
        : undefined;
    return { deep: false, values, list };
  }
}

/**
 * scanJson's loop over the bytes [from, to) (a string that starts there is followed to its end,
 * past `to`): returns where the next stretch starts; `st.deep` once past MAX_DEPTH. `b` is the
 * whole document when `end`, else a window of it: a string, or the bytes after a key that the
 * scan looks at, running past its end stops the stretch before that string (`st.more`: read on).
 */
function scanRange(b: Uint8Array, st: ScanState, finder: ListFinder, from: number, to: number, end: boolean): number {
  const n = b.length;
  let { depth, values, top, metaKey, inMeta, metaDone, mfOpen } = st;
  const denseAt = st.denseAt;
  let i = from;
  for (; i < to; i++) {
    const c = b[i]!;
    if (c === 0x22) {
      const from = i;
      for (i++; i < n; i++) {
        const d = b[i]!;
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (i >= n && !end) {
        i = from;
        st.more = true;
        break;
      }
      if (depth <= top) finder.token(STRING, from, i, depth);
      else if (depth === 3 || (depth === 4 && inMeta)) {
        let j = i + 1;
        while (isWs(b[j])) j++;
        if (j >= n && !end) {
          i = from;
          st.more = true;
          break;
        }
        if (depth === 3) metaKey = b[j] === 0x3a && bytesAre(b, from, i + 1, METADATA);
        else if (b[j] === 0x3a && bytesAre(b, from, i + 1, MANAGED_FIELDS)) {
          // The first managedFields member decides (a list: its range; anything else: none).
          let v = j + 1;
          while (isWs(b[v])) v++;
          if (v >= n && !end) {
            i = from;
            st.more = true;
            break;
          }
          if (b[v] === 0x5b) {
            finder.mfStart = finder.base + v;
            mfOpen = true;
          }
          inMeta = false;
          metaDone = true;
        }
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++values > denseAt) top = -1;
      if (++depth > MAX_DEPTH) {
        st.values = values;
        st.deep = true;
        return n;
      }
      if (depth <= top + 1) finder.token(c, i, i, depth - 1);
      if (depth === 3) {
        // A new item (or a deeper member of another List member): nothing of it seen yet.
        metaKey = inMeta = metaDone = mfOpen = false;
        finder.mfStart = finder.mfEnd = 0;
      } else if (depth === 4) {
        inMeta = metaKey && c === 0x7b && !metaDone;
        metaKey = false;
      }
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth <= top) finder.token(c, i, i, depth);
      if (depth === 4 && mfOpen) {
        mfOpen = false;
        if (c === 0x5d) finder.mfEnd = finder.base + i + 1;
        else finder.mfStart = 0; // unbalanced: parsed whole (and refused)
      } else if (depth === 3 && inMeta) {
        inMeta = false;
        metaDone = true;
      }
    } else if (c === 0x2c) {
      if (++values > denseAt) top = -1;
      if (depth <= top) finder.token(c, i, i, depth);
    } else if (depth <= top && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) finder.token(OTHER, i, i, depth);
  }
  st.depth = depth;
  st.values = values;
  st.top = top;
  st.metaKey = metaKey;
  st.inMeta = inMeta;
  st.metaDone = metaDone;
  st.mfOpen = mfOpen;
  return i;
}

/** Whether bytes at `at` are exactly `word` (given with its quotes). */
function bytesAre(b: Uint8Array, at: number, end: number, word: Uint8Array): boolean {
  if (end - at !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}

const METADATA = Buffer.from('"metadata"');
const MANAGED_FIELDS = Buffer.from('"managedFields"');

/** The end of the string whose opening quote is at `i` (the index of its closing quote; `end` if none). */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  for (i++; i < end; i++) {
    const d = b[i]!;
    if (d === 0x5c) i++;
    else if (d === 0x22) return i;
  }
  return end;
}

const isWs = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Where the value of an object's `metadata.managedFields` lies in its bytes [s, e): [start, end)
 * of the value, or undefined (none, or text that is not as expected: the caller parses it whole).
 * Scans the object's bytes only up to the end of its metadata (its first member, as the API
 * server writes it).
 */
export function managedFieldsRange(b: Uint8Array, s: number, e: number): [number, number] | undefined {
  let depth = 0;
  let metaKey = false; // the last key at depth 1 was "metadata"
  let inMeta = false;
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    if (c === 0x22) {
      const from = i;
      i = stringEnd(b, i, e);
      if (i >= e) return undefined;
      if (depth !== 1 && !(depth === 2 && inMeta)) continue;
      let j = i + 1;
      while (isWs(b[j])) j++;
      if (b[j] !== 0x3a) {
        if (depth === 1) metaKey = false;
        continue; // a value, not a key
      }
      if (depth === 1) {
        metaKey = bytesAre(b, from, i + 1, METADATA);
        continue;
      }
      if (!bytesAre(b, from, i + 1, MANAGED_FIELDS)) continue;
      // The value: from the first byte after the colon to its end (balanced brackets, strings skipped).
      let v = j + 1;
      while (isWs(b[v])) v++;
      if (b[v] !== 0x5b) return undefined; // not a list: parsed whole
      let d = 0;
      for (let k = v; k < e; k++) {
        const x = b[k]!;
        if (x === 0x22) {
          k = stringEnd(b, k, e);
          if (k >= e) return undefined;
        } else if (x === 0x5b || x === 0x7b) d++;
        else if (x === 0x5d || x === 0x7d) {
          if (--d === 0) return x === 0x5d ? [v, k + 1] : undefined;
        }
      }
      return undefined;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth === 2) inMeta = metaKey && c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 1 && inMeta) return undefined; // the metadata ended without managedFields
      if (depth <= 0) return undefined;
    }
  }
  return undefined;
}

/**
 * One object from its bytes [s, e), without parsing its `metadata.managedFields` unless `keep`
 * (called with the object parsed without them) says they are kept: on a real API server they
 * are a third of a pod's bytes, and slim drops most of them. The result is what JSON.parse of the
 * bytes gives, managedFields gone when not kept. Throws as JSON.parse does for text it refuses
 * (managedFields dropped unparsed are only checked to be balanced).
 */
export function parseObject(b: Buffer, s: number, e: number, keep: (o: Record<string, any>) => boolean): unknown {
  // Objects without the word (slim dumps, kubectl without --show-managed-fields) skip the scan: a native search is faster.
  const mf = b.subarray(s, e).indexOf(MANAGED_FIELDS) < 0 ? undefined : managedFieldsRange(b, s, e);
  return parseItem(b, s, e, mf ? mf[0] : 0, mf ? mf[1] : 0, keep);
}

/**
 * parseObject of an item of a List scanJson read: the range of its managedFields as the scan
 * found it (`list.managed`: managedFieldsRange's, found in the same pass; 0 and 0 for none).
 */
export function parseItem(
  b: Buffer,
  s: number,
  e: number,
  mfStart: number,
  mfEnd: number,
  keep: (o: Record<string, any>) => boolean,
): unknown {
  if (mfEnd <= mfStart) return JSON.parse(b.toString('utf8', s, e));
  const o = JSON.parse(b.toString('utf8', s, mfStart) + 'null' + b.toString('utf8', mfEnd, e));
  const md = isObj(o) ? o.metadata : undefined;
  // A later duplicate key would have replaced the null (JSON.parse keeps the last): then that one stays.
  if (isObj(md) && md.managedFields === null) {
    if (keep(o)) md.managedFields = JSON.parse(b.toString('utf8', mfStart, mfEnd));
    else delete md.managedFields;
  }
  return o;
}
