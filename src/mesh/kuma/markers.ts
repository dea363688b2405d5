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
import { removeFromTemplate, setOnTemplate } from '../../fix/commands.js';
import type { MeshContext } from '../context.js';
import { labelsOf } from '../../util/objects.js';
import { asksOn } from '../asks.js';
import type { MarkerProblemDraft, NamespaceProblemContext, WorkloadProblemContext } from '../profile.js';
import { KUMA_INJECT, KUMA_NS_ENABLING, KUMA_POD_ENABLING, KUMA_VALID, parseKuma } from './injector.js';
import { meshNameNamespaceProblems, meshNameWorkloadProblems } from './mesh-name.js';

export function namespaceProblems(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('kuma')) return [];
  return [...injectionProblems(m, c), ...meshNameNamespaceProblems(c)];
}

function injectionProblems(_m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
  const { ns, labels, set, unset } = c;
  const v = labels[KUMA_INJECT];
  if (v !== undefined) {
    if (KUMA_NS_ENABLING.includes(v) || !asksOn(v)) return [];
    const invalid = parseKuma(v) === 'invalid';
    return [
      {
        message: invalid
          ? `Namespace ${ns} has label ${KUMA_INJECT}=${v}, a value Kuma does not accept, so Kuma injects no pod in it but those labelled ${KUMA_INJECT}=enabled.`
          : `Namespace ${ns} has label ${KUMA_INJECT}=${v}, which Kuma's injector accepts but its namespace webhook does not select (only enabled or true), so Kuma injects no pod in it but those labelled ${KUMA_INJECT}=enabled.`,
        evidence: {
          marker: `label ${KUMA_INJECT}=${v}`,
          ...(invalid ? { validValues: KUMA_VALID } : {}),
          expected: `label ${KUMA_INJECT}=enabled`,
        },
        fix: set('labels', KUMA_INJECT, 'enabled'),
        recreate: c.waiting(),
        remove: unset('labels', KUMA_INJECT),
      },
    ];
  }
  return [];
}

export function workloadProblems(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('kuma')) return [];
  return [...workloadInjectionProblems(m, c), ...meshNameWorkloadProblems(c)];
}

function workloadInjectionProblems(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
  const { w, id, where, labels } = c;
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
  return [];
}
