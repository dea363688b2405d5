/**
 * will-not-be-meshed — `check -f … --expect-meshed`: a workload in the manifests that no installed
 * mesh would inject once applied.
 *
 * Why: a deploy gate. The other checks say what is wrong with a marker, a webhook or a quota; this
 * one says the outcome the pipeline cares about — these pods would start without a proxy — with
 * each mesh's verdict, before `kubectl apply`.
 * When: only with --expect-meshed, only for workloads in the manifests, and not for workloads that
 * opt out explicitly (Linkerd `linkerd.io/inject: disabled`, Istio `sidecar.istio.io/inject:
 * "false"`) or use hostNetwork: those are choices, not accidents. Nor for workloads a sidecar-less
 * data plane enrols by their labels or their namespace's (Istio's ambient mode): meshed, without a sidecar.
 * Known false positives: none by construction (the verdicts are the injection model's); with no
 * mesh detected at all the check stays silent (there is no mesh to name; the report header says
 * "meshes: none detected").
 * Fix: for one mesh only (src/facts/choice.ts: the mesh the template's markers name, even with a
 * wrong value, else the one the namespace's workloads run, else its markers; else the user
 * chooses, as comments): the corrected template marker where the template asks that mesh in a way
 * it ignores, and/or the namespace marker, each checked against the webhooks' selectors and the
 * injector's rules before being suggested; none when nothing would work (a namespace the mesh
 * never injects; the verdicts say why). The workload is in the manifests, so its template is
 * fixed there (file and document); so is the Namespace when it is in the manifests.
 */
import { meshTitle } from '../mesh/registry.js';
import { namespaceChange, setOnTemplate } from '../fix/commands.js';
import { choiceEvidence, choiceFix, chooseMesh, mustChoose, type MeshChoice } from '../facts/choice.js';
import { decide, type Decision } from '../facts/decision.js';
import { changedTemplate, workloadProblems, type Problem, WORKLOAD_PROBLEMS } from '../facts/marker-problems.js';
import { enableMarker, namespaceMarker, templateOptOut, podOptIn } from '../facts/markers.js';
import { namespaceLabels } from '../mesh/webhooks.js';
import { desiredPods, podStates, type Model, type Workload } from '../facts/model.js';
import type { MeshName } from '../mesh/names.js';
import { annotationsOf } from '../util/objects.js';
import { sidecarlessOf } from '../facts/sidecarless.js';
import { defineCheck, messages, meta, say } from './define.js';
import type { Step } from '../fix/steps.js';

/** The same wording as `explain`'s verdict for a mesh that would not inject. */
function verdict(d: Decision): string {
  if (!d.called)
    return d.calls.length === 0
      ? `no ${d.mesh} injection webhook is installed`
      : `no ${d.mesh} webhook would be called: the API server never asks the injector`;
  const failed = d.injector.find((s) => !s.ok);
  return `the ${d.mesh} injector would ${failed?.denies ? 'deny the pod' : 'skip it'}: ${failed?.detail ?? 'a rule failed'}`; // called, not injected
}

/**
 * What makes `mesh` inject the workload, when something does: the template's marker corrected
 * (where it asks this mesh in a way the mesh ignores), the namespace marker, or both; each tried
 * with the injection model (not where the webhooks' selectors or the injector's own rules keep
 * the pods out whatever is written).
 */
