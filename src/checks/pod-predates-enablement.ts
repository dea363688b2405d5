/**
 * pod-predates-enablement — a workload's pods run without a proxy because they were created
 * before the namespace (or pod template) asked for injection.
 *
 * Why: injection happens only when a pod is created (mesh-rules.md §0). Annotating or labelling
 * a namespace, or a running pod, changes nothing for the pods already there; the most common
 * "I enabled it and nothing happened".
 * When: the model says a pod created now would be injected, and active pods without a proxy were
 * created before the marker was set. The marker's time comes from metadata.managedFields (see
 * src/mesh/managed-fields.ts); without it (kubectl dumps without --show-managed-fields) the check
 * cannot tell and sidecar-missing reports the pods instead. Silent where injection-marker-invalid
 * or webhook-excludes-namespace explains the missing proxy.
 * Known false positives: a managedFields time is the last time its manager changed any field it
 * owns, so a later unrelated change by the same manager (say another `kubectl label`) makes the
 * marker look newer than it is; a Deployment mid-rollout after its template got the marker.
 * Fix: re-create the pods (rollout restart; a Job or bare pod is replaced).
 */
import { recreateCommands } from '../fix.js';
import type { Decision } from '../mesh/decision.js';
import { enabledSince, enablingMarkers, type DatedMarker } from '../mesh/managed-fields.js';
import { templateOptOut } from '../mesh/markers.js';
import { podSpec } from '../mesh/pods.js';
import { podStates, type Model, type Workload } from '../model.js';
import type { K8sObject, MeshName } from '../types.js';
import { time } from '../util.js';
import { defineCheck } from './define.js';
import { markerExplains } from './injection-marker-invalid.js';

export interface MissingProxy {
  decision: Decision;
  /** The markers asking for injection, dated where managedFields tell. */
  markers: DatedMarker[];
  /** When injection was first asked for; undefined when unknown. */
  since?: Date;
  /** Unmeshed pods created before `since`. */
  predating: K8sObject[];
  /** Unmeshed pods created after it, or when that cannot be told. */
  unexplained: K8sObject[];
}

/**
 * The active pods of a workload that a mesh should have injected and did not, split by whether
 * they predate the marker. Undefined when the model says a new pod would not be injected, or
 * injection-marker-invalid (or, through d.called, webhook-excludes-namespace) explains it.
 */
export function missingProxy(m: Model, w: Workload, mesh: MeshName): MissingProxy | undefined {
  const decision = m.decision(w, mesh);
  if (!decision?.inject || !decision.intent) return undefined;
  if (markerExplains(m, w, mesh)) return undefined; // injection-marker-invalid reports the cause
  // A pod on the host network or opted out itself (an older template) was never to be injected.
  const pods = podStates(w).unmeshed.filter((p) => podSpec(p).hostNetwork !== true && !templateOptOut(mesh, p));
  if (pods.length === 0) return undefined;
  const markers = enablingMarkers(mesh, m.namespace(w.namespace), w);
  const since = enabledSince(markers);
  const before = (p: K8sObject) => {
    const created = time(p.metadata?.creationTimestamp);
    return !!(since && created && created < since);
  };
  return { decision, markers, ...(since ? { since } : {}), predating: pods.filter(before), unexplained: pods.filter((p) => !before(p)) };
}

export const podEvidence = (pods: K8sObject[]) => pods.map((p) => ({ name: p.metadata?.name ?? '', creationTimestamp: p.metadata?.creationTimestamp ?? null }));

export default defineCheck({
  id: 'pod-predates-enablement',
  code: 'MD1003',
  title: 'Pods predate the injection marker',
  description: 'Pods run without a proxy because they were created before their namespace or pod template asked for injection; only new pods are injected.',
  severity: 'error',
  inputs: ['namespaces', 'mutatingwebhookconfigurations', 'pods'],
  optionalInputs: ['deployments', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'replicasets', 'configmaps'],
  *run(m) {
    for (const w of m.appWorkloads) {
      for (const { mesh } of m.meshes) {
        const missing = missingProxy(m, w, mesh);
        if (!missing?.since || missing.predating.length === 0) continue;
        // The marker that enabled injection first is the one the pods predate.
        const first = missing.markers.find((mk) => mk.setAt!.getTime() === missing.since!.getTime())!;
        yield {
          mesh,
          message: `${missing.predating.length} pod(s) of ${w.kind} ${w.namespace}/${w.name} were created before ${first.on} got ${first.text} (${missing.since.toISOString()}), so they run without a proxy until re-created.`,
          resource: w.ref,
          affectedPods: missing.predating.length,
          evidence: {
            marker: first.text,
            markerOn: first.on,
            markerSetAt: missing.since.toISOString(),
            pods: podEvidence(missing.predating),
          },
          fix: recreateCommands(w),
        };
      }
    }
  },
});
