/**
 * kubectl Lists in JSON are read item by item from the file's bytes (scanJson finds the items;
 * each is parsed and slimmed on its own). The result must be exactly what parsing the whole
 * text gives, for any layout; anything that is not a well-formed List falls back to parsing the
 * whole text, whose error messages stay as they were.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSnapshot } from '../src/run/read.js';
import { readJsonListFile } from '../src/cluster/load.js';
import { KEEPER } from '../src/mesh/keep.js';
import { keepsManagedFields } from '../src/cluster/sanitize.js';
import { managedFieldsRange, parseObject, scanJson } from '../src/cluster/json-scan.js';
import { baseObjects } from './helpers/fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-json-list-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const file = (content: string | Buffer, ext = 'json'): string => {
  const p = join(tmp, `f${n++}.${ext}`);
  writeFileSync(p, content);
  return p;
};

/** The items scanJson found, parsed from their byte ranges. */
function itemsOf(text: string): unknown[] | undefined {
  const buf = Buffer.from(text);
  const list = scanJson(buf).list;
  if (!list) return undefined;
  const out: unknown[] = [];
  for (let k = 0; k < list.items.length; k += 2)
    out.push(JSON.parse(buf.toString('utf8', list.items[k], list.items[k + 1])));
  return out;
}

describe('scanJson finds the items of a List', () => {
  it('in any layout (compact, kubectl-indented, odd whitespace), with any other members around', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.dictionary(
          fc.string().filter((k) => k !== 'items'),
          fc.jsonValue(),
          { maxKeys: 4 },
        ),
        fc.constantFrom(0, 1, 4, '\t'),
        (items, others, indent) => {
          const text = JSON.stringify({ ...others, items, kind: 'List' }, null, indent || undefined);
          expect(itemsOf(text)).toEqual(JSON.parse(text).items);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts values and nesting as jsonShape does', () => {
    expect(scanJson(Buffer.from('{"items":[[],[],{"a":"[,{"}]}'))).toMatchObject({ deep: false, values: 7 });
    expect(scanJson(Buffer.from(`{"items":[${'['.repeat(300)}${']'.repeat(300)}]}`)).deep).toBe(true);
  });

  it('gives no List for other shapes and for text that is not well-formed between the items', () => {
    for (const text of [
      '[{"kind":"Pod"}]', // an array
      '{"kind":"Pod","metadata":{"items":[1,2]}}', // items deeper down
      '{"items":[1,2],"items":[3]}', // two "items": JSON.parse keeps the last
      '{"items":[1,2],"items":null}',
      '{"items":[1 2]}', // JSON.parse of the item fails (parsed whole: the error says where)
      '{"items":[{"a":1} {"b":2}]}', // no comma
      '{"items":[{"a":1},]}', // a trailing comma
      '{"items":[,{"a":1}]}',
      '{"items":[{"a":1},,{"b":2}]}',
      '{"items":[{"a":1}', // cut off
    ]) {
      // Either no List, or items that do not all parse (the caller then parses the whole text).
      let items: unknown[] | undefined;
      try {
        items = itemsOf(text);
      } catch {
        items = undefined;
      }
      if (items) expect(() => JSON.parse(text)).not.toThrow();
    }
    expect(scanJson(Buffer.from('{"items":[{"a":1} {"b":2}]}')).list).toBeUndefined();
    expect(scanJson(Buffer.from('{"items":[{"a":1},]}')).list).toBeUndefined();
    expect(scanJson(Buffer.from('{"items":[1,2],"items":[3]}')).list).toBeUndefined();
    expect(scanJson(Buffer.from('{"kind":"items","x":["a"]}')).list).toBeUndefined();
    expect(itemsOf('{"kind":"List","items":["a,]",{"b":"]"}]}')).toEqual(['a,]', { b: ']' }]);
    expect(itemsOf('{"items":[]}')).toEqual([]);
  });
});

