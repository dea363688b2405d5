import type { K8sObject } from '../util/types.js';
import { arr, isObj, labelsOf, strMap } from '../util/objects.js';

/** One evaluated term of a label selector, for `explain`. */
interface SelectorTerm {
  term: string;
  matched: boolean;
}

export interface SelectorResult {
  matched: boolean;
  terms: SelectorTerm[];
}

/** Values of an In/NotIn term named in its text; the rest are counted ("and 99990 more"). */
export const TERM_VALUES_SHOWN = 10;
/** The longest term text kept (a hostile key or value can be megabytes long). */
export const TERM_TEXT_MAX = 500;

/** One term of a selector, prepared once: its values as a Set, its text bounded. */
interface CompiledTerm {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'invalid';
  /** matchLabels: the one value; In/NotIn: the values. */
  values: ReadonlySet<string>;
  /** The first value as written (In: the value a repair sets). */
  first?: string;
  text: string;
}

const bounded = (t: string) => (t.length > TERM_TEXT_MAX ? `${t.slice(0, TERM_TEXT_MAX)}…` : t);

/** `a,b,c` for up to TERM_VALUES_SHOWN values, then `, … and K more`: evidence stays small whatever the selector holds. */
function valuesText(values: string[]): string {
  const shown = values.slice(0, TERM_VALUES_SHOWN).join(',');
  return values.length > TERM_VALUES_SHOWN ? `${shown}, … and ${values.length - TERM_VALUES_SHOWN} more` : shown;
}

const compiled = new WeakMap<object, CompiledTerm[]>();

/**
 * A selector's terms, prepared once per selector object (the snapshot's objects do not change
 * during a run): each In/NotIn list becomes a Set, so that evaluating a selector against a label
 * set costs one lookup per term, whatever the number of values, and the term text is built once,
 * bounded. Not an object: no terms (it matches everything).
 */
export function selectorTerms(selector: unknown): CompiledTerm[] {
  if (!isObj(selector)) return [];
  let terms = compiled.get(selector);
  if (terms) return terms;
  terms = [];
  for (const [key, value] of Object.entries(strMap(selector.matchLabels))) {
    terms.push({ key, operator: 'In', values: new Set([value]), first: value, text: bounded(`${key}=${value}`) });
  }
  for (const expr of arr(selector.matchExpressions)) {
    if (!isObj(expr)) continue;
    const key = String(expr.key ?? '');
    const values = arr(expr.values).map(String);
    const set = new Set(values);
    switch (expr.operator) {
      case 'In':
        terms.push({
          key,
          operator: 'In',
          values: set,
          ...(values.length ? { first: values[0] } : {}),
          text: bounded(`${key} in (${valuesText(values)})`),
        });
        break;
      case 'NotIn':
        terms.push({ key, operator: 'NotIn', values: set, text: bounded(`${key} notin (${valuesText(values)})`) });
        break;
      case 'Exists':
        terms.push({ key, operator: 'Exists', values: set, text: bounded(key) });
        break;
      case 'DoesNotExist':
        terms.push({ key, operator: 'DoesNotExist', values: set, text: bounded(`!${key}`) });
        break;
      default:
        terms.push({
          key,
          operator: 'invalid',
          values: set,
          text: bounded(`${key} ${String(expr.operator)} (invalid operator)`),
        });
    }
  }
  compiled.set(selector, terms);
  return terms;
}

