/** A workload's active pods, split by the mesh proxy they run. */
import { isActive, podSpec } from '../k8s/pods.js';
import type { Workload } from '../k8s/workloads.js';
import type { PodStates } from '../mesh/context.js';
import type { MeshName } from '../mesh/names.js';
import { injectedMesh } from '../mesh/proxy.js';
import type { K8sObject } from '../util/types.js';

export type { PodStates } from '../mesh/context.js';

const podStatesCache = new WeakMap<Workload, PodStates>();

/** Active pods of a workload, split by the proxy they run (computed once per workload). */
export function podStates(w: Workload): PodStates {
  let s = podStatesCache.get(w);
  if (!s) {
    const active = w.pods.filter(isActive);
    const meshed = new Map<MeshName, K8sObject[]>();
    const unmeshed: K8sObject[] = [];
    for (const p of active) {
      const mesh = injectedMesh(p);
      if (!mesh) unmeshed.push(p);
      else if (meshed.has(mesh)) meshed.get(mesh)!.push(p);
      else meshed.set(mesh, [p]);
    }
    s = { active, meshed, unmeshed, hostNetwork: podSpec(w.template).hostNetwork === true };
    podStatesCache.set(w, s);
  }
  return s;
}
