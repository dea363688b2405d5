/**
 * The fix steps a workload or a namespace most often needs: change its pod template or its
 * markers, re-create its pods. Each builder returns data (steps.ts); the renderer (render.ts)
 * decides how it is done for that object: a patch, a Job's re-creation, a bare pod's edit, or,
 * for an object from the `check -f` manifests, the edit of that file.
 */
import { isActive } from '../k8s/pods.js';
import { jobFinished, type Workload } from '../k8s/workloads.js';
import { isObj, nameOf } from '../util/objects.js';
import type { ManifestSource, ResourceRef } from '../util/types.js';
import { restartPlan } from './render.js';
import type { Change, Edit, Restart, RestartTarget, Scalar, Step, TemplateTarget } from './steps.js';

export { jsonPointer, MAX_RECREATE_LINES, MAX_RESTART_REFS } from './render.js';

/** Where `check -f` took an object from: the manifest document, undefined for a cluster object. */
interface ManifestLookup {
  manifestSource(ref: ResourceRef): ManifestSource | undefined;
}

/** A field change inside an object's map: set key: value, or remove the key (no value). */
type FieldChange = Change;

/** A Job not finished with pods (or a status) still active. */
function jobRunning(w: Workload): boolean {
  if (w.kind !== 'Job' || !w.obj || jobFinished(w.obj)) return false;
  const status = isObj(w.obj.status) ? w.obj.status : {};
  return w.pods.some(isActive) || (typeof status.active === 'number' && status.active > 0);
}

/** The workload as the target of a pod template edit. */
const templateTarget = (w: Workload): TemplateTarget => ({
  kind: w.kind,
  namespace: w.namespace,
  name: w.name,
  ...(w.manifest ? { manifest: w.manifest } : {}),
  templatePath: w.templatePath,
  ...(jobRunning(w) ? { jobRunning: true } : {}),
});

/** The workload as the target of a restart. */
const restartTarget = (w: Workload): RestartTarget => ({
  kind: w.kind,
  namespace: w.namespace,
  name: w.name,
  ...(w.manifest ? { manifest: w.manifest } : {}),
  activePods: w.pods.filter(isActive).map(nameOf),
  ...(jobRunning(w) ? { jobRunning: true } : {}),
});

/** Changes to a map of an object that may come from the manifests (`check -f`): `path` is the YAML path of the map (metadata.labels, spec.hard). */
export function objectChange(
  m: ManifestLookup,
  ref: { kind: string; namespace?: string; name: string },
  path: string,
  changes: FieldChange[],
): Step[] {
  const manifest = m.manifestSource(ref);
  const target = {
    kind: ref.kind,
    ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
    name: ref.name,
    ...(manifest ? { manifest } : {}),
  };
  return [{ kind: 'edit', target, path, changes }];
}

/** Labels or annotations set (value) or removed (no value) on a Namespace; nothing for no change. */
export function namespaceChange(
  m: ManifestLookup,
  ns: string,
  field: 'labels' | 'annotations',
  changes: FieldChange[],
): Step[] {
  return changes.length === 0 ? [] : objectChange(m, { kind: 'Namespace', name: ns }, `metadata.${field}`, changes);
}

/** Re-create the pods of one workload from its (fixed) template (render.ts says how, per kind). */
export const recreateCommands = (w: Workload): Step[] => recreateAll([w]);

/** Re-create the pods of several workloads: one step (the renderer groups the rollout restarts and caps the lines). */
export function recreateAll(ws: Workload[]): Step[] {
  const workloads = ws.filter((w) => !w.manifest).map(restartTarget);
  return workloads.length ? [{ kind: 'restart', workloads } satisfies Restart] : [];
}

/**
 * The evidence a finding needs when its restart leaves some of its workloads out and nothing else in
 * its evidence lists them: every workload to re-create, as Kind/name.
 */
export const recreateEvidence = (ws: Workload[]): { workloadsToRecreate?: string[] } =>
  restartPlan(ws.map(restartTarget)).left
    ? { workloadsToRecreate: [...new Set(ws.filter((w) => !w.manifest).map((w) => `${w.kind}/${w.name}`))] }
    : {};

const onTemplate = (w: Workload, path: string, changes: Change[]): Step[] => [
  { kind: 'edit', target: templateTarget(w), template: true, path, changes } satisfies Edit,
];

/** Remove an annotation or label from the workload's pod template. */
export const removeFromTemplate = (w: Workload, field: 'annotations' | 'labels', key: string): Step[] =>
  onTemplate(w, `metadata.${field}`, [{ key }]);

/** Set an annotation or label on the workload's pod template. */
export const setOnTemplate = (w: Workload, field: 'annotations' | 'labels', key: string, value: string): Step[] =>
  onTemplate(w, `metadata.${field}`, [{ key, value }]);

/** Set several annotations on the workload's pod template in one change (one rollout, not one per key). */
export const setAnnotationsOnTemplate = (w: Workload, annotations: Record<string, string>): Step[] =>
  onTemplate(
    w,
    'metadata.annotations',
    Object.entries(annotations).map(([key, value]) => ({ key, value })),
  );

/** Set fields of the workload's pod spec, e.g. { automountServiceAccountToken: true }. */
export const setOnTemplateSpec = (w: Workload, fields: Record<string, Scalar>): Step[] =>
  onTemplate(
    w,
    'spec',
    Object.entries(fields).map(([key, value]) => ({ key, value })),
  );

/**
 * Remove a label or annotation from the workload object's own metadata (`metadata`) or from a CronJob's
 * Job template metadata (`spec.jobTemplate.metadata`): not the pod template.
 */
export function removeFromObject(
  w: Workload,
  where: 'metadata' | 'spec.jobTemplate.metadata',
  field: 'annotations' | 'labels',
  key: string,
): Step[] {
  const target = {
    kind: w.kind,
    namespace: w.namespace,
    name: w.name,
    ...(w.manifest ? { manifest: w.manifest } : {}),
  };
  return [{ kind: 'edit', target, path: `${where}.${field}`, changes: [{ key }] }];
}