describe('a kubectl List in JSON loads as the whole text would', () => {
  const objects = baseObjects('both');
  const expected = async () => {
    // The same objects as multi-document YAML (never the List path).
    const yaml = file(objects.map((o) => stringify(o)).join('---\n'), 'yaml');
    return (await loadSnapshot([yaml])).objects;
  };

  it('compact and indented, with a BOM, items with and without kind (typed lists), nested Lists', async () => {
    const want = await expected();
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objects };
    for (const text of [JSON.stringify(list), JSON.stringify(list, null, 4), `\uFEFF  ${JSON.stringify(list)}`]) {
      expect((await loadSnapshot([file(text)])).objects).toEqual(want);
    }
    const nested = { kind: 'List', items: [{ kind: 'List', items: objects.slice(0, 5) }, ...objects.slice(5)] };
    expect((await loadSnapshot([file(JSON.stringify(nested))])).objects).toEqual(want);
    const pods = objects.filter((o) => o.kind === 'Pod');
    const typed = { kind: 'PodList', apiVersion: 'v1', items: pods.map(({ kind: _k, ...rest }) => rest) };
    const fromTyped = await loadSnapshot([file(JSON.stringify(typed))]);
    expect(fromTyped.objects.pods).toEqual(want.pods);
  });

  it('keeps only what the checks read (Secrets sanitized), as the whole-text path does', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'linkerd' },
      type: 'Opaque',
      data: { 'tls.key': Buffer.from('PRIVATE').toString('base64') },
    };
    const snap = await loadSnapshot([file(JSON.stringify({ kind: 'List', items: [...objects, secret] }))]);
    expect(JSON.stringify(snap.objects.secrets)).not.toContain(Buffer.from('PRIVATE').toString('base64'));
    expect(snap.objects.pods).toEqual((await expected()).pods);
  });

  it('objects of kinds meshdoctor does not read count as objects found (no "no Kubernetes objects" error)', async () => {
    const snap = await loadSnapshot([
      file(JSON.stringify({ kind: 'List', items: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } }] })),
    ]);
    expect(snap.objects.pods).toBeUndefined(); // not in the snapshot: the dump has no pods
    expect(snap.unavailable.pods).toMatch(/not in the snapshot/);
    await expect(loadSnapshot([file('{"kind":"List","items":[1,"x",null]}')])).rejects.toThrow(
      /no Kubernetes objects found/,
    );
  });

  it('malformed Lists fail with the whole-text error messages', async () => {
    const bad = file('{"kind":"List","items":[{"kind":"Pod","metadata":{"name":"a"}} {"kind":"Pod"}]}');
    await expect(loadSnapshot([bad])).rejects.toThrow(new RegExp(`^cannot read snapshot ${bad}: invalid JSON \\(`));
    const deep = file(`{"kind":"List","items":[${'['.repeat(250)}${']'.repeat(250)}]}`);
    await expect(loadSnapshot([deep])).rejects.toThrow(
      `cannot read snapshot ${deep}: invalid JSON (nested more than 200 levels deep)`,
    );
    const nul = file('{"kind":"List","items":[{"kind":"Pod","metadata":{"name":"a\u0000"}}]}');
    await expect(loadSnapshot([nul])).rejects.toThrow(
      `cannot read snapshot ${nul}: binary file, expected JSON or YAML`,
    );
  });
});

