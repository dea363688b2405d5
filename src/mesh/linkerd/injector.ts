/**
 * Linkerd's injection decision, as its proxy injector makes it (docs/meshes/linkerd.md;
 * linkerd/linkerd2 pkg/inject/report.go).
 */
import { podSpec } from '../../k8s/pods.js';
import { annotationsOf } from '../../util/objects.js';
import type { InjectorStep } from '../profile.js';

export const LINKERD_INJECT = 'linkerd.io/inject';
export const LINKERD_VALID = ['enabled', 'ingress', 'disabled'] as const;
const ENABLING = new Set(['enabled', 'ingress']);

export const isLinkerdEnabling = (v: string | undefined): boolean => v !== undefined && ENABLING.has(v);
/** report.go isInjectAnnotationValid: empty, enabled, ingress, disabled. */
export const isLinkerdValid = (v: string): boolean => v === '' || (LINKERD_VALID as readonly string[]).includes(v);

interface LinkerdSettings {
  /** identity.serviceAccountTokenProjection: when false, pods without a token are skipped. */
  tokenProjection: boolean;
  /** A proxy container of any mesh already in the template (sidecarExists, also for another mesh's proxy). */
  proxyPresent?: string;
}

/** The injector's decision for a pod template it is called for. Every skip reason is collected. */
export function linkerdInjector(
  nsAnnotations: Record<string, string>,
  template: { metadata?: unknown; spec?: unknown },
  settings: LinkerdSettings,
): InjectorStep[] {
  const steps: InjectorStep[] = [];
  const spec = podSpec(template);
  steps.push({
    kind: 'host-network',
    rule: 'hostNetwork',
    ok: spec.hostNetwork !== true,
    detail: spec.hostNetwork === true ? 'spec.hostNetwork is true: never injected' : 'not hostNetwork',
  });
  const present = settings.proxyPresent;
  steps.push({
    kind: 'already-injected',
    rule: 'sidecar-exists',
    ok: !present,
    detail: present ? `a proxy container is already there: ${present}` : 'no proxy container yet',
  });
  const nsValue = nsAnnotations[LINKERD_INJECT];
  const podValue = annotationsOf(template)[LINKERD_INJECT];
  let ok: boolean;
  let detail: string;
  // report.go disabledByAnnotation: an invalid value at the namespace, then at the workload,
  // disables injection before the enabled/disabled logic is consulted.
  if (nsValue !== undefined && !isLinkerdValid(nsValue)) {
    ok = false;
    detail = `namespace has ${LINKERD_INJECT}=${nsValue}, not a valid value (enabled, ingress, disabled): every pod in it is skipped`;
  } else if (podValue !== undefined && !isLinkerdValid(podValue)) {
    ok = false;
    detail = `pod template has ${LINKERD_INJECT}=${podValue}, not a valid value (enabled, ingress, disabled): skipped`;
  } else if (isLinkerdEnabling(nsValue)) {
    ok = podValue !== 'disabled';
    detail = ok
      ? `namespace has ${LINKERD_INJECT}=${nsValue}${podValue ? `, pod template has ${podValue}` : ''}`
      : `namespace has ${LINKERD_INJECT}=${nsValue} but the pod template opts out with ${LINKERD_INJECT}=disabled`;
  } else {
    ok = isLinkerdEnabling(podValue);
    detail = ok
      ? `pod template has ${LINKERD_INJECT}=${podValue}`
      : podValue === 'disabled'
        ? `pod template has ${LINKERD_INJECT}=disabled`
        : `neither the namespace nor the pod template has ${LINKERD_INJECT}=enabled`;
  }
  steps.push({ kind: 'marker', rule: 'inject-annotation', ok, detail });
  const automount = spec.automountServiceAccountToken !== false;
  const tokenOk = automount || settings.tokenProjection;
  steps.push({
    kind: 'token',
    rule: 'service-account-token',
    ok: tokenOk,
    detail: tokenOk
      ? automount
        ? 'service account token mounted'
        : 'automountServiceAccountToken is false, but the control plane uses projected tokens'
      : 'automountServiceAccountToken is false and the control plane runs without serviceAccountTokenProjection',
  });
  return steps;
}
