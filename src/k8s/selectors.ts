import { arr, isObj, strMap } from '../util.js';

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