function fixFor(m: Model, w: Workload, mesh: MeshName): { fix: Step[]; problem?: Problem } | undefined {
  const install = m.mesh(mesh)!;
  const nsObj = m.namespace(w.namespace);
  const problem = workloadProblems(m, w).find((p) => p.mesh === mesh && p.templateChanges);
  const template = problem ? changedTemplate(w.template, problem.templateChanges!) : w.template;
  const templateFix = problem ? (problem.correct ?? problem.fix) : [];
  const marker = enableMarker(mesh, w.namespace, install.webhooks, m);
  const injects = (withMarker: boolean, t = template) => {
    const nsLabels = namespaceLabels(nsObj, w.namespace);
    const nsAnnotations = { ...annotationsOf(nsObj) };
    if (withMarker && marker) (marker.field === 'labels' ? nsLabels : nsAnnotations)[marker.key] = marker.value;
    return decide(m, mesh, install.webhooks, { namespace: w.namespace, nsLabels, nsAnnotations, template: t }).inject;
  };
  if (problem && injects(false)) return { fix: templateFix, problem };
  // The template's own opt-in where the mesh has no namespace marker (its pods opt in one by one),
  // or where the namespace's marker keeps the mesh off on purpose (turning it on would mesh every pod).
  const optIn = podOptIn(mesh);
  const nsMarker = namespaceMarker(m, mesh, nsObj);
  if (optIn && !problem && (!marker || (nsMarker.present && !nsMarker.enabled))) {
    const t = changedTemplate(w.template, [{ field: optIn.field, key: optIn.key, value: optIn.value }]);
    if (injects(false, t)) return { fix: setOnTemplate(w, optIn.field, optIn.key, optIn.value) };
  }
  if (!marker) return undefined;
  // A Namespace in the manifests is fixed there: a kubectl change would be undone by the next apply.
  if (injects(true))
    return {
      fix: [
        ...templateFix,
        ...namespaceChange(m, w.namespace, marker.field, [{ key: marker.key, value: marker.value }]),
      ],
      ...(problem ? { problem } : {}),
    };
  return undefined;
}

const MESSAGES = messages({
  'marker-ignored':
    '{workload} will not be meshed: its {marker} asks {meshTitle} for injection, but {meshTitle} ignores it (expected {expected}).',
  'no-mesh-injects': '{workload} will not be meshed: no installed mesh would inject its pods{choose}.',
});

export default defineCheck({
  ...meta('will-not-be-meshed'),
  facts: [WORKLOAD_PROBLEMS],
  messages: MESSAGES,
  *run(m) {
    if (!m.options.expectMeshed || m.meshes.length === 0) return; // no mesh: nothing to name (see above)
    for (const w of m.manifestWorkloads) {
      if (podStates(w).hostNetwork) continue; // never injected, by design (host-network-pod)
      if (m.meshes.some((i) => templateOptOut(m, i.mesh, w.template))) continue; // opted out on purpose
      if (sidecarlessOf(m, w)) continue; // meshed without a sidecar (a sidecar-less data plane enrols it by its labels)
      const decisions = m.decisions(w);
      if (decisions.some((d) => d.inject)) continue;
      const fixes = new Map(decisions.map((d) => [d.mesh, fixFor(m, w, d.mesh)]));
      // One mesh: the evidence's; undecided, the only one a fix works for, or the user's choice.
      let choice: MeshChoice = chooseMesh(
        m,
        w.namespace,
        [w],
        decisions.map((d) => d.mesh),
      );
      const working = decisions.map((d) => d.mesh).filter((x) => fixes.get(x));
      if (!choice.mesh && working.length === 1)
        choice = { mesh: working[0]!, by: `the only mesh that can inject it`, candidates: choice.candidates };
      const mesh = choice.mesh ?? working[0] ?? decisions[0]!.mesh;
      const problem = choice.mesh ? fixes.get(choice.mesh)?.problem : undefined;
      const id = `${w.kind} ${w.namespace}/${w.name}`;
      const title = meshTitle(mesh);
      yield {
        mesh,
        ...(problem
          ? say(MESSAGES, 'marker-ignored', {
              workload: id,
              marker: String(problem.evidence.marker),
              meshTitle: title,
              expected: String(problem.evidence.expected),
            })
          : say(MESSAGES, 'no-mesh-injects', {
              workload: id,
              choose: choice.mesh || working.length === 0 ? '' : `; ${mustChoose(choice, 'it')}`,
            })),
        resource: w.ref,
        affectedPods: desiredPods(w),
        evidence: {
          verdicts: decisions.map((d) => ({ mesh: d.mesh, verdict: verdict(d) })),
          ...(problem ? { marker: problem.evidence.marker, expected: problem.evidence.expected } : {}),
          ...(decisions.length > 1 ? { meshChoice: choiceEvidence(choice) } : {}),
        },
        fix: choiceFix(
          choice,
          working.map((x) => ({ mesh: x, fix: fixes.get(x)!.fix })),
          w.ref,
        ),
      };
    }
  },
});
