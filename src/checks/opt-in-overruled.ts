/**
 * opt-in-overruled — a workload's pod template asks a mesh for its proxy itself, and a namespace
 * label it does not control wins: no webhook of the mesh is called for its pods, so they run
 * without the proxy whatever the template says.
 *
 * Why: who wins between a namespace marker and a pod marker is each mesh's rule, and for some it
 * is the API server that decides, before any injector reads the pod. Istio's webhooks select
 * namespaces first: `istio-injection=disabled` matches neither `namespace.sidecar-injector`
 * (istio-injection In [enabled]) nor `object.sidecar-injector` (istio-injection DoesNotExist), so a
 * pod `sidecar.istio.io/inject: "true"` there is never sent to istiod (istio/istio
 * manifests/charts/istio-control/istio-discovery/templates/mutatingwebhook.yaml, 1.10 and later;
 * istio/istio#32388, #11205); Istio 1.5's single webhook selects `istio-injection=enabled` only.
 * Where the injector decides instead (Linkerd's and Kuma's pod marker over the namespace's,
 * Consul's pod annotation), the pod wins and nothing is reported; a label that is not the mesh's
 * marker and takes the namespace out of a webhook's namespaceSelector (Linkerd's
 * `config.linkerd.io/admission-webhooks: disabled`) is webhook-excludes-namespace's.
 * When: an app workload in scope whose pod template carries the mesh's own enabling marker (valid:
 * injection-marker-invalid reports a misplaced or invalid one), whose pods created now would not
 * be injected because no webhook of the mesh is called (the injection model), in a namespace whose
 * own marker for that mesh is present and does not enable it (the label that wins). Only where a changed
 * cluster is shown by the same model to inject the workload is a fix given, and the finding made.
 * Known false positives: a namespace label set on purpose to keep the namespace out while one
 * team still asks from its pods (the finding is the record of which marker wins).
 * Fix: the smallest change the model shows injecting the workload: remove the namespace label
 * (with the pod label the mesh's selectors read, where the template asks with an annotation), or
 * mark the namespace for injection where the mesh has no per-pod selector (Istio 1.5: every
 * other pod of the namespace is then injected unless it opts out). Then re-create the pods.
 */
import { decide } from '../facts/decision.js';
import {
  enableMarker,
  namespaceMarker,
  namespaceMarkerKeys,
  templateAsking,
  templateEnabling,
} from '../facts/markers.js';
import { workloadProblems, WORKLOAD_PROBLEMS } from '../facts/marker-problems.js';
import { podStates, type Model, type Workload } from '../facts/model.js';
import { namespaceLabels, type MeshWebhook } from '../mesh/webhooks.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import { newPodLabels } from '../k8s/pod-labels.js';
import { namespaceChange, recreateCommands, setOnTemplate } from '../fix/commands.js';
import { comment, type Step } from '../fix/steps.js';
import { agree, annotationsOf, isObj, plural } from '../util/objects.js';
import type { Template } from '../mesh/profile.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  overruled:
    "{workload} asks {mesh} for a proxy with pod template {asks}, but namespace {namespace}'s label {winner} wins: it keeps {webhooks} from being called for its pods (the API server selects the namespace before {mesh}'s injector reads the pod), so {pods} without a proxy. {fix}",
});

/** The template with one label or annotation set. */
function withMarker(t: Template, field: 'labels' | 'annotations', key: string, value: string): Template {
  const meta = isObj(t.metadata) ? t.metadata : {};
  const map = isObj(meta[field]) ? meta[field] : {};
  return { ...t, metadata: { ...meta, [field]: { ...map, [key]: value } } };
}

interface Probe {
  nsLabels: Record<string, string>;
  template: Template;
}

export default defineCheck({
  ...meta('opt-in-overruled'),
  facts: [WORKLOAD_PROBLEMS],
  messages: MESSAGES,
  *run(m) {
    if (!m.has('namespaces')) return; // the namespace's labels decide: unread, nothing is claimed
    for (const w of m.appWorkloads) {
      if (!m.inScope(w.namespace)) continue;
      for (const install of m.meshes) {
        const f = overruled(m, w, install.mesh, install.webhooks);
        if (f) yield f;
      }
    }
  },
});

