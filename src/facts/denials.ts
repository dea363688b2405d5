/**
 * What explains an injector's denial of a workload's pods: the finding of another check that
 * names the same cause (FindingInput.causeKey), so that webhook-denied links to
 * it (causedBy) rather than say the one cause twice. Mesh-agnostic: the profiles' decision steps
 * say which step denies (`denies`) and whether it reads the mesh's marker (`marker`).
 */
import type { Cause } from './causes.js';
import type { Model, Workload } from './model.js';
import type { ResourceRef } from '../util/types.js';
import type { MeshName } from '../mesh/names.js';
import { namespaceProblems, workloadProblems, type Problem } from './marker-problems.js';
import { profileOf } from '../mesh/registry.js';
import { badTemplateValues } from './releases.js';

/** The cause an injection-marker-invalid finding carries. */
export const markerCause = (p: Pick<Problem, 'mesh' | 'resource'>): Cause => ({
  kind: 'marker-invalid',
  mesh: p.mesh,
  resource: p.resource,
});

/** The cause a mesh-key-value-invalid finding about a value the injector refuses (or crashes on) carries. */
export const valueCause = (mesh: MeshName, ref: ResourceRef): Cause => ({ kind: 'value-invalid', mesh, resource: ref });

/** The cause a serviceaccount-missing finding about a turned-off token carries. */
export const tokenCause = (mesh: MeshName, ref: ResourceRef): Cause => ({ kind: 'token-off', mesh, resource: ref });

/**
 * The key of the finding that explains why this mesh's injector denies the workload's pods, when
 * one can: its marker problem (the workload's own, else its namespace's) where the failing step
 * reads the marker; the turned-off token where that step denies, or where the mesh denies pods
 * without a token and no step fails (the token turned off on the ServiceAccount: the link stands
 * only if serviceaccount-missing reports it, as ranking drops links to findings not reported).
 */
export function denialCause(m: Model, w: Workload, mesh: MeshName): Cause | undefined {
  const step = m.decision(w, mesh)?.injector.find((s) => !s.ok);
  if (step?.denies && step.kind === 'marker') {
    const own = workloadProblems(m, w).find((p) => p.mesh === mesh);
    const ns = namespaceProblems(m, w.namespace).find((p) => p.mesh === mesh || p.explains?.includes(mesh));
    const p = own ?? ns;
    if (p) return markerCause(p);
  }
  // A known key's value the injector refuses or crashes on (mesh-key-value-invalid), whatever step says it.
  if (badTemplateValues(m, w, mesh).some((b) => b.onBad === 'refuse' || b.onBad === 'crash'))
    return valueCause(mesh, w.ref);
  if (step?.denies && step.kind === 'marker') return undefined;
  if (step ? step.denies && step.kind === 'token' : profileOf(mesh).injector.token?.(m)?.denies)
    return tokenCause(mesh, w.ref);
  return undefined;
}
