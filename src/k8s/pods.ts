import type { K8sObject } from '../util/types.js';
import { arr, isObj } from '../util/objects.js';

/** Anything with a pod spec: a Pod, or a pod template. */
export type PodLike = { spec?: unknown } | K8sObject;

export const podSpec = (o: PodLike | undefined): Record<string, any> =>
  isObj(o?.spec) ? (o!.spec as Record<string, any>) : {};
export const containers = (spec: Record<string, any>): Record<string, any>[] => arr(spec.containers).filter(isObj);
export const initContainers = (spec: Record<string, any>): Record<string, any>[] =>
  arr(spec.initContainers).filter(isObj);

/** A pod that is running or about to: not Succeeded/Failed, not being deleted. */
export function isActive(pod: K8sObject): boolean {
  const phase = isObj(pod.status) ? pod.status.phase : undefined;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}
