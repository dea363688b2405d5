/**
 * Fix commands: complete, namespaced, copy-pasteable kubectl commands. Every value from the
 * cluster goes through shq() so a crafted name cannot turn a copied fix into another command.
 */
import type { Workload } from './model.js';
import { isActive } from './mesh/pods.js';
import { fileName, nameOf, note, shq } from './util.js';

const RESTARTABLE = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** The resource argument kubectl takes for a workload: deployment/name. */
export function kref(kind: string, name: string): string {
  return shq(`${kind.toLowerCase()}/${name}`);
}

/**
 * How to get new pods from the (fixed) template: a rollout restart where kubectl has one; a
 * running Job or a bare Pod must be re-created; a CronJob's next run picks the template up by
 * itself, and a finished Job needs nothing (re-creating it would run its work again); pods of a
 * controller meshdoctor does not know (an Argo Rollout, a bare ReplicaSet) are deleted by name
 * for their controller to re-create.
 */
export function recreateCommands(w: Workload): string[] {
  const ns = shq(w.namespace);
  if (RESTARTABLE.has(w.kind)) return [`kubectl rollout restart ${kref(w.kind, w.name)} -n ${ns}`];
  const active = w.pods.filter(isActive).map(nameOf);
  if (w.kind === 'CronJob' || active.length === 0) return [];
  if (w.kind === 'Job') return jobTemplateEdit(w, 'keep the template as it is');
  const file = fileName(w.name);
  if (w.kind === 'Pod') return [`kubectl get pod ${shq(w.name)} -n ${ns} -o yaml > ${file}`, `kubectl replace --force -f ${file}`];
  return [`kubectl delete pod -n ${ns} ${active.map(shq).join(' ')}  # ${note(w.kind)} ${note(w.name)} re-creates them`];
}

/** JSON-pointer escaping (RFC 6901) for annotation keys in patch paths. */
export const jsonPointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** A Job's pod template is immutable: it can only be re-created from its edited manifest. */
function jobTemplateEdit(w: Workload, change: string, where = 'spec.template.metadata'): string[] {
  const file = fileName(w.name);
  return [
    `kubectl get job ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${file}  # ${note(change)} under ${where}; drop spec.selector and the controller-uid labels`,
    `kubectl replace --force -f ${file}`,
  ];
}

/**
 * A change to the workload's pod template: a patch (rolls a Deployment, StatefulSet or DaemonSet
 * out by itself; a CronJob's next Job uses it), a Job's re-creation, the bare pod's edit, or, for
 * a controller meshdoctor does not know (no template path), `kubectl edit` of that controller.
 */
function onTemplate(w: Workload, change: string, patch: (templatePath: string) => string, pod: () => string[], where?: string): string[] {
  if (w.kind === 'Job') return jobTemplateEdit(w, change, where);
  if (w.kind === 'Pod') return pod();
  if (!w.templatePath) return [`kubectl edit ${kref(w.kind, w.name)} -n ${shq(w.namespace)}  # ${note(change)} in its pod template`];
  return [patch(w.templatePath)];
}

/** A merge patch of the pod template at `templatePath` (e.g. /spec/jobTemplate/spec/template). */
function mergePatch(w: Workload, templatePath: string, template: Record<string, unknown>): string {
  let patchObj: Record<string, unknown> = template;
  for (const seg of templatePath.split('/').filter(Boolean).reverse()) patchObj = { [seg]: patchObj };
  return `kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=merge -p ${shq(JSON.stringify(patchObj))}`;
}

const verb = (field: 'annotations' | 'labels') => (field === 'annotations' ? 'annotate' : 'label');

/** Remove an annotation or label from the workload's pod template. */
export function removeFromTemplate(w: Workload, field: 'annotations' | 'labels', key: string): string[] {
  return onTemplate(
    w,
    `remove ${field} ${key}`,
    (path) => `kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=json -p ${shq(JSON.stringify([{ op: 'remove', path: `${path}/metadata/${field}/${jsonPointer(key)}` }]))}`,
    () => [`kubectl ${verb(field)} pod ${shq(w.name)} -n ${shq(w.namespace)} ${shq(`${key}-`)}  # then re-create the pod: editing a running pod does not inject it`],
  );
}

/** Set an annotation or label on the workload's pod template. */
export function setOnTemplate(w: Workload, field: 'annotations' | 'labels', key: string, value: string): string[] {
  return onTemplate(
    w,
    `set ${field} ${key}: "${value}"`,
    (path) => mergePatch(w, path, { metadata: { [field]: { [key]: value } } }),
    () => [`kubectl ${verb(field)} --overwrite pod ${shq(w.name)} -n ${shq(w.namespace)} ${shq(`${key}=${value}`)}  # then re-create the pod`],
  );
}

/** Set several annotations on the workload's pod template in one change (one rollout, not one per key). */
export function setAnnotationsOnTemplate(w: Workload, annotations: Record<string, string>): string[] {
  const pairs = Object.entries(annotations);
  return onTemplate(
    w,
    `set annotations ${pairs.map(([k, v]) => `${k}: "${v}"`).join(', ')}`,
    (path) => mergePatch(w, path, { metadata: { annotations } }),
    () => [`kubectl annotate --overwrite pod ${shq(w.name)} -n ${shq(w.namespace)} ${pairs.map(([k, v]) => shq(`${k}=${v}`)).join(' ')}  # then re-create the pod`],
  );
}

/** Set fields of the workload's pod spec, e.g. { automountServiceAccountToken: true }. */
export function setOnTemplateSpec(w: Workload, fields: Record<string, string | number | boolean>): string[] {
  const change = `set ${Object.entries(fields).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')}`;
  const file = fileName(w.name);
  return onTemplate(
    w,
    change,
    (path) => mergePatch(w, path, { spec: fields }),
    () => [`kubectl get pod ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${file}  # ${note(change)} under spec`, `kubectl replace --force -f ${file}`],
    'spec.template.spec',
  );
}

/** recreateCommands for several workloads, each command once, in the workloads' order. */
export function recreateAll(ws: Workload[]): string[] {
  return [...new Set(ws.flatMap(recreateCommands))];
}
