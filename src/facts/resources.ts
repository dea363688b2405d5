/**
 * Compute resources: Kubernetes quantities, containers' requests and limits, the proxy each mesh
 * injects (its defaults, the injector's config, the annotations that override them) and what a
 * pod created from a template asks for once the proxy is in it. Pure: reads the Model only.
 *
 * Linkerd (charts/linkerd-control-plane values.yaml): no proxy requests or limits by default;
 * `proxy.resources.{cpu,memory}.{request,limit}` in the linkerd-config values; overridden by
 * `config.linkerd.io/proxy-{cpu,memory}-{request,limit}` on the pod template, else on the
 * namespace. Istio (injection template): `global.proxy.resources` (100m/128Mi requests, 2000m/1024Mi
 * limits by default), replaced completely when any `sidecar.istio.io/proxy{CPU,Memory}[Limit]`
 * annotation is set. The init container (linkerd-init, istio-init) gets the proxy's resources.
 */
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import { parseQuantity } from '../k8s/quantity.js';
import { eventInfo, workloadOfObject } from '../k8s/events.js';
import { podStates, type Model, type Workload } from './model.js';
import { cmp, isObj, str } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import type { ResourceKey } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { hasNativeSidecar, proxyAlreadyPresent } from '../mesh/proxy.js';
export type { ResourceKey } from '../mesh/profile.js';

type Compute = 'cpu' | 'memory';
type ResourceKind = 'requests' | 'limits';
const COMPUTE: readonly Compute[] = ['cpu', 'memory'];

/** Requests and limits in integer base units: millicores for cpu, bytes for memory. */
export interface Resources {
  requests: Partial<Record<Compute, number>>;
  limits: Partial<Record<Compute, number>>;
}

/** A quantity in integer units of a resource (millicores, bytes), rounded up as Kubernetes does. */
export function quantityUnits(r: Compute, v: unknown): number | undefined {
  const q = parseQuantity(v);
  if (q === undefined) return undefined;
  return Math.ceil(Number((r === 'cpu' ? q * 1000 : q).toFixed(6)));
}

const BINARY: [string, number][] = [
  ['Ei', 2 ** 60],
  ['Pi', 2 ** 50],
  ['Ti', 2 ** 40],
  ['Gi', 2 ** 30],
  ['Mi', 2 ** 20],
  ['Ki', 2 ** 10],
];
const DECIMAL: [string, number][] = [
  ['E', 1e18],
  ['P', 1e15],
  ['T', 1e12],
  ['G', 1e9],
  ['M', 1e6],
  ['k', 1e3],
];

/** Units back to a quantity string: "1", "250m"; "256Mi", "1G", "1000". */
export function formatUnits(r: Compute, n: number): string {
  if (r === 'cpu') return n % 1000 === 0 ? String(n / 1000) : `${n}m`;
  if (n === 0) return '0';
  const unit = BINARY.find(([, f]) => n % f === 0) ?? DECIMAL.find(([, f]) => n % f === 0);
  return unit ? `${n / unit[1]}${unit[0]}` : String(n);
}

/** A container's resources as admission sees them: a missing request defaults to the limit. */
function containerResources(c: Record<string, any>): Resources {
  const res = isObj(c.resources) ? c.resources : {};
  return withDefaults({ requests: read(res.requests), limits: read(res.limits) });
}

function read(list: unknown): Partial<Record<Compute, number>> {
  const out: Partial<Record<Compute, number>> = {};
  for (const r of COMPUTE) {
    const v = isObj(list) ? quantityUnits(r, list[r]) : undefined;
    if (v !== undefined) out[r] = v;
  }
  return out;
}

function withDefaults(res: Resources): Resources {
  const requests = { ...res.requests };
  for (const r of COMPUTE) if (requests[r] === undefined && res.limits[r] !== undefined) requests[r] = res.limits[r];
  return { requests, limits: { ...res.limits } };
}

/** One container of a pod, for admission and quota arithmetic. */
export interface PodContainer {
  name: string;
  resources: Resources;
  /** A native sidecar: an init container with `restartPolicy: Always`. */
  restartable: boolean;
  /** Added by the mesh (proxy or its init container). */
  proxy: boolean;
}

/** The proxy a mesh would inject into a workload's next pod. */
export interface ProxyConfig {
  mesh: MeshName;
  resources: Resources;
  /** Where each value came from, by quota-style key ("limits.memory"). */
  source: Record<string, string>;
  native: boolean;
  /** Why the proxy is (or is not) a native sidecar. */
  nativeReason: string;
}

export const RESOURCE_KEYS: readonly ResourceKey[] = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];
export const splitKey = (k: ResourceKey): [ResourceKind, Compute] => k.split('.') as [ResourceKind, Compute];

/** Whether the mesh would inject its proxy as a native sidecar into this workload's next pod. */
export function nativeSidecar(
  m: Model,
  mesh: MeshName,
  w: Workload,
): { native: boolean; reason: string; uncertain?: boolean } {
  const p = profileOf(mesh);
  const own = p.proxy.native.decide(m, w);
  if (own) return own;
  // The workload's own pods show what the injector did last time (a global default we cannot read).
  if (w.pods.some((pod) => hasNativeSidecar(pod, mesh)))
    return { native: true, reason: `its pods run ${p.containers.proxy} as a native sidecar` };
  return { native: false, reason: 'no native-sidecar setting found' };
}

