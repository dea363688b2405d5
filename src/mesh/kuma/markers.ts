/**
 * Kuma's injection markers (research/kuma.md §1-§2). Source: kumahq/kuma v2.14.3 (commit
 * 0c7aaec033b7dad03c3a9f4d5b56eb6d941bfff9): precheck.go needToInject reads only labels (the
 * pod's, then the namespace's; the annotation was dropped in 2.2.0 and only logs
 * "you are using kuma.io/sidecar-injection as annotation ... use it as a label instead",
 * metadata/annotations.go PodAnnotationDeprecations); deployments/charts/kuma/templates/
 * cp-webhooks-and-secrets.yaml: the namespace webhook selects `In [enabled, "true"]`, the pods
 * webhook selects namespaces where the label `Exists` and pods labelled exactly `enabled`
 * (since 2.11.0, UPGRADE.md: "Namespaces that are part of the mesh requires
 * kuma.io/sidecar-injection label to exist").
 */
import { namespaceChange, removeFromTemplate, setOnTemplate } from '../../fix/commands.js';
import type { MeshContext } from '../context.js';
import type { K8sObject } from '../../util/types.js';
import { annotationsOf, labelsOf, shq } from '../../util/objects.js';
import { asks, asksOn } from '../asks.js';
import { evalWebhook, namespaceLabels } from '../../k8s/webhook.js';
import type { MarkerProblemDraft, NamespaceMarker, NamespaceProblemContext, Template, WorkloadProblemContext } from '../profile.js';
import { KUMA_INJECT, KUMA_NS_ENABLING, KUMA_POD_ENABLING, KUMA_VALID, parseKuma } from './injector.js';

export function namespaceMarker(ns: K8sObject | undefined): NamespaceMarker {
  const v = labelsOf(ns)[KUMA_INJECT];
  if (v !== undefined) return { enabled: KUMA_NS_ENABLING.includes(v), present: true, text: `label ${KUMA_INJECT}=${v}` };
  return { enabled: false, present: annotationsOf(ns)[KUMA_INJECT] !== undefined };
}

export const enableMarker = (ns: string) => ({
  field: 'labels' as const,
  key: KUMA_INJECT,
  value: 'enabled',
  text: `label ${KUMA_INJECT}=enabled`,
  command: `kubectl label namespace ${shq(ns)} ${shq(`${KUMA_INJECT}=enabled`)} --overwrite`,
});

export function templateOptOut(template: Template) {
  const v = labelsOf(template)[KUMA_INJECT];
  return parseKuma(v) === false ? { key: KUMA_INJECT, value: v!, from: 'label' as const } : undefined;
}

export function namespaceEnabling(ns: K8sObject | undefined) {
  const v = labelsOf(ns)[KUMA_INJECT];
  return v !== undefined && KUMA_NS_ENABLING.includes(v) ? { f: 'labels' as const, key: KUMA_INJECT, value: v } : undefined;
}

/** The pod label that asks on its own: only `enabled` selects the pods webhook. */
export function templateEnabling(template: Template) {
  return labelsOf(template)[KUMA_INJECT] === KUMA_POD_ENABLING ? { f: 'labels' as const, key: KUMA_INJECT, value: KUMA_POD_ENABLING } : undefined;
}

export const templateAsks = (template: Template | undefined): boolean => parseKuma(labelsOf(template)[KUMA_INJECT]) === true;

/** The marker asking for Kuma on a template, valid or not ("label kuma.io/sidecar-injection=Enabled"). */
export function templateAsking(template: Template | undefined): string | undefined {
  const l = labelsOf(template)[KUMA_INJECT];
  if (l !== undefined) return asks(l) ? `label ${KUMA_INJECT}=${l}` : undefined;
  const a = annotationsOf(template)[KUMA_INJECT];
  return asks(a) ? `annotation ${KUMA_INJECT}=${a}` : undefined;
}

export function namespaceProblems(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('kuma')) return [];
  const { ns, labels, annotations, set, unset } = c;
  const v = labels[KUMA_INJECT];
  if (v !== undefined) {
    if (KUMA_NS_ENABLING.includes(v) || !asksOn(v)) return [];
    const invalid = parseKuma(v) === 'invalid';
    return [
      {
        message: invalid
          ? `Namespace ${ns} has label ${KUMA_INJECT}=${v}, a value Kuma does not accept, so Kuma injects no pod in it but those labelled ${KUMA_INJECT}=enabled.`
          : `Namespace ${ns} has label ${KUMA_INJECT}=${v}, which Kuma's injector accepts but its namespace webhook does not select (only enabled or true), so Kuma injects no pod in it but those labelled ${KUMA_INJECT}=enabled.`,
        evidence: { marker: `label ${KUMA_INJECT}=${v}`, ...(invalid ? { validValues: KUMA_VALID } : {}), expected: `label ${KUMA_INJECT}=enabled` },
        fix: set('labels', KUMA_INJECT, 'enabled'),
        recreate: c.waiting(),
        remove: unset('labels', KUMA_INJECT),
      },
    ];
  }
  const a = annotations[KUMA_INJECT];
  if (!asksOn(a)) return [];
  return [
    {
      message: `Namespace ${ns} has annotation ${KUMA_INJECT}=${a}, but Kuma reads only the label ${KUMA_INJECT} (since 2.2.0), so it injects no pod in it.`,
      evidence: { marker: `annotation ${KUMA_INJECT}=${a}`, expected: `label ${KUMA_INJECT}=enabled` },
      fix: [...set('labels', KUMA_INJECT, 'enabled'), ...unset('annotations', KUMA_INJECT)],
      recreate: c.waiting(),
      remove: unset('annotations', KUMA_INJECT),
    },
  ];
}

