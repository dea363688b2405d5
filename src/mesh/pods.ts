import type { K8sObject, MeshName } from '../types.js';
import { arr, isObj, str } from '../util.js';

export const PROXY_CONTAINER: Record<MeshName, string> = { linkerd: 'linkerd-proxy', istio: 'istio-proxy' };
export const INIT_CONTAINER: Record<MeshName, string> = { linkerd: 'linkerd-init', istio: 'istio-init' };
const PROXY_IMAGE: Record<MeshName, RegExp> = {
  linkerd: /(^|\/)proxy:|linkerd.*\/proxy(:|@|$)/,
  istio: /(^|\/)proxyv2(:|@|$)/,
};

/** Anything with a pod spec: a Pod, or a pod template. */
export type PodLike = { spec?: unknown } | K8sObject;

export const podSpec = (o: PodLike | undefined): Record<string, any> => (isObj(o?.spec) ? (o!.spec as Record<string, any>) : {});
export const containers = (spec: Record<string, any>): Record<string, any>[] => arr(spec.containers).filter(isObj);
export const initContainers = (spec: Record<string, any>): Record<string, any>[] => arr(spec.initContainers).filter(isObj);

/**
 * Which mesh's proxy runs in this pod (spec): a container named `linkerd-proxy`/`istio-proxy`,
 * or the same as a native sidecar (an init container with `restartPolicy: Always`).
 */
export function injectedMesh(pod: PodLike): MeshName | undefined {
  const spec = podSpec(pod);
  for (const mesh of ['linkerd', 'istio'] as const) {
    const name = PROXY_CONTAINER[mesh];
    if (containers(spec).some((c) => c.name === name)) return mesh;
    if (initContainers(spec).some((c) => c.name === name && c.restartPolicy === 'Always')) return mesh;
  }
  return undefined;
}

/** Whether the proxy of this pod (spec) is a native sidecar. */
export function hasNativeSidecar(pod: PodLike, mesh: MeshName): boolean {
  return initContainers(podSpec(pod)).some((c) => c.name === PROXY_CONTAINER[mesh] && c.restartPolicy === 'Always');
}

/**
 * The injectors' own "a proxy is already there" test (Linkerd's sidecarExists, Istio's
 * already-injected check): a proxy or proxy-init container of either mesh, by name or image.
 */
export function proxyAlreadyPresent(spec: Record<string, any>): string | undefined {
  for (const c of [...containers(spec), ...initContainers(spec)]) {
    const name = str(c.name) ?? '';
    const image = str(c.image) ?? '';
    for (const mesh of ['linkerd', 'istio'] as const) {
      if (name === PROXY_CONTAINER[mesh] || name === INIT_CONTAINER[mesh]) return name;
      if (PROXY_IMAGE[mesh].test(image)) return `${name} (${image})`;
    }
  }
  return undefined;
}

/** A pod that is running or about to: not Succeeded/Failed, not being deleted. */
export function isActive(pod: K8sObject): boolean {
  const phase = isObj(pod.status) ? pod.status.phase : undefined;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}
