/** Events: their time, count and involved object, and the workload an involved object belongs to. */
import { redactAdmissionMessage } from './admission.js';
import { defineFact } from './fact.js';
import type { KindKey } from './kinds.js';
import type { SnapshotView } from './snapshot.js';
import { WORKLOAD_INPUTS, type Workload } from './workloads.js';
import type { K8sObject } from '../util/types.js';
import { arr, dict, isObj, nsOf, str, time } from '../util/objects.js';

const controllerRef = (o: K8sObject | undefined): Record<string, any> | undefined => {
  const refs = arr(o?.metadata?.ownerReferences).filter(isObj);
  return refs.find((r) => r.controller === true) ?? refs[0];
};

/** Every workload by "kind/namespace/name". */
export const WORKLOAD_INDEX = defineFact({
  id: 'workload-index',
  inputs: WORKLOAD_INPUTS,
  compute: (m: SnapshotView) => new Map(m.workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w])),
});

/** The workload of that kind, namespace and name (undefined: none in the snapshot). */
export function workloadByRef(m: SnapshotView, kind: string, ns: string, name: string): Workload | undefined {
  return m.fact(WORKLOAD_INDEX).get(`${kind}/${ns}/${name}`);
}

/**
 * The workload an event's involved object belongs to: a ReplicaSet's Deployment (through its
 * ownerReferences, else its name less the pod-template-hash), a CronJob's Job, or the object.
 */
export function workloadOfObject(m: SnapshotView, kind: string, ns: string, name: string): Workload | undefined {
  const index = m.fact(WORKLOAD_INDEX);
  const find = (k: string, n: string) => index.get(`${k}/${ns}/${n}`);
  if (kind === 'ReplicaSet') {
    const owner = controllerRef(m.get('replicasets', ns, name));
    if (owner?.kind === 'Deployment') return find('Deployment', String(owner.name ?? ''));
    const cut = name.lastIndexOf('-');
    return cut > 0 && /^[a-z0-9]+$/.test(name.slice(cut + 1)) ? find('Deployment', name.slice(0, cut)) : undefined;
  }
  if (kind === 'Job') {
    const owner = controllerRef(m.get('jobs', ns, name));
    if (owner?.kind === 'CronJob') return find('CronJob', String(owner.name ?? ''));
  }
  return find(kind, name);
}

/**
 * The kubelet's pod events the checks read (kept only for the containers the meshes inject,
 * src/mesh/keep.ts): an image it cannot pull (kubernetes pkg/kubelet/images/image_manager.go:
 * reason Failed "Failed to pull image %q: %v", BackOff "Back-off pulling image %q"), a container it
 * refuses to create for its non-root policy (Failed "Error: container's runAsUser breaks non-root
 * policy ...") and a container it keeps restarting (pkg/kubelet/kuberuntime: BackOff "Back-off restarting failed container %s in
 * pod %s"; older releases end after "container").
 */
