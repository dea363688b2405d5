/**
 * Fix commands: complete, namespaced, copy-pasteable kubectl commands. Every value from the
 * cluster goes through shq() (note() in a comment line) so a crafted name cannot turn a copied fix
 * into another command; a command never has a comment after it: what explains it is a comment line
 * before it (shell.ts has the whole contract).
 *
 * `check -f`: a workload (or Namespace, ResourceQuota, ServiceAccount) that comes from the
 * manifests does not exist yet, or is about to be replaced: patching the cluster object would be
 * undone by the apply, and restarting it restarts the old template. Its fix is a comment line
 * saying what to change in which file and document, with the YAML to set or remove; applying
 * creates the new pods, so no restart line follows.
 */
import type { ResourceRef } from '../util/types.js';
import { jobFinished, type Workload } from '../k8s/workloads.js';

/** Where `check -f` took an object from: the manifest document, undefined for a cluster object. */
export interface ManifestLookup {
  manifestSource(ref: ResourceRef): ManifestSource | undefined;
}
import { isActive } from '../k8s/pods.js';
import type { ManifestSource } from '../util/types.js';
import { yamlKey, yamlScalar } from '../util/shell.js';
import { fileName, isObj, nameOf, note, plural, shq } from '../util/objects.js';

const RESTARTABLE = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** The resource argument kubectl takes for a workload: deployment/name. */
export function kref(kind: string, name: string): string {
  return shq(`${kind.toLowerCase()}/${name}`);
}

// --- manifests (check -f) ------------------------------------------------------------------

/** "deploy/app.yaml, document 3"; stdin for '-'. */
const manifestPlace = (src: ManifestSource): string => `${src.file === '-' ? 'stdin' : note(src.file)}, document ${src.document}`;

/** One comment line: in FILE, document N, Kind ns/name: EDIT (EDIT is comment-safe text: cluster text in it went through note, yamlKey or yamlScalar). */
export function manifestEdit(src: ManifestSource, kind: string, namespace: string | undefined, name: string, edit: string): string {
  return `# in ${manifestPlace(src)}, ${note(kind)} ${note(namespace ? `${namespace}/${name}` : name)}: ${edit}`;
}

/** A field change inside a manifest object: set key: value under `path`, or remove path[key]. */
export interface FieldChange {
  key: string;
  /** undefined: remove the key. */
  value?: string | number | boolean;
}

/**
 * The manifest edits for changes under one YAML path (e.g. spec.template.metadata.annotations):
 * one line for one change; for several values to set, a line naming the place, then the YAML to
 * add, one `#   key: 'value'` line each.
 */
function manifestEdits(src: ManifestSource, kind: string, namespace: string | undefined, name: string, path: string, changes: FieldChange[]): string[] {
  const line = (edit: string) => manifestEdit(src, kind, namespace, name, edit);
  const sets = changes.filter((c) => c.value !== undefined);
  const removes = changes.filter((c) => c.value === undefined).map((c) => line(`${path ? `under ${path} ` : ''}remove ${yamlKey(c.key)}`));
  const at = path ? `under ${path} set` : 'set';
  if (sets.length === 0) return removes;
  if (sets.length === 1) return [line(`${at} ${yamlKey(sets[0]!.key)}: ${yamlScalar(sets[0]!.value!)}`), ...removes];
  return [line(`${at}:`), ...sets.map((c) => `#   ${yamlKey(c.key)}: ${yamlScalar(c.value!)}`), ...removes];
}

/** The YAML path of a workload's pod template in its manifest: spec.template, spec.jobTemplate.spec.template; '' for a Pod. */
const templateYaml = (w: Workload): string => w.templatePath.split('/').filter(Boolean).join('.');
const under = (base: string, rest: string): string => (base ? `${base}.${rest}` : rest);

/**
 * Changes to an object that may come from the manifests (`check -f`): the kubectl command for a
 * cluster object, or the manifest edits for one in the manifests. `path` is the YAML path of the
 * map changed (metadata.labels, spec.hard).
 */
