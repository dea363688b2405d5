/**
 * Istio's injection markers (docs/meshes/istio.md; istio/istio manifests/charts/istio-control/
 * istio-discovery/templates/mutatingwebhook.yaml, pkg/kube/inject/inject.go): the namespace labels
 * `istio-injection` and `istio.io/rev`, the pod label (or annotation) `sidecar.istio.io/inject`.
 */
import { newPodLabels } from '../../k8s/pod-labels.js';
import { comment } from '../../fix/steps.js';
import { namespaceChange, recreateAll, removeFromTemplate, setOnTemplate } from '../../fix/commands.js';
import type { MeshContext } from '../context.js';
import { shq } from '../../util/objects.js';
import { asksOn } from '../asks.js';
import * as table from '../marker-table.js';
import type { MarkerTable } from '../marker-table.js';
import type {
  EnableMarker,
  MarkerProblemDraft,
  NamespaceProblemContext,
  Template,
  WorkloadProblemContext,
} from '../profile.js';
import { evalWebhook, namespaceLabels } from '../../k8s/webhook.js';
import type { MeshWebhook } from '../profile.js';
import { ISTIO_INJECT, ISTIO_NS_LABEL, ISTIO_REV, injectorFor, istioPodValue, parseInjectValue } from './injector.js';
import { markerTable } from '../profile-from.js';
import { ISTIO_DATA } from './data.js';
import { istiodVersion } from './version.js';

/**
 * The namespace label that would make an installed webhook fire for a plain pod:
 * `istio-injection=enabled` when a webhook serves it, else `istio.io/rev=<first revision>`.
 */
function enableLabel(webhooks: MeshWebhook[], ns: string): { key: string; value: string } | undefined {
  const candidates = [
    { key: ISTIO_NS_LABEL, value: 'enabled' },
    ...[...new Set(webhooks.flatMap((w) => w.revisions))].sort().map((r) => ({ key: ISTIO_REV, value: r })),
  ];
  return candidates.find((c) =>
    webhooks.some(
      (w) => w.mesh === 'istio' && evalWebhook(w, { 'kubernetes.io/metadata.name': ns, [c.key]: c.value }, {}).called,
    ),
  );
}

export function enableMarker(ns: string, webhooks: MeshWebhook[]): EnableMarker {
  const l = enableLabel(webhooks, ns) ?? { key: ISTIO_NS_LABEL, value: 'enabled' };
  return {
    field: 'labels',
    ...l,
    text: `label ${l.key}=${l.value}`,
    command: `kubectl label namespace ${shq(ns)} ${shq(`${l.key}=${l.value}`)} --overwrite`,
  };
}

/** Istio's markers as its data document says them (data.ts: the keys, their precedence, how values read). */
export const ISTIO_MARKERS: MarkerTable = markerTable(ISTIO_DATA.markers);

const templateOptOut = (t: Template) => table.templateOptOut(ISTIO_MARKERS, t);

