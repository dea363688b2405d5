/**
 * The LimitRanger admission plugin: its refusals parsed by structure and the defaults it gives a
 * container (kubernetes/kubernetes plugin/pkg/admission/limitranger/admission.go, minConstraint,
 * maxConstraint, limitRequestRatioConstraint, defaultContainerResourceRequirements; the API
 * server's defaulting of a LimitRange, pkg/apis/core/v1/defaults.go SetDefaults_LimitRangeItem).
 *
 * Every form the plugin writes, `<bound> <resource> usage per <Container|Pod> is <enforced>` then:
 * - min: `.  No request is specified.`, `, but request is <q>.`, `, but limit is <q>.`
 * - max: `.  No limit is specified.`, `, but limit is <q>.`, `, but request is <q>.`
 * - maxLimitRequestRatio: `<resource> max limit to request ratio per <type> is <enforced>, but no
 *   request is specified or request is 0.` / `... but no limit is specified or limit is 0.` /
 *   `... but provided ratio is <%f>.`
 * The 1.3-era releases (commit 0061479890) capitalise `Minimum`/`Maximum`; some releases drop the
 * trailing period; the items are joined with `, ` inside `[...]` when there are several.
 *
 * Defaults: the plugin first gives each container every default limit (`default`) and default
 * request (`defaultRequest`) of the Container items it lacks, then checks the bounds. The API
 * server fills a Container item when it is stored: `default` from `max`, then `defaultRequest`
 * from `default`, then from `min`. So a Container item with a `max` always gives a default limit,
 * and one with a `min` a default request: `No limit is specified` (`No request is specified`)
 * about such an item names a container the plugin did not default, one added after it ran (a
 * mutating webhook's, on an API server that does not re-run the plugin after it).
 */
import { isObj, nameOf } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';

interface LimitRangeRefusal {
  /** The item as the plugin wrote it. */
  text: string;
  bound: 'min' | 'max' | 'ratio';
  resource: string;
  per: string;
  /** The bound, as the plugin prints it. */
  enforced: string;
  /** The value it quotes: the container's (or pod's) limit or request, or the ratio it computed. */
  observed?: { of: 'limit' | 'request' | 'ratio'; value: string };
  /** The value the container (or pod) does not have. */
  missing?: 'limit' | 'request';
}

const Q = '[0-9.]{1,16}(?:[A-Za-z]{1,3}|[eE][+-]?[0-9]{1,3})?';
const RES = '[a-z0-9][a-z0-9./-]{0,63}';
const MIN_MAX = new RegExp(
  `\\b([Mm]inimum|[Mm]aximum) (${RES}) usage per ([A-Z][A-Za-z]{1,32}) is (${Q})(?:, but (limit|request) is (${Q})|\\. {1,2}No (limit|request) is specified)`,
  'g',
);
const RATIO = new RegExp(
  `\\b(${RES}) max limit to request ratio per ([A-Z][A-Za-z]{1,32}) is (${Q}), but (?:provided ratio is ([0-9.]{1,24})|no (request|limit) is specified)`,
  'g',
);

/** The LimitRanger's items in an admission error (at most 32, in the order written). */
export function limitRangeRefusals(message: string): LimitRangeRefusal[] {
  const out: { at: number; r: LimitRangeRefusal }[] = [];
  const text = message.slice(0, 8000);
  for (const x of text.matchAll(MIN_MAX)) {
    if (out.length >= 32) break;
    const [all, bound, resource, per, enforced, which, value, missing] = x;
    out.push({
      at: x.index,
      r: {
        text: all.replace(/\.$/, ''),
        bound: bound!.toLowerCase() === 'minimum' ? 'min' : 'max',
        resource: resource!,
        per: per!,
        enforced: enforced!,
        ...(which && value ? { observed: { of: which as 'limit' | 'request', value } } : {}),
        ...(missing ? { missing: missing as 'limit' | 'request' } : {}),
      },
    });
  }
  for (const x of text.matchAll(RATIO)) {
    if (out.length >= 32) break;
    const [all, resource, per, enforced, ratio, missing] = x;
    out.push({
      at: x.index,
      r: {
        text: all,
        bound: 'ratio',
        resource: resource!,
        per: per!,
        enforced: enforced!,
        ...(ratio ? { observed: { of: 'ratio' as const, value: ratio.replace(/\.$/, '') } } : {}),
        ...(missing ? { missing: missing as 'limit' | 'request' } : {}),
      },
    });
  }
  return out.sort((a, b) => a.at - b.at).map((x) => x.r);
}

/** Whether a message is the LimitRanger's. */
export const isLimitRangeRefusal = (message: string): boolean => limitRangeRefusals(message).length > 0;

interface ContainerDefault {
  limit?: string;
  request?: string;
  /** The LimitRange that gives it. */
  from: string;
}

/**
 * The default limit and request the LimitRanger gives a container without them, per resource, from
 * the namespace's LimitRanges' Container items, as the API server stored them (`default` from
 * `max`, `defaultRequest` from `default`, then from `min`). The first LimitRange (by name) that
 * gives one wins, as the plugin applies them in turn and never overwrites a value set.
 */
function containerDefaults(ranges: readonly K8sObject[]): Map<string, ContainerDefault> {
  const out = new Map<string, ContainerDefault>();
  const val = (item: Record<string, any>, field: string, r: string): string | undefined => {
    const v = isObj(item[field]) ? item[field][r] : undefined;
    return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  };
  for (const lr of [...ranges].sort((a, b) => nameOf(a).localeCompare(nameOf(b))).slice(0, 64)) {
    const items = isObj(lr.spec) && Array.isArray(lr.spec.limits) ? lr.spec.limits.filter(isObj).slice(0, 32) : [];
    for (const item of items) {
      if (item.type !== 'Container') continue;
      const resources = new Set(
        ['default', 'defaultRequest', 'max', 'min'].flatMap((f) => (isObj(item[f]) ? Object.keys(item[f]) : [])),
      );
      for (const r of [...resources].slice(0, 16)) {
        const limit = val(item, 'default', r) ?? val(item, 'max', r);
        const request = val(item, 'defaultRequest', r) ?? limit ?? val(item, 'min', r);
        const cur = out.get(r) ?? { from: nameOf(lr) };
        if (cur.limit === undefined && limit !== undefined) cur.limit = limit;
        if (cur.request === undefined && request !== undefined) cur.request = request;
        out.set(r, cur);
      }
    }
  }
  return out;
}

/**
 * Whether the LimitRanger gives a container that lacks the value a refusal says is missing a default
 * (so the container it refused is one it never saw): `true` for a Container item's `max` (no limit)
 * and `min` (no request), which always carry one; for a ratio, from the namespace's LimitRanges
 * when read (`undefined`: not read).
 */
export function defaultedByLimitRanger(
  r: LimitRangeRefusal,
  ranges: readonly K8sObject[] | undefined,
): boolean | undefined {
  if (r.per !== 'Container' || !r.missing) return false;
  if ((r.bound === 'max' && r.missing === 'limit') || (r.bound === 'min' && r.missing === 'request')) return true;
  if (!ranges) return undefined;
  const d = containerDefaults(ranges).get(r.resource);
  return r.missing === 'limit' ? d?.limit !== undefined : d?.request !== undefined;
}
