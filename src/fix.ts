/**
 * Fix commands: complete, namespaced, copy-pasteable kubectl commands. Every value from the
 * cluster goes through shq() so a crafted name cannot turn a copied fix into another command.
 */
import type { Workload } from './model.js';
import { shq } from './util.js';

const RESTARTABLE = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** The resource argument kubectl takes for a workload: deployment/name. */
export function kref(kind: string, name: string): string {
  return shq(`${kind.toLowerCase()}/${name}`);
}

/**
 * How to get new pods from the (fixed) template: a rollout restart where kubectl has one; a
 * Job or bare Pod must be re-created; a CronJob's next run picks the template up by itself.
 */
export function recreateCommands(w: Workload): string[] {
  const ns = shq(w.namespace);
  if (RESTARTABLE.has(w.kind)) return [`kubectl rollout restart ${kref(w.kind, w.name)} -n ${ns}`];
  if (w.kind === 'CronJob') return [];
  if (w.kind === 'Job' || w.kind === 'Pod') {
    return [`kubectl get ${kref(w.kind, w.name)} -n ${ns} -o yaml > ${shq(`${w.name}.yaml`)} && kubectl replace --force -f ${shq(`${w.name}.yaml`)}`];
  }
  return [`kubectl delete pod -n ${ns} -l <selector of ${shq(`${w.kind}/${w.name}`)}>  # let its controller re-create the pods`];
}

/** JSON-pointer escaping (RFC 6901) for annotation keys in patch paths. */
export const jsonPointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** A Job's pod template is immutable: it can only be re-created from its edited manifest. */
function jobTemplateEdit(w: Workload, change: string, where = 'spec.template.metadata'): string[] {
  return [`kubectl get job ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${shq(`${w.name}.yaml`)}  # ${change} under ${where}, drop spec.selector and the controller-uid labels`, `kubectl replace --force -f ${shq(`${w.name}.yaml`)}`];
}

/**
 * Remove an annotation or label from the workload's pod template. Patching the template of a
 * Deployment, StatefulSet or DaemonSet starts a rollout by itself; a CronJob's next Job uses it.
 */
export function removeFromTemplate(w: Workload, field: 'annotations' | 'labels', key: string): string[] {
  if (w.kind === 'Job') return jobTemplateEdit(w, `remove ${field} ${key}`);
  if (w.kind === 'Pod' || !w.templatePath) {
    return [`kubectl ${field === 'annotations' ? 'annotate' : 'label'} pod ${shq(w.name)} -n ${shq(w.namespace)} ${shq(`${key}-`)}  # then re-create the pod: editing a running pod does not inject it`];
  }
  const patch = JSON.stringify([{ op: 'remove', path: `${w.templatePath}/metadata/${field}/${jsonPointer(key)}` }]);
  return [`kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=json -p ${shq(patch)}`];
}

/** Set an annotation or label on the workload's pod template. */
export function setOnTemplate(w: Workload, field: 'annotations' | 'labels', key: string, value: string): string[] {
  if (w.kind === 'Job') return jobTemplateEdit(w, `set ${field} ${key}: "${value}"`);
  if (w.kind === 'Pod' || !w.templatePath) {
    return [`kubectl ${field === 'annotations' ? 'annotate' : 'label'} --overwrite pod ${shq(w.name)} -n ${shq(w.namespace)} ${shq(`${key}=${value}`)}  # then re-create the pod`];
  }
  const segments = w.templatePath.split('/').filter(Boolean);
  let patchObj: Record<string, unknown> = { metadata: { [field]: { [key]: value } } };
  for (const seg of segments.reverse()) patchObj = { [seg]: patchObj };
  return [`kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=merge -p ${shq(JSON.stringify(patchObj))}`];
}

/** A merge patch of the workload's pod template (Deployment, StatefulSet, DaemonSet, CronJob). */
function templatePatch(w: Workload, template: Record<string, unknown>): string {
  let patchObj: Record<string, unknown> = template;
  for (const seg of w.templatePath.split('/').filter(Boolean).reverse()) patchObj = { [seg]: patchObj };
  return `kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=merge -p ${shq(JSON.stringify(patchObj))}`;
}

/** Set several annotations on the workload's pod template in one change (one rollout, not one per key). */
export function setAnnotationsOnTemplate(w: Workload, annotations: Record<string, string>): string[] {
  const pairs = Object.entries(annotations);
  if (w.kind === 'Job') return jobTemplateEdit(w, `set annotations ${pairs.map(([k, v]) => `${k}: "${v}"`).join(', ')}`);
  if (w.kind === 'Pod' || !w.templatePath) {
    return [`kubectl annotate --overwrite pod ${shq(w.name)} -n ${shq(w.namespace)} ${pairs.map(([k, v]) => shq(`${k}=${v}`)).join(' ')}  # then re-create the pod`];
  }
  return [templatePatch(w, { metadata: { annotations } })];
}

/** Set fields of the workload's pod spec, e.g. { automountServiceAccountToken: true }. */
export function setOnTemplateSpec(w: Workload, fields: Record<string, string | number | boolean>): string[] {
  const change = `set ${Object.entries(fields).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')}`;
  if (w.kind === 'Job') return jobTemplateEdit(w, change, 'spec.template.spec');
  if (w.kind === 'Pod' || !w.templatePath) {
    return [`kubectl get pod ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${shq(`${w.name}.yaml`)}  # ${change} under spec`, `kubectl replace --force -f ${shq(`${w.name}.yaml`)}`];
  }
  return [templatePatch(w, { spec: fields })];
}

/** recreateCommands for several workloads, each command once, in the workloads' order. */
export function recreateAll(ws: Workload[]): string[] {
  return [...new Set(ws.flatMap(recreateCommands))];
}
