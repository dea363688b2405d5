/**
 * Istio's injection decision inside the webhook (mesh-rules.md §2; istio/istio
 * pkg/kube/inject/inject.go injectRequired).
 */
import { podSpec } from '../../k8s/pods.js';
import { annotationsOf, labelsOf } from '../../util.js';
import type { InjectorStep } from '../profile.js';

export const ISTIO_INJECT = 'sidecar.istio.io/inject';
export const ISTIO_NS_LABEL = 'istio-injection';
export const ISTIO_REV = 'istio.io/rev';
export const ISTIO_IGNORED_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage'];

/** The per-pod injection value: the label wins over the annotation. */
export function istioPodValue(template: { metadata?: unknown }): { value?: string; from?: 'label' | 'annotation' } {
  const l = labelsOf(template)[ISTIO_INJECT];
  if (l !== undefined) return { value: l, from: 'label' };
  const a = annotationsOf(template)[ISTIO_INJECT];
  if (a !== undefined) return { value: a, from: 'annotation' };
  return {};
}

/**
 * injectRequired: y, yes, true, on (any case) inject; an empty value defers to the policy; any
 * other value (false, no, enabled, 1, junk) means "do not inject", even under an enabled policy.
 */
export function parseIstioBool(v: string | undefined): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  return ['y', 'yes', 'true', 'on'].includes(v.toLowerCase());
}

/** The namespace or the template asks Istio to inject (whether or not it will). */
export function istioIntent(nsLabels: Record<string, string>, template: { metadata?: unknown }): boolean {
  if (nsLabels[ISTIO_NS_LABEL] === 'enabled' || nsLabels[ISTIO_REV] !== undefined) return true;
  const labels = labelsOf(template);
  return labels[ISTIO_INJECT] === 'true' || labels[ISTIO_REV] !== undefined;
}

/** The webhook's own decision for a pod it is called for (first rule that decides wins). */
export function istioInjector(namespace: string, template: { metadata?: unknown; spec?: unknown }): InjectorStep[] {
  const steps: InjectorStep[] = [];
  const spec = podSpec(template);
  if (spec.hostNetwork === true) return [{ rule: 'hostNetwork', ok: false, detail: 'spec.hostNetwork is true: never injected' }];
  steps.push({ rule: 'hostNetwork', ok: true, detail: 'not hostNetwork' });
  if (ISTIO_IGNORED_NAMESPACES.includes(namespace)) {
    steps.push({ rule: 'ignored-namespace', ok: false, detail: `Istio never injects in ${namespace}` });
    return steps;
  }
  const { value, from } = istioPodValue(template);
  const parsed = parseIstioBool(value);
  if (parsed !== undefined) {
    const why = parsed || value!.toLowerCase() === 'false' ? '' : ' (Istio reads any value but y/yes/true/on as "do not inject")';
    steps.push({ rule: 'inject-label-or-annotation', ok: parsed, detail: `pod template ${from} ${ISTIO_INJECT}=${value}${why}` });
    return steps;
  }
  steps.push({ rule: 'policy', ok: true, detail: 'no per-pod setting: the injection policy (enabled) applies' });
  return steps;
}