export function objectChange(
  m: ManifestLookup,
  ref: { kind: string; namespace?: string; name: string },
  path: string,
  changes: FieldChange[],
  kubectl: () => string[],
): string[] {
  const src = m.manifestSource(ref);
  return src ? manifestEdits(src, ref.kind, ref.namespace, ref.name, path, changes) : kubectl();
}

/**
 * Labels or annotations set (value) or removed (no value) on a Namespace: `kubectl label|annotate
 * namespace NS k=v k2- [--overwrite]`, or the manifest edits where the Namespace is in the manifests.
 */
export function namespaceChange(m: ManifestLookup, ns: string, field: 'labels' | 'annotations', changes: FieldChange[]): string[] {
  // Nothing to change: no command (never `kubectl annotate namespace NS ` with no key).
  if (changes.length === 0) return [];
  const args = changes.map((c) => shq(c.value === undefined ? `${c.key}-` : `${c.key}=${c.value}`)).join(' ');
  const overwrite = changes.some((c) => c.value !== undefined) ? ' --overwrite' : '';
  return objectChange(m, { kind: 'Namespace', name: ns }, `metadata.${field}`, changes, () => [
    `kubectl ${verb(field)} namespace ${shq(ns)} ${args}${overwrite}`,
  ]);
}

// --- re-creating pods -------------------------------------------------------------------------

/**
 * How to get new pods from the (fixed) template: a rollout restart where kubectl has one; a
 * running Job or a bare Pod must be re-created; a CronJob's next run picks the template up by
 * itself, and a finished Job needs nothing (re-creating it would run its work again); pods of a
 * controller meshdoctor does not know (an Argo Rollout, a bare ReplicaSet) are deleted by name
 * for their controller to re-create. A workload from the manifests needs nothing: applying it
 * creates its pods.
 */
export function recreateCommands(w: Workload): string[] {
  if (w.manifest) return [];
  const ns = shq(w.namespace);
  if (RESTARTABLE.has(w.kind)) return [`kubectl rollout restart ${kref(w.kind, w.name)} -n ${ns}`];
  const active = w.pods.filter(isActive).map(nameOf);
  if (w.kind === 'CronJob' || active.length === 0) return [];
  if (w.kind === 'Job') return jobTemplateEdit(w, 'keep the template as it is');
  const file = fileName(w.name);
  if (w.kind === 'Pod') return [`kubectl get pod ${shq(w.name)} -n ${ns} -o yaml > ${file}`, `kubectl replace --force -f ${file}`];
  return [`# ${note(w.kind)} ${note(w.name)} re-creates these pods once they are deleted`, `kubectl delete pod -n ${ns} ${active.map(shq).join(' ')}`];
}

/**
 * A fix re-creating many workloads' pods shows at most this many lines of commands, and a rollout
 * restart names at most MAX_RESTART_REFS workloads (README "Fix lines"); past that, one comment line
 * counts the workloads left out, and the finding's evidence lists them all. A fix of 20,000 bare
 * pods would otherwise be 40,000 lines, which nobody pastes or reads.
 */
export const MAX_RECREATE_LINES = 12;
export const MAX_RESTART_REFS = 20;

/**
 * recreateCommands for several workloads, in the workloads' order, each workload once: the
 * rollout restarts of one kind in one namespace in one command naming each of them
 * (`kubectl rollout restart deployment/a deployment/b -n shop`), never the whole kind; at most
 * MAX_RECREATE_LINES lines, then a comment line counting the rest. Linear in the workloads.
 */
export const recreateAll = (ws: Workload[]): string[] => recreatePlan(ws).lines;

/**
 * The evidence a finding needs when recreateAll leaves some of its workloads out and nothing else in
 * its evidence lists them: every workload to re-create, as Kind/name.
 */
export const recreateEvidence = (ws: Workload[]): { workloadsToRecreate?: string[] } =>
  recreatePlan(ws).left ? { workloadsToRecreate: [...new Set(ws.filter((w) => !w.manifest).map((w) => `${w.kind}/${w.name}`))] } : {};