export function workloadProblems(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('kuma')) return [];
  const { w, id, where, labels, annotations } = c;
  const nsLabels = labelsOf(m.namespace(w.namespace));
  const nsValue = nsLabels[KUMA_INJECT];
  const nsEnabled = nsValue !== undefined && KUMA_NS_ENABLING.includes(nsValue);
  const v = labels[KUMA_INJECT];
  const parsed = parseKuma(v);
  if (parsed === 'invalid') {
    // In an enabled namespace every pod reaches the injector: a wrong value, even one meaning "off", is an error there.
    if (!nsEnabled && !asksOn(v)) return [];
    const should = asksOn(v) ? 'enabled' : 'disabled';
    return [
      {
        message: nsEnabled
          ? `${id} has ${where} label ${KUMA_INJECT}=${v}, a value Kuma does not accept, so Kuma's injector rejects its pods and none can be created.`
          : `${id} has ${where} label ${KUMA_INJECT}=${v}, a value Kuma does not accept, so its pods are not injected.`,
        evidence: {
          marker: `${where} label ${KUMA_INJECT}=${v}`,
          validValues: KUMA_VALID,
          expected: `${where} label ${KUMA_INJECT}=${should}`,
          deniesAdmission: nsEnabled,
        },
        fix: setOnTemplate(w, 'labels', KUMA_INJECT, should),
        remove: removeFromTemplate(w, 'labels', KUMA_INJECT),
        templateChanges: [{ field: 'labels', key: KUMA_INJECT, value: should }],
      },
    ];
  }
  // Only with the Namespace read can "the namespace does not enable Kuma" be known.
  if (!m.has('namespaces') || nsEnabled) return [];
  if (parsed === true && v !== KUMA_POD_ENABLING && nsValue !== undefined) {
    return [
      {
        message: `${id} has ${where} label ${KUMA_INJECT}=${v}, but in a namespace that does not enable Kuma only the value enabled selects its webhook, so its pods are not injected.`,
        evidence: { marker: `${where} label ${KUMA_INJECT}=${v}`, expected: `${where} label ${KUMA_INJECT}=enabled` },
        fix: setOnTemplate(w, 'labels', KUMA_INJECT, KUMA_POD_ENABLING),
        remove: removeFromTemplate(w, 'labels', KUMA_INJECT),
        templateChanges: [{ field: 'labels', key: KUMA_INJECT, value: KUMA_POD_ENABLING }],
      },
    ];
  }
  const a = annotations[KUMA_INJECT];
  if (v === undefined && asksOn(a)) {
    // Since 2.11 the pods webhook is called only where the namespace carries the label (cp-webhooks-and-secrets.yaml
    // v2.14.3: `Exists`): in a namespace without it, the label `disabled` lets this pod in and keeps the others out.
    const nsLabel =
      nsValue === undefined ? podsWebhookNamespaceLabel(m, w.namespace, { ...labelsOf(w.template), [KUMA_INJECT]: KUMA_POD_ENABLING }) : undefined;
    return [
      {
        message: `${id} has ${where} annotation ${KUMA_INJECT}=${a}, but Kuma reads only the label ${KUMA_INJECT} (since 2.2.0), so its pods are not injected.`,
        evidence: {
          marker: `${where} annotation ${KUMA_INJECT}=${a}`,
          expected: `${where} label ${KUMA_INJECT}=enabled`,
          ...(nsLabel ? { namespaceLabel: `${KUMA_INJECT}=${KUMA_NS_OFF}` } : {}),
        },
        fix: [
          ...(nsLabel ? namespaceChange(m, w.namespace, 'labels', [{ key: KUMA_INJECT, value: KUMA_NS_OFF }]) : []),
          ...setOnTemplate(w, 'labels', KUMA_INJECT, KUMA_POD_ENABLING),
          ...removeFromTemplate(w, 'annotations', KUMA_INJECT),
        ],
        remove: removeFromTemplate(w, 'annotations', KUMA_INJECT),
        templateChanges: [
          { field: 'labels', key: KUMA_INJECT, value: KUMA_POD_ENABLING },
          { field: 'annotations', key: KUMA_INJECT },
        ],
      },
    ];
  }
  return [];
}

/** The namespace value that keeps Kuma off for pods not asking themselves (precheck.go needToInject reads the pod's label first). */
const KUMA_NS_OFF = 'disabled';

/**
 * The namespace needs the label for Kuma's pods webhook to be called for a pod with these labels:
 * no installed webhook is called now, and one is with `kuma.io/sidecar-injection=disabled` on the
 * namespace (kumahq/kuma v2.14.3 cp-webhooks-and-secrets.yaml, pods webhook: label Exists).
 */
function podsWebhookNamespaceLabel(m: MeshContext, ns: string, podLabels: Record<string, string>): boolean {
  const hooks = m.webhooksOf('kuma');
  if (hooks.length === 0 || !m.has('namespaces')) return false;
  const nsLabels = namespaceLabels(m.namespace(ns), ns);
  if (hooks.some((h) => evalWebhook(h, nsLabels, podLabels).called)) return false;
  return hooks.some((h) => evalWebhook(h, { ...nsLabels, [KUMA_INJECT]: KUMA_NS_OFF }, podLabels).called);
}