/** Whether one prepared term matches a label set (own keys only: `constructor` is a label like any other). */
export function termMatches(t: CompiledTerm, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, t.key);
  switch (t.operator) {
    case 'In':
      return has && t.values.has(labels[t.key]!);
    case 'NotIn':
      return !has || !t.values.has(labels[t.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}

/**
 * Evaluate a Kubernetes LabelSelector (matchLabels AND matchExpressions, operators In, NotIn,
 * Exists, DoesNotExist) against a label set, as the API server does. An absent or empty selector
 * matches everything. A malformed term (unknown operator) matches nothing, as the API server
 * would reject such a selector and never call the webhook. Linear in the number of terms (each
 * term's values are a Set, built once per selector); the term texts are bounded (selectorTerms).
 */
export function evalSelector(selector: unknown, labels: Readonly<Record<string, string>>): SelectorResult {
  const terms = selectorTerms(selector).map((t) => ({ term: t.text, matched: termMatches(t, labels) }));
  return { matched: terms.every((t) => t.matched), terms };
}

// --- Validity, as metav1.LabelSelectorAsSelector checks it ------------------------------------

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName: `[prefix/]name`, prefix a DNS-1123 subdomain (<= 253), name <= 63. */
export function labelKeyError(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `label key "${key}" has more than one "/"`;
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)))
    return `label key "${key}" has an invalid prefix (a DNS-1123 subdomain)`;
  if (name.length === 0 || name.length > 63 || !NAME.test(name))
    return `label key "${key}" has an invalid name (63 characters or less, alphanumeric, '-', '_' or '.' inside)`;
  return undefined;
}

/** validation.IsValidLabelValue: empty, or <= 63 characters, alphanumeric at both ends, '-', '_' or '.' inside. */
export function labelValueError(value: string): string | undefined {
  if (value === '') return undefined;
  return value.length > 63 || !NAME.test(value)
    ? `label value "${value}" is invalid (63 characters or less, alphanumeric, '-', '_' or '.' inside)`
    : undefined;
}

/**
 * Why a LabelSelector is invalid, or undefined when valid: what metav1.LabelSelectorAsSelector
 * (kubernetes/apimachinery pkg/apis/meta/v1/helpers.go) returns an error for, through
 * labels.NewRequirement (pkg/labels/selector.go): an operator other than In, NotIn, Exists,
 * DoesNotExist; In/NotIn without values; Exists/DoesNotExist with values; an invalid key or value
 * (pkg/util/validation IsQualifiedName, IsValidLabelValue). A matchLabels value that is not a
 * string does not even decode into a LabelSelector.
 */
export function selectorError(selector: unknown): string | undefined {
  if (!isObj(selector)) return undefined;
  const ml = selector.matchLabels;
  if (ml !== undefined && ml !== null) {
    if (!isObj(ml)) return 'matchLabels is not a map';
    for (const [k, v] of Object.entries(ml)) {
      if (typeof v !== 'string') return `matchLabels ${k} is not a string`;
      const e = labelKeyError(k) ?? labelValueError(v);
      if (e) return e;
    }
  }
  const me = selector.matchExpressions;
  if (me !== undefined && me !== null && !Array.isArray(me)) return 'matchExpressions is not a list';
  for (const expr of arr(me)) {
    if (!isObj(expr)) return 'a matchExpressions entry is not a map';
    const key = String(expr.key ?? '');
    const values = arr(expr.values);
    const op = expr.operator;
    if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist')
      return `"${String(op)}" is not a valid label selector operator`;
    const keyErr = labelKeyError(key);
    if (keyErr) return keyErr;
    if ((op === 'In' || op === 'NotIn') && values.length === 0)
      return `for 'in', 'notin' operators, values set can't be empty (key ${key})`;
    if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0)
      return `values set must be empty for exists and does not exist (key ${key})`;
    for (const v of values) {
      const e = typeof v === 'string' ? labelValueError(v) : `value ${JSON.stringify(v)} of key ${key} is not a string`;
      if (e) return e;
    }
  }
  return undefined;
}

/** The Deployment among `deployments` whose pod template a Service's selector picks (the Service's backend). */
export function deploymentBehind(deployments: K8sObject[], svc: K8sObject | undefined): K8sObject | undefined {
  const sel = strMap(isObj(svc?.spec) ? svc!.spec.selector : undefined);
  if (Object.keys(sel).length === 0) return undefined;
  return deployments.find(
    (d) => evalSelector({ matchLabels: sel }, labelsOf(isObj(d.spec) ? d.spec.template : undefined)).matched,
  );
}