function recreatePlan(ws: Workload[]): { lines: string[]; left: number } {
  const out: string[] = [];
  const restarts = new Map<string, { at: number; refs: string[]; ns: string }>();
  const seen = new Set<string>();
  let left = 0;
  for (const w of ws) {
    if (w.manifest) continue; // applying the manifest creates its pods
    const id = `${w.kind}\u0000${w.namespace}\u0000${w.name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (RESTARTABLE.has(w.kind)) {
      const key = `${w.namespace}\u0000${w.kind}`;
      const group = restarts.get(key);
      if (group && group.refs.length < MAX_RESTART_REFS) group.refs.push(kref(w.kind, w.name));
      else if (!group && out.length < MAX_RECREATE_LINES) {
        restarts.set(key, { at: out.length, refs: [kref(w.kind, w.name)], ns: w.namespace });
        out.push(''); // the group's line, written below
      } else left++;
      continue;
    }
    const commands = recreateCommands(w);
    if (commands.length === 0) continue;
    if (out.length + commands.length > MAX_RECREATE_LINES) left++;
    else out.push(...commands);
  }
  for (const g of restarts.values()) out[g.at] = `kubectl rollout restart ${g.refs.join(' ')} -n ${shq(g.ns)}`;
  if (left)
    out.push(
      `# ${plural(left, 'more workload')} to re-create the same way, left out to keep this fix short: the evidence of this finding lists them, see -o json`,
    );
  return { lines: out, left };
}

/** JSON-pointer escaping (RFC 6901) for annotation keys in patch paths. */
export const jsonPointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** A Job not finished with pods (or a status) still active. */
function jobRunning(w: Workload): boolean {
  if (w.kind !== 'Job' || !w.obj || jobFinished(w.obj)) return false;
  const status = isObj(w.obj.status) ? w.obj.status : {};
  return w.pods.some(isActive) || (typeof status.active === 'number' && status.active > 0);
}

/**
 * A Job's pod template is immutable: it can only be re-created from its edited manifest (never while
 * it runs). `change` is comment-safe text (its cluster text quoted with note, yamlKey, yamlScalar).
 */
function jobTemplateEdit(w: Workload, change: string, where = 'spec.template.metadata'): string[] {
  const file = fileName(w.name);
  // Never re-create a Job that is still running: `kubectl replace --force` deletes it, and its pods, mid-run.
  if (jobRunning(w))
    return [
      `# Job ${note(`${w.namespace}/${w.name}`)} is still running: re-creating it now with kubectl replace --force would delete its pods mid-run. Once it has finished, or in the manifest its next run is created from: ${change} under ${where}`,
    ];
  return [
    `kubectl get job ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${file}`,
    `# edit ${file} before replacing the Job with it: ${change} under ${where}, and drop spec.selector and the controller-uid labels`,
    `kubectl replace --force -f ${file}`,
  ];
}

// --- changes to a workload's pod template ----------------------------------------------------------

/**
 * A change to the workload's pod template: the manifest edits for a workload from the manifests;
 * else a patch (rolls a Deployment, StatefulSet or DaemonSet out by itself; a CronJob's next Job
 * uses it), a Job's re-creation, the bare pod's edit, or, for a controller meshdoctor does not
 * know (no template path), `kubectl edit` of that controller.
 */
