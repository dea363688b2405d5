/** Which mesh's proxy a pod runs, by the containers each profile names. */
import { containers, initContainers, podSpec, type PodLike } from '../k8s/pods.js';
import { isObj, str } from '../util/objects.js';
import type { MeshName } from './names.js';
import { PROFILE_LIST, profileOf } from './registry.js';
import type { MeshProfile } from './profile.js';
import { injectedNamesOfAllReleases, proxyNamesOfAllReleases } from './releases.js';

/** Every container a mesh's injector may add: its proxy, its init containers, its CNI plugin's validation container. */
export function injectedNames(p: MeshProfile): readonly string[] {
  // Made once per profile (asked per pod by several checks), as releases.ts makes the release names.
  let names = injectedOf.get(p);
  if (!names) {
    names = Object.freeze([
      ...new Set([
        p.containers.proxy,
        ...p.containers.init,
        ...(p.cni?.validationInit && !p.containers.init.includes(p.cni.validationInit) ? [p.cni.validationInit] : []),
        // the names older releases injected (src/mesh/<mesh>/releases.ts): their pods keep them
        ...injectedNamesOfAllReleases(p),
      ]),
    ]);
    injectedOf.set(p, names);
  }
  return names;
}
const injectedOf = new WeakMap<MeshProfile, readonly string[]>();

/** injectedNames(p) less every name a release gave its proxy: the mesh's own init and helper containers. */
function ownInitNames(p: MeshProfile): readonly string[] {
  let names = ownInitsOf.get(p);
  if (!names) {
    const proxies = proxyNamesOfAllReleases(p);
    names = Object.freeze(injectedNames(p).filter((n) => !proxies.includes(n)));
    ownInitsOf.set(p, names);
  }
  return names;
}
const ownInitsOf = new WeakMap<MeshProfile, readonly string[]>();

/**
 * Which mesh's proxy runs in this pod (spec): a container named as the profile's proxy, or the
 * same as an init container: a native sidecar (`restartPolicy: Always`), or one whose
 * `restartPolicy` the API server or a later webhook dropped (alteredNativeSidecar): still the
 * proxy the injector added, not a missing one.
 */
export function injectedMesh(pod: PodLike): MeshName | undefined {
  const spec = podSpec(pod);
  let mesh = injected.get(spec);
  if (mesh === undefined) injected.set(spec, (mesh = proxyOf(spec) ?? null));
  return mesh ?? undefined;
}

/** Per pod spec (the snapshot is frozen): every check and the model ask for every pod. */
const injected = new WeakMap<object, MeshName | null>();

function proxyOf(spec: Record<string, any>): MeshName | undefined {
  // The first profile (PROFILE_LIST order) whose proxy a container is named as (any release's name),
  // or whose proxy is an init container: the least index over both lists, from two maps made once.
  const idx = (proxyIndex ??= proxyIndexes());
  let best = Infinity;
  if (Array.isArray(spec.containers))
    for (const c of spec.containers) {
      if (!isObj(c)) continue;
      const name = str(c.name) ?? '';
      const i = idx.containers.get(name) ?? perService(idx.prefixes, name);
      if (i !== undefined && i < best) best = i;
    }
  if (Array.isArray(spec.initContainers))
    for (const c of spec.initContainers) {
      if (!isObj(c)) continue;
      const i = idx.inits.get(c.name);
      if (i !== undefined && i < best) best = i;
    }
  return best === Infinity ? undefined : PROFILE_LIST[best]!.name;
}

/**
 * Per container name, the index of the first profile that names its proxy so (any release: Consul
 * 0.x's envoy-sidecar); per init container name, the first whose proxy (as a native sidecar, or one
 * whose restartPolicy an API server older than native sidecars dropped) is named so.
 */
let proxyIndex:
  { containers: Map<unknown, number>; inits: Map<unknown, number>; prefixes: readonly [string, number][] } | undefined;
function proxyIndexes() {
  const containers = new Map<unknown, number>();
  const inits = new Map<unknown, number>();
  const prefixes: [string, number][] = [];
  PROFILE_LIST.forEach((p, i) => {
    for (const n of proxyNamesOfAllReleases(p)) {
      if (!containers.has(n)) containers.set(n, i);
      if (p.containers.perService) prefixes.push([`${n}-`, i]);
    }
    if (!inits.has(p.containers.proxy)) inits.set(p.containers.proxy, i);
  });
  return { containers, inits, prefixes };
}

