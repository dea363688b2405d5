/**
 * Whether the API server calls a mutating webhook for a pod CREATE: its rules, its namespaceSelector
 * over the namespace's labels and its objectSelector over the pod's (k8s.io/apiserver
 * pkg/admission/plugin/webhook/predicates). Mesh-free: a mesh's webhooks are these plus what the
 * mesh makes of them (src/mesh/webhooks.ts).
 */
import { evalSelector, type SelectorResult } from './selectors.js';
import { evalMatchConditions, type CelRequest, type ConditionsOutcome } from './cel.js';
import type { K8sObject } from '../util/types.js';
import { arr, dict, isObj, labelsOf } from '../util/objects.js';

/** The parts of a webhook that decide whether it is called. */
interface AdmissionWebhook {
  rules: unknown[];
  namespaceSelector: unknown;
  objectSelector: unknown;
  /** Its CEL matchConditions, evaluated once the rules and both selectors hold (src/k8s/cel.ts). */
  matchConditions?: readonly unknown[];
  failurePolicy?: 'Ignore' | 'Fail';
}

/** rulesMatchPodCreate by the rules' identity: a mesh's webhook is asked once per workload and mesh. */
const rulesCache = new WeakMap<unknown[], boolean>();

/** Whether a webhook's rules cover CREATE of core/v1 pods. */
export function rulesMatchPodCreate(rules: unknown[]): boolean {
  let r = rulesCache.get(rules);
  if (r === undefined) rulesCache.set(rules, (r = rulesCoverPodCreate(rules)));
  return r;
}

function rulesCoverPodCreate(rules: unknown[]): boolean {
  return rules.some((r) => {
    if (!isObj(r)) return false;
    const ops = arr(r.operations).map(String);
    const groups = arr(r.apiGroups).map(String);
    const versions = arr(r.apiVersions).map(String);
    const resources = arr(r.resources).map(String);
    return (
      (ops.includes('CREATE') || ops.includes('*')) &&
      (groups.includes('') || groups.includes('*')) &&
      (versions.includes('v1') || versions.includes('*')) &&
      (resources.includes('pods') || resources.includes('*') || resources.includes('*/*'))
    );
  });
}

/**
 * The labels the API server matches a namespaceSelector against. Since Kubernetes 1.21 every
 * namespace carries the immutable label `kubernetes.io/metadata.name`; snapshots that lack it
 * (hand-written fixtures, old dumps) get it here, as the API server would have set it.
 */
export function namespaceLabels(ns: K8sObject | undefined, name: string): Record<string, string> {
  return Object.assign(dict(), { 'kubernetes.io/metadata.name': name }, labelsOf(ns));
}

/** What the API server does with one webhook for a pod CREATE. */
export interface Call<W> {
  webhook: W;
  called: boolean;
  rules: boolean;
  namespaceSelector: SelectorResult;
  objectSelector: SelectorResult;
  /**
   * Its matchConditions, where it has some and the rules and selectors hold: `skip` (one is false,
   * or one errs under Ignore: not called), `reject` (one errs under Fail: the API server refuses
   * the pod), `unknown` (not evaluated: whether it is called is not known; `called` stays true),
   * `call`. `names` are the conditions that decided (false, erring, or not evaluated).
   */
  matchConditions?: ConditionsOutcome;
}

/** The expression of a webhook's matchCondition, by name (for evidence and messages). */
export function matchConditionExpression(webhook: AdmissionWebhook, name: string): string | undefined {
  for (const c of (webhook.matchConditions ?? []).slice(0, 64))
    if (isObj(c) && c.name === name && typeof c.expression === 'string') return c.expression;
  return undefined;
}

/**
 * Would the API server call this webhook for a pod CREATE with these labels in this namespace?
 * Its rules and selectors, then its matchConditions over `pod` (what the CREATE carries; without
 * it only constant conditions evaluate): kubernetes/kubernetes 008b3652
 * staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go (ShouldCallHook:
 * rules, selectors, then the match conditions).
 */