function onTemplate(
  w: Workload,
  change: string,
  manifest: { path: string; changes: FieldChange[] },
  patch: (templatePath: string) => string,
  pod: () => string[],
  where?: string,
): string[] {
  if (w.manifest) return manifestEdits(w.manifest, w.kind, w.namespace, w.name, under(templateYaml(w), manifest.path), manifest.changes);
  if (w.kind === 'Job') return jobTemplateEdit(w, change, where);
  if (w.kind === 'Pod') return pod();
  if (!w.templatePath)
    return [`# in the pod template of ${note(`${w.kind}/${w.name}`)}: ${change}`, `kubectl edit ${kref(w.kind, w.name)} -n ${shq(w.namespace)}`];
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
    `remove ${field} ${yamlKey(key)}`,
    { path: `metadata.${field}`, changes: [{ key }] },
    (path) =>
      `kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=json -p ${shq(JSON.stringify([{ op: 'remove', path: `${path}/metadata/${field}/${jsonPointer(key)}` }]))}`,
    () => [
      `# after this, re-create the pod: editing a running pod does not inject it`,
      `kubectl ${verb(field)} pod ${shq(w.name)} -n ${shq(w.namespace)} ${shq(`${key}-`)}`,
    ],
  );
}

/** Set an annotation or label on the workload's pod template. */
export function setOnTemplate(w: Workload, field: 'annotations' | 'labels', key: string, value: string): string[] {
  return onTemplate(
    w,
    `set ${field} ${yamlKey(key)}: ${yamlScalar(value)}`,
    { path: `metadata.${field}`, changes: [{ key, value }] },
    (path) => mergePatch(w, path, { metadata: { [field]: { [key]: value } } }),
    () => [
      `# after this, re-create the pod: editing a running pod does not inject it`,
      `kubectl ${verb(field)} --overwrite pod ${shq(w.name)} -n ${shq(w.namespace)} ${shq(`${key}=${value}`)}`,
    ],
  );
}

/** Set several annotations on the workload's pod template in one change (one rollout, not one per key). */
export function setAnnotationsOnTemplate(w: Workload, annotations: Record<string, string>): string[] {
  const pairs = Object.entries(annotations);
  return onTemplate(
    w,
    `set annotations ${pairs.map(([k, v]) => `${yamlKey(k)}: ${yamlScalar(v)}`).join(', ')}`,
    { path: 'metadata.annotations', changes: pairs.map(([key, value]) => ({ key, value })) },
    (path) => mergePatch(w, path, { metadata: { annotations } }),
    () => [
      `# after this, re-create the pod: editing a running pod does not inject it`,
      `kubectl annotate --overwrite pod ${shq(w.name)} -n ${shq(w.namespace)} ${pairs.map(([k, v]) => shq(`${k}=${v}`)).join(' ')}`,
    ],
  );
}

/** Set fields of the workload's pod spec, e.g. { automountServiceAccountToken: true }. */
export function setOnTemplateSpec(w: Workload, fields: Record<string, string | number | boolean>): string[] {
  const change = `set ${Object.entries(fields)
    .map(([k, v]) => `${yamlKey(k)}: ${yamlScalar(v)}`)
    .join(', ')}`;
  const file = fileName(w.name);
  return onTemplate(
    w,
    change,
    { path: 'spec', changes: Object.entries(fields).map(([key, value]) => ({ key, value })) },
    (path) => mergePatch(w, path, { spec: fields }),
    () => [
      `kubectl get pod ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${file}`,
      `# edit ${file} before replacing the pod with it: ${change} under spec`,
      `kubectl replace --force -f ${file}`,
    ],
    'spec.template.spec',
  );
}

/**
 * Remove an annotation from the workload object's own metadata (`metadata`) or from a CronJob's
 * Job template metadata (`spec.jobTemplate.metadata`): not the pod template.
 */
export function removeAnnotationFromObject(w: Workload, where: 'metadata' | 'spec.jobTemplate.metadata', key: string): string[] {
  if (w.manifest) return manifestEdits(w.manifest, w.kind, w.namespace, w.name, `${where}.annotations`, [{ key }]);
  if (where === 'metadata') return [`kubectl annotate ${kref(w.kind, w.name)} -n ${shq(w.namespace)} ${shq(`${key}-`)}`];
  const pointer = `/${where.split('.').join('/')}/annotations/${jsonPointer(key)}`;
  return [`kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=json -p ${shq(JSON.stringify([{ op: 'remove', path: pointer }]))}`];
}