/** The profile whose proxy, one per service of a multi-port pod, is named `<proxy>-<service>` (containers.perService). */
function perService(prefixes: readonly [string, number][], name: string): number | undefined {
  for (const [prefix, i] of prefixes) if (name.length > prefix.length && name.startsWith(prefix)) return i;
  return undefined;
}

/** Whether the proxy of this pod (spec) is a native sidecar. */
export function hasNativeSidecar(pod: PodLike, mesh: MeshName): boolean {
  const name = profileOf(mesh).containers.proxy;
  return initContainers(podSpec(pod)).some((c) => c.name === name && c.restartPolicy === 'Always');
}

/**
 * The proxy of this pod (spec) is an init container without `restartPolicy: Always`: injected as a
 * native sidecar (no mesh injects its proxy as a plain init container), and altered after: the API
 * server drops the field where native sidecars are off (kubernetes pkg/api/pod/util.go
 * dropDisabledFields, SidecarContainers before 1.29), or a later webhook rewrote the init containers.
 * It then runs as an ordinary init container: it never exits and the pod never starts its app.
 */
export function alteredNativeSidecar(pod: PodLike, mesh: MeshName): boolean {
  const name = profileOf(mesh).containers.proxy;
  return initContainers(podSpec(pod)).some((c) => c.name === name && c.restartPolicy !== 'Always');
}

/**
 * The injectors' own "a proxy is already there" test (Linkerd's sidecarExists, Istio's
 * already-injected check): a proxy or proxy-init container of any mesh, by name or image.
 */
export function proxyAlreadyPresent(spec: Record<string, any>): string | undefined {
  // Per spec, as injectedMesh (the snapshot is frozen): every decision of every mesh asks its workload's template.
  let found = presentIn.get(spec);
  if (found === undefined) presentIn.set(spec, (found = proxyPresentIn(spec) ?? null));
  return found ?? undefined;
}
const presentIn = new WeakMap<object, string | null>();

function proxyPresentIn(spec: Record<string, any>): string | undefined {
  for (const c of [...containers(spec), ...initContainers(spec)]) {
    const name = str(c.name) ?? '';
    const image = str(c.image) ?? '';
    for (const p of PROFILE_LIST) {
      if (name === p.containers.proxy || p.containers.init.includes(name)) return name;
      if (p.containers.image.test(image)) return `${name} (${image})`;
    }
  }
  return undefined;
}

/**
 * The mesh's own init containers (every name it injects but its proxy's) that this pod runs with
 * `restartPolicy: Always`. No mesh injects them so: only the proxy may be a native sidecar (Istio's
 * injection template sets restartPolicy on istio-proxy alone, istio/istio 1.24
 * manifests/charts/istio-control/istio-discovery/files/injection-template.yaml; Linkerd's
 * _proxy-init.tpl and _network-validator.tpl, Kuma's injector.go NewInitContainer, consul-k8s
 * container_init.go set none). The field was written after the injector: a mutating webhook
 * called (or reinvoked) after it rewrote the init containers, and the kubelet now runs that
 * container as a sidecar, restarting it each time it exits.
 */
export function rewrittenInits(pod: PodLike, mesh: MeshName): string[] {
  // Asked for every active pod: most have no init container with restartPolicy Always, and build nothing.
  const inits: unknown = podSpec(pod).initContainers;
  if (!Array.isArray(inits)) return [];
  let own: readonly string[] | undefined;
  const out: string[] = [];
  // The first 64 init containers that are objects (as initContainers(spec).slice(0, 64)).
  for (let i = 0, seen = 0; i < inits.length && seen < 64; i++) {
    const c: unknown = inits[i];
    if (!isObj(c)) continue;
    seen++;
    if (c.restartPolicy !== 'Always') continue;
    own ??= ownInitNames(profileOf(mesh));
    const name = str(c.name) ?? '';
    if (own.includes(name)) out.push(name);
  }
  return out;
}
