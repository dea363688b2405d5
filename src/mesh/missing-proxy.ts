/**
 * Pods a mesh should have injected and did not, split by whether they predate the marker that
 * asked for injection: shared by pod-predates-enablement and sidecar-missing, which report the
 * two halves.
 */
import type { Decision } from './decision.js';
import { enabledSince, enablingMarkers, type DatedMarker } from './managed-fields.js';
import { markerExplains } from './marker-problems.js';
import { templateOptOut } from './markers.js';
import { podSpec } from './pods.js';
import { podStates, type Model, type Workload } from '../model.js';
import type { K8sObject, MeshName } from '../types.js';
import { time } from '../util.js';

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

