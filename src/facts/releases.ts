/**
 * The releases a mesh's injectors run, as the mesh's release tables place them (issue 32.4):
 * the one place facts and checks learn what the installed release reads, injects and needs
 * (src/mesh/releases.ts releaseFacts). No version string is compared here or in any check.
 */
import type { K8sObject } from '../util/types.js';
import type { MeshName } from '../mesh/names.js';
import { profileOf } from '../mesh/registry.js';
import { releaseFacts, type ReleaseFacts } from '../mesh/releases.js';
import { injectors, type Injector } from './controlplane.js';
import type { Model } from './model.js';

/** One injector Deployment and what the tables say of its release (undefined: its version was not read). */
interface InjectorRelease {
  injector: Injector;
  facts?: ReleaseFacts;
}

/** Every injector Deployment of the mesh with its release facts. */
export function injectorReleases(m: Model, mesh: MeshName): InjectorRelease[] {
  return m.memo(`injector-releases:${mesh}`, () => {
    const p = profileOf(mesh);
    return injectors(m, mesh)
      .filter((i) => i.deployment)
      .map((injector) => {
        const read = p.versions?.controlPlane(m, injector.deployment as K8sObject);
        const facts = releaseFacts(p, read);
        return { injector, ...(facts ? { facts } : {}) };
      });
  });
}

/** The release facts of one injector Deployment (undefined: its version was not read, or the mesh has no table). */
export const releaseOfInjector = (
  m: Model,
  mesh: MeshName,
  deployment: K8sObject | undefined,
): ReleaseFacts | undefined => injectorReleases(m, mesh).find((r) => r.injector.deployment === deployment)?.facts;

/**
 * Some installed injector of the mesh still reads this marker key where today's release no
 * longer does (Kuma 1.x's annotation): a marker it reads is no mistake.
 */
export function someReleaseReads(m: Model, mesh: MeshName, key: { field: string; key: string; on: string }): boolean {
  return injectorReleases(m, mesh).some((r) =>
    r.facts?.reads.some((x) => x.field === key.field && x.key === key.key && x.on === key.on),
  );
}
