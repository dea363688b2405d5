/**
 * `-o jsonpath=TEMPLATE`: kubectl's JSONPath template subset over the document `-o json` prints
 * (reportDoc). Semantics follow kubernetes/client-go util/jsonpath (jsonpath.go at 57e69770:
 * FindResults, PrintResults, evalFilter; kubectl's printer sets AllowMissingKeys(true)): text outside `{}` is printed as is;
 * `{.a.b}`, `{.a[0]}`, `{.a[-1]}`, `{.a[1:3]}`, `{.a[*].b}`, `{.a.*}`, `{['a.b']}`, `{..name}`
 * (recursive descent), `{@}`, `{range PATH}...{end}`, filters `[?(@.x=="v")]` with `==` `!=` `<`
 * `>` `<=` `>=` on strings and numbers or `[?(@.x)]` (exists), quoted literals `{"\n"}`. The results
 * of one action are printed space-separated: strings and numbers as text, objects and arrays as
 * compact JSON (json.Marshal), a missing key as nothing. Two departures, on purpose: a JSON null prints
 * `null` (Go prints `<nil>`), and a filter comparing a string with a number does not match (Go's
 * template.Equal fails the whole template with "incompatible types"). Nothing is evaluated as code:
 * a small bounded parser.
 *
 * Values come from the cluster: they are printed raw as kubectl prints them, except that every
 * control or invisible character is written as an escape (`\n`, `\x1b`, `\u202e`), as the other
 * formats do (util/errors.ts printable, json.ts escapeInvisible). The template's own literals are
 * the user's and are printed as written (`{"\n"}` is a newline).
 */
import { UserError, printable } from '../util/errors.js';
import { escapeInvisible, reportDoc } from './json.js';
import type { Reporter } from './reporter.js';

/** The longest template accepted (characters). */
const MAX_TEMPLATE = 4096;
/** Bounds of one evaluation: values visited, and characters printed. */
const MAX_STEPS = 2_000_000;
const MAX_OUTPUT = 64 * 1024 * 1024;

type Cmp = '==' | '!=' | '<' | '>' | '<=' | '>=';
type Step =
  | { t: 'field'; name: string }
  | { t: 'wild' }
  | { t: 'index'; i: number }
  | { t: 'slice'; from?: number; to?: number }
  | { t: 'all' }
  | { t: 'recurse' }
  | { t: 'filter'; left: Step[]; op?: Cmp; right?: string | number };
type Node = { t: 'text'; text: string } | { t: 'path'; steps: Step[] } | { t: 'range'; steps: Step[]; body: Node[] };

class JsonPathError extends Error {}

/** Parse a template; throws JsonPathError with kubectl's reason ("unclosed action", ...). */
export function parseJsonPath(template: string): Node[] {
  if (!template) throw new JsonPathError('template format specified but no template given'); // kubectl's words
  if (template.length > MAX_TEMPLATE) throw new JsonPathError(`template longer than ${MAX_TEMPLATE} characters`);
  const root: Node[] = [];
  const stack: Node[][] = [root];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      stack.at(-1)!.push({ t: 'text', text: template.slice(i) });
      break;
    }
    if (open > i) stack.at(-1)!.push({ t: 'text', text: template.slice(i, open) });
    const close = actionEnd(template, open + 1);
    const inner = template.slice(open + 1, close).trim();
    i = close + 1;
    if (inner === 'end') {
      if (stack.length === 1) throw new JsonPathError('not in range, nothing to end');
      stack.pop();
    } else if (/^range\s/.test(inner)) {
      const node: Node = { t: 'range', steps: parsePath(inner.slice(6).trim()), body: [] };
      stack.at(-1)!.push(node);
      stack.push(node.body);
    } else if (inner.startsWith('"')) {
      stack.at(-1)!.push({ t: 'text', text: quoted(inner) });
    } else {
      stack.at(-1)!.push({ t: 'path', steps: parsePath(inner) });
    }
  }
  if (stack.length > 1) throw new JsonPathError('unclosed range, missing {end}');
  return root;
}

/** The index of the `}` closing an action opened before `from` (quoted strings may hold braces). */
function actionEnd(s: string, from: number): number {
  let q = '';
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (q) {
      if (c === '\\') i++;
      else if (c === q) q = '';
    } else if (c === '"' || c === "'") q = c;
    else if (c === '}') return i;
    else if (c === '{') throw new JsonPathError('unexpected { in action');
  }
  throw new JsonPathError('unclosed action');
}

