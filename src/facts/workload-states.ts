/**
 * Mesh coverage: each app workload in one state, the numbers a dashboard shows per namespace
 * (`meshdoctor watch`'s meshdoctor_workloads metric, docs/metrics.md). Derived from the same Model
 * the checks ran on (decisions and pod states are memoized there), so it costs little more.
 */
import { templateOptOut } from './markers.js';
import { sidecarlessOf } from './sidecarless.js';
import { podStates, type Model } from './model.js';
import type { MeshName } from '../mesh/names.js';
import { cmp } from '../util/objects.js';

/**
 * - meshed: every active pod runs a mesh's proxy, or a sidecar-less data plane enrols the workload;
 * - unmeshed: active pods run without a proxy although a mesh is asked for them (by their
 *   namespace or their template) and the template does not opt out of it: what the alerts are about;
 * - opted_out: active pods without a proxy, their template opting out of an installed mesh;
 * - not_asked: active pods without a proxy, and no mesh asked for them;
 * - no_pods: no active pod (scaled to zero, a finished Job, a CronJob between runs).
 */
type WorkloadState = 'meshed' | 'unmeshed' | 'opted_out' | 'not_asked' | 'no_pods';

export interface StateCount {
  namespace: string;
  /** The mesh the state is about ('none' when no mesh is). */
  mesh: MeshName | 'none';
  state: WorkloadState;
  workloads: number;
}

/** The app workloads of the model's scope (the meshes' own control planes left out), counted by namespace, mesh and state, sorted. */
export function workloadStates(m: Model): StateCount[] {
  const counts = new Map<string, StateCount>();
  for (const w of m.appWorkloads) {
    const { mesh, state } = stateOf(m, w);
    const k = `${w.namespace}\u0000${mesh}\u0000${state}`;
    const c = counts.get(k);
    if (c) c.workloads++;
    else counts.set(k, { namespace: w.namespace, mesh, state, workloads: 1 });
  }
  return [...counts.values()].sort(
    (a, b) => cmp(a.namespace, b.namespace) || cmp(a.mesh, b.mesh) || cmp(a.state, b.state),
  );
}

function stateOf(m: Model, w: Model['appWorkloads'][number]): { mesh: MeshName | 'none'; state: WorkloadState } {
  const pods = podStates(w);
  const asked = m.decisions(w).find((d) => d.intent && !templateOptOut(m, d.mesh, w.template));
  if (!pods.active.length) return { mesh: asked?.mesh ?? 'none', state: 'no_pods' };
  const sidecarless = sidecarlessOf(m, w);
  if (sidecarless) return { mesh: sidecarless.mesh, state: 'meshed' };
  if (!pods.unmeshed.length) return { mesh: [...pods.meshed.keys()].sort(cmp)[0] ?? 'none', state: 'meshed' };
  if (asked) return { mesh: asked.mesh, state: 'unmeshed' };
  const out = m.meshes.find((x) => templateOptOut(m, x.mesh, w.template));
  if (out) return { mesh: out.mesh, state: 'opted_out' };
  return { mesh: 'none', state: 'not_asked' };
}
