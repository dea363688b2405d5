/**
 * Selectors as kubectl's -l/--selector and --field-selector take them, as text.
 *
 * Label selectors: a port of apimachinery's labels.Parse (kubernetes/kubernetes
 * staging/src/k8s.io/apimachinery/pkg/labels/selector.go @008b3652): its lexer (identifiers end at
 * whitespace or one of `= ! ( ) , > <`; `in` and `notin` are keywords, but values where a value is
 * expected), its grammar (`key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a,b)`,
 * `key notin (a,b)`, `key>1`, `key<1`, comma-separated, all must hold; `in ()` holds the empty
 * value), NewRequirement's validation (label keys and values as the API server validates them, Gt
 * and Lt need one integer) and Requirement.Matches (`!=` and `notin` hold when the key is absent;
 * Gt and Lt need the label to be an integer).
 *
 * Field selectors: fields.ParseSelector (pkg/fields/selector.go @2b1eebd0): terms split at commas,
 * each `field!=value`, `field==value` or `field=value`. Every kind the API server serves accepts
 * metadata.name and metadata.namespace (apiserver pkg/registry/generic/matcher.go
 * ObjectMetaFieldsSet @4a0608cb); any other field is refused with the API server's words
 * (apimachinery pkg/runtime DefaultMetaV1FieldSelectorConversion).
 */
import { labelKeyError, labelValueError } from './selectors.js';

type Op = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | '>' | '<';

interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

/** A parsed label selector: its requirements (all must hold) and their text. */
export interface LabelSelector {
  requirements: Requirement[];
  text: string;
}

/** The longest selector text parsed: a command-line argument, not a file. */
const MAX_TEXT = 10_000;

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
const TOKENS = new Set(['!=', '==', '=', '!', '(', ')', ',', '>', '<']);

type Token = { t: 'id' | 'in' | 'notin' | 'op' | 'end'; s: string };

function lex(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
    if (i >= text.length) {
      out.push({ t: 'end', s: '' });
      return out;
    }
    if (SPECIAL.has(text[i]!)) {
      // The longest run of special characters that is a token ("!=" before "!").
      let buf = '';
      let last: string | undefined;
      let j = i;
      while (j < text.length && SPECIAL.has(text[j]!)) {
        buf += text[j];
        if (TOKENS.has(buf)) last = buf;
        else if (last !== undefined) break;
        j++;
      }
      if (last === undefined) throw new Error(`error expected: keyword found '${buf}'`);
      out.push({ t: 'op', s: last });
      i += last.length;
      continue;
    }
    let j = i;
    while (j < text.length && !SPECIAL.has(text[j]!) && !WHITESPACE.has(text[j]!)) j++;
    const word = text.slice(i, j);
    out.push({ t: word === 'in' ? 'in' : word === 'notin' ? 'notin' : 'id', s: word });
    i = j;
  }
}

/** Where a value is expected, `in` and `notin` are values like any other word. */
const asValue = (tok: Token): Token => (tok.t === 'in' || tok.t === 'notin' ? { t: 'id', s: tok.s } : tok);

