import { MESH_NAMES, type MeshName } from './names.js';
import type { NamedRef, ReadPlan } from '../cluster/gather.js';
import { PROFILE_LIST, webhookMesh } from './registry.js';
import type { K8sObject } from '../util/types.js';

/**
 * The control-plane namespaces of the installed meshes, read from their webhooks' services (the
 * authoritative place), falling back to the conventional namespaces when they exist.
 */
export function meshNamespaces(namespaces: K8sObject[], webhookConfigs: K8sObject[]): Record<MeshName, string[]> {
  const found = new Map<MeshName, Set<string>>(MESH_NAMES.map((m) => [m, new Set<string>()]));
  for (const cfg of webhookConfigs) {
    const hooks = Array.isArray(cfg.webhooks) ? (cfg.webhooks as Record<string, any>[]) : [];
    for (const h of hooks) {
      const svc = h?.clientConfig?.service;
      if (typeof svc?.namespace !== 'string' || typeof h.name !== 'string') continue;
      const mesh = webhookMesh({
        name: h.name,
        configName: String(cfg.metadata?.name ?? ''),
        ...(typeof svc.name === 'string' ? { serviceName: svc.name } : {}),
      });
      if (mesh) found.get(mesh)!.add(svc.namespace);
    }
  }
  for (const ns of namespaces) {
    const name = ns.metadata?.name;
    if (typeof name !== 'string') continue;
    for (const p of PROFILE_LIST) {
      const set = found.get(p.name)!;
      if (p.controlPlane.isNamespace(ns)) set.add(name);
      if (set.size === 0 && name === p.controlPlane.namespace) set.add(name);
    }
  }
  return Object.fromEntries(MESH_NAMES.map((m) => [m, [...found.get(m)!].sort()])) as Record<MeshName, string[]>;
}

/**
 * The ConfigMaps and Secrets the checks read, by name, in the mesh namespaces only. These kinds
 * are never listed cluster-wide. `deployments` (when read) name some of them: the Secret a
 * control plane mounts.
 */
export function namedObjects(
  namespaces: K8sObject[],
  webhookConfigs: K8sObject[],
  deployments: K8sObject[] = [],
): NamedRef[] {
  const cp = meshNamespaces(namespaces, webhookConfigs);
  return PROFILE_LIST.flatMap((p) => p.controlPlane.reads.named(cp[p.name], webhookConfigs, deployments));
}

/** The read plan the reading layer is handed (src/cluster/gather.ts ReadPlan). */
export const READ_PLAN: ReadPlan = {
  controlPlaneNamespaces: (namespaces, webhookConfigs) =>
    Object.values(meshNamespaces(namespaces, webhookConfigs)).flat(),
  named: namedObjects,
};