export function namespaceProblems(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
  const { ns, obj, labels, annotations, set, unset } = c;
  const out: MarkerProblemDraft[] = [];
  const istio = m.mesh('istio');
  const invalidValue = (inj: string) =>
    out.push({
      message: `Namespace ${ns} has label ${ISTIO_NS_LABEL}=${inj}, but only the value "enabled" selects Istio's injection webhook, so no pod in it is injected.`,
      evidence: { marker: `label ${ISTIO_NS_LABEL}=${inj}`, expected: `label ${ISTIO_NS_LABEL}=enabled` },
      fix: set('labels', ISTIO_NS_LABEL, 'enabled'),
      recreate: c.waiting(),
      remove: unset('labels', ISTIO_NS_LABEL),
    });
  if (!m.has('mutatingwebhookconfigurations')) {
    // Without the webhooks, only a value that no Istio webhook ever selects can be judged.
    const inj = labels[ISTIO_NS_LABEL];
    if (
      m.meshPossible('istio') &&
      inj !== undefined &&
      inj !== 'enabled' &&
      asksOn(inj) &&
      labels[ISTIO_REV] === undefined
    )
      invalidValue(inj);
    return out;
  }
  if (!istio) return out;
  const inj = labels[ISTIO_NS_LABEL];
  const rev = labels[ISTIO_REV];
  const nsLabels = namespaceLabels(obj, ns);
  const { [ISTIO_NS_LABEL]: _winner, ...withoutInj } = nsLabels;
  /** The injector Service a plain pod would be sent to under these namespace labels. */
  const injector = (l: Record<string, string>) => {
    const svc = istio.webhooks.find((h) => evalWebhook(h, l, {}).called)?.service;
    return svc ? `${svc.namespace}/${svc.name}` : undefined;
  };
  const revServed = rev !== undefined && injector(withoutInj) !== undefined;
  // Both labels sending pods to the same istiod (e.g. istio.io/rev=default) is contradictory but harmless.
  const sameInjector = inj === 'enabled' && revServed && injector(withoutInj) === injector(nsLabels);
  // istio-injection=disabled (or another "off" value) beside istio.io/rev is a deliberate opt-out:
  // istio-injection wins and no webhook is called, as meant (research/istio.md §4). Silent.
  if (inj !== undefined && rev !== undefined && !sameInjector && asksOn(inj)) {
    const served = [...new Set(istio.webhooks.flatMap((h) => h.revisions))].sort();
    // Switching revision re-creates every pod of the namespace; otherwise only the unmeshed ones.
    const all = c.workloads.filter((w) => !m.podStates(w).hostNetwork && !templateOptOut(w.template));
    out.push({
      message: `Namespace ${ns} has both labels ${ISTIO_NS_LABEL}=${inj} and ${ISTIO_REV}=${rev}; ${ISTIO_NS_LABEL} wins, so revision ${rev} is ignored${revServed ? '' : ' (and no installed webhook serves it)'}.`,
      evidence: {
        labels: { [ISTIO_NS_LABEL]: inj, [ISTIO_REV]: rev },
        ignoredRevision: rev,
        servedRevisions: served,
        revisionServed: revServed,
      },
      fix: unset('labels', revServed ? ISTIO_NS_LABEL : ISTIO_REV),
      recreate: revServed ? all : c.waiting(),
      remove: unset('labels', ISTIO_NS_LABEL, ISTIO_REV),
      ...(revServed ? { affectedPods: all.reduce((n, w) => n + m.podStates(w).active.length, 0) } : {}),
    });
  } else if (inj !== undefined && inj !== 'enabled' && asksOn(inj)) {
    invalidValue(inj);
  } else if (inj === undefined && rev === undefined) {
    // Webhooks select namespaces by labels only: the same key as an annotation does nothing.
    for (const key of [ISTIO_NS_LABEL, ISTIO_REV]) {
      const av = annotations[key];
      if (!asksOn(av)) continue;
      const asRev = key === ISTIO_REV && injector({ ...nsLabels, [ISTIO_REV]: av }) !== undefined;
      const label = asRev
        ? { text: `label ${ISTIO_REV}=${av}`, key: ISTIO_REV, value: av }
        : enableMarker(ns, istio.webhooks);
      out.push({
        message: `Namespace ${ns} has annotation ${key}=${av}, but Istio's webhooks select namespaces by label only, so no pod in it is injected.`,
        evidence: { marker: `annotation ${key}=${av}`, expected: label.text },
        fix: [...set('labels', label.key, label.value), ...unset('annotations', key)],
        recreate: c.waiting(),
        remove: unset('annotations', key),
      });
    }
  }
  return out;
}