function overruled(m: Model, w: Workload, mesh: MeshName, webhooks: MeshWebhook[]) {
  // The marker asking, as written (an annotation where the selectors read a label asks too: the injector reads it).
  const asking = templateAsking(mesh, w.template);
  if (!asking) return undefined; // the template does not ask
  const enabling = templateEnabling(mesh, w.template);
  const asksField = enabling ? enabling.f : asking.startsWith('label ') ? 'labels' : 'annotations';
  if (workloadProblems(m, w).some((p) => p.mesh === mesh)) return undefined; // injection-marker-invalid's
  const d = m.decision(w, mesh);
  if (!d || d.inject || d.unknown || d.called) return undefined; // injected, not known, or the injector decided
  const nsObj = m.namespace(w.namespace);
  const labels = namespaceLabels(nsObj, w.namespace);
  const annotations = { ...annotationsOf(nsObj) };
  const podLabels = newPodLabels(w);
  const probe = (p: Probe) =>
    decide(m, mesh, webhooks, {
      namespace: w.namespace,
      nsLabels: p.nsLabels,
      nsAnnotations: annotations,
      template: p.template,
      podLabels: {
        ...podLabels,
        ...(isObj(p.template.metadata) && isObj(p.template.metadata.labels) ? p.template.metadata.labels : {}),
      },
    });
  // The label that wins: removed on its own, some webhook of the mesh is called for the pod (bounded: 32 labels).
  const keys = Object.keys(labels)
    .filter((k) => k !== 'kubernetes.io/metadata.name')
    .slice(0, 32);
  // Only the mesh's own namespace markers: which of its two markers wins is this check's; a label that takes the
  // namespace out of a webhook's namespaceSelector otherwise is webhook-excludes-namespace's.
  const own = namespaceMarker(m, mesh, nsObj);
  const ownKeys = namespaceMarkerKeys(mesh, nsObj);
  if (!own.present || own.enabled || ownKeys.field !== 'labels') return undefined;
  const winner = keys
    .filter((k) => ownKeys.keys.includes(k))
    .find((k) => {
      const { [k]: _, ...rest } = labels;
      return probe({ nsLabels: rest, template: w.template }).called;
    });
  const ask = profileOf(mesh).markers.ask;
  // Else the mesh's own namespace marker that does not enable it (Istio 1.5: istio-injection=disabled, where
  // no pod is selected on its own and removing it alone calls nothing either).
  const winnerLabel = winner ?? ownKeys.keys.find((k) => k in labels);
  if (!winnerLabel) return undefined;
  const { [winnerLabel]: _removed, ...without } = labels;
  // The smallest change the model shows injecting the workload.
  const viaLabel = ask.field === 'labels' ? withMarker(w.template, 'labels', ask.key, ask.value) : undefined;
  const marker = enableMarker(mesh, w.namespace, webhooks, m);
  const plans: { steps: Step[]; says: string; p: Probe }[] = [
    {
      steps: namespaceChange(m, w.namespace, 'labels', [{ key: winnerLabel }]),
      says: `Removing label ${winnerLabel} from namespace ${w.namespace} lets ${meshTitle(mesh)} inject it.`,
      p: { nsLabels: without, template: w.template },
    },
    ...(viaLabel && asksField !== 'labels'
      ? [
          {
            steps: [
              ...namespaceChange(m, w.namespace, 'labels', [{ key: winnerLabel }]),
              ...setOnTemplate(w, 'labels', ask.key, ask.value),
            ],
            says: `Removing label ${winnerLabel} from namespace ${w.namespace}, with the pod template label ${ask.key}=${ask.value} that ${meshTitle(mesh)}'s webhook selects (its annotation is not read by a selector), lets ${meshTitle(mesh)} inject it.`,
            p: { nsLabels: without, template: viaLabel },
          },
        ]
      : []),
    ...(marker && marker.field === 'labels'
      ? [
          {
            steps: namespaceChange(m, w.namespace, 'labels', [
              ...(marker.key === winnerLabel ? [] : [{ key: winnerLabel }]),
              { key: marker.key, value: marker.value },
            ]),
            says: `${meshTitle(mesh)} selects no single pod in this release: the namespace label ${marker.key}=${marker.value} in place of ${winnerLabel} lets it inject it, and every other pod of namespace ${w.namespace} unless that pod opts out.`,
            p: { nsLabels: { ...without, [marker.key]: marker.value }, template: w.template },
          },
        ]
      : []),
  ];
  const plan = plans.find((x) => probe(x.p).inject);
  if (!plan) return undefined; // no change the model can show working: nothing is claimed
  const unmeshed = podStates(w).unmeshed.length;
  const n = unmeshed || w.pods.length;
  const hooks = webhooks.map((h) => h.name);
  return {
    mesh,
    ...say(MESSAGES, 'overruled', {
      workload: `${w.kind} ${w.namespace}/${w.name}`,
      mesh: meshTitle(mesh),
      asks: asking,
      namespace: w.namespace,
      winner: `${winnerLabel}=${labels[winnerLabel]}`,
      webhooks: hooks.length === 1 ? `webhook ${hooks[0]}` : `its webhooks ${hooks.join(', ')}`,
      pods: n ? `its ${plural(n, 'pod')} ${agree(n, 'runs', 'run')}` : 'its pods will run',
      fix: plan.says,
    }),
    resource: w.ref,
    affectedPods: Math.max(n, 1),
    evidence: {
      asks: asking,
      namespaceLabel: { key: winnerLabel, value: labels[winnerLabel] ?? '' },
      winner: 'namespace' as const,
      webhooksNotCalled: hooks,
      unmeshedPods: unmeshed,
    },
    fix: [
      comment`the namespace label wins over the pod template: change it, or keep it and accept that this workload stays out`,
      ...plan.steps,
      ...recreateCommands(w),
    ],
  };
}
