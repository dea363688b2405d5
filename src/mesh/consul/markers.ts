/**
 * Consul's injection markers (research/consul.md §1). Source: hashicorp/consul-k8s commit
 * a507b1d1e3061996dbed00cde73bba2bf068379f, control-plane/connect-inject/constants/
 * annotations_and_labels.go (AnnotationInject: "should be set to a truthy or falsy value, as
 * parseable by strconv.ParseBool") and webhook/mesh_webhook.go shouldInject: the one marker is the
 * pod's annotation `consul.hashicorp.com/connect-inject`. Consul has no namespace marker: no code
 * reads that key from a Namespace or as a label. Which namespaces are injected by default is the
 * injector's -default-inject with its -allow-k8s-namespace / -deny-k8s-namespace lists (Helm
 * connectInject.default, k8sAllowNamespaces, k8sDenyNamespaces), and the webhook's
 * namespaceSelector (connectInject.namespaceSelector).
 */
import { removeFromTemplate, setOnTemplate } from '../../fix/commands.js';
import type { MeshContext } from '../context.js';
import type { K8sObject } from '../../util/types.js';
import { annotationsOf, nameOf } from '../../util/objects.js';
import { asksOn } from '../asks.js';
import type { NamespaceMarker } from '../marker-table.js';
import type { MarkerProblemDraft, NamespaceProblemContext, WorkloadProblemContext } from '../profile.js';
import { namespaceLabels } from '../../k8s/webhook.js';
import {
  CONSUL_INJECT,
  CONSUL_VALID,
  consulSettings,
  defaultInjects,
  namespaceRefused,
  parseConsul,
} from './injector.js';

/** No marker on the Namespace: the injector's own settings say whether its pods are injected by default. */
export function namespaceMarker(ns: K8sObject | undefined, m: MeshContext): NamespaceMarker {
  if (!ns || !m.mesh('consul')) return { enabled: false, present: false };
  const s = consulSettings(m);
  const refused = namespaceRefused(s, nameOf(ns));
  // A namespace the injector's lists leave out is a choice made there: the flag is its "marker".
  if (refused && refused.rule !== 'kube-system-namespace')
    return { enabled: false, present: true, text: refused.detail };
  if (!refused && defaultInjects(m, nameOf(ns), namespaceLabels(ns, nameOf(ns))))
    return { enabled: true, present: true, text: 'injector flag -default-inject=true (Helm connectInject.default)' };
  return { enabled: false, present: false };
}

/** The pod annotation written on a Namespace (or as its label): Consul never reads it there. */
export function namespaceProblems(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('consul')) return [];
  const out: MarkerProblemDraft[] = [];
  for (const field of ['annotations', 'labels'] as const) {
    const v = (field === 'annotations' ? c.annotations : c.labels)[CONSUL_INJECT];
    if (!asksOn(v)) continue;
    const waiting = c.workloads.filter(
      (w) => m.podStates(w).unmeshed.length > 0 && annotationsOf(w.template)[CONSUL_INJECT] === undefined,
    );
    out.push({
      message: `Namespace ${c.ns} has ${field.slice(0, -1)} ${CONSUL_INJECT}=${v}, but Consul reads it only as a pod annotation, never from a namespace, so it injects no pod in it for that.`,
      evidence: {
        marker: `${field.slice(0, -1)} ${CONSUL_INJECT}=${v}`,
        expected: `pod template annotation ${CONSUL_INJECT}="true" on each workload`,
      },
      fix: [
        ...waiting.flatMap((w) => setOnTemplate(w, 'annotations', CONSUL_INJECT, 'true')),
        ...c.unset(field, CONSUL_INJECT),
      ],
      remove: c.unset(field, CONSUL_INJECT),
      affectedPods: waiting.reduce((n, w) => n + m.podStates(w).unmeshed.length, 0),
    });
  }
  return out;
}

export function workloadProblems(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('consul')) return [];
  const { w, id, where, annotations } = c;
  const out: MarkerProblemDraft[] = [];
  const v = annotations[CONSUL_INJECT];
  if (parseConsul(v) === 'invalid') {
    // A pod the webhook is called for reaches ParseBool only past shouldInject's earlier rules (mesh_webhook.go a507b1d:
    // kube-system/kube-public, the deny list, the allow list, an existing connect-inject-status all return false first);
    // there a value ParseBool rejects, even one meaning "off", denies the pod.
    const d = m.injectionConfigRead ? m.decision(w, 'consul') : undefined;
    const called = m.injectionConfigRead
      ? !!d?.called && d.injector.some((x) => x.kind === 'marker' && x.denies)
      : true;
    const refused = !called && d?.called ? d.injector.find((x) => !x.ok && x.kind !== 'marker') : undefined;
    if (called || asksOn(v)) {
      const should = asksOn(v) ? 'true' : 'false';
      out.push({
        message: called
          ? `${id} has ${where} annotation ${CONSUL_INJECT}=${v}, a value Consul cannot parse as a boolean, so Consul's injector denies its pods and none can be created.`
          : refused
            ? `${id} has ${where} annotation ${CONSUL_INJECT}=${v}, a value Consul cannot parse as a boolean, and its injector does not even read it here (${refused.detail}), so its pods are not injected.`
            : `${id} has ${where} annotation ${CONSUL_INJECT}=${v}, a value Consul cannot parse as a boolean, so its pods are not injected.`,
        evidence: {
          marker: `${where} annotation ${CONSUL_INJECT}=${v}`,
          validValues: CONSUL_VALID,
          expected: `${where} annotation ${CONSUL_INJECT}=${should}`,
          deniesAdmission: called,
          ...(refused ? { injectorRule: refused.rule } : {}),
        },
        fix: [...setOnTemplate(w, 'annotations', CONSUL_INJECT, should), ...(refused?.config?.fix ?? [])],
        remove: removeFromTemplate(w, 'annotations', CONSUL_INJECT),
        templateChanges: [{ field: 'annotations', key: CONSUL_INJECT, value: should }],
      });
    }
  }
  return out;
}