/** Whether a webhook would be called needs the namespace's labels and the webhooks. */
export function workloadProblems(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
  const istio = m.mesh('istio');
  if (!istio || !m.injectionConfigRead) return [];
  const { w, id, where, labels } = c;
  const nsLabels = namespaceLabels(m.namespace(w.namespace), w.namespace);
  const overridden = revisionOverridden(istio.webhooks, c, nsLabels);
  if (overridden) return [overridden];
  // An annotation value istiod rejects (IST0125) is mesh-key-value-invalid's (the release tables' value rules).
  const { value, from } = istioPodValue(w.template);
  if (value === undefined || !from) return [];
  // The object webhook selects the label sidecar.istio.io/inject=true, exactly.
  const asksLoosely = parseInjectValue(value, 'loose').explicit === true;
  if (asksLoosely && !(from === 'label' && value === 'true') && !m.decision(w, 'istio')?.called) {
    const labelWorks = istio.webhooks.some(
      (h) => evalWebhook(h, nsLabels, { ...newPodLabels(w), ...labels, [ISTIO_INJECT]: 'true' }).called,
    );
    // Where even the label selects no webhook, the namespace decides. A namespace that opts out (any
    // istio-injection value but "enabled", or a revision nothing serves) is webhook-excludes-namespace's.
    // A namespace with no Istio label at all, under webhooks that select namespaces only (the
    // standalone injector up to 1.5 and istiod before the object webhooks of 1.10: one webhook,
    // namespaceSelector istio-injection=enabled; istio/istio@1.5.10 manifests/istio-control/
    // istio-autoinject/templates/mutatingwebhook.yaml): the pod asks, the namespace never does, and
    // the API server never calls the injector, so the pod's request is never read (istio/istio#26600).
    if (!labelWorks) {
      if (nsLabels[ISTIO_NS_LABEL] !== undefined || nsLabels[ISTIO_REV] !== undefined) return [];
      const nsLabel = enableLabel(istio.webhooks, w.namespace);
      const nsWorks =
        nsLabel !== undefined &&
        istio.webhooks.some(
          (h) =>
            evalWebhook(h, { ...nsLabels, [nsLabel.key]: nsLabel.value }, { ...newPodLabels(w), ...labels }).called,
        );
      if (!nsWorks) return [];
      return [
        {
          message: `${id} asks for injection with ${where} ${from} ${ISTIO_INJECT}=${value}, but namespace ${w.namespace} has no ${ISTIO_NS_LABEL} or ${ISTIO_REV} label and the installed Istio webhooks select namespaces only (none selects pods by their own labels), so the API server never calls the injector for its pods and their request is never read: the namespace decides, and it does not ask. Label the namespace ${nsLabel!.key}=${nsLabel!.value}; the pod ${from} then decides for each pod.`,
          evidence: {
            marker: `${where} ${from} ${ISTIO_INJECT}=${value}`,
            namespaceMarker: null,
            wins: `namespace ${w.namespace} (no ${ISTIO_NS_LABEL} label)`,
            expected: `namespace label ${nsLabel!.key}=${nsLabel!.value}`,
            rule: 'istio/istio@1.5.10 manifests/istio-control/istio-autoinject/templates/mutatingwebhook.yaml (namespaceSelector only)',
          },
          fix: [
            comment`with the label every other workload of ${w.namespace} is injected too when re-created, unless it says false`,
            ...namespaceChange(m, w.namespace, 'labels', [{ key: nsLabel!.key, value: nsLabel!.value }]),
            ...recreateAll([w]),
          ],
          remove: removeFromTemplate(w, from === 'label' ? 'labels' : 'annotations', ISTIO_INJECT),
        },
      ];
    }
    return [
      {
        message: `${id} asks for injection with ${where} ${from} ${ISTIO_INJECT}=${value}, but in namespace ${w.namespace} only the label ${ISTIO_INJECT}=true selects Istio's webhook, so its pods are not injected.`,
        evidence: {
          marker: `${where} ${from} ${ISTIO_INJECT}=${value}`,
          expected: `${where} label ${ISTIO_INJECT}=true`,
        },
        fix: setOnTemplate(w, 'labels', ISTIO_INJECT, 'true'),
        remove: removeFromTemplate(w, from === 'label' ? 'labels' : 'annotations', ISTIO_INJECT),
        templateChanges: [{ field: 'labels', key: ISTIO_INJECT, value: 'true' }],
      },
    ];
  }
  // Any value but exactly "true" or "false": ignored from Istio 1.27.0 (inject.go @86c9f01f lines
  // 227-237, commit 331d32e3, istio/istio#56737), read loosely before (inject.go @1.26.0 line 225).
  // Reported whatever the version: before 1.27 its meaning changes at the next upgrade.
  if (!parseInjectValue(value, 'exact').ignored) return [];
  const target = injectorFor(m, { namespace: w.namespace, nsLabels, nsAnnotations: {}, template: w.template });
  const version = istiodVersion(m, target.ns, target.deployment);
  const exact = asksLoosely ? 'true' : 'false';
  const field = from === 'label' ? 'labels' : 'annotations';
  const now =
    version.version === undefined
      ? `and the installed istiod's version is unknown (before 1.27 it means "${asksLoosely ? 'inject' : 'do not inject'}")`
      : version.rules === 'exact'
        ? 'so the never/always selectors and the policy decide instead'
        : `while the installed istiod (${version.version}) still reads it as "${asksLoosely ? 'inject' : 'do not inject'}", until it is upgraded`;
  return [
    {
      message: `${id} has ${where} ${from} ${ISTIO_INJECT}=${value}, a value Istio 1.27 and later ignore (only "true" and "false" count), ${now}.`,
      evidence: {
        marker: `${where} ${from} ${ISTIO_INJECT}=${value}`,
        expected: `${where} ${from} ${ISTIO_INJECT}=${exact}`,
        rules:
          version.rules === 'exact'
            ? 'Istio 1.27 and later: only "true" and "false" count'
            : 'before Istio 1.27: y/yes/true/on inject, any other value does not',
        version: version.text,
      },
      fix: setOnTemplate(w, field, ISTIO_INJECT, exact),
      remove: removeFromTemplate(w, field, ISTIO_INJECT),
      templateChanges: [{ field, key: ISTIO_INJECT, value: exact }],
      // Ignored (1.27+) or read as "inject" (before), while a new pod is injected all the same: the
      // value is not why pods lack the proxy, so their missing proxy is reported beside it.
      ...(m.decision(w, 'istio')?.inject ? { notWhyMissing: true } : {}),
    },
  ];
}

