/**
 * The pod annotations istiod validates before it injects: an invalid value makes the injection fail, and the
 * webhook's error denies the pod (istioctl analyze: IST0125 InvalidAnnotation). istio/istio@86c9f01f
 * pkg/kube/inject/validate.go AnnotationValidation, ("invalid value '%s' for annotation '%s': %v"); inject.go
 * ("Injection failed due to invalid annotations"); webhook.go (the error becomes the admission response).
 * The rules are the release table's (src/mesh/istio/key-values.ts, issue 31 gen10values), read by the generic
 * validator (src/mesh/key-values.ts): the injector's decision judges by today's release; mesh-key-value-invalid
 * judges by the installed one.
 */
import { badValue, valueRules } from '../key-values.js';
import { ISTIO_RELEASES } from './releases.js';

/** Today's release's annotations that refuse the pod on a value that does not parse. */
const RULES = new Map(
  valueRules(ISTIO_RELEASES, ISTIO_RELEASES.order[ISTIO_RELEASES.order.length - 1])
    .filter((r) => r.on === 'annotation' && r.onBad === 'refuse')
    .map((r) => [r.key, r]),
);

/** The pod annotations istiod rejects, in key order: key, value and why. */
export function invalidAnnotations(annotations: Record<string, string>): { key: string; value: string; why: string }[] {
  // Only the keys a rule validates are sorted (asked for every Istio decision: most have none).
  return Object.keys(annotations)
    .filter((key) => RULES.has(key)) // keys are the cluster's: a Map, never an Object member
    .sort()
    .flatMap((key) => {
      const value = annotations[key]!;
      const why = badValue(RULES.get(key)!.type, value);
      return why === undefined ? [] : [{ key, value, why }];
    });
}
