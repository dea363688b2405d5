/**
 * The few CEL shapes real admission webhooks put in `matchConditions`, evaluated over what a pod
 * CREATE carries: `object.metadata.name == 'x'`, `!=`, `has(object.metadata.labels)`,
 * `'k' in object.metadata.labels` (or annotations), `object.metadata.labels['k'] == 'v'`,
 * `request.userInfo.username` comparisons, `&&`, `||`, `!`, parentheses, `true`/`false`.
 * A tiny bounded recursive-descent parser: no eval, no other CEL. Anything else, and any value
 * meshdoctor cannot know (the requesting user, a name the API server has not generated yet), is
 * `unknown`: "not evaluated", never guessed.
 *
 * CEL semantics kept (github.com/google/cel-spec doc/langdef.md, "Logical Operators"): `&&` and `||`
 * are commutative over errors (`false && error` is false, `true || error` is true); selecting a
 * map key that is absent (`object.metadata.labels['k']`, or `labels` on a pod with none) is an
 * error, which `has()` avoids. What the API server does with the results: kubernetes/kubernetes
 * 008b3652 staging/src/k8s.io/api/admissionregistration/v1/types.go (MatchConditions: any false
 * skips the webhook, all true calls it, an error with none false rejects the request under
 * failurePolicy Fail and skips the webhook under Ignore) and
 * staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go (Match).
 */

/** The result of one expression: `unknown` where meshdoctor could not evaluate it. */
type CelResult = true | false | 'error' | 'unknown';

/** What a pod CREATE request carries, as far as meshdoctor knows it. */
export interface CelRequest {
  /** Undefined where the API server generates the name (generateName): not known at admission. */
  name?: string;
  namespace: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** The requesting user, if known (it never is from a snapshot). */
  username?: string;
}

type Tok = { t: 'id' | 'str' | 'op'; v: string };

const MAX_EXPR = 2048;
const MAX_TOKENS = 256;
const MAX_DEPTH = 32;

function tokenize(src: string): Tok[] | undefined {
  if (src.length > MAX_EXPR) return undefined;
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    if (out.length > MAX_TOKENS) return undefined;
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['==', '!=', '&&', '||'].includes(two)) {
      out.push({ t: 'op', v: two });
      i += 2;
      continue;
    }
    if ('!().[]'.includes(c)) {
      out.push({ t: 'op', v: c });
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      // Plain string literals only: an escape or a raw/triple-quoted string is not evaluated.
      const end = src.indexOf(c, i + 1);
      if (end < 0) return undefined;
      const s = src.slice(i + 1, end);
      if (s.includes('\\') || s.includes('\n')) return undefined;
      out.push({ t: 'str', v: s });
      i = end + 1;
      continue;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 128));
    if (!m) return undefined;
    out.push({ t: 'id', v: m[0] });
    i += m[0].length;
  }
  return out;
}

/** A value during evaluation: a string, a bool, a string map, absent, or not known. */
type Val =
  | { k: 'str'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'map'; v: Record<string, string> }
  | { k: 'error' }
  | { k: 'unknown' };

const ERR: Val = { k: 'error' };
const UNK: Val = { k: 'unknown' };

class Parser {
  private i = 0;
  constructor(
    private readonly toks: Tok[],
    private readonly req: CelRequest | undefined,
  ) {}

  /** Thrown for a shape outside the supported subset. */
  private static readonly unsupported = new Error('unsupported');

  run(): Val {
    const v = this.or(0);
    if (this.i !== this.toks.length) throw Parser.unsupported;
    return v;
  }

  private peek(v: string): boolean {
    const t = this.toks[this.i];
    return t !== undefined && (t.t === 'op' || t.t === 'id') && t.v === v;
  }
  private expect(v: string): void {
    if (!this.peek(v)) throw Parser.unsupported;
    this.i++;
  }

