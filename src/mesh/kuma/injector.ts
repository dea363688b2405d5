/**
 * Kuma's injection decision, as its injector makes it (research/kuma.md §1). Source: kumahq/kuma
 * v2.14.3 (commit 0c7aaec033b7dad03c3a9f4d5b56eb6d941bfff9):
 * pkg/plugins/runtime/k8s/webhooks/injector/precheck.go (preCheck, isInjectionException,
 * needToInject), pkg/plugins/runtime/k8s/metadata/annotations.go (GetBooleanWithDefault),
 * pkg/plugins/runtime/k8s/webhooks/pod_mutator.go (an error is admission.Errored: a denial).
 */
import { containers, initContainers, podSpec } from '../../k8s/pods.js';
import { annotationsOf, isObj, labelsOf } from '../../util/objects.js';
import type { ReleaseMarkers } from '../release-table.js';
import type { Field } from '../types.js';
import type { InjectorStep } from '../profile.js';

/** metadata.KumaSidecarInjectionAnnotation: read as a label since 2.2.0 (the Go name says annotation). */
export const KUMA_INJECT = 'kuma.io/sidecar-injection';
/** util/names.go KumaSidecarContainerName. */
export const KUMA_SIDECAR = 'kuma-sidecar';
/** The sidecar's UID (runtime.kubernetes.injector.sidecarContainer.uid, kuma-cp.defaults.yaml): an app container using it is rejected. */
const KUMA_SIDECAR_UID = 5678;
/** kuma-cp.defaults.yaml runtime.kubernetes.injector.exceptions.labels (value "*": any value). */
const EXCEPTION_LABELS = ['openshift.io/build.name', 'openshift.io/deployer-pod-for.name'];

/** GetBooleanWithDefault with supportEnabled: exact, case-sensitive values. */
export const TRUE = ['enabled', 'true', 'yes'];
export const FALSE = ['disabled', 'false', 'no'];
export const KUMA_VALID = [...TRUE, ...FALSE];

/** true / false, or 'invalid' ("annotation ... has wrong value": the injector errors, the pod is rejected); undefined when unset. */
export function parseKuma(v: string | undefined): boolean | 'invalid' | undefined {
  if (v === undefined) return undefined;
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  return 'invalid';
}

/**
 * The values the namespace webhook `namespace-kuma-injector.kuma.io` selects (`In [enabled, "true"]`,
 * deployments/charts/kuma/templates/cp-webhooks-and-secrets.yaml): `yes` is accepted by the code
 * but selects no webhook.
 */
export const KUMA_NS_ENABLING = ['enabled', 'true'];
/** The only value the pods webhook `pods-kuma-injector.kuma.io` selects (objectSelector matchLabels). */
export const KUMA_POD_ENABLING = 'enabled';

/**
 * The marker the installed release's injector reads on the pod and on the namespace, and how it reads
 * the value: today's label, or the release row's markers (Kuma 1.0 to 1.4: only the annotation,
 * exactly enabled or disabled; src/mesh/kuma/releases.ts).
 */
export function kumaMarkers(release: ReleaseMarkers | undefined): {
  word: string;
  field: Field;
  parse: (v: string | undefined) => boolean | 'invalid' | undefined;
  valid: readonly string[];
} {
  const t = release?.template.find((k) => k.key === KUMA_INJECT);
  if (!t) return { word: 'label', field: 'labels', parse: parseKuma, valid: KUMA_VALID };
  return {
    word: t.field === 'labels' ? 'label' : 'annotation',
    field: t.field,
    parse: (v) => (v === undefined ? undefined : t.inject.includes(v) ? true : t.skip.includes(v) ? false : 'invalid'),
    valid: [...t.inject, ...t.skip],
  };
}

