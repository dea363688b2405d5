import type { K8sObject } from '../util/types.js';
import { isObj } from '../util/objects.js';

/** Anything with a pod spec: a Pod, or a pod template. */
export type PodLike = { spec?: unknown } | K8sObject;

export const podSpec = (o: PodLike | undefined): Record<string, any> =>
  isObj(o?.spec) ? (o!.spec as Record<string, any>) : {};
/** The objects of a list (arr(v).filter(isObj) in one pass: asked for every pod by many checks). */
function objectsOf(v: unknown): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  if (Array.isArray(v)) for (const x of v) if (isObj(x)) out.push(x);
  return out;
}
export const containers = (spec: Record<string, any>): Record<string, any>[] => objectsOf(spec.containers);
export const initContainers = (spec: Record<string, any>): Record<string, any>[] => objectsOf(spec.initContainers);

/** A pod that is running or about to: not Succeeded/Failed, not being deleted. */
export function isActive(pod: K8sObject): boolean {
  const phase = isObj(pod.status) ? pod.status.phase : undefined;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}
