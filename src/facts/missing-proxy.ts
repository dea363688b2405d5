/**
 * Pods a mesh should have injected and did not, split by whether they predate the marker that
 * asked for injection: shared by pod-predates-enablement and sidecar-missing, which report the
 * two halves.
 */
import { defineFactFamily } from '../k8s/fact.js';
import { fieldSetAt } from '../k8s/managed-fields.js';
import { podSpec } from '../k8s/pods.js';
import { podStates, type Model, type Workload } from './model.js';
import type { K8sObject } from '../util/types.js';
import { time } from '../util/objects.js';
import { WORKLOAD_DECISION_INPUTS, type Decision } from './decision.js';
import { markerExplains } from './marker-problems.js';
import { templateOptOut, namespaceEnabling, templateEnabling } from './markers.js';
import type { MeshName } from '../mesh/names.js';
import type { Field } from '../mesh/profile.js';
import { meshedWithoutProxy } from './siblings.js';
import { injectionSkip, type InjectionSkip } from './controlplane.js';
import { removedFromPod } from './proxy-removed.js';
import { profileOf } from '../mesh/registry.js';

interface MissingProxy {
  decision: Decision;
  /** The markers asking for injection, dated where managedFields tell. */
  markers: DatedMarker[];
  /** When injection was first asked for; undefined when unknown. */
  since?: Date;
  /** Unmeshed pods created before `since`. */
  predating: K8sObject[];
  /** Unmeshed pods created after it, or when that cannot be told. */
  unexplained: K8sObject[];
}

/**
 * Per workload, its missing proxy for each installed mesh (none for another: it has no decision).
 * Computed inside the fact, so that what it reads is declared and a check asking for it, cached
 * or not, declares it too (test/declared-inputs.test.ts); the decisions and marker problems it reads.
 */
export const MISSING_PROXY = defineFactFamily<Workload, Map<MeshName, MissingProxy | undefined>, Model>({
  id: 'missing-proxy',
  inputs: WORKLOAD_DECISION_INPUTS,
  compute: (m, w) => new Map(m.meshes.map(({ mesh }) => [mesh, computeMissingProxy(m, w, mesh)])),
});

/**
 * The active pods of a workload that a mesh should have injected and did not, split by whether
 * they predate the marker. Undefined when the model says a new pod would not be injected, or
 * injection-marker-invalid (or, through d.called, webhook-excludes-namespace) explains it.
 */
export function missingProxy(m: Model, w: Workload, mesh: MeshName): MissingProxy | undefined {
  // Three checks ask (sidecar-missing, pod-predates-enablement, injection-skipped): worked out once per workload.
  return m.fact(MISSING_PROXY, w).get(mesh);
}

function computeMissingProxy(m: Model, w: Workload, mesh: MeshName): MissingProxy | undefined {
  const decision = m.decision(w, mesh);
  if (!decision?.inject || !decision.intent) return undefined;
  if (markerExplains(m, w, mesh)) return undefined; // injection-marker-invalid reports the cause
  // A pod on the host network or opted out itself (an older template) was never to be injected.
  // A pod a sidecar-less data plane meshes (Istio's ambient mode: a namespace asking for both) is not missing a proxy: dataplane-mode-conflict reports it.
  const ns = m.namespace(w.namespace);
  const pods = podStates(w).unmeshed.filter(
    (p) =>
      podSpec(p).hostNetwork !== true &&
      !templateOptOut(m, mesh, p) &&
      !meshedWithoutProxy(p, ns) &&
      // injected, then a later admission layer removed the proxy: proxy-removed reports it
      !removedFromPod(p, mesh)?.missing.includes(profileOf(mesh).containers.proxy),
  );
  if (pods.length === 0) return undefined;
  const markers = enablingMarkers(m, mesh, m.namespace(w.namespace), w);
  const since = enabledSince(markers);
  // One pass, each pod's date parsed once and only when there is a time to compare it with.
  const predating: K8sObject[] = [];
  const unexplained: K8sObject[] = [];
  for (const p of pods) {
    const created = since ? time(p.metadata?.creationTimestamp) : undefined;
    (since && created && created < since ? predating : unexplained).push(p);
  }
  return {
    decision,
    markers,
    ...(since ? { since } : {}),
    predating,
    unexplained,
  };
}