/** The injector's decision for a pod it is called for (preCheck: the first rule that decides wins). */
export function kumaInjector(
  nsLabels: Record<string, string>,
  template: { metadata?: unknown; spec?: unknown },
  release?: { markers?: ReleaseMarkers; nsAnnotations: Record<string, string> },
): InjectorStep[] {
  const mk = kumaMarkers(release?.markers);
  const { parse, valid, word } = mk;
  const nsMarkers = mk.field === 'labels' ? nsLabels : (release?.nsAnnotations ?? {});
  const podMarkers = mk.field === 'labels' ? labelsOf(template) : annotationsOf(template);
  const steps: InjectorStep[] = [];
  const spec = podSpec(template);
  const labels = labelsOf(template);
  // No hostNetwork rule: Kuma's injector does not look at it (no HostNetwork reference in pkg/plugins/runtime/k8s).
  const exception = EXCEPTION_LABELS.find((k) => labels[k] !== undefined);
  if (exception)
    return [
      {
        kind: 'exception',
        rule: 'exception-labels',
        ok: false,
        detail: `pod label ${exception} is one of the injector's exceptions: skipped`,
      },
    ];
  steps.push({ kind: 'exception', rule: 'exception-labels', ok: true, detail: 'no exception label' });
  const present = [...containers(spec), ...initContainers(spec)].some((c) => c.name === KUMA_SIDECAR);
  if (present)
    return [
      ...steps,
      {
        kind: 'already-injected',
        rule: 'sidecar-exists',
        ok: false,
        detail: `a ${KUMA_SIDECAR} container is already there`,
      },
    ];
  steps.push({
    kind: 'already-injected',
    rule: 'sidecar-exists',
    ok: true,
    detail: `no ${KUMA_SIDECAR} container yet`,
  });
  const pod = parse(podMarkers[KUMA_INJECT]);
  const ns = parse(nsMarkers[KUMA_INJECT]);
  let step: InjectorStep;
  if (pod === 'invalid')
    step = {
      kind: 'marker',
      rule: 'sidecar-injection-label',
      ok: false,
      detail: `pod template ${word} ${KUMA_INJECT}=${podMarkers[KUMA_INJECT]} is not a value Kuma accepts (${valid.join(', ')}): the injector rejects the pod`,
      denies: true,
    };
  else if (pod !== undefined)
    step = {
      kind: 'marker',
      rule: 'sidecar-injection-label',
      ok: pod,
      detail: `pod template ${word} ${KUMA_INJECT}=${podMarkers[KUMA_INJECT]} (the pod's ${word} wins)`,
    };
  else if (ns === 'invalid')
    step = {
      kind: 'marker',
      rule: 'sidecar-injection-label',
      ok: false,
      detail: `namespace ${word} ${KUMA_INJECT}=${nsMarkers[KUMA_INJECT]} is not a value Kuma accepts (${valid.join(', ')}): the injector rejects the pod`,
      denies: true,
    };
  else if (ns !== undefined)
    step = {
      kind: 'marker',
      rule: 'sidecar-injection-label',
      ok: ns,
      detail: `namespace ${word} ${KUMA_INJECT}=${nsMarkers[KUMA_INJECT]}`,
    };
  else
    step = {
      kind: 'marker',
      rule: 'sidecar-injection-label',
      ok: false,
      detail: `neither the pod template nor the namespace has the ${word} ${KUMA_INJECT}`,
    };
  steps.push(step);
  if (!step.ok) return steps;
  // precheck.go: an app container running as the sidecar's UID is an error (init containers only warn).
  const clash = containers(spec).find(
    (c) => isObj(c.securityContext) && c.securityContext.runAsUser === KUMA_SIDECAR_UID,
  );
  steps.push(
    clash
      ? {
          kind: 'proxy-uid',
          rule: 'sidecar-uid',
          ok: false,
          detail: `container ${String(clash.name)} runs as UID ${KUMA_SIDECAR_UID}, the sidecar's: the injector rejects the pod`,
          denies: true,
        }
      : {
          kind: 'proxy-uid',
          rule: 'sidecar-uid',
          ok: true,
          detail: `no app container runs as UID ${KUMA_SIDECAR_UID}`,
        },
  );
  return steps;
}
