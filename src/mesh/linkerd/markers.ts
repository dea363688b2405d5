/**
 * Linkerd's injection markers (docs/meshes/linkerd.md; linkerd/linkerd2 pkg/inject/report.go,
 * controller/proxy-injector/webhook.go): the annotation `linkerd.io/inject` on the namespace or
 * the pod template; the labels and places people mistake for it.
 */
import { setOnTemplate, removeFromTemplate } from '../../fix/commands.js';
import { annotationsOf, plural } from '../../util/objects.js';
import { asksOn } from '../asks.js';
import { namespaceMarker } from '../marker-table.js';
import { markerTable } from '../profile-from.js';
import { LINKERD_DATA } from './data.js';
import type { MarkerProblemDraft, NamespaceProblemContext, WorkloadProblemContext } from '../profile.js';
import type { MeshContext } from '../context.js';
import { LINKERD_INJECT, LINKERD_VALID, isLinkerdEnabling, isLinkerdValid } from './injector.js';

/** The marker table of its data document. */
const TABLE = markerTable(LINKERD_DATA.markers);

/** A Linkerd marker is judged by Linkerd's own rules, webhooks or not (their configurations may be unreadable). */
export function namespaceProblems(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('linkerd')) return [];
  const { ns, annotations, set, unset } = c;
  const out: MarkerProblemDraft[] = [];
  const v = annotations[LINKERD_INJECT];
  if (v !== undefined && !isLinkerdValid(v)) {
    const optIns = c.workloads.filter((w) => isLinkerdEnabling(annotationsOf(w.template)[LINKERD_INJECT]));
    const on = asksOn(v);
    // A recognisable "off" matters only where it blocks a pod template that asks for injection.
    if (on || optIns.length > 0) {
      const should = on ? 'enabled' : 'disabled';
      out.push({
        message: on
          ? `Namespace ${ns} has annotation ${LINKERD_INJECT}=${v}, a value Linkerd does not accept, so Linkerd injects no pod in it.`
          : `Namespace ${ns} has annotation ${LINKERD_INJECT}=${v}, a value Linkerd does not accept, so Linkerd skips every pod in it, including ${plural(optIns.length, 'workload')} whose pod template asks for injection.`,
        evidence: {
          marker: `annotation ${LINKERD_INJECT}=${v}`,
          validValues: [...LINKERD_VALID],
          expected: `annotation ${LINKERD_INJECT}=${should}`,
          ...(on ? {} : { blockedWorkloads: optIns.map((w) => `${w.kind}/${w.name}`) }),
        },
        fix: set('annotations', LINKERD_INJECT, should),
        recreate: on ? c.waiting() : optIns.filter((w) => m.podStates(w).unmeshed.length > 0),
        remove: unset('annotations', LINKERD_INJECT),
      });
    }
  }
  return out;
}

/** An invalid value is wrong whatever the namespace says: judged even where the Namespace and the webhooks cannot be read. */
export function workloadProblems(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('linkerd')) return [];
  const { w, id, where, annotations } = c;
  const out: MarkerProblemDraft[] = [];
  const ns = namespaceMarker(TABLE, m.namespace(w.namespace));
  const v = annotations[LINKERD_INJECT];
  if (v !== undefined && !isLinkerdValid(v) && asksOn(v)) {
    out.push({
      message: `${id} has ${where} annotation ${LINKERD_INJECT}=${v}, a value Linkerd does not accept, so Linkerd skips its pods.`,
      evidence: {
        marker: `${where} annotation ${LINKERD_INJECT}=${v}`,
        validValues: [...LINKERD_VALID],
        expected: ns.enabled
          ? `no ${where} annotation (namespace ${w.namespace} has ${ns.text})`
          : `${where} annotation ${LINKERD_INJECT}=enabled`,
      },
      fix: ns.enabled
        ? removeFromTemplate(w, 'annotations', LINKERD_INJECT)
        : setOnTemplate(w, 'annotations', LINKERD_INJECT, 'enabled'),
      remove: removeFromTemplate(w, 'annotations', LINKERD_INJECT),
      templateChanges: [{ field: 'annotations', key: LINKERD_INJECT, ...(ns.enabled ? {} : { value: 'enabled' }) }],
    });
  }
  return out;
}