  private or(d: number): Val {
    if (d > MAX_DEPTH) throw Parser.unsupported;
    let l = this.and(d + 1);
    while (this.peek('||')) {
      this.i++;
      l = logic('||', l, this.and(d + 1));
    }
    return l;
  }
  private and(d: number): Val {
    let l = this.unary(d + 1);
    while (this.peek('&&')) {
      this.i++;
      l = logic('&&', l, this.unary(d + 1));
    }
    return l;
  }
  private unary(d: number): Val {
    if (d > MAX_DEPTH) throw Parser.unsupported;
    if (this.peek('!')) {
      this.i++;
      const v = this.unary(d + 1);
      if (v.k === 'bool') return { k: 'bool', v: !v.v };
      if (v.k === 'error' || v.k === 'unknown') return v;
      throw Parser.unsupported;
    }
    return this.comparison(d + 1);
  }
  private comparison(d: number): Val {
    const l = this.primary(d + 1);
    for (const op of ['==', '!=', 'in']) {
      if (!this.peek(op)) continue;
      this.i++;
      const r = this.primary(d + 1);
      return compare(op, l, r);
    }
    return l;
  }
  private primary(d: number): Val {
    if (d > MAX_DEPTH) throw Parser.unsupported;
    const t = this.toks[this.i];
    if (!t) throw Parser.unsupported;
    if (t.t === 'op' && t.v === '(') {
      this.i++;
      const v = this.or(d + 1);
      this.expect(')');
      return v;
    }
    if (t.t === 'str') {
      this.i++;
      return { k: 'str', v: t.v };
    }
    if (t.t === 'id' && (t.v === 'true' || t.v === 'false')) {
      this.i++;
      return { k: 'bool', v: t.v === 'true' };
    }
    if (t.t === 'id' && t.v === 'has') {
      this.i++;
      this.expect('(');
      const path = this.path();
      this.expect(')');
      // has() takes a field selection: the last step must be `.name`.
      const last = path[path.length - 1];
      if (path.length < 2 || !last || last.bracket) throw Parser.unsupported;
      if (path.length <= 3) return this.hasField(path);
      const parent = this.resolve(path.slice(0, -1));
      if (parent.k === 'unknown' || parent.k === 'error') return parent;
      if (parent.k === 'map') return { k: 'bool', v: Object.hasOwn(parent.v, last.key) };
      return this.hasField(path);
    }
    if (t.t === 'id') return this.resolve(this.path());
    throw Parser.unsupported;
  }

  private path(): { key: string; bracket: boolean }[] {
    const t = this.toks[this.i];
    if (!t || t.t !== 'id') throw Parser.unsupported;
    this.i++;
    const out = [{ key: t.v, bracket: false }];
    while (out.length < 8) {
      if (this.peek('.')) {
        this.i++;
        const n = this.toks[this.i];
        if (!n || n.t !== 'id') throw Parser.unsupported;
        this.i++;
        out.push({ key: n.v, bracket: false });
      } else if (this.peek('[')) {
        this.i++;
        const n = this.toks[this.i];
        if (!n || n.t !== 'str') throw Parser.unsupported;
        this.i++;
        this.expect(']');
        out.push({ key: n.v, bracket: true });
      } else break;
    }
    return out;
  }

  /** `has(object.metadata.labels)` and the like: whether the pod carries that field. */
  private hasField(path: { key: string }[]): Val {
    const keys = path.map((p) => p.key).join('.');
    if (!this.req) return UNK;
    if (keys === 'object.metadata.labels')
      return { k: 'bool', v: !!this.req.labels && Object.keys(this.req.labels).length > 0 };
    if (keys === 'object.metadata.annotations')
      return { k: 'bool', v: !!this.req.annotations && Object.keys(this.req.annotations).length > 0 };
    if (keys === 'object.metadata.name')
      return this.req.name === undefined ? UNK : { k: 'bool', v: this.req.name !== '' };
    if (keys === 'object.metadata.namespace') return { k: 'bool', v: true };
    throw Parser.unsupported;
  }

