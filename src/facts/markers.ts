/**
 * Namespace and template markers, per mesh, read from its marker table (src/mesh/marker-table.ts):
 * shared by the namespace and workload checks so that they agree on what "enabled" means.
 */
import type { Model } from './model.js';
import type { K8sObject } from '../util/types.js';
import type { MeshName } from '../mesh/names.js';
import type { EnableMarker, Template } from '../mesh/profile.js';
import * as table from '../mesh/marker-table.js';
import type { Marker, NamespaceMarker } from '../mesh/marker-table.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshWebhook } from '../mesh/webhooks.js';

const markersOf = (mesh: MeshName) => profileOf(mesh).markers;

/** What the namespace says to the mesh (Consul: its injector's settings stand in for a marker). */
export function namespaceMarker(m: Model, mesh: MeshName, ns: K8sObject | undefined): NamespaceMarker {
  const t = markersOf(mesh);
  return t.namespaceMarker ? t.namespaceMarker(ns, m) : table.namespaceMarker(t, ns);
}

/** The marker to set on a namespace for a mesh, and the command that sets it. */
export const enableMarker = (mesh: MeshName, ns: string, webhooks: MeshWebhook[]): EnableMarker | undefined =>
  markersOf(mesh).enableMarker(ns, webhooks);

/** The pod template marker that opts out of this mesh. */
export const optOutMarker = (mesh: MeshName) => markersOf(mesh).optOut;

/** The pod template opts out of this mesh explicitly. */
export const templateOptOut = (mesh: MeshName, template: Template | undefined) =>
  table.templateOptOut(markersOf(mesh), template);

/** The pod template asks this mesh itself, whatever its namespace says. */
export const templateAsks = (mesh: MeshName, template: Template | undefined): boolean =>
  table.templateAsks(markersOf(mesh), template);

/** The marker asking for this mesh on a template, valid or not, as text. */
export const templateAsking = (mesh: MeshName, template: Template | undefined): string | undefined =>
  table.templateAsking(markersOf(mesh), template);

/** The template's marker for this mesh has a value its injector does not accept. */
export const templateMarkerInvalid = (mesh: MeshName, template: Template | undefined): boolean =>
  table.templateMarkerInvalid(markersOf(mesh), template);

/** The namespace markers of this mesh present on it (all of them, to remove). */
export const namespaceMarkerKeys = (mesh: MeshName, ns: K8sObject | undefined) =>
  table.namespaceMarkerKeys(markersOf(mesh), ns);

/** The namespace's own marker enabling this mesh. */
export const namespaceEnabling = (mesh: MeshName, ns: K8sObject | undefined): Marker | undefined =>
  table.namespaceEnabling(markersOf(mesh), ns);

/** The pod template's own marker enabling this mesh. */
export const templateEnabling = (mesh: MeshName, template: Template | undefined): Marker | undefined =>
  table.templateEnabling(markersOf(mesh), template);

/** The template marker advised to opt one workload in on its own, where the mesh advises that (Kuma, Consul). */
export const podOptIn = (mesh: MeshName) => (markersOf(mesh).advisesPodOptIn ? markersOf(mesh).ask : undefined);