export function evalWebhook<W extends AdmissionWebhook>(
  webhook: W,
  nsLabels: Record<string, string>,
  podLabels: Record<string, string>,
  pod?: CelRequest,
): Call<W> {
  const rules = rulesMatchPodCreate(webhook.rules);
  const namespaceSelector = cachedSelector(webhook.namespaceSelector, nsLabels);
  const objectSelector = evalSelector(webhook.objectSelector, podLabels);
  const selected = rules && namespaceSelector.matched && objectSelector.matched;
  const conditions = webhook.matchConditions ?? [];
  const mc =
    selected && conditions.length
      ? evalMatchConditions(conditions, webhook.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail', pod)
      : undefined;
  return {
    webhook,
    called: selected && mc?.decision !== 'skip' && mc?.decision !== 'reject',
    rules,
    namespaceSelector,
    objectSelector,
    ...(mc ? { matchConditions: mc } : {}),
  };
}

/** namespaceSelector results by (selector, label set) identity: one evaluation per namespace. */
const selectorCache = new WeakMap<object, WeakMap<object, SelectorResult>>();
function cachedSelector(selector: unknown, labels: Record<string, string>): SelectorResult {
  if (!isObj(selector)) return evalSelector(selector, labels);
  let byLabels = selectorCache.get(selector);
  if (!byLabels) selectorCache.set(selector, (byLabels = new WeakMap()));
  let r = byLabels.get(labels);
  if (!r) byLabels.set(labels, (r = evalSelector(selector, labels)));
  return r;
}

/** One webhook of the admission chain a pod CREATE goes through, in the API server's order. */
export interface ChainEntry {
  type: 'mutating' | 'validating';
  configuration: string;
  webhook: string;
  failurePolicy: 'Ignore' | 'Fail';
  /** Mutating only: whether the API server calls it again after a later webhook changed the pod. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** How many of its CEL matchConditions meshdoctor could not evaluate (src/k8s/cel.ts): the webhook is called only where they all hold. */
  matchConditions?: number;
  /** The matchConditions that evaluate to an error under failurePolicy Fail: the API server rejects the pod. */
  matchConditionErrors?: string[];
}

/** Whether a rule's scope admits a namespaced object (`*`, `Namespaced`, or none given). */
const scopeAdmitsPods = (rules: unknown[]) =>
  rules.some(
    (r) =>
      isObj(r) && rulesMatchPodCreate([r]) && (r.scope === undefined || r.scope === '*' || r.scope === 'Namespaced'),
  );

/**
 * The webhooks the API server calls for a pod CREATE with these labels in this namespace, in its
 * order: every mutating webhook first (configurations sorted by name, then each one's webhooks
 * in order; a webhook with reinvocationPolicy IfNeeded is called once more after a later one
 * changed the pod), then every validating one (kubernetes/kubernetes 008b3652
 * staging/src/k8s.io/apiserver/pkg/admission/configuration/mutating_webhook_manager.go and
 * validating_webhook_manager.go sort the configurations by name; plugin/webhook/mutating/dispatcher.go,
 * validating/dispatcher.go). Rules (operation CREATE, group "", version v1, resource pods, scope),
 * namespaceSelector and objectSelector decide; then the matchConditions in the simple shapes
 * src/k8s/cel.ts evaluates over `pod` (any false skips the webhook, an error skips it under
 * Ignore and rejects the pod under Fail: kubernetes/kubernetes 008b3652
 * staging/src/k8s.io/api/admissionregistration/v1/types.go MatchConditions); the others are
 * counted, not evaluated, and the webhook is kept. Without `pod` only constant conditions evaluate.
 * Bounded: 256 configurations of each type, 64 webhooks each.
 */
export function admissionChain(
  mutating: readonly K8sObject[],
  validating: readonly K8sObject[],
  nsLabels: Record<string, string>,
  podLabels: Record<string, string>,
  pod?: CelRequest,
): ChainEntry[] {
  const out: ChainEntry[] = [];
  const byName = (a: K8sObject, b: K8sObject) => {
    const x = String(a.metadata?.name ?? '');
    const y = String(b.metadata?.name ?? '');
    return x < y ? -1 : x > y ? 1 : 0;
  };
  for (const [type, configs] of [
    ['mutating', mutating],
    ['validating', validating],
  ] as const) {
    for (const c of [...configs.slice(0, 256)].sort(byName)) {
      for (const h of arr(c.webhooks).filter(isObj).slice(0, 64)) {
        const rules = arr(h.rules);
        if (!scopeAdmitsPods(rules)) continue;
        const call = evalWebhook(
          { rules, namespaceSelector: h.namespaceSelector, objectSelector: h.objectSelector },
          nsLabels,
          podLabels,
        );
        if (!call.called) continue;
        const failurePolicy = h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
        const mc = arr(h.matchConditions).length
          ? evalMatchConditions(arr(h.matchConditions), failurePolicy, pod)
          : { decision: 'call', names: [] };
        if (mc.decision === 'skip') continue;
        out.push({
          type,
          configuration: String(c.metadata?.name ?? ''),
          webhook: String(h.name ?? ''),
          failurePolicy,
          ...(type === 'mutating'
            ? { reinvocationPolicy: h.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never' }
            : {}),
          ...(mc.decision === 'unknown' ? { matchConditions: mc.names.length } : {}),
          ...(mc.decision === 'reject' ? { matchConditionErrors: mc.names } : {}),
        });
      }
    }
  }
  return out;
}

/** A label key as the API server accepts it (an optional DNS prefix, a name of at most 63 characters). */
const LABEL_KEY = /^(?:[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/**
 * Annotations of a pod that the webhooks' objectSelectors would leave out if they were labels: a
 * marker written as an annotation (`sidecar.istio.io/inject: "false"`) where a selector excludes the
 * label with that key and value. An objectSelector matches the object's labels only (kubernetes
 * staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/object/matcher.go
 * MatchObjectSelector: `accessor.GetLabels()`), so such an annotation never keeps the API server from
 * calling the webhook; the webhook may honour it, but only once it is called and answers
 * (istio/istio#35271, #26380). Each returned key and value, as a label, leaves every one of the
 * webhooks that is called now uncalled. Bounded: the first 64 annotations.
 */
export function annotationsSelectorsMiss(
  webhooks: readonly AdmissionWebhook[],
  nsLabels: Record<string, string>,
  podLabels: Readonly<Record<string, string>>,
  annotations: Readonly<Record<string, unknown>>,
): { key: string; value: string }[] {
  const called = webhooks.filter((h) => evalWebhook(h, nsLabels, { ...podLabels }).called);
  if (!called.length) return [];
  const out: { key: string; value: string }[] = [];
  for (const [key, value] of Object.entries(annotations).slice(0, 64)) {
    if (typeof value !== 'string' || key in podLabels || !LABEL_KEY.test(key) || !LABEL_VALUE.test(value)) continue;
    const labels = { ...podLabels, [key]: value };
    if (called.every((h) => !evalWebhook(h, nsLabels, labels).called)) out.push({ key, value });
  }
  return out;
}
