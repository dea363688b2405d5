/**
 * will-not-be-meshed — `check -f … --expect-meshed`: a workload in the manifests that no installed
 * mesh would inject once applied.
 *
 * Why: a deploy gate. The other checks say what is wrong with a marker, a webhook or a quota; this
 * one says the outcome the pipeline cares about — these pods would start without a proxy — with
 * each mesh's verdict, before `kubectl apply`.
 * When: only with --expect-meshed, only for workloads in the manifests, and not for workloads that
 * opt out explicitly (Linkerd `linkerd.io/inject: disabled`, Istio `sidecar.istio.io/inject:
 * "false"`) or use hostNetwork: those are choices, not accidents.
 * Known false positives: none by construction (the verdicts are the injection model's); with no
 * mesh detected at all the check stays silent (there is no mesh to name; the report header says
 * "meshes: none detected").
 * Fix: the namespace marker that would make the first mesh inject it — checked against the
 * webhooks' selectors and the injector's rules before being suggested — or none when it would not
 * (a namespace the mesh never injects; the verdicts say why). When the Namespace is in the
 * manifests, the fix names its file and document: it is fixed there.
 */
import { decide, type Decision } from '../mesh/decision.js';
import { enableMarker, templateOptOut } from '../mesh/markers.js';
import { namespaceLabels } from '../mesh/webhooks.js';
import { desiredPods, podStates, type Model, type Workload } from '../model.js';
import type { MeshName } from '../types.js';
import { annotationsOf, note } from '../util.js';
import { WORKLOAD_KINDS, defineCheck } from './define.js';

/** The same wording as `explain`'s verdict for a mesh that would not inject. */
function verdict(d: Decision): string {
  if (!d.called) return d.calls.length === 0 ? `no ${d.mesh} injection webhook is installed` : `no ${d.mesh} webhook would be called: the API server never asks the injector`;
  return `the ${d.mesh} injector would skip it: ${d.injector.find((s) => !s.ok)?.detail ?? 'a rule failed'}`; // called, not injected
}

/**
 * The namespace marker that would make `mesh` inject the workload, when it would (not where the
 * webhooks' selectors or the injector's own rules keep the pods out whatever the namespace says).
 */
function fixFor(m: Model, w: Workload, mesh: MeshName): string[] | undefined {
  const install = m.mesh(mesh)!;
  const nsObj = m.namespace(w.namespace);
  const marker = enableMarker(mesh, w.namespace, install.webhooks);
  const nsLabels = namespaceLabels(nsObj, w.namespace);
  const nsAnnotations = annotationsOf(nsObj);
  (marker.field === 'labels' ? nsLabels : nsAnnotations)[marker.key] = marker.value;
  if (!decide(mesh, install.webhooks, { namespace: w.namespace, nsLabels, nsAnnotations, template: w.template }, m.linkerdSettings()).inject) return undefined;
  // A Namespace in the manifests is fixed there: a kubectl change would be undone by the next apply.
  const inManifests = m.manifestSource({ kind: 'Namespace', name: w.namespace });
  return inManifests ? [`# add ${note(marker.text)} to Namespace ${note(w.namespace)} in ${note(inManifests.file)}#${inManifests.document}`] : [marker.command];
}

export default defineCheck({
  id: 'will-not-be-meshed',
  code: 'MD1011',
  title: 'Workload will not be meshed',
  description: 'With check -f and --expect-meshed: a workload in the manifests that does not opt out would be created without a proxy, because no installed mesh would inject it.',
  severity: 'error',
  inputs: ['namespaces', 'mutatingwebhookconfigurations'],
  optionalInputs: [...WORKLOAD_KINDS, 'pods', 'configmaps'],
  *run(m) {
    if (!m.options.expectMeshed || m.meshes.length === 0) return; // no mesh: nothing to name (see above)
    for (const w of m.manifestWorkloads) {
      if (podStates(w).hostNetwork) continue; // never injected, by design (host-network-pod)
      if (m.meshes.some((i) => templateOptOut(i.mesh, w.template))) continue; // opted out on purpose
      const decisions = m.decisions(w);
      if (decisions.some((d) => d.inject)) continue;
      const fixes = decisions.map((d) => ({ mesh: d.mesh, fix: fixFor(m, w, d.mesh) }));
      const chosen = fixes.find((f) => f.fix) ?? fixes[0]!;
      yield {
        mesh: chosen.mesh,
        message: `${w.kind} ${w.namespace}/${w.name} will not be meshed: no installed mesh would inject its pods.`,
        resource: w.ref,
        affectedPods: desiredPods(w),
        evidence: { verdicts: decisions.map((d) => ({ mesh: d.mesh, verdict: verdict(d) })) },
        fix: chosen.fix ?? [],
      };
    }
  },
});
