/**
 * What a read plan reads, given what is read so far: the one answer both executors use, gather
 * (read once, in phases) and the reflector's plan for watch (src/watch/plan.ts, asked again as
 * namespaces and webhook configurations change), so that `watch` keeps in sync exactly what
 * `check` reads. Pure; knows no mesh (the ReadPlan handed in does).
 */
import { KINDS, type KindKey } from '../k8s/kinds.js';
import type { K8sObject, Scope } from '../util/types.js';

/** A ConfigMap or Secret read by name (never listed). */
export interface NamedRef {
  key: 'configmaps' | 'secrets';
  namespace: string;
  name: string;
}

/**
 * What to read beyond the kinds asked for, decided from the Namespaces and the webhook
 * configurations once they are read: the reading layer knows no mesh, it is handed this.
 */
export interface ReadPlan {
  /** The namespaces a -n run also lists its namespaced kinds in (the meshes' control planes). */
  controlPlaneNamespaces(namespaces: K8sObject[], webhookConfigs: K8sObject[]): string[];
  /**
   * The ConfigMaps and Secrets the checks read, by name, in the mesh namespaces only; `deployments`
   * (when read) name some of them (the Secret a control plane mounts).
   */
  named(namespaces: K8sObject[], webhookConfigs: K8sObject[], deployments: K8sObject[]): NamedRef[];
}

/** Why the named objects cannot be read: the namespaces they live in are unknown. */
const UNKNOWN_MESH_NAMESPACES =
  'the mesh namespaces are unknown: namespaces and mutatingwebhookconfigurations were not read';

/** What is read so far of the kinds that decide the rest (absent: not read, or not readable). */
interface ReadSoFar {
  namespaces?: K8sObject[];
  mutatingwebhookconfigurations?: K8sObject[];
  deployments?: K8sObject[];
}

/**
 * The namespaces a namespaced kind is listed in: [undefined] (cluster-wide) with -A; with -n, that
 * namespace and the meshes' control-plane namespaces, which the cluster-scoped kinds name.
 */
export function listNamespaces(scope: Scope, plan: ReadPlan, read: ReadSoFar): (string | undefined)[] {
  if (scope.allNamespaces) return [undefined];
  const cp = plan.controlPlaneNamespaces(read.namespaces ?? [], read.mutatingwebhookconfigurations ?? []);
  return [...new Set([scope.namespace!, ...cp])];
}

/**
 * The ConfigMaps and Secrets to read by name (each once, however many webhooks name its namespace,
 * in the order they are named), or why they cannot be (neither namespaces nor webhook
 * configurations read).
 */
export function namedRefs(
  kinds: readonly KindKey[],
  plan: ReadPlan,
  read: ReadSoFar,
): { refs: NamedRef[] } | { unavailable: string } {
  const byName = kinds.filter((key) => KINDS[key].byName);
  if (!byName.length) return { refs: [] };
  if (!read.namespaces && !read.mutatingwebhookconfigurations) return { unavailable: UNKNOWN_MESH_NAMESPACES };
  const all = plan
    .named(read.namespaces ?? [], read.mutatingwebhookconfigurations ?? [], read.deployments ?? [])
    .filter((r) => byName.includes(r.key));
  return { refs: [...new Map(all.map((r) => [`${r.key}/${r.namespace}/${r.name}`, r])).values()] };
}
