/**
 * One mesh per workload. Where advice could make two meshes inject the same pods (two proxies in
 * one pod: Linkerd and Istio both redirect the pod's traffic), the mesh is chosen from evidence,
 * in this order: --mesh; the markers the pod templates carry (a Linkerd annotation with a wrong
 * value still means Linkerd); the mesh the namespace's workloads run (their meshed pods); the
 * namespace's own markers. When none decides, the user must, and the fix says so: comment lines
 * only, each command of each choice on its own line behind `# to mesh it with <Mesh>: `, so that
 * pasting the whole block runs nothing (and never enables both) while each choice can be copied
 * from behind its prefix.
 */
import { podStates, type Model, type Workload } from './model.js';
import { choice as fixChoice, lit, text } from '../fix/steps.js';
import { plural } from '../util/objects.js';
import { namespaceMarker, templateOptOut, templateAsking, templateAsks } from './markers.js';
import { MESH_NAMES, type MeshName } from '../mesh/names.js';
import { meshList, meshTitle } from '../mesh/registry.js';
import type { Step } from '../fix/steps.js';

/**
 * The marker of this mesh a pod template (or pod) carries that asks for it, valid or not, as
 * text ("annotation linkerd.io/inject=enable"); undefined when it names this mesh nowhere, or
 * only to opt out.
 */
const templateMarkerText = (mesh: MeshName, template: { metadata?: unknown } | undefined): string | undefined =>
  templateAsking(mesh, template);

/**
 * A pod created now from this workload's template would be injected by `mesh`: the injection
 * model's verdict for a mesh the run reports on; for an installed mesh --mesh leaves out (no
 * decision is made for it), its namespace marker or the template asking for it.
 */
export function meshWouldInject(m: Model, w: Workload, mesh: MeshName): boolean {
  if (m.mesh(mesh)) return !!m.decision(w, mesh)?.inject;
  if (!m.meshInstalled(mesh)) return false;
  return (
    templateAsks(mesh, w.template) ||
    (namespaceMarker(m, mesh, m.namespace(w.namespace)).enabled && !templateOptOut(m, mesh, w.template))
  );
}

/** The meshes installed in the cluster, whatever --mesh says. */
export const installedMeshes = (m: Model): MeshName[] => MESH_NAMES.filter((x) => m.meshInstalled(x));

export interface MeshChoice {
  /** The mesh the evidence names; undefined when the user must choose. */
  mesh?: MeshName;
  /** The evidence that decided, as text. */
  by?: string;
  /** The meshes chosen from. */
  candidates: MeshName[];
}

/**
 * The one mesh advice may use for these workloads of namespace `ns` (for a namespace-wide change:
 * the workloads it is for), among `candidates` (in order, duplicates dropped).
 */
export function chooseMesh(m: Model, ns: string, ws: readonly Workload[], candidates: readonly MeshName[]): MeshChoice {
  const c = MESH_NAMES.filter((x) => candidates.includes(x));
  if (c.length <= 1) return { ...(c[0] ? { mesh: c[0] } : {}), candidates: c };
  const chosen = m.options.mesh;
  if (chosen !== 'auto' && c.includes(chosen)) return { mesh: chosen, by: `--mesh ${chosen}`, candidates: c };
  const decide = (found: Map<MeshName, string>): MeshChoice | undefined => {
    const only = found.size === 1 ? [...found][0] : undefined;
    return only && { mesh: only[0], by: only[1], candidates: c };
  };
  // The pod templates' own markers: what the workload's author asked for.
  const named = new Map<MeshName, string>();
  for (const w of ws) {
    for (const mesh of c) {
      const text = templateMarkerText(mesh, w.template);
      if (text && !named.has(mesh)) named.set(mesh, `${w.kind} ${w.namespace}/${w.name} has pod template ${text}`);
    }
  }
  const byTemplate = decide(named);
  if (byTemplate) return byTemplate;
  // The mesh the namespace's workloads run.
  const running = new Map<MeshName, number>();
  for (const x of m.appWorkloadsIn(ns))
    for (const mesh of podStates(x).meshed.keys())
      if (c.includes(mesh)) running.set(mesh, (running.get(mesh) ?? 0) + 1);
  const byPods = decide(
    new Map(
      [...running].map(([mesh, n]) => [
        mesh,
        `${plural(n, 'workload')} in namespace ${ns} ${n === 1 ? 'runs' : 'run'} the ${meshTitle(mesh)} proxy`,
      ]),
    ),
  );
  if (byPods) return byPods;
  // The namespace's own markers (valid or not).
  const nsObj = m.namespace(ns);
  const marked = new Map<MeshName, string>();
  for (const mesh of c) {
    const mk = namespaceMarker(m, mesh, nsObj);
    if (mk.present) marked.set(mesh, `namespace ${ns} has ${mk.text ?? `a ${meshTitle(mesh)} marker`}`);
  }
  return decide(marked) ?? { candidates: c };
}

/** The choice as evidence: the mesh and why, or the meshes to choose from. */
export function choiceEvidence(choice: MeshChoice): Record<string, unknown> {
  return choice.mesh
    ? { mesh: choice.mesh, ...(choice.by ? { decidedBy: choice.by } : {}) }
    : { mesh: null, chooseFrom: choice.candidates };
}

/** For a message: what the user must do when the evidence decides nothing. */
export const mustChoose = (choice: MeshChoice, what: string): string =>
  `${meshList(choice.candidates)} are ${choice.candidates.length > 2 ? 'all' : 'both'} installed and nothing shows which one ${what} should use: choose one, never ${choice.candidates.length > 2 ? 'two' : 'both'}`;

/**
 * The fix for a choice: the chosen mesh's commands; undecided, a line saying the user must
 * choose, then every command of every option as a comment behind `# to mesh it with <Mesh>: `
 * (a comment line of an option is kept without its own `# `; a command holding an operator such
 * as `>` is quoted whole, so that the comment line stays inert: shell.ts).
 */
export function choiceFix(
  choice: MeshChoice,
  options: { mesh: MeshName; fix: Step[] }[],
  what: { kind: string; namespace?: string; name: string },
): Step[] {
  if (choice.mesh) return options.find((o) => o.mesh === choice.mesh)?.fix ?? [];
  const usable = options.filter((o) => o.fix.length > 0);
  if (usable.length === 0) return [];
  const ref =
    what.kind === 'Namespace'
      ? text`namespace ${what.name}`
      : text`${what.kind} ${what.namespace ? `${what.namespace}/${what.name}` : what.name}`;
  return [
    fixChoice(
      [
        'choose one mesh for ',
        ...ref,
        ', never both, as two proxies in one pod clash: run the commands of one choice below. Pasted as it is, this block runs nothing',
      ],
      usable.map((o) => ({ label: text`to mesh it with ${lit(meshTitle(o.mesh))}`, steps: o.fix })),
    ),
  ];
}
