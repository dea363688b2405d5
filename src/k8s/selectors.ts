import type { K8sObject } from '../types.js';
import { arr, isObj, labelsOf, strMap } from '../util.js';

/** One evaluated term of a label selector, for `explain`. */
export interface SelectorTerm {
  term: string;
  matched: boolean;
}

export interface SelectorResult {
  matched: boolean;
  terms: SelectorTerm[];
}

/**
 * Evaluate a Kubernetes LabelSelector (matchLabels AND matchExpressions, operators In, NotIn,
 * Exists, DoesNotExist) against a label set, as the API server does. An absent or empty selector
 * matches everything. A malformed term (unknown operator) matches nothing, as the API server
 * would reject such a selector and never call the webhook.
 */
export function evalSelector(selector: unknown, labels: Record<string, string>): SelectorResult {
  const terms: SelectorTerm[] = [];
  if (!isObj(selector)) return { matched: true, terms };
  for (const [key, value] of Object.entries(strMap(selector.matchLabels))) {
    terms.push({ term: `${key}=${value}`, matched: labels[key] === value });
  }
  for (const expr of arr(selector.matchExpressions)) {
    if (!isObj(expr)) continue;
    const key = String(expr.key ?? '');
    const values = arr(expr.values).map(String);
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    let matched: boolean;
    let term: string;
    switch (expr.operator) {
      case 'In':
        matched = has && values.includes(labels[key]!);
        term = `${key} in (${values.join(',')})`;
        break;
      case 'NotIn':
        matched = !has || !values.includes(labels[key]!);
        term = `${key} notin (${values.join(',')})`;
        break;
      case 'Exists':
        matched = has;
        term = key;
        break;
      case 'DoesNotExist':
        matched = !has;
        term = `!${key}`;
        break;
      default:
        matched = false;
        term = `${key} ${String(expr.operator)} (invalid operator)`;
    }
    terms.push({ term, matched });
  }
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
  return value.length > 63 || !NAME.test(value) ? `label value "${value}" is invalid (63 characters or less, alphanumeric, '-', '_' or '.' inside)` : undefined;
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
    if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') return `"${String(op)}" is not a valid label selector operator`;
    const keyErr = labelKeyError(key);
    if (keyErr) return keyErr;
    if ((op === 'In' || op === 'NotIn') && values.length === 0) return `for 'in', 'notin' operators, values set can't be empty (key ${key})`;
    if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) return `values set must be empty for exists and does not exist (key ${key})`;
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
  return deployments.find((d) => evalSelector({ matchLabels: sel }, labelsOf(isObj(d.spec) ? d.spec.template : undefined)).matched);
}
