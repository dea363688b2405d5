/**
 * The meshes meshdoctor knows, by name. A leaf module (no imports): types, the registry and the
 * CLI's --mesh choices all read this one list. Adding a mesh: its name here, its profile in
 * src/mesh/<name>/ and one line in src/mesh/registry.ts (docs/contributing.md "Adding a mesh").
 */
export const MESH_NAMES = ['linkerd', 'istio', 'kuma', 'consul'] as const;
export type MeshName = (typeof MESH_NAMES)[number];