describe('a large kubectl List file is read a window at a time', () => {
  const objects = baseObjects('both');
  const mf = [{ manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:x': {} } } }];
  /** Objects renamed `copy`-fold, every other one with managedFields (dropped or kept, as slim says). */
  const many = (copies: number) =>
    Array.from({ length: copies }, (_, c) =>
      objects.map((o, k) => ({
        ...o,
        metadata: { ...o.metadata, name: `${o.metadata?.name}-${c}`, ...(k % 2 ? { managedFields: mf } : {}) },
      })),
    ).flat();
  const read = (f: string, window: number) =>
    readJsonListFile(f, Buffer.byteLength(readFileSync(f)), 1 << 30, KEEPER, window);

  it('loads what the whole text loads (a file over 4 MiB: windows of 1 MiB), compact and indented', async () => {
    const items = many(Math.ceil((5 << 20) / JSON.stringify(objects).length));
    // The same objects as a top-level array: the whole-text path, never the List's.
    const want = await loadSnapshot([file(JSON.stringify(items))]);
    for (const indent of [undefined, 4]) {
      const f = file(
        JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, indent),
      );
      expect(statSync(f).size).toBeGreaterThan(4 << 20);
      expect(read(f, 1 << 20)).toBeDefined();
      const got = await loadSnapshot([f]);
      expect(got.objects).toEqual(want.objects);
      expect(got.unavailable).toEqual(want.unavailable);
    }
  });

  it('gives the same objects for any window, however the windows cut strings, keys and items', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: objects.length - 4 }),
        fc.constantFrom(0, 1, 4, '\t'),
        fc.string(),
        fc.jsonValue(),
        (at, indent, key, other) => {
          const items = many(1).slice(at, at + 4);
          const text = JSON.stringify(
            { [key]: other, items, kind: 'List', [`${key}"`]: other },
            null,
            indent || undefined,
          );
          const f = file(text);
          const whole = read(f, 1 << 24);
          expect(whole?.found).toBe(4);
          for (const w of [1, 2, 7, 61, 400]) expect(read(f, w)).toEqual(whole);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('leaves what is not such a List, or is refused, to the whole-file path, whose messages stay', async () => {
    const pad = (items: string) => `{"kind":"List","metadata":{"x":"${'y'.repeat(5 << 20)}"},"items":[${items}]}`;
    const pod = '{"kind":"Pod","metadata":{"name":"a","namespace":"n"}}';
    // Items without their kind (a typed List whose kind comes after them), a nested bound, bad JSON.
    for (const text of [
      '{"items":[{"metadata":{"name":"a"}}],"kind":"PodList"}',
      `{"kind":"List","items":[${pod},${'['.repeat(250)}${']'.repeat(250)}]}`,
      `{"kind":"List","items":[${pod} ${pod}]}`,
      `{"kind":"List","items":[${pod}]} x`,
      `{"kind":"List","items":[${pod}],"items":[]}`,
      '[{"kind":"Pod"}]',
    ])
      for (const w of [3, 1 << 20]) expect(read(file(text), w)).toBeUndefined();
    const deep = file(pad(`${pod},${'['.repeat(250)}${']'.repeat(250)}`));
    await expect(loadSnapshot([deep])).rejects.toThrow(
      `cannot read snapshot ${deep}: invalid JSON (nested more than 200 levels deep)`,
    );
    const bad = file(pad(`${pod} ${pod}`));
    await expect(loadSnapshot([bad])).rejects.toThrow(new RegExp(`^cannot read snapshot ${bad}: invalid JSON \\(`));
    const typed = file(
      `{"items":[{"metadata":{"name":"a","namespace":"n"}}],"kind":"PodList","x":"${'y'.repeat(5 << 20)}"}`,
    );
    expect((await loadSnapshot([typed])).objects.pods?.map((p) => p.metadata?.name)).toEqual(['a']);
  });
});

describe('parseObject skips the managedFields slim drops', () => {
  const mf = [{ manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': { 'f:phase': {} } } }];
  const owned = {
    kind: 'Pod',
    metadata: { name: 'a', ownerReferences: [{ kind: 'ReplicaSet', name: 'r', controller: true }], managedFields: mf },
    spec: {},
  };
  const bare = {
    kind: 'Pod',
    metadata: { name: 'b', managedFields: mf, labels: { x: '"managedFields":[' } },
    spec: {},
  };
  const parse = (o: unknown, indent?: number) => {
    const buf = Buffer.from(`  ${JSON.stringify(o, null, indent)}  `);
    return parseObject(buf, 2, buf.length - 2, (x) => keepsManagedFields('pods', x));
  };

  it('drops them unparsed where slim drops them, keeps them where it keeps them, in any layout', () => {
    for (const indent of [undefined, 4]) {
      const { managedFields: _drop, ...md } = owned.metadata;
      expect(parse(owned, indent)).toEqual({ ...owned, metadata: md });
      expect(parse(bare, indent)).toEqual(bare);
    }
  });

  it('gives what JSON.parse gives when the bytes are unusual', () => {
    const texts = [
      '{"kind":"Pod","metadata":{"managedFields":[1],"managedFields":[2],"ownerReferences":[{"controller":true}]}}', // duplicates: the last one, as JSON.parse
      '{"kind":"Pod","metadata":{"managedFields":"x"}}', // not a list
      '{"kind":"Pod","spec":{"managedFields":[1]},"metadata":{"name":"a"}}', // not in metadata
      '{"kind":"Pod","metadata":{"annotations":{"a":"\\"managedFields\\":[1]"}}}', // only inside a string
      '{"kind":"Pod","metadata":{"name":"a"},"x":{"managedFields":[1]}}',
    ];
    for (const text of texts) {
      const buf = Buffer.from(text);
      expect(parseObject(buf, 0, buf.length, () => true)).toEqual(JSON.parse(text));
    }
    expect(() => parseObject(Buffer.from('{"metadata":{"managedFields":[1]},}'), 0, 35, () => true)).toThrow(
      SyntaxError,
    );
  });

  it("finds managedFields only as a member of the object's own metadata", () => {
    const range = (t: string) => managedFieldsRange(Buffer.from(t), 0, t.length);
    expect(range('{"metadata":{"name":"a","managedFields":[{"a":"]"}]}}')).toEqual([40, 51]);
    expect(range('{"spec":{"managedFields":[1]}}')).toBeUndefined();
    expect(range('{"metadata":{"x":{"managedFields":[1]}}}')).toBeUndefined();
    expect(range('{"metadata":{"managedFields":[1}}')).toBeUndefined(); // unbalanced: parsed whole (and refused)
  });
});

describe("scanJson finds each item's managedFields in the same pass", () => {
  /** managedFieldsRange of each item, as parseObject finds it: [start, end] or [0, 0]. */
  const separate = (buf: Buffer, items: Uint32Array) => {
    const out: number[] = [];
    for (let k = 0; k < items.length; k += 2) {
      const r = managedFieldsRange(buf, items[k]!, items[k + 1]!);
      out.push(...(r ?? [0, 0]));
    }
    return out;
  };
  const check = (itemTexts: string[], others = '', indent = '') => {
    const text = `{${others}"kind":"List","items":[${indent}${itemTexts.join(`,${indent}`)}${indent}]}`;
    const buf = Buffer.from(text);
    const list = scanJson(buf).list!;
    expect(list).toBeDefined();
    expect([...list.managed]).toEqual(separate(buf, list.items));
  };

  it('as managedFieldsRange finds them, in unusual shapes too', () => {
    check([
      '{"metadata":{"name":"a","managedFields":[{"a":"]"}]}}',
      '{"spec":{"managedFields":[1]}}',
      '{"metadata":{"x":{"managedFields":[1]}}}',
      '{"metadata":{"managedFields":"x"}}',
      '{"metadata":{"managedFields":[1],"managedFields":[2]}}',
      '{"metadata" : { "managedFields" :\n [ {"m":"x"} ] , "name":"b"}}',
      '{"metadata":{"name":"a"},"x":{"managedFields":[1]}}',
      '{"metadata":{"name":"a"},"metadata":{"managedFields":[1]}}',
      '{"metadata":[1],"metadata":{"managedFields":[3]}}',
      '{"metadata":"x","managedFields":[1]}',
      '{"x":"metadata","y":{"managedFields":[1]}}',
      '[{"metadata":{"managedFields":[1]}}]',
      '5',
      '"metadata"',
      '{"metadata":{"annotations":{"a":"\\"managedFields\\":[1]"}}}',
      '{"metadata":{"managedFields":{"a":[1]}}}',
    ]);
    // Another member of the List holding an item-like object does not lend its range to an item.
    check(['5', '{"metadata":{}}'], '"x":{"y":{"metadata":{"managedFields":[1]}}},');
    check(['{"metadata":{"managedFields":[{"a":1}]}}', '7'], '', '\n    ');
  });

  it('for any JSON items', () => {
    const item = fc.oneof(
      fc.jsonValue(),
      fc.record({
        metadata: fc.record({ name: fc.string(), managedFields: fc.jsonValue() }, { requiredKeys: [] }),
        spec: fc.jsonValue(),
      }),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), fc.constantFrom(undefined, 1, 4), (items, indent) => {
        const text = JSON.stringify({ kind: 'List', items }, null, indent);
        const buf = Buffer.from(text);
        const list = scanJson(buf).list!;
        expect([...list.managed]).toEqual(separate(buf, list.items));
      }),
      { numRuns: 300 },
    );
  });
});

describe("several snapshot files: the API server's reads merge per read", () => {
  const own = (name: string, server: unknown) => {
    const file = join(tmp, name);
    writeFileSync(
      file,
      JSON.stringify({ kind: 'MeshdoctorSnapshot', apiVersion: 'meshdoctor.io/v1', objects: {}, server }),
    );
    return file;
  };
  it('a read wins over a refusal in an earlier file; a read only one file has is kept; the first read wins', async () => {
    const a = own('server-a.json', {
      version: { state: 'refused', reason: 'forbidden: no' },
      metrics: { state: 'failed', reason: 'timed out' },
    });
    const b = own('server-b.json', {
      version: { state: 'read', value: { major: 1, minor: 30, gitVersion: 'v1.30.2' } },
      apiserverPods: { state: 'read', value: true },
    });
    const c = own('server-c.json', {
      version: { state: 'read', value: { major: 1, minor: 31, gitVersion: 'v1.31.0' } },
    });
    const snap = await loadSnapshot([a, b, c]);
    expect(snap.server).toEqual({
      version: { state: 'read', value: { major: 1, minor: 30, gitVersion: 'v1.30.2' } },
      metrics: { state: 'failed', reason: 'timed out' },
      apiserverPods: { state: 'read', value: true },
    });
  });
});
