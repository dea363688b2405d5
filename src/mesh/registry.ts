/**
 * Every mesh meshdoctor knows, by name: the one place a profile is registered. The mapped type
 * makes the compiler demand a profile for each name in names.ts, under its own name.
 */
import { consul } from './consul/index.js';
import { istio } from './istio/index.js';
import { kuma } from './kuma/index.js';
import { linkerd } from './linkerd/index.js';
import { MESH_NAMES, type MeshName } from './names.js';
import type { MeshProfile } from './profile.js';

const PROFILES: { readonly [K in MeshName]: MeshProfile & { readonly name: K } } = { linkerd, istio, kuma, consul };

export const profileOf = (mesh: MeshName): MeshProfile => PROFILES[mesh];

/** The profiles in MESH_NAMES order (the order every list of meshes follows). */
export const PROFILE_LIST: readonly MeshProfile[] = MESH_NAMES.map((n) => PROFILES[n]);

/** "Linkerd". */
export const meshTitle = (mesh: MeshName): string => PROFILES[mesh].title;

/** "Linkerd and Istio" (three or more: "Linkerd, Istio and Kuma"). */
export const meshList = (meshes: readonly MeshName[]): string => {
  const t = meshes.map(meshTitle);
  return t.length > 2 ? `${t.slice(0, -1).join(', ')} and ${t[t.length - 1]}` : t.join(' and ');
};

/** The profile whose injection webhook this is (one rule for every caller). */
export function webhookMesh(hook: { name: string; configName: string; serviceName?: string }): MeshName | undefined {
  return PROFILE_LIST.find((p) => p.controlPlane.webhooks.owns(hook))?.name;
}
