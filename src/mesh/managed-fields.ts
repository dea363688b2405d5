/**
 * When was an injection marker set? Read from `metadata.managedFields`: every entry whose
 * fieldsV1 owns the field carries the time its manager last changed one of its fields. The
 * latest such time is the latest moment the marker can have been (re)set: an upper bound, since
 * a manager's time also moves when it changes another field it owns. Unknown (undefined) when the
 * object has no managedFields (kubectl dumps without --show-managed-fields) or an owning entry
 * has no time.
 */
import type { Workload } from '../model.js';
import type { K8sObject, MeshName } from '../types.js';
import { annotationsOf, arr, isObj, labelsOf, time } from '../util.js';
import { ISTIO_INJECT, ISTIO_NS_LABEL, ISTIO_REV } from './istio.js';
import { LINKERD_INJECT, isLinkerdEnabling } from './linkerd.js';

/** The latest time a manager set the field at this fieldsV1 path, e.g. ['f:metadata', 'f:labels', 'f:x']. */
export function fieldSetAt(obj: { metadata?: unknown } | undefined, path: string[]): Date | undefined {
  const entries = arr(isObj(obj?.metadata) ? (obj!.metadata as Record<string, unknown>).managedFields : undefined).filter(isObj);
  let latest: Date | undefined;
  for (const e of entries) {
    let node: unknown = e.fieldsV1;
    for (const p of path) node = isObj(node) ? node[p] : undefined;
    if (!isObj(node)) continue;
    const t = time(e.time);
    if (!t) return undefined; // an owner without a time could be the latest one
    if (!latest || t > latest) latest = t;
  }
  return latest;
}

/** A marker asking a mesh for injection, with where it sits and when it was set. */
export interface DatedMarker {
  /** "Namespace shop" or "Deployment shop/web pod template". */
  on: string;
  /** "annotation linkerd.io/inject=enabled". */
  text: string;
  setAt?: Date;
}

type Field = 'labels' | 'annotations';
const field = (obj: { metadata?: unknown } | undefined, prefix: string[], f: Field, key: string) =>
  fieldSetAt(obj, [...prefix, 'f:metadata', `f:${f}`, `f:${key}`]);

/** The namespace's own marker enabling this mesh, if any (namespaceMarker's enabled case). */
function namespaceEnabling(mesh: MeshName, ns: K8sObject | undefined): { f: Field; key: string; value: string } | undefined {
  if (mesh === 'linkerd') {
    const v = annotationsOf(ns)[LINKERD_INJECT];
    return isLinkerdEnabling(v) ? { f: 'annotations', key: LINKERD_INJECT, value: v! } : undefined;
  }
  const labels = labelsOf(ns);
  // istio-injection beats istio.io/rev; only "enabled" selects a webhook.
  if (labels[ISTIO_NS_LABEL] !== undefined) return labels[ISTIO_NS_LABEL] === 'enabled' ? { f: 'labels', key: ISTIO_NS_LABEL, value: 'enabled' } : undefined;
  return labels[ISTIO_REV] !== undefined ? { f: 'labels', key: ISTIO_REV, value: labels[ISTIO_REV] } : undefined;
}

/** The pod template's own opt-in for this mesh, if any. */
function templateEnabling(mesh: MeshName, template: { metadata?: unknown }): { f: Field; key: string; value: string } | undefined {
  if (mesh === 'linkerd') {
    const v = annotationsOf(template)[LINKERD_INJECT];
    return isLinkerdEnabling(v) ? { f: 'annotations', key: LINKERD_INJECT, value: v! } : undefined;
  }
  const labels = labelsOf(template);
  if (labels[ISTIO_INJECT] === 'true') return { f: 'labels', key: ISTIO_INJECT, value: 'true' };
  return labels[ISTIO_REV] !== undefined ? { f: 'labels', key: ISTIO_REV, value: labels[ISTIO_REV] } : undefined;
}

/**
 * Every marker that on its own asks this mesh to inject the workload's pods (the namespace's, the
 * pod template's), each dated: the namespace's from the Namespace, a template's from its
 * controller (fieldsV1 under the template path), a bare pod's from the pod itself.
 */
export function enablingMarkers(mesh: MeshName, ns: K8sObject | undefined, w: Workload): DatedMarker[] {
  const out: DatedMarker[] = [];
  const n = namespaceEnabling(mesh, ns);
  if (n) {
    const setAt = field(ns, [], n.f, n.key);
    out.push({ on: `Namespace ${w.namespace}`, text: `${n.f.slice(0, -1)} ${n.key}=${n.value}`, ...(setAt ? { setAt } : {}) });
  }
  const t = templateEnabling(mesh, w.template);
  if (t) {
    const prefix = w.templatePath.split('/').filter(Boolean).map((p) => `f:${p}`);
    const setAt = field(w.templatePath ? w.obj : w.template, prefix, t.f, t.key);
    const on = w.templatePath ? `${w.kind} ${w.namespace}/${w.name} pod template` : `${w.kind} ${w.namespace}/${w.name}`;
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