/**
 * A pod template's `istio.io/rev` under a namespace injection label: the namespace wins. Its
 * `rev.namespace.` (or, with `istio-injection=enabled`, the default revision's `namespace.`) webhook
 * is the one called, and `rev.object.` needs the namespace without either label
 * (mutatingwebhook.yaml @86c9f01f lines 65-108); the injector does not compare revisions
 * (inject.go injectRequired). So the pods get the namespace's revision: say which.
 */
function revisionOverridden(
  webhooks: MeshWebhook[],
  c: WorkloadProblemContext,
  nsLabels: Record<string, string>,
): MarkerProblemDraft | undefined {
  const { w, id, where, labels } = c;
  const asked = labels[ISTIO_REV];
  const nsMarker =
    nsLabels[ISTIO_NS_LABEL] !== undefined ? ISTIO_NS_LABEL : nsLabels[ISTIO_REV] !== undefined ? ISTIO_REV : undefined;
  if (asked === undefined || !nsMarker) return undefined;
  const call = webhooks.find((h) => evalWebhook(h, nsLabels, { ...newPodLabels(w), ...labels }).called);
  // No webhook called: the namespace opts out (webhook-excludes-namespace says so); the same revision: nothing overridden.
  if (!call || !call.revisions.length || call.revisions.includes(asked)) return undefined;
  const gets = call.revisions.join(', ');
  return {
    message: `${id} asks for Istio revision ${asked} with ${where} label ${ISTIO_REV}=${asked}, but namespace ${w.namespace}'s label ${nsMarker}=${nsLabels[nsMarker]} wins: its pods get revision ${gets} (webhook ${call.name}).`,
    evidence: {
      marker: `${where} label ${ISTIO_REV}=${asked}`,
      namespaceMarker: `label ${nsMarker}=${nsLabels[nsMarker]}`,
      revision: gets,
      webhook: call.name,
    },
    // The namespace decides: the template's label only misleads. To run revision `asked`, relabel the namespace instead.
    fix: removeFromTemplate(w, 'labels', ISTIO_REV),
    remove: removeFromTemplate(w, 'labels', ISTIO_REV),
  };
}
