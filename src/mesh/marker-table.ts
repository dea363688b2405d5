/**
 * A mesh's injection markers as data: the keys its injector (and its webhooks' selectors) read on
 * a namespace and on a pod template, in their precedence, what each value means, and the keys
 * people write for them that nothing reads. Every question about markers (does the namespace
 * enable the mesh, does the template opt out, which marker asks) is answered here, the same way
 * for every mesh; src/facts/marker-problems.ts turns the same table into the mistakes made with
 * them (a marker in the wrong field, on the controller's own metadata, on a CronJob's
 * jobTemplate) for every mesh.
 */
import type { K8sObject } from '../util/types.js';
import { annotationOf, labelOf } from '../util/objects.js';
import { asks } from './asks.js';
import type { Field, Template } from './types.js';

/** A key a marker is written under: a label or an annotation. */
interface MarkerKey {
  readonly field: Field;
  readonly key: string;
}

/** A marker with its value. */
export interface MarkerSetting extends MarkerKey {
  readonly value: string;
}

/** What the injector makes of a marker's value: inject, do not, a value it rejects or ignores ('invalid'), or nothing (undefined). */
type Reading = boolean | 'invalid' | undefined;

/** A namespace marker: the value makes the mesh inject every pod of the namespace, or not. */
interface NamespaceKey extends MarkerKey {
  enables(value: string): boolean;
}

/** A pod template marker. */
interface TemplateKey extends MarkerKey {
  read(value: string): Reading;
  /** The value gets the pod injected on its own, whatever its namespace says (a webhook's objectSelector takes it); default: read(value) === true. */
  alone?(value: string): boolean;
}

/** A key no injector of the mesh reads where it is written, which people write for one of its markers. */
export interface StrayKey extends MarkerKey {
  readonly on: 'namespace' | 'template';
  /** The injector that read it once ("Linkerd's 2018 injector"): today's ignores it. */
  readonly legacy?: string;
  /** The release from which the mesh reads the marker only in its own field ("2.2.0"). */
  readonly since?: string;
  /** The mesh's own rules report it (its fix needs the mesh's webhooks or settings), not the generic ones. */
  readonly ownRule?: true;
}

export interface MarkerTable {
  /** The namespace markers, in the injector's precedence (the first present decides); empty for a mesh without one (Consul). */
  readonly namespace: readonly NamespaceKey[];
  /** The pod template markers, in the injector's precedence (the first present decides). */
  readonly template: readonly TemplateKey[];
  readonly strays: readonly StrayKey[];
  /** The pod template marker that asks for injection on its own: what fixes set on a template. */
  readonly ask: MarkerSetting;
  /** The pod template marker that opts out. */
  readonly optOut: MarkerSetting;
}

export interface NamespaceMarker {
  /** The namespace asks this mesh to inject every pod by default. */
  enabled: boolean;
  /** The namespace carries some marker for this mesh (valid or not, enabling or not). */
  present: boolean;
  /** The marker as written, for evidence: e.g. "annotation linkerd.io/inject=enabled". */
  text?: string;
}

/** A marker that asks for injection on its own (dated from managedFields by the caller). */
export interface Marker {
  f: Field;
  key: string;
  value: string;
}

/** "label" or "annotation". */
export const fieldWord = (f: Field): 'label' | 'annotation' => (f === 'labels' ? 'label' : 'annotation');

/** "annotation linkerd.io/inject=enabled". */
export const markerText = (k: MarkerKey, value: string): string => `${fieldWord(k.field)} ${k.key}=${value}`;

/** The value of a marker key on an object (undefined: absent). */
export const valueAt = (o: { metadata?: unknown } | undefined, k: MarkerKey): string | undefined =>
  k.field === 'labels' ? labelOf(o, k.key) : annotationOf(o, k.key);

/** The first of `keys` present on `o`, with its value. */
function first<K extends MarkerKey>(
  keys: readonly K[],
  o: { metadata?: unknown } | undefined,
): { k: K; value: string } | undefined {
  for (const k of keys) {
    const value = valueAt(o, k);
    if (value !== undefined) return { k, value };
  }
  return undefined;
}

/** The pod template's marker the injector reads (its precedence), with its value. */
export const templateMarker = (t: MarkerTable, template: Template | undefined) => first(t.template, template);

const asksAlone = (k: TemplateKey, value: string) => (k.alone ? k.alone(value) : k.read(value) === true);

/** What the namespace says to the mesh. */
export function namespaceMarker(t: MarkerTable, ns: K8sObject | undefined): NamespaceMarker {
  const hit = first(t.namespace, ns);
  if (hit) return { enabled: hit.k.enables(hit.value), present: true, text: markerText(hit.k, hit.value) };
  return { enabled: false, present: t.strays.some((s) => s.on === 'namespace' && valueAt(ns, s) !== undefined) };
}

/** The namespace's own marker enabling the mesh. */
export function namespaceEnabling(t: MarkerTable, ns: K8sObject | undefined): Marker | undefined {
  const hit = first(t.namespace, ns);
  return hit && hit.k.enables(hit.value) ? { f: hit.k.field, key: hit.k.key, value: hit.value } : undefined;
}

/** The namespace markers present (all of them, to remove: Istio's second label would select a webhook once the first is gone). */
export const namespaceMarkerKeys = (t: MarkerTable, ns: K8sObject | undefined): { field: Field; keys: string[] } => ({
  field: t.namespace[0]?.field ?? 'annotations',
  keys: t.namespace.filter((k) => valueAt(ns, k) !== undefined).map((k) => k.key),
});

/** The marker asking for the mesh on a template, valid or not, as text ("annotation linkerd.io/inject=enable"). */
export function templateAsking(t: MarkerTable, template: Template | undefined): string | undefined {
  const hit = templateMarker(t, template);
  if (hit) return asks(hit.value) && hit.value !== '' ? markerText(hit.k, hit.value) : undefined;
  for (const s of t.strays) {
    const v = s.on === 'template' ? valueAt(template, s) : undefined;
    if (asks(v) && v !== '') return markerText(s, v);
  }
  return undefined;
}

/**
 * The pod template's own marker that gets its pods injected whatever the namespace says: any key
 * whose value a webhook takes alone (Istio's istio.io/rev selects its revision's webhook whatever
 * sidecar.istio.io/inject says; the injector may still skip the pod).
 */
export function templateEnabling(t: MarkerTable, template: Template | undefined): Marker | undefined {
  for (const k of t.template) {
    const value = valueAt(template, k);
    if (value !== undefined && asksAlone(k, value)) return { f: k.field, key: k.key, value };
  }
  return undefined;
}

/** The pod template asks the mesh itself, whatever its namespace says. */
export const templateAsks = (t: MarkerTable, template: Template | undefined): boolean =>
  templateEnabling(t, template) !== undefined;

/** The pod template opts out of the mesh explicitly. */
export function templateOptOut(
  t: MarkerTable,
  template: Template | undefined,
): { key: string; value: string; from: 'label' | 'annotation' } | undefined {
  const hit = templateMarker(t, template);
  return hit && hit.k.read(hit.value) === false
    ? { key: hit.k.key, value: hit.value, from: fieldWord(hit.k.field) }
    : undefined;
}

/** The template's marker has a value the injector does not accept. */
export function templateMarkerInvalid(t: MarkerTable, template: Template | undefined): boolean {
  const hit = templateMarker(t, template);
  return !!hit && hit.k.read(hit.value) === 'invalid';
}
