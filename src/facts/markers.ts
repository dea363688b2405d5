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
import { installedMarkers, INSTALLED_RELEASES } from '../mesh/releases.js';
import { defineFactFamily, inputsOf } from '../k8s/fact.js';
import type { ReleaseMarkers } from '../mesh/release-table.js';
import { shq } from '../util/objects.js';

const markersOf = (mesh: MeshName) => profileOf(mesh).markers;

/**
 * The namespace markers the installed release reads where they are not today's (Kuma 1.0 to 1.4:
 * only the annotation, src/mesh/kuma/releases.ts), as a marker table: today's strays but those the
 * release reads. Undefined: today's table holds (src/mesh/releases.ts installedMarkers).
 */
const releaseTable = (m: Model, mesh: MeshName) => m.fact(RELEASE_TABLE, mesh);

/** releaseTable, made once per mesh and model (asked for every workload by the template checks). */
const RELEASE_TABLE = defineFactFamily({
  id: 'release-marker-table',
  inputs: inputsOf(INSTALLED_RELEASES),
  compute: (m: Model, mesh: MeshName) => makeReleaseTable(m, mesh),
});

function makeReleaseTable(
  m: Model,
  mesh: MeshName,
): { t: table.MarkerTable; markers: ReleaseMarkers; release: string } | undefined {
  const r = installedMarkers(m, profileOf(mesh));
  if (!r) return undefined;
  const t = markersOf(mesh);
  const read = (s: { field: string; key: string; on: string }) =>
    (s.on === 'namespace' ? r.markers.namespace : r.markers.template).some(
      (k) => k.field === s.field && k.key === s.key,
    );
  return {
    t: {
      namespace: r.markers.namespace.map((k) => ({
        field: k.field,
        key: k.key,
        enables: (v: string) => k.enabling.includes(v),
      })),
      template: r.markers.template.map((k) => ({
        field: k.field,
        key: k.key,
        read: (v: string) => (k.inject.includes(v) ? true : k.skip.includes(v) ? false : ('invalid' as const)),
      })),
      strays: t.strays.filter((s) => !read(s)),
      ask: r.markers.ask,
      optOut: r.markers.optOut,
    },
    markers: r.markers,
    release: r.release,
  };
}

/** What the namespace says to the mesh (Consul: its injector's settings stand in for a marker), as its installed release reads it. */
export function namespaceMarker(m: Model, mesh: MeshName, ns: K8sObject | undefined): NamespaceMarker {
  const t = markersOf(mesh);
  if (t.namespaceMarker) return t.namespaceMarker(ns, m);
  return table.namespaceMarker(releaseTable(m, mesh)?.t ?? t, ns);
}

/**
 * Today's namespace markers present on the namespace that the installed release does not read
 * (a Kuma 1.0 namespace with only the label), with that release's name: undefined when none.
 */
export function namespaceMarkerUnread(
  m: Model,
  mesh: MeshName,
  ns: K8sObject | undefined,
): { marker: string; release: string } | undefined {
  const r = releaseTable(m, mesh);
  if (!r) return undefined;
  const k = markersOf(mesh).namespace.find(
    (x) => !r.t.namespace.some((y) => y.field === x.field && y.key === x.key) && table.valueAt(ns, x) !== undefined,
  );
  return k ? { marker: table.markerText(k, table.valueAt(ns, k)!), release: r.release } : undefined;
}

/** The marker to set on a namespace for a mesh, and the command that sets it (with `m`: the installed release's). */
export function enableMarker(mesh: MeshName, ns: string, webhooks: MeshWebhook[], m?: Model): EnableMarker | undefined {
  const e = m ? releaseTable(m, mesh)?.markers.enable : undefined;
  if (!e) return markersOf(mesh).enableMarker(ns, webhooks);
  return {
    ...e,
    text: table.markerText(e, e.value),
    command: `kubectl ${e.field === 'labels' ? 'label' : 'annotate'} namespace ${shq(ns)} ${shq(`${e.key}=${e.value}`)} --overwrite`,
  };
}

/** The pod template marker that opts out of this mesh. */
export const optOutMarker = (mesh: MeshName) => markersOf(mesh).optOut;

/**
 * The marker table the installed release reads: its release row's markers where they are not today's
 * (Kuma 1.0 to 1.4: the annotation only), else today's (issue 31.7: old releases are not judged by
 * today's rules).
 */
const installedTable = (m: Model, mesh: MeshName): table.MarkerTable => releaseTable(m, mesh)?.t ?? markersOf(mesh);

/** The pod template opts out of this mesh explicitly, as the installed release reads its markers. */
export const templateOptOut = (m: Model, mesh: MeshName, template: Template | undefined) =>
  table.templateOptOut(installedTable(m, mesh), template);

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

/**
 * Today's opt-out on a pod template that the installed release does not read (a Kuma 1.0 template
 * with the label: that release reads the annotation only), with the release and the opt-out it reads:
 * undefined when the installed release reads today's markers, or the template does not opt out.
 */
export function templateOptOutUnread(
  m: Model,
  mesh: MeshName,
  template: Template | undefined,
): { marker: string; release: string; reads: ReleaseMarkers['optOut'] } | undefined {
  const r = releaseTable(m, mesh);
  const today = r ? table.templateOptOut(markersOf(mesh), template) : undefined;
  if (!r || !today || table.templateOptOut(r.t, template)) return undefined;
  return { marker: `${today.from} ${today.key}=${today.value}`, release: r.release, reads: r.markers.optOut };
}

/** The namespace's own marker enabling this mesh, as the installed release reads its markers. */
export const namespaceEnabling = (m: Model, mesh: MeshName, ns: K8sObject | undefined): Marker | undefined =>
  table.namespaceEnabling(installedTable(m, mesh), ns);

/** The pod template's own marker enabling this mesh. */
export const templateEnabling = (mesh: MeshName, template: Template | undefined): Marker | undefined =>
  table.templateEnabling(markersOf(mesh), template);

/** The template marker advised to opt one workload in on its own, where the mesh advises that (Kuma, Consul). */
export const podOptIn = (mesh: MeshName) => (markersOf(mesh).advisesPodOptIn ? markersOf(mesh).ask : undefined);