  private resolve(path: { key: string; bracket: boolean }[]): Val {
    const keys = path.map((p) => p.key);
    const head = keys.slice(0, 3).join('.');
    const rest = path.slice(3);
    if (head === 'request.userInfo.username' && rest.length === 0) {
      return this.req?.username === undefined ? UNK : { k: 'str', v: this.req.username };
    }
    // What every pod CREATE request carries (admission/v1 AdmissionRequest): known without the pod.
    const fixed: Record<string, string> = {
      'request.operation': 'CREATE',
      'request.resource.group': '',
      'request.resource.version': 'v1',
      'request.resource.resource': 'pods',
      'request.kind.group': '',
      'request.kind.version': 'v1',
      'request.kind.kind': 'Pod',
      'request.subResource': '',
    };
    if (!path.some((p) => p.bracket) && Object.hasOwn(fixed, keys.join('.')))
      return { k: 'str', v: fixed[keys.join('.')]! };
    if (keys.join('.') === 'request.namespace' && this.req) return { k: 'str', v: this.req.namespace };
    if (keys[0] === 'request') return UNK;
    if (keys[0] !== 'object' || keys[1] !== 'metadata' || path.length < 3) throw Parser.unsupported;
    if (!this.req) return UNK;
    const field = keys[2];
    if ((field === 'name' || field === 'namespace') && rest.length === 0) {
      const v = field === 'name' ? this.req.name : this.req.namespace;
      return v === undefined ? UNK : { k: 'str', v };
    }
    if ((field === 'labels' || field === 'annotations') && rest.length <= 1) {
      const m = field === 'labels' ? this.req.labels : this.req.annotations;
      // An absent or empty map is omitted from the object the API server hands to CEL.
      if (!m || Object.keys(m).length === 0) return ERR;
      if (rest.length === 0) return { k: 'map', v: m };
      const key = rest[0]!.key;
      return Object.hasOwn(m, key) ? { k: 'str', v: m[key]! } : ERR;
    }
    throw Parser.unsupported;
  }
}

function logic(op: '&&' | '||', l: Val, r: Val): Val {
  const absorb = op === '&&' ? false : true;
  for (const v of [l, r]) if (v.k === 'bool' && v.v === absorb) return v;
  for (const v of [l, r]) if (v.k !== 'bool' && v.k !== 'error' && v.k !== 'unknown') throw new Error('unsupported');
  if (l.k === 'unknown' || r.k === 'unknown') return UNK;
  if (l.k === 'error' || r.k === 'error') return ERR;
  return { k: 'bool', v: !absorb };
}

function compare(op: string, l: Val, r: Val): Val {
  if (l.k === 'unknown' || r.k === 'unknown') return UNK;
  if (l.k === 'error' || r.k === 'error') return ERR;
  if (op === 'in') {
    if (l.k !== 'str' || r.k !== 'map') throw new Error('unsupported');
    return { k: 'bool', v: Object.hasOwn(r.v, l.v) };
  }
  if (l.k === 'map' || r.k === 'map' || l.k !== r.k) throw new Error('unsupported');
  return { k: 'bool', v: (l.v === r.v) === (op === '==') };
}

/** Evaluate one matchCondition expression over a pod CREATE; `unknown` outside the supported shapes. */
export function evalCel(expression: unknown, req: CelRequest | undefined): CelResult {
  if (typeof expression !== 'string') return 'unknown';
  const toks = tokenize(expression);
  if (!toks || toks.length === 0 || toks.length > MAX_TOKENS) return 'unknown';
  let v: Val;
  try {
    v = new Parser(toks, req).run();
  } catch {
    return 'unknown';
  }
  if (v.k === 'bool') return v.v;
  if (v.k === 'error') return 'error';
  return 'unknown';
}

/** What the API server does with a webhook's matchConditions (types.go MatchConditions). */
export interface ConditionsOutcome {
  /** `call`: all true; `skip`: one false (or an error under Ignore); `reject`: an error under Fail; `unknown`: not evaluated. */
  decision: 'call' | 'skip' | 'reject' | 'unknown';
  /** The names of the conditions not evaluated (decision unknown), false (skip), or that erred (reject, or skip with `erred`). */
  names: string[];
  /** Skipped because conditions erred under failurePolicy Ignore (none was false). */
  erred?: true;
}

/** Bounded: the API server allows 64 matchConditions per webhook. */
export function evalMatchConditions(
  conditions: readonly unknown[],
  failurePolicy: 'Ignore' | 'Fail',
  req: CelRequest | undefined,
): ConditionsOutcome {
  const unknown: string[] = [];
  const errors: string[] = [];
  for (const c of conditions.slice(0, 64)) {
    const o = c !== null && typeof c === 'object' ? (c as Record<string, unknown>) : {};
    const name = String(o.name ?? '');
    const r = evalCel(o.expression, req);
    if (r === false) return { decision: 'skip', names: [name] };
    if (r === 'error') errors.push(name);
    if (r === 'unknown') unknown.push(name);
  }
  if (unknown.length) return { decision: 'unknown', names: unknown };
  if (errors.length)
    return failurePolicy === 'Fail'
      ? { decision: 'reject', names: errors }
      : { decision: 'skip', names: errors, erred: true };
  return { decision: 'call', names: [] };
}
