/**
 * The output contracts (docs/cli.md "Compatibility"): a JSON Schema, or the metric families of
 * `watch`, compared with the copy of the last release kept in schema/released/. A change is
 * breaking when a consumer written against the released one can trip on the current output:
 * a property removed (or renamed), its type changed, a property the released schema had made
 * required (newly required) or no longer required (it may be absent now), an enum or const
 * narrowed, a oneOf variant removed; for metrics a family removed or renamed, its type or its
 * label set changed. Adding a property (optional or always present), an enum value or a family is
 * additive. The test helpers below list the breaking changes; the contract tests demand a version
 * increment for them, and none without them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Node = Record<string, unknown>;

const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A local `$ref` (`#/$defs/x`) resolved in its own document; other nodes as they are. */
function deref(root: Node, node: unknown): unknown {
  for (let n = 0; isNode(node) && typeof node.$ref === 'string' && n < 16; n++) {
    const ref = node.$ref as string;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are compared: ${ref}`);
    node = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((x, k) => (isNode(x) ? x[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
  }
  return node;
}

const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/** The JSON types a node admits ("integer" counted as "number"), or undefined when it says none. */
function types(n: Node): string[] | undefined {
  const norm = (t: string) => (t === 'integer' ? 'number' : t);
  if (n.type !== undefined)
    return [...new Set((Array.isArray(n.type) ? n.type : [n.type]).map(String).map(norm))].sort();
  if ('const' in n) return [norm(jsonType(n.const))];
  if (Array.isArray(n.enum)) return [...new Set(n.enum.map((v) => norm(jsonType(v))))].sort();
  return undefined;
}

/** The values a node admits when it lists them (const or enum), else undefined (any of its type). */
const values = (n: Node): unknown[] | undefined =>
  'const' in n ? [n.const] : Array.isArray(n.enum) ? n.enum : undefined;

/** What tells the variants of a oneOf/anyOf apart: the first property with a const (`kind`). */
function discriminator(root: Node, v: unknown, i: number): string {
  const n = deref(root, v);
  if (isNode(n) && isNode(n.properties)) {
    for (const [k, p] of Object.entries(n.properties)) {
      const d = deref(root, p);
      if (isNode(d) && 'const' in d) return `${k}=${JSON.stringify(d.const)}`;
    }
  }
  return `#${i}`;
}

/**
 * The breaking changes from `released` to `current` (two JSON Schemas), each as "path: what".
 * `ignore` lists paths not compared (the version number itself).
 */
export function schemaBreaks(released: Node, current: Node, ignore: readonly string[] = []): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const walk = (o0: unknown, n0: unknown, path: string) => {
    const o = deref(released, o0);
    const n = deref(current, n0);
    if (!isNode(o) || ignore.includes(path)) return;
    if (!isNode(n)) return void out.push(`${path}: no longer described`);
    if (seen.has(o)) return; // a $def reached again (recursion): compared once
    seen.add(o);
    const [ot, nt] = [types(o), types(n)];
    if (ot && nt && ot.join() !== nt.join()) out.push(`${path}: type ${ot.join('|')} changed to ${nt.join('|')}`);
    else if (ot && !nt && !isNode(n.properties) && !n.oneOf && !n.anyOf)
      out.push(`${path}: type ${ot.join('|')} no longer said`);
    const [ov, nv] = [values(o), values(n)];
    if (!ov && nv) out.push(`${path}: narrowed to ${nv.map((v) => JSON.stringify(v)).join(', ')}`);
    if (ov) {
      const gone = nv ? ov.filter((v) => !nv.some((w) => JSON.stringify(w) === JSON.stringify(v))) : [];
      if (gone.length)
        out.push(
          `${path}: ${'const' in o ? 'const' : 'enum'} narrowed: ${gone.map((v) => JSON.stringify(v)).join(', ')} no longer possible`,
        );
    }
    const oprops = isNode(o.properties) ? o.properties : {};
    const nprops = isNode(n.properties) ? n.properties : {};
    const oreq = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
    const nreq = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
    for (const [k, p] of Object.entries(oprops)) {
      if (!(k in nprops)) {
        out.push(`${path}.${k}: removed`);
        continue;
      }
      if (!oreq.has(k) && nreq.has(k)) out.push(`${path}.${k}: newly required`);
      if (oreq.has(k) && !nreq.has(k)) out.push(`${path}.${k}: no longer required (consumers may find it absent)`);
      walk(p, nprops[k], `${path}.${k}`);
    }
    if (o.items !== undefined) walk(o.items, n.items, `${path}[]`);
    if (isNode(o.additionalProperties)) walk(o.additionalProperties, n.additionalProperties, `${path}{}`);
    for (const key of ['oneOf', 'anyOf'] as const) {
      const ovs = Array.isArray(o[key]) ? (o[key] as unknown[]) : [];
      const nvs = Array.isArray(n[key]) ? (n[key] as unknown[]) : [];
      const byKey = new Map(nvs.map((v, i) => [discriminator(current, v, i), v]));
      ovs.forEach((v, i) => {
        const d = discriminator(released, v, i);
        if (!byKey.has(d)) out.push(`${path}/${key}[${d}]: variant removed`);
        else walk(v, byKey.get(d), `${path}/${key}[${d}]`);
      });
    }
  };
  walk(released, current, '$');
  return out;
}

/** A metric family's contract: its type and label names (`le` of histograms left out). */
export interface FamilyContract {
  type: string;
  labels: string[];
}
export interface MetricsContract {
  version: number;
  families: Record<string, FamilyContract>;
}

/** The breaking changes from the released metric families to the current ones. */
export function metricBreaks(released: MetricsContract, current: MetricsContract): string[] {
  const out: string[] = [];
  for (const [name, f] of Object.entries(released.families)) {
    const now = current.families[name];
    if (!now) out.push(`${name}: removed`);
    else {
      if (now.type !== f.type) out.push(`${name}: type ${f.type} changed to ${now.type}`);
      const [a, b] = [[...f.labels].sort().join(','), [...now.labels].sort().join(',')];
      if (a !== b) out.push(`${name}: labels {${a}} changed to {${b}}`);
    }
  }
  return out;
}

/**
 * The released versions of a contract in schema/released/: `<stem>.v<N>.<ext>` by N, parsed.
 * Every version from 1 on must be there (each version's file stays in the repository).
 */
export function releasedVersions(dir: string, stem: string, ext: string): Map<number, Node> {
  const re = new RegExp(`^${stem}\\.v([0-9]+)\\.${ext.replace(/\./g, '\\.')}$`);
  const out = new Map<number, Node>();
  for (const f of readdirSync(dir).sort()) {
    const m = re.exec(f);
    if (m) out.set(Number(m[1]), JSON.parse(readFileSync(join(dir, f), 'utf8')) as Node);
  }
  return new Map([...out].sort((a, b) => a[0] - b[0]));
}

/**
 * The version rule: the current version is the last released one when nothing broke, the next
 * one when something did (and only then). Returns what is wrong, or undefined.
 */
export function versionProblem(released: number, current: number, breaks: readonly string[]): string | undefined {
  if (current === released && breaks.length)
    return `breaking changes without a version increment (${released} -> ${released + 1}):\n  ${breaks.join('\n  ')}`;
  if (current === released + 1 && !breaks.length)
    return `version ${current} without a breaking change: additive changes keep version ${released}`;
  if (current !== released && current !== released + 1)
    return `version ${current}: the last released is ${released}, so it is ${released} or ${released + 1}`;
  return undefined;
}