/** A quoted literal `"..."` with Go's escapes \n \t \r \\ \" (strconv.Unquote as client-go does). */
function quoted(s: string): string {
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(s);
  if (!m) throw new JsonPathError(`unterminated quoted string ${s}`);
  return m[1]!.replace(/\\(.)/g, (_, c: string) => {
    const e: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'" };
    if (!(c in e)) throw new JsonPathError(`invalid escape \\${c} in quoted string`);
    return e[c]!;
  });
}

/** A path: `@`, `$`, `.a`, `..a`, `[...]` steps. */
function parsePath(s: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  if (s[0] === '@' || s[0] === '$') i = 1;
  if (!s.length) throw new JsonPathError('empty path');
  while (i < s.length) {
    const c = s[i]!;
    if (c === '.') {
      if (s[i + 1] === '.') {
        steps.push({ t: 'recurse' });
        i += 1; // the second dot starts the next step: `..name`, `..*`
        if (s[i + 1] === '[') i++;
        continue;
      }
      i++;
      if (s[i] === '*') {
        steps.push({ t: 'wild' });
        i++;
        continue;
      }
      let name = '';
      while (i < s.length && !/[.[\s]/.test(s[i]!)) {
        if (s[i] === '\\' && s[i + 1] === '.') {
          name += '.';
          i += 2;
        } else name += s[i++];
      }
      if (name) steps.push({ t: 'field', name });
      else if (i < s.length && s[i] !== '[') throw new JsonPathError(`invalid field at ${s.slice(i - 1)}`);
    } else if (c === '[') {
      const end = bracketEnd(s, i);
      steps.push(bracket(s.slice(i + 1, end).trim()));
      i = end + 1;
    } else if (/[A-Za-z_]/.test(c) && i === 0) {
      // `{name}` without a leading dot: client-go reads it as a field of the current value
      let name = '';
      while (i < s.length && !/[.[\s]/.test(s[i]!)) name += s[i++];
      steps.push({ t: 'field', name });
    } else throw new JsonPathError(`unrecognized character in action: ${printable(c)}`);
  }
  return steps;
}

function bracketEnd(s: string, open: number): number {
  let depth = 0;
  let q = '';
  for (let i = open; i < s.length; i++) {
    const c = s[i]!;
    if (q) {
      if (c === '\\') i++;
      else if (c === q) q = '';
    } else if (c === '"' || c === "'") q = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new JsonPathError('unterminated array');
}

function bracket(b: string): Step {
  if (b === '*') return { t: 'all' };
  if (/^-?\d+$/.test(b)) return { t: 'index', i: Number(b) };
  const slice = /^(-?\d+)?\s*:\s*(-?\d+)?$/.exec(b);
  if (slice) return { t: 'slice', from: num(slice[1]), to: num(slice[2]) };
  const key = /^'((?:[^'\\]|\\.)*)'$|^"((?:[^"\\]|\\.)*)"$/.exec(b);
  if (key) return { t: 'field', name: (key[1] ?? key[2]!).replace(/\\(.)/g, '$1') };
  const f = /^\?\((.*)\)$/s.exec(b);
  if (f) {
    const m = /^\s*(@[^=!<>\s]*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*$/s.exec(f[1]!);
    if (!m) throw new JsonPathError(`unrecognized filter ${b}`);
    const left = parsePath(m[1]!);
    if (!m[2]) return { t: 'filter', left };
    const r = m[3]!;
    const right = /^-?\d+(\.\d+)?$/.test(r)
      ? Number(r)
      : /^(["']).*\1$/s.test(r)
        ? quoted(`"${r.slice(1, -1)}"`)
        : undefined;
    if (right === undefined) throw new JsonPathError(`unrecognized filter value ${r}`);
    return { t: 'filter', left, op: m[2] as Cmp, right };
  }
  throw new JsonPathError(`invalid array index ${b}`);
}

const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));

type Budget = { steps: number };

function tick(b: Budget, n = 1) {
  b.steps += n;
  if (b.steps > MAX_STEPS) throw new JsonPathError(`evaluation visits more than ${MAX_STEPS} values`);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The values a path selects from `cur` (a missing key selects nothing, as kubectl's AllowMissingKeys). */
function evalPath(steps: Step[], cur: unknown[], b: Budget): unknown[] {
  let vals = cur;
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of vals) {
      tick(b, Array.isArray(v) ? v.length + 1 : 1);
      switch (s.t) {
        case 'field':
          if (isObj(v) && Object.hasOwn(v, s.name) && v[s.name] !== undefined) next.push(v[s.name]);
          break;
        case 'wild':
          if (isObj(v)) for (const x of Object.values(v)) if (x !== undefined) next.push(x);
          if (Array.isArray(v)) for (const x of v) next.push(x);
          break;
        case 'all':
          if (Array.isArray(v)) for (const x of v) next.push(x);
          break;
        case 'index':
          if (Array.isArray(v)) {
            const i = s.i < 0 ? v.length + s.i : s.i;
            if (i >= 0 && i < v.length) next.push(v[i]);
          }
          break;
        case 'slice':
          if (Array.isArray(v)) for (const x of v.slice(s.from ?? 0, s.to ?? v.length)) next.push(x);
          break;
        case 'recurse':
          descend(v, next, b);
          break;
        case 'filter':
          if (Array.isArray(v)) for (const x of v) if (keep(s, x, b)) next.push(x);
          break;
      }
    }
    vals = next;
  }
  return vals;
}

/** `..`: the value and every value under it, depth first, in document order. */
function descend(v: unknown, out: unknown[], b: Budget): void {
  tick(b);
  out.push(v);
  if (Array.isArray(v)) for (const x of v) descend(x, out, b);
  else if (isObj(v)) for (const x of Object.values(v)) if (x !== undefined) descend(x, out, b);
}

function keep(f: Extract<Step, { t: 'filter' }>, x: unknown, b: Budget): boolean {
  const got = evalPath(f.left, [x], b);
  if (!f.op) return got.length > 0;
  return got.some((l) => {
    const r = f.right!;
    if (typeof l !== typeof r) return f.op === '!=';
    const a = l as string | number;
    switch (f.op) {
      case '==':
        return a === r;
      case '!=':
        return a !== r;
      case '<':
        return a < r;
      case '>':
        return a > r;
      case '<=':
        return a <= r;
      case '>=':
        return a >= r;
    }
    return false;
  });
}

/** One value as kubectl prints it: text for scalars, compact JSON for objects and arrays; escaped. */
function text(v: unknown): string {
  if (typeof v === 'string') return printable(v, Number.MAX_SAFE_INTEGER);
  if (v === null) return 'null';
  if (typeof v === 'object') return escapeInvisible(JSON.stringify(v));
  return printable(String(v), Number.MAX_SAFE_INTEGER);
}

function run(nodes: Node[], cur: unknown, out: string[], b: Budget, len: { n: number }): void {
  for (const node of nodes) {
    let s = '';
    if (node.t === 'text') s = node.text;
    else if (node.t === 'path') s = evalPath(node.steps, [cur], b).map(text).join(' ');
    else for (const item of evalPath(node.steps, [cur], b)) run(node.body, item, out, b, len);
    if (!s) continue;
    len.n += s.length;
    if (len.n > MAX_OUTPUT) throw new JsonPathError(`output longer than ${MAX_OUTPUT} characters`);
    out.push(s);
  }
}

/** Evaluate parsed nodes over a document. */
export function evalJsonPath(nodes: Node[], doc: unknown): string {
  const out: string[] = [];
  run(nodes, doc, out, { steps: 0 }, { n: 0 });
  return out.join('');
}

/** A template parsed, or kubectl's one line for one that does not parse: `error parsing jsonpath TEMPLATE, REASON`. */
export function compileJsonPath(template: string): Node[] {
  try {
    return parseJsonPath(template);
  } catch (e) {
    if (!(e instanceof JsonPathError)) throw e;
    const shown = template.length > 200 ? `${template.slice(0, 200)}…` : template;
    throw new UserError(`error parsing jsonpath ${shown}, ${e.message}`);
  }
}

/** The text of parsed nodes over a JSON document (a bound reached: kubectl's `error executing jsonpath`). */
export function jsonPathText(nodes: Node[], doc: unknown): string {
  try {
    return evalJsonPath(nodes, JSON.parse(JSON.stringify(doc)));
  } catch (e) {
    if (e instanceof JsonPathError) throw new UserError(`error executing jsonpath: ${e.message}`);
    throw e;
  }
}

/** The reporter for one parsed template, over the `-o json` document. */
export const jsonPathReporter =
  (nodes: Node[]): Reporter =>
  (result, meta) =>
    jsonPathText(nodes, reportDoc(result, meta));
