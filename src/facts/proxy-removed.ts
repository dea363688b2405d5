/**
 * Pods whose injector's own mark (the profile's containers.announced: Istio's status annotation,
 * Linkerd's proxy-version, …) announces containers the pod does not have: the injector added them,
 * and an admission layer called after it removed them. Shared by proxy-removed (which reports it)
 * and missing-proxy (sidecar-missing leaves these pods to it: one cause, one finding).
 */
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import { profileOf } from '../mesh/registry.js';
import { injectedMesh } from '../mesh/proxy.js';
import type { MeshName } from '../mesh/names.js';
import type { Announcement } from '../mesh/profile.js';
import type { K8sObject } from '../util/types.js';
import type { InjectedNames } from '../mesh/release-table.js';

export interface Removed {
  announcement: Announcement;
  /** The announced containers the pod lacks. */
  missing: string[];
}

/**
 * What the mesh's mark on this pod announces that the pod lacks; undefined when nothing is (or no
 * mark). With `release` (the installed release's containers, src/mesh/releases.ts installedContainers),
 * the mark announces that release's proxy under its own name (consul-k8s 0.x: envoy-sidecar, not
 * today's consul-dataplane).
 */
export function removedFromPod(pod: K8sObject, mesh: MeshName, release?: InjectedNames): Removed | undefined {
  const p = profileOf(mesh);
  const announced = p.containers.announced?.(pod);
  if (!announced) return undefined;
  const proxy = release?.proxy[0];
  const announcement =
    proxy && proxy !== p.containers.proxy && announced.containers.includes(p.containers.proxy)
      ? { ...announced, containers: announced.containers.map((n) => (n === p.containers.proxy ? proxy : n)) }
      : announced;
  const spec = podSpec(pod);
  // A native sidecar (an init container) is present all the same. (Asked of every pod by two
  // checks: no set or copy built, the lists are a few containers each.)
  const all = [containers(spec), initContainers(spec)];
  const present = (n: string) => all.some((list) => list.some((c) => String(c.name ?? '') === n));
  const proxyThere = injectedMesh(pod) === mesh; // the proxy under an older release's name too
  const isProxy = (n: string) => n === p.containers.proxy || n === proxy;
  const missing = announcement.containers.filter((n) => !(isProxy(n) && proxyThere) && !present(n));
  return missing.length ? { announcement, missing } : undefined;
}
