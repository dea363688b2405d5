/** A workload's active pods, split by the mesh proxy they run. */
import { isActive, podSpec } from '../k8s/pods.js';
import type { Workload } from '../k8s/workloads.js';
import type { PodStates } from '../mesh/context.js';
import type { MeshName } from '../mesh/names.js';
import { injectedMesh, injectedNames } from '../mesh/proxy.js';
import { PROFILE_LIST } from '../mesh/registry.js';
import { isObj } from '../util/objects.js';
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

/** Every container name some release of a mesh injects (injectedNames: proxy, init, helper, validation), with the meshes that inject it. */
let injectorsOfName: Map<string, MeshName[]> | undefined;
function meshesInjecting(): Map<string, MeshName[]> {
  if (!injectorsOfName) {
    injectorsOfName = new Map();
    for (const p of PROFILE_LIST)
      for (const n of injectedNames(p)) {
        const ms = injectorsOfName.get(n);
        if (!ms) injectorsOfName.set(n, [p.name]);
        else if (!ms.includes(p.name)) ms.push(p.name);
      }
  }
  return injectorsOfName;
}

/** Per workload and mesh: its active pods carrying a container of that mesh's, and their places among the active pods. */
interface Carrying {
  pods: K8sObject[];
  at: number[];
  /** The place of the last pod added (one entry per pod). */
  last: number;
}
const carryingCache = new WeakMap<Workload, Map<MeshName, Carrying>>();

/**
 * The workload's active pods (podStates(w).active, in that order) that carry a container or init
 * container named as any release of the mesh injects one (`injectedNames`: its proxy, init, helper
 * and CNI validation containers), by name only: a pod without one has nothing of the mesh's to
 * judge (its proxy, version, init order, start), so the checks that walk every active pod per mesh
 * for those walk these (one pass per workload for every mesh). `within`: only among the first
 * `within` active pods (as `active.slice(0, within)` then filtered).
 */
export function podsCarrying(w: Workload, mesh: MeshName, within = Infinity): readonly K8sObject[] {
  let byMesh = carryingCache.get(w);
  if (!byMesh) {
    byMesh = new Map();
    const names = meshesInjecting();
    const active = podStates(w).active;
    for (let i = 0; i < active.length; i++) {
      const pod = active[i]!;
      const spec = podSpec(pod);
      for (const list of [spec.containers, spec.initContainers]) {
        if (!Array.isArray(list)) continue;
        for (const c of list) {
          const n: unknown = isObj(c) ? c.name : undefined;
          const meshes = typeof n === 'string' ? names.get(n) : undefined;
          if (!meshes) continue;
          for (const mn of meshes) {
            let e = byMesh.get(mn);
            if (!e) byMesh.set(mn, (e = { pods: [], at: [], last: -1 }));
            if (e.last !== i) {
              e.pods.push(pod);
              e.at.push(i);
              e.last = i;
            }
          }
        }
      }
    }
    carryingCache.set(w, byMesh);
  }
  const e = byMesh.get(mesh);
  if (!e) return [];
  if (e.last < within) return e.pods;
  let n = 0;
  while (n < e.at.length && e.at[n]! < within) n++;
  return e.pods.slice(0, n);
}