export const podEvidence = (pods: K8sObject[]) =>
  pods.map((p) => ({ name: p.metadata?.name ?? '', creationTimestamp: p.metadata?.creationTimestamp ?? null }));

/** A marker asking a mesh for injection, with where it sits and when it was set. */
interface DatedMarker {
  /** "Namespace shop" or "Deployment shop/web pod template". */
  on: string;
  /** "annotation linkerd.io/inject=enabled". */
  text: string;
  setAt?: Date;
}

const field = (obj: { metadata?: unknown } | undefined, prefix: string[], f: Field, key: string) =>
  fieldSetAt(obj, [...prefix, 'f:metadata', `f:${f}`, `f:${key}`]);

/**
 * Every marker that on its own asks this mesh to inject the workload's pods (the namespace's, the
 * pod template's), each dated: the namespace's from the Namespace, a template's from its
 * controller (fieldsV1 under the template path), a bare pod's from the pod itself.
 */
function enablingMarkers(m: Model, mesh: MeshName, ns: K8sObject | undefined, w: Workload): DatedMarker[] {
  const out: DatedMarker[] = [];
  const n = namespaceEnabling(m, mesh, ns);
  if (n) {
    const setAt = field(ns, [], n.f, n.key);
    out.push({
      on: `Namespace ${w.namespace}`,
      text: `${n.f.slice(0, -1)} ${n.key}=${n.value}`,
      ...(setAt ? { setAt } : {}),
    });
  }
  const t = templateEnabling(mesh, w.template);
  if (t) {
    const prefix = w.templatePath
      .split('/')
      .filter(Boolean)
      .map((p) => `f:${p}`);
    const setAt = field(w.templatePath ? w.obj : w.template, prefix, t.f, t.key);
    const on = w.templatePath
      ? `${w.kind} ${w.namespace}/${w.name} pod template`
      : `${w.kind} ${w.namespace}/${w.name}`;
    out.push({ on, text: `${t.f.slice(0, -1)} ${t.key}=${t.value}`, ...(setAt ? { setAt } : {}) });
  }
  return out;
}

/**
 * When injection was first asked for: the earliest of the markers' times (a pod created after
 * any one of them would have been injected). Undefined when there is no marker or one is undated.
 */
export function enabledSince(markers: DatedMarker[]): Date | undefined {
  if (markers.length === 0 || markers.some((mk) => !mk.setAt)) return undefined;
  return new Date(Math.min(...markers.map((mk) => mk.setAt!.getTime())));
}

/**
 * Client-go's event spam filter lets one event per object through every five minutes once a burst
 * of 25 is spent (tools/record/events_cache.go at 928244b1): a skip event's last time may be that
 * much older than the last pod it stands for.
 */
const SKIP_EVENT_SLACK_MS = 5 * 60_000;

/**
 * The injector's own account of why it skipped the workload's unexplained pods (Linkerd's
 * InjectionSkipped event, src/facts/controlplane.ts injectionSkip): the event, and the pods it
 * stands for (created no later than its last time, give or take the spam filter's five minutes).
 * Undefined when the mesh records none, none was read, or it stands for none of them.
 */
export function skippedByInjector(
  m: Model,
  w: Workload,
  mesh: MeshName,
  missing: MissingProxy,
): { skip: InjectionSkip; pods: K8sObject[] } | undefined {
  const skip = injectionSkip(m, mesh, w);
  if (!skip) return undefined;
  const last = time(skip.lastTimestamp)?.getTime();
  const pods = missing.unexplained.filter((p) => {
    const created = time(p.metadata?.creationTimestamp)?.getTime();
    return last === undefined || created === undefined || created <= last + SKIP_EVENT_SLACK_MS;
  });
  return pods.length ? { skip, pods } : undefined;
}