function parseRequirements(text: string): Requirement[] {
  const toks = lex(text);
  let pos = 0;
  const peek = () => asValue(toks[pos]!);
  const next = () => asValue(toks[pos++]!);
  const isOp = (tok: Token, op: string) => tok.t === 'op' && tok.s === op;
  const out: Requirement[] = [];
  for (;;) {
    const tok = peek();
    if (tok.t === 'end') return out;
    if (tok.t !== 'id' && !isOp(tok, '!'))
      throw new Error(`found '${tok.s}', expected: !, identifier, or 'end of string'`);
    out.push(requirement());
    const after = next();
    if (after.t === 'end') return out;
    if (!isOp(after, ',')) throw new Error(`found '${after.s}', expected: ',' or 'end of string'`);
    const following = peek();
    if (following.t !== 'id' && !isOp(following, '!'))
      throw new Error(`found '${following.s}', expected: identifier after ','`);
  }

  function requirement(): Requirement {
    let tok = next();
    const not = isOp(tok, '!');
    if (not) tok = next();
    if (tok.t !== 'id') throw new Error(`found '${tok.s}', expected: identifier`);
    const key = tok.s;
    const keyErr = labelKeyError(key);
    if (keyErr) throw new Error(keyErr);
    const la = peek();
    if (la.t === 'end' || isOp(la, ',')) return { key, op: not ? '!' : 'exists', values: [] };
    if (not) throw new Error(`found '${la.s}', expected: ',' or 'end of string'`);
    // The operator: read as keywords (`in`, `notin`) here.
    const opTok = toks[pos++]!;
    const op: Op | undefined =
      opTok.t === 'in'
        ? 'in'
        : opTok.t === 'notin'
          ? 'notin'
          : opTok.t === 'op' && ['=', '==', '!=', '>', '<'].includes(opTok.s)
            ? (opTok.s as Op)
            : undefined;
    if (!op) throw new Error(`found '${opTok.s}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = op === 'in' || op === 'notin' ? valueSet() : [exactValue()];
    if ((op === '>' || op === '<') && !/^[+-]?\d+$/.test(values[0]!))
      throw new Error(`for 'Gt', 'Lt' operators, the value must be an integer`);
    for (const v of values) {
      const e = labelValueError(v);
      if (e) throw new Error(e);
    }
    return { key, op, values };
  }

  function exactValue(): string {
    const tok = peek();
    if (tok.t === 'end' || isOp(tok, ',')) return '';
    next();
    if (tok.t !== 'id') throw new Error(`found '${tok.s}', expected: identifier`);
    return tok.s;
  }

  function valueSet(): string[] {
    const open = next();
    if (!isOp(open, '(')) throw new Error(`found '${open.s}' expected: '('`);
    const first = peek();
    if (isOp(first, ')')) {
      next();
      return ['']; // "()" holds the empty value
    }
    if (first.t !== 'id' && !isOp(first, ',')) throw new Error(`found '${first.s}', expected: ',', ')' or identifier`);
    const set = new Set<string>();
    for (;;) {
      const tok = next();
      if (tok.t === 'id') {
        set.add(tok.s);
        const la = peek();
        if (isOp(la, ',')) continue;
        if (isOp(la, ')')) break;
        throw new Error(`found '${la.s}', expected: ',' or ')'`);
      } else if (isOp(tok, ',')) {
        if (set.size === 0) set.add(''); // "(," holds the empty value
        const la = peek();
        if (isOp(la, ')')) {
          set.add('');
          break;
        }
        if (isOp(la, ',')) set.add('');
      } else throw new Error(`found '${tok.s}', expected: ',', or identifier`);
    }
    const close = next();
    if (!isOp(close, ')')) throw new Error(`found '${close.s}', expected: ')'`);
    return [...set].sort();
  }
}

/** Parse a label selector as kubectl's -l does; a UserError-ready message on failure. */
export function parseLabelSelector(text: string): LabelSelector | { error: string } {
  if (text.length > MAX_TEXT) return { error: `longer than ${MAX_TEXT} characters` };
  try {
    return { requirements: parseRequirements(text), text };
  } catch (e) {
    return { error: `unable to parse requirement: ${(e as Error).message}` };
  }
}

/** labels.Requirement.Matches. */
function holds(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = has ? labels[r.key]! : undefined;
  switch (r.op) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v!);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case '>':
    case '<': {
      if (!has || !/^[+-]?\d+$/.test(v!)) return false;
      const [a, b] = [BigInt(v!), BigInt(r.values[0]!)];
      return r.op === '>' ? a > b : a < b;
    }
  }
}

export const labelsMatch = (s: LabelSelector, labels: Readonly<Record<string, string>>): boolean =>
  s.requirements.every((r) => holds(r, labels));

/** A parsed field selector over metadata.name and metadata.namespace. */
export interface FieldSelector {
  terms: { field: 'metadata.name' | 'metadata.namespace'; equal: boolean; value: string }[];
  text: string;
}

/** Parse a field selector as kubectl's --field-selector does, the fields every kind serves. */
export function parseFieldSelector(text: string): FieldSelector | { error: string } {
  if (text.length > MAX_TEXT) return { error: `longer than ${MAX_TEXT} characters` };
  const terms: FieldSelector['terms'] = [];
  for (const part of text.split(',')) {
    if (part === '') continue;
    const split = (op: string) => {
      const pieces = part.split(op);
      return pieces.length === 2 ? pieces : undefined;
    };
    const ne = split('!=');
    const eq = ne ? undefined : (split('==') ?? split('='));
    const pair = ne ?? eq;
    if (!pair) return { error: `invalid selector: '${text}'; can't understand '${part}'` };
    const [field, value] = pair as [string, string];
    if (field !== 'metadata.name' && field !== 'metadata.namespace') {
      return { error: `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"` };
    }
    terms.push({ field, equal: !ne, value });
  }
  return { terms, text };
}

export const fieldsMatch = (s: FieldSelector, fields: { name: string; namespace: string }): boolean =>
  s.terms.every((t) => ((t.field === 'metadata.name' ? fields.name : fields.namespace) === t.value) === t.equal);