/**
 * The proxy the injector gave this workload's newest meshed pod: its resources as written in the
 * pod (what the namespace's annotations and the mesh's configuration made of it, admission
 * defaults included). Undefined when no active pod of the workload runs the mesh's proxy.
 */
function observedProxy(mesh: MeshName, w: Workload): { pod: string; resources: Record<string, any> } | undefined {
  const pods = [...(podStates(w).meshed.get(mesh) ?? [])].sort((a, b) =>
    cmp(str(b.metadata?.creationTimestamp) ?? '', str(a.metadata?.creationTimestamp) ?? ''),
  );
  const pod = pods[0];
  if (!pod) return undefined;
  const spec = podSpec(pod);
  const c = [...containers(spec), ...initContainers(spec)].find((x) => x.name === profileOf(mesh).containers.proxy);
  return { pod: str(pod.metadata?.name) ?? '', resources: isObj(c?.resources) ? c!.resources : {} };
}

/**
 * The proxy container the mesh would inject into this workload's next pod. Where the Namespace
 * (Linkerd's annotations) or the webhooks (which name the mesh's namespace and configuration)
 * could not be read, the values the pod template does not set are taken from the workload's
 * newest meshed pod (observedProxy) instead of guessed from defaults.
 */
export function proxyConfig(m: Model, mesh: MeshName, w: Workload): ProxyConfig {
  const res: Resources = { requests: {}, limits: {} };
  const source: Record<string, string> = {};
  const observed = m.injectionConfigRead ? undefined : observedProxy(mesh, w);
  const values = profileOf(mesh).proxy.resources.of(
    m,
    w,
    observed?.resources,
    observed && `pod ${observed.pod} (as injected)`,
  );
  for (const key of RESOURCE_KEYS) {
    const [kind, r] = splitKey(key);
    const v = values[key];
    const units = v && quantityUnits(r, v.value);
    if (units === undefined || !v) continue; // unset or not a quantity
    res[kind][r] = units;
    source[key] = v.from;
  }
  for (const r of COMPUTE) {
    if (res.requests[r] === undefined && res.limits[r] !== undefined)
      source[`requests.${r}`] = `defaulted to limits.${r}`;
  }
  const { native, reason } = nativeSidecar(m, mesh, w);
  return { mesh, resources: withDefaults(res), source, native, nativeReason: reason };
}

/** The containers of the workload's next pod, with the mesh's proxy added as the injector would. */
export function injectedPod(
  m: Model,
  mesh: MeshName,
  w: Workload,
): { containers: PodContainer[]; initContainers: PodContainer[]; proxy: ProxyConfig } {
  const spec = podSpec(w.template);
  const p = profileOf(mesh);
  const own = (c: Record<string, any>, restartable: boolean): PodContainer => {
    const name = str(c.name) ?? '';
    return {
      name,
      resources: containerResources(c),
      restartable,
      proxy: name === p.containers.proxy || p.containers.init.includes(name),
    };
  };
  const app = containers(spec).map((c) => own(c, false));
  const appInit = initContainers(spec).map((c) => own(c, c.restartPolicy === 'Always'));
  const proxy = proxyConfig(m, mesh, w);
  // A template that already carries the proxy (injected by hand) is admitted as it is.
  if (proxyAlreadyPresent(spec)) return { containers: app, initContainers: appInit, proxy };
  const sidecar: PodContainer = {
    name: p.containers.proxy,
    resources: proxy.resources,
    restartable: proxy.native,
    proxy: true,
  };
  const init: PodContainer = {
    name: p.containers.init[0]!,
    resources: proxy.resources,
    restartable: false,
    proxy: true,
  };
  return proxy.native
    ? { containers: app, initContainers: [init, sidecar, ...appInit], proxy }
    : { containers: [...app, sidecar], initContainers: [init, ...appInit], proxy };
}

/**
 * What a pod asks for, as the scheduler and quota count it (k8s.io/component-helpers
 * resource.PodRequests/PodLimits): the containers plus native sidecars, or the largest init
 * container (with the sidecars started before it), whichever is more.
 */
export function podDemand(pod: { containers: PodContainer[]; initContainers: PodContainer[] }): Resources {
  const out: Resources = { requests: {}, limits: {} };
  for (const kind of ['requests', 'limits'] as const) {
    for (const r of COMPUTE) {
      let sum = pod.containers.reduce((n, c) => n + (c.resources[kind][r] ?? 0), 0);
      let sidecars = 0;
      let initMax = 0;
      for (const c of pod.initContainers) {
        const v = c.resources[kind][r] ?? 0;
        if (c.restartable) {
          sum += v;
          sidecars += v;
          initMax = Math.max(initMax, sidecars);
        } else initMax = Math.max(initMax, v + sidecars);
      }
      out[kind][r] = Math.max(sum, initMax);
    }
  }
  return out;
}

/** The workload's FailedCreate events (admission rejections) whose message matches, latest first. */
export function failedCreateEvents(m: Model, w: Workload, matches: (message: string) => boolean) {
  return m
    .inNamespace('events', w.namespace)
    .filter((e) => e.reason === 'FailedCreate') // before eventInfo (its dates parsed): asked per workload
    .map(eventInfo)
    .filter(
      (e) =>
        e.reason === 'FailedCreate' && matches(e.message) && workloadOfObject(m, e.kind, e.namespace, e.name) === w,
    )
    .map(({ message, count, lastTimestamp }) => ({ message, count, ...(lastTimestamp ? { lastTimestamp } : {}) }))
    .sort((a, b) => cmp(b.lastTimestamp ?? '', a.lastTimestamp ?? ''));
}
