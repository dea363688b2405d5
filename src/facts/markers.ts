/**
 * Namespace and template markers, per mesh, as its profile states them: shared by the namespace
 * and workload checks so that they agree on what "enabled" means.
 */
import type { Model } from './model.js';
import type { K8sObject } from '../util/types.js';
import type { MeshName } from '../mesh/names.js';
import type { EnableMarker, NamespaceMarker, Template } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshWebhook } from '../mesh/webhooks.js';

export type { EnableMarker, NamespaceMarker } from '../mesh/profile.js';

export const namespaceMarker = (m: Model, mesh: MeshName, ns: K8sObject | undefined): NamespaceMarker => profileOf(mesh).markers.namespaceMarker(ns, m);

/** The marker to set on a namespace for a mesh, and the command that sets it. */
export const enableMarker = (mesh: MeshName, ns: string, webhooks: MeshWebhook[]): EnableMarker | undefined =>
  profileOf(mesh).markers.enableMarker(ns, webhooks);

/** The pod template marker that opts out of this mesh. */
export const optOutMarker = (mesh: MeshName) => profileOf(mesh).markers.optOut;

/** The pod template opts out of this mesh explicitly. */
export const templateOptOut = (mesh: MeshName, template: Template) => profileOf(mesh).markers.templateOptOut(template);
