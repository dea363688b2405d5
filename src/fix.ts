/**
 * Fix commands: complete, namespaced, copy-pasteable kubectl commands. Every value from the
 * cluster goes through shq() so a crafted name cannot turn a copied fix into another command.
 *
 * `check -f`: a workload (or Namespace, ResourceQuota, ServiceAccount) that comes from the
 * manifests does not exist yet, or is about to be replaced: patching the cluster object would be
 * undone by the apply, and restarting it restarts the old template. Its fix is a comment line
 * saying what to change in which file and document, with the YAML to set or remove; applying
 * creates the new pods, so no restart line follows.
 */
import { jobFinished, type Model, type Workload } from './model.js';
import { isActive } from './k8s/pods.js';
import type { ManifestSource } from './types.js';
import { fileName, isObj, nameOf, note, shq } from './util.js';

const RESTARTABLE = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** The resource argument kubectl takes for a workload: deployment/name. */
export function kref(kind: string, name: string): string {
  return shq(`${kind.toLowerCase()}/${name}`);
}

// --- manifests (check -f) ------------------------------------------------------------------

/** A YAML mapping key as written in a manifest: plain when it can be, else double-quoted. */
const yamlKey = (k: string): string => note(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(k) ? k : JSON.stringify(k));
/** A YAML value as written in a manifest: a double-quoted string (annotation and label values are strings), or a scalar. */
const yamlValue = (v: string | number | boolean): string => note(JSON.stringify(v));

/** "deploy/app.yaml (document 3)"; stdin for '-'. */
const manifestPlace = (src: ManifestSource): string => `${src.file === '-' ? 'stdin' : note(src.file)} (document ${src.document})`;

/** One comment line: in FILE (document N), Kind ns/name: EDIT. */
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
 * add, one `#   key: "value"` line each.
 */
function manifestEdits(src: ManifestSource, kind: string, namespace: string | undefined, name: string, path: string, changes: FieldChange[]): string[] {
  const line = (edit: string) => manifestEdit(src, kind, namespace, name, edit);
  const sets = changes.filter((c) => c.value !== undefined);
  const removes = changes.filter((c) => c.value === undefined).map((c) => line(`remove ${path ? `${path}[${note(JSON.stringify(c.key))}]` : yamlKey(c.key)}`));
  const at = path ? `under ${path} set` : 'set';
  if (sets.length === 0) return removes;
  if (sets.length === 1) return [line(`${at} ${yamlKey(sets[0]!.key)}: ${yamlValue(sets[0]!.value!)}`), ...removes];
  return [line(`${at}:`), ...sets.map((c) => `#   ${yamlKey(c.key)}: ${yamlValue(c.value!)}`), ...removes];
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
  m: Model,
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
export function namespaceChange(m: Model, ns: string, field: 'labels' | 'annotations', changes: FieldChange[]): string[] {
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
  return [`kubectl delete pod -n ${ns} ${active.map(shq).join(' ')}  # ${note(w.kind)} ${note(w.name)} re-creates them`];
}

/**
 * recreateCommands for several workloads, in the workloads' order, each command once: the
 * rollout restarts of one kind in one namespace in one command naming each of them
 * (`kubectl rollout restart deployment/a deployment/b -n shop`), never the whole kind.
 */
export function recreateAll(ws: Workload[]): string[] {
  const out: string[] = [];
  const restarts = new Map<string, { at: number; refs: string[]; ns: string }>();
  for (const w of ws) {
    if (w.manifest) continue; // applying the manifest creates its pods
    if (RESTARTABLE.has(w.kind)) {
      const key = `${w.namespace}\u0000${w.kind}`;
      const group = restarts.get(key);
      const ref = kref(w.kind, w.name);
      if (!group) {
        restarts.set(key, { at: out.length, refs: [ref], ns: w.namespace });
        out.push(''); // the group's line, written below
      } else if (!group.refs.includes(ref)) group.refs.push(ref);
      continue;
    }
    for (const c of recreateCommands(w)) if (!out.includes(c)) out.push(c);
  }
  for (const g of restarts.values()) out[g.at] = `kubectl rollout restart ${g.refs.join(' ')} -n ${shq(g.ns)}`;
  return out;
}

/** JSON-pointer escaping (RFC 6901) for annotation keys in patch paths. */
export const jsonPointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** A Job not finished with pods (or a status) still active. */
function jobRunning(w: Workload): boolean {
  if (w.kind !== 'Job' || !w.obj || jobFinished(w.obj)) return false;
  const status = isObj(w.obj.status) ? w.obj.status : {};
  return w.pods.some(isActive) || (typeof status.active === 'number' && status.active > 0);
}

/** A Job's pod template is immutable: it can only be re-created from its edited manifest (never while it runs). */
function jobTemplateEdit(w: Workload, change: string, where = 'spec.template.metadata'): string[] {
  const file = fileName(w.name);
  // Never re-create a Job that is still running: `kubectl replace --force` deletes it, and its pods, mid-run.
  if (jobRunning(w))
    return [
      `# Job ${note(w.namespace)}/${note(w.name)} is still running: re-creating it now (kubectl replace --force) would delete its pods mid-run; once it has finished, or in the manifest its next run is created from: ${note(change)} under ${where}`,
    ];
  return [
    `kubectl get job ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${file}  # ${note(change)} under ${where}; drop spec.selector and the controller-uid labels`,
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
    { path: `metadata.${field}`, changes: [{ key }] },
    (path) =>
      `kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=json -p ${shq(JSON.stringify([{ op: 'remove', path: `${path}/metadata/${field}/${jsonPointer(key)}` }]))}`,
    () => [
      `kubectl ${verb(field)} pod ${shq(w.name)} -n ${shq(w.namespace)} ${shq(`${key}-`)}  # then re-create the pod: editing a running pod does not inject it`,
    ],
  );
}

/** Set an annotation or label on the workload's pod template. */
export function setOnTemplate(w: Workload, field: 'annotations' | 'labels', key: string, value: string): string[] {
  return onTemplate(
    w,
    `set ${field} ${key}: "${value}"`,
    { path: `metadata.${field}`, changes: [{ key, value }] },
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
    { path: 'metadata.annotations', changes: pairs.map(([key, value]) => ({ key, value })) },
    (path) => mergePatch(w, path, { metadata: { annotations } }),
    () => [
      `kubectl annotate --overwrite pod ${shq(w.name)} -n ${shq(w.namespace)} ${pairs.map(([k, v]) => shq(`${k}=${v}`)).join(' ')}  # then re-create the pod`,
    ],
  );
}

/** Set fields of the workload's pod spec, e.g. { automountServiceAccountToken: true }. */
export function setOnTemplateSpec(w: Workload, fields: Record<string, string | number | boolean>): string[] {
  const change = `set ${Object.entries(fields)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ')}`;
  const file = fileName(w.name);
  return onTemplate(
    w,
    change,
    { path: 'spec', changes: Object.entries(fields).map(([key, value]) => ({ key, value })) },
    (path) => mergePatch(w, path, { spec: fields }),
    () => [`kubectl get pod ${shq(w.name)} -n ${shq(w.namespace)} -o yaml > ${file}  # ${note(change)} under spec`, `kubectl replace --force -f ${file}`],
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