export const POD_EVENTS_READ: readonly { reason: string; message: RegExp }[] = [
  { reason: 'Failed', message: /^Failed to pull image "/ },
  // The kubelet's non-root policy refusing to create a container (pkg/kubelet/kuberuntime/security_context_others.go).
  {
    reason: 'Failed',
    message: /^Error: container(?:'s runAsUser breaks non-root policy| has runAsNonRoot and image )/,
  },
  { reason: 'BackOff', message: /^Back-off (?:pulling image "|restarting failed container)/ },
  // A container's postStart hook failing (kubernetes pkg/kubelet/lifecycle/handlers.go: "Exec lifecycle hook (%v) for
  // Container %q in Pod %q failed - error: %v, message: %q"; kuberuntime_container.go startContainer records only
  // "PostStartHook failed" in later releases): a mesh's hold (proxy-hold-stuck). Kept for the injected containers only.
  { reason: 'FailedPostStartHook', message: /^(?:(?:Exec|HTTP) lifecycle hook |PostStartHook failed)/ },
];

/**
 * The kubelet's probe events (kubernetes pkg/kubelet/prober/prober.go: reason Unhealthy "%s probe
 * failed: %s" with the probe type Readiness, Liveness or Startup; pkg/kubelet/kuberuntime
 * kuberuntime_container.go: reason Killing "Container %s failed %s probe, will be restarted"):
 * a container not ready at the event's time, and one killed for a failed probe.
 */
export const PROBE_FAILED = { reason: 'Unhealthy', message: /^(?:Readiness|Liveness|Startup) probe failed: / } as const;
export const PROBE_KILLED = {
  reason: 'Killing',
  message: /^Container [^ ]{1,253} failed (?:liveness|startup) probe, will be restarted$/,
} as const;

/** The first time an event was seen (firstTimestamp, eventTime, else its last time). */
export function eventFirst(e: K8sObject): Date | undefined {
  const series = isObj(e.series) ? e.series : {};
  for (const t of [
    e.firstTimestamp,
    e.eventTime,
    e.lastTimestamp,
    series.lastObservedTime,
    e.metadata?.creationTimestamp,
  ]) {
    const d = time(t);
    if (d) return d;
  }
  return undefined;
}

/** An Event's last time, count and involved object, across the v1 fields that carry them. */
export function eventInfo(e: K8sObject) {
  const io = isObj(e.involvedObject) ? e.involvedObject : {};
  const series = isObj(e.series) ? e.series : {};
  const last = [
    e.lastTimestamp,
    series.lastObservedTime,
    e.eventTime,
    e.firstTimestamp,
    e.metadata?.creationTimestamp,
  ].find((t) => time(t));
  const reason = str(e.reason) ?? '';
  const message = str(e.message) ?? '';
  return {
    reason,
    // A pod-creation failure as a snapshot keeps it (the values it quotes of fields that may hold secrets, such as
    // env, redacted): what a check quotes is the same live and offline, and never an env value.
    // A label value that is (the start of) the involved object's name is kept (a name the event holds anyway).
    message:
      reason === 'FailedCreate'
        ? redactAdmissionMessage(message, '(redacted)', typeof io.name === 'string' ? [io.name] : [])
        : message,
    kind: str(io.kind) ?? '',
    namespace: str(io.namespace) ?? nsOf(e),
    name: str(io.name) ?? '',
    /** The container the event is about (`involvedObject.fieldPath` spec.containers{name}), if any. */
    container:
      typeof io.fieldPath === 'string'
        ? /^spec\.(?:initContainers|containers)\{([^{}]{1,253})\}$/.exec(io.fieldPath)?.[1]
        : undefined,
    count: typeof e.count === 'number' ? e.count : typeof series.count === 'number' ? series.count : 1,
    ...(last ? { lastTimestamp: String(last) } : {}),
  };
}

/** The controllers whose FailedCreate events say a pod could not be created, and their kind keys. */
// A dict: looked up by an event's involvedObject.kind (an event of kind "constructor" names no owner).
const OWNER_KINDS: Readonly<Record<string, KindKey>> = Object.freeze(
  Object.assign(dict<KindKey>(), {
    ReplicaSet: 'replicasets',
    Job: 'jobs',
    StatefulSet: 'statefulsets',
    DaemonSet: 'daemonsets',
  } as const),
);

/** Pods the owner still lacks (0: it has created them all since); undefined when unknown. */
function missingPods(kind: string, obj: K8sObject | undefined): number | undefined {
  if (!obj || !isObj(obj.status)) return undefined;
  const spec = isObj(obj.spec) ? obj.spec : {};
  const st = obj.status;
  const n = (v: unknown, d = 0) => (typeof v === 'number' ? v : d);
  if (kind === 'DaemonSet') return Math.max(0, n(st.desiredNumberScheduled) - n(st.currentNumberScheduled));
  if (kind === 'Job') return n(st.active) + n(st.succeeded) > 0 ? 0 : n(spec.parallelism, 1);
  return Math.max(0, n(spec.replicas, 1) - n(st.replicas));
}

/** FailedCreate events of one workload that a matcher recognised, merged: the newest one's message and match. */
interface FailedCreates<T> {
  resource: { kind: string; namespace: string; name: string };
  workload?: Workload;
  /** The owners the events were on ("ReplicaSet/web-5d8f7c9b4"). */
  objects: Set<string>;
  count: number;
  last?: string;
  message: string;
  match: T;
  /** Pods the owners still lack (0 when unknown). */
  missing: number;
  /**
   * The workload is inferred, not read: the event's owner is of a kind meshdoctor does not read (a custom resource)
   * and owns no pod, or a controller object without a known workload above it; `workload` is then built from the
   * event's involved object (its pod template where the object was read, else none).
   */
  inferred?: boolean;
}

/**
 * The workload a FailedCreate event's owner stands for when none is known (issue 31, gen13events): a controller of a
 * kind read here whose owner is not (a ReplicaSet of an Argo Rollout) gives its own pod template; any other owner
 * (a custom resource: Argo Rollouts, Knative, Kubeflow, Spark, Tekton, an operator's CR; the event names it by kind,
 * namespace and name) a workload without a template: pods that never got created show nothing else.
 */
function inferredWorkload(m: SnapshotView, kind: string, ns: string, name: string): Workload {
  const key = OWNER_KINDS[kind];
  const obj = key ? m.get(key, ns, name) : undefined;
  const spec = isObj(obj?.spec) ? obj.spec : {};
  const template = obj && isObj(spec.template) ? (spec.template as Workload['template']) : {};
  return {
    ref: { kind, namespace: ns, name },
    kind,
    namespace: ns,
    name,
    ...(obj ? { obj } : {}),
    template,
    templatePath: obj && isObj(spec.template) ? 'spec/template' : '',
    pods: [],
  };
}

/** Kinds whose FailedCreate events are not about creating a pod's owner's pods (a CronJob creates Jobs; a Deployment, ReplicaSets). */
const NOT_POD_OWNERS = new Set(['CronJob', 'Deployment', 'Pod', 'Node', 'Namespace']);

/**
 * FailedCreate events on controllers in scope whose message `match` recognises, grouped per
 * workload and `key`; silent for owners that have created all their pods since (the failure is over).
 */
export function failedCreates<T>(
  m: SnapshotView,
  match: (message: string) => T | undefined,
  key: (t: T) => string,
  /** Also the events on owners of any kind (a custom resource), their workload inferred where none is known. */
  anyOwner = false,
): FailedCreates<T>[] {
  const groups = new Map<string, FailedCreates<T>>();
  for (const e of m.list('events')) {
    if (e.reason !== 'FailedCreate') continue; // before eventInfo (its dates parsed): asked of every event by several checks
    const ev = eventInfo(e);
    const kindKey = OWNER_KINDS[ev.kind];
    if (ev.reason !== 'FailedCreate' || !m.inScope(ev.namespace)) continue;
    if (!kindKey && !(anyOwner && ev.kind && ev.name && !NOT_POD_OWNERS.has(ev.kind))) continue;
    const t = match(ev.message);
    if (t === undefined) continue;
    const missing = kindKey ? missingPods(ev.kind, m.get(kindKey, ev.namespace, ev.name)) : undefined;
    if (missing === 0) continue; // the owner has created its pods since: the failure is over
    // A custom resource's pods name it in their ownerReferences: the workload judged by them (src/k8s/workloads.ts).
    const known = workloadOfObject(m, ev.kind, ev.namespace, ev.name);
    const w = known ?? (anyOwner ? inferredWorkload(m, ev.kind, ev.namespace, ev.name) : undefined);
    const resource = w?.ref ?? { kind: ev.kind, namespace: ev.namespace, name: ev.name };
    const id = `${key(t)}\u0000${resource.kind}/${resource.namespace}/${resource.name}`;
    const g = groups.get(id) ?? {
      resource,
      ...(w ? { workload: w } : {}),
      objects: new Set<string>(),
      count: 0,
      message: ev.message,
      match: t,
      missing: 0,
      ...(w && !known ? { inferred: true } : {}),
    };
    if (!g.objects.has(`${ev.kind}/${ev.name}`)) g.missing += missing ?? 0;
    g.objects.add(`${ev.kind}/${ev.name}`);
    g.count += ev.count;
    if (!g.last || (time(ev.lastTimestamp)?.getTime() ?? 0) > (time(g.last)?.getTime() ?? 0)) {
      Object.assign(g, { message: ev.message, match: t, ...(ev.lastTimestamp ? { last: ev.lastTimestamp } : {}) });
    }
    groups.set(id, g);
  }
  return [...groups.values()];
}

/**
 * The kubelet's probe failures of an app container that say why the probe failed in the kubelet's own words
 * (kubernetes pkg/probe/http/http.go "HTTP probe failed with statuscode: %d" and the Go client's transport error after
 * `Get "<url>": `; pkg/probe/tcp/tcp.go the dial error; pkg/probe/grpc/grpc.go "timeout: failed to connect service
 * %q within %v", "service unhealthy (responded with %q)"). An exec probe's failure quotes the command's output (text
 * the app wrote): never kept, never read (issue 31, gen12probes).
 */
export const APP_PROBE_FAILED = {
  reason: 'Unhealthy',
  message:
    /^(?:Readiness|Liveness|Startup) probe failed: (?:HTTP probe failed with statuscode: \d{3}|Get "?https?:\/\/[^\s"]{1,512}"?: [^\n]{1,300}|dial tcp [^\s]{1,300}: [^\n]{1,200}|(?:timeout: )?failed to connect service "[^"\n]{0,200}" within [0-9.]{1,12}[a-zµ]{1,2}[^\n]{0,300}|service unhealthy \(responded with "[A-Z_]{1,40}"\))$/,
} as const;
