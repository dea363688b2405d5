/**
 * The one renderer of fixes (steps.ts): complete, namespaced, copy-pasteable kubectl lines, each
 * one safe to paste in sh, bash and zsh (util/shell.ts has the contract: values quoted, prose in
 * comment lines of their own). An edit of an object from the `check -f` manifests becomes comment
 * lines saying what to change in which file and document, with the YAML to set or remove: patching
 * the cluster object would be undone by the apply, and applying creates the new pods, so no
 * restart follows.
 */
import { isComment, note, shown, shq, yamlKey, yamlScalar } from '../util/shell.js';
import { plural } from '../util/objects.js';
import { KINDS, POD_TEMPLATE_PATH, type KindKey } from '../k8s/kinds.js';
import type { ManifestSource } from '../util/types.js';
import type {
  Change,
  Choice,
  Command,
  Edit,
  Fix,
  Part,
  RestartTarget,
  Scalar,
  Step,
  Target,
  TemplateTarget,
  Word,
} from './steps.js';

/** The lines of a fix, in order. */
export function render(fix: Fix): string[] {
  return fix.flatMap(renderStep);
}

function renderStep(s: Step): string[] {
  switch (s.kind) {
    case 'command':
      return [commandLine(s)];
    case 'note':
      return [`# ${prose(s.text)}`];
    case 'edit':
      return renderEdit(s);
    case 'restart':
      return restartPlan(s.workloads).lines;
    case 'choice':
      return renderChoice(s);
  }
}

/** A word of a command: our own text as it is, values quoted. */
const word = (w: Word): string => w.map((p) => (typeof p === 'string' ? p : shq(p.value))).join('');
/** Prose for a comment line: our own text as it is, values made printable and quoted. */
const prose = (w: Word): string => w.map((p: Part) => (typeof p === 'string' ? p : note(p.value))).join('');

export const commandLine = (c: Command): string =>
  c.pipeline.map((argv) => argv.map(word).join(' ')).join(' | ') + (c.into !== undefined ? ` > ${c.into}` : '');

/**
 * A choice: its intro, then every line of every option behind `# LABEL: ` (a comment line of an
 * option without its own `# `, a command holding an operator such as `|` quoted whole), so that
 * pasting the whole block runs nothing while each choice can be copied from behind its label.
 */
function renderChoice(c: Choice): string[] {
  const options = c.options
    .map((o) => ({ label: prose(o.label), lines: render(o.steps) }))
    .filter((o) => o.lines.length > 0);
  if (options.length === 0) return [];
  // An option without a label (the only alternative to the lines above it) shows its lines as they are, commented.
  return [
    ...(c.intro.length ? [`# ${prose(c.intro)}`] : []),
    ...options.flatMap((o) =>
      o.lines.map((l) => `# ${o.label ? `${o.label}: ` : ''}${isComment(l) ? l.slice(2) : shown(l)}`),
    ),
  ];
}

// --- the resource argument and file names ------------------------------------------------------

/** The resource argument kubectl takes for an object: deployment/name, quoted as one value. */
const kref = (kind: string, name: string): string => shq(`${kind.toLowerCase()}/${name}`);

/** A file name for a fix's `> file`: the object's name with anything but [A-Za-z0-9._-] replaced, never a path. */
const fileName = (name: string, ext = '.yaml'): string =>
  shq(`${name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.-]/, '_')}${ext}`);

/** JSON-pointer escaping (RFC 6901) for annotation keys in patch paths. */
export const jsonPointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

const ns = (t: Target) => shq(t.namespace ?? '');

// --- manifests (check -f) ----------------------------------------------------------------------

/** "deploy/app.yaml, document 3"; stdin for '-'. */
const manifestPlace = (src: ManifestSource): string =>
  `${src.file === '-' ? 'stdin' : note(src.file)}, document ${src.document}`;

/** One comment line: in FILE, document N, Kind ns/name: EDIT (EDIT is comment-safe text). */
function manifestEdit(src: ManifestSource, t: Target, edit: string): string {
  return `# in ${manifestPlace(src)}, ${note(t.kind)} ${note(t.namespace ? `${t.namespace}/${t.name}` : t.name)}: ${edit}`;
}

/**
 * The manifest edits for changes under one YAML path (spec.template.metadata.annotations): one
 * line for one change; for several values to set, a line naming the place, then the YAML to add,
 * one `#   key: 'value'` line each.
 */
function manifestEdits(src: ManifestSource, t: Target, path: string, changes: readonly Change[]): string[] {
  const line = (edit: string) => manifestEdit(src, t, edit);
  const sets = changes.filter((c) => c.value !== undefined).map((c) => [c.key, c.value!] as const);
  const removes = changes
    .filter((c) => c.value === undefined)
    .map((c) => line(`${path ? `under ${path} ` : ''}remove ${yamlKey(c.key)}`));
  const at = path ? `under ${path} set` : 'set';
  if (sets.length === 0) return removes;
  if (sets.length === 1) return [line(`${at} ${yamlKey(sets[0]![0])}: ${yamlScalar(sets[0]![1])}`), ...removes];
  return [line(`${at}:`), ...sets.map(([k, v]) => `#   ${yamlKey(k)}: ${yamlScalar(v)}`), ...removes];
}

/** The YAML path of a pod template in its manifest: spec.template, spec.jobTemplate.spec.template; '' for a Pod. */
const templateYaml = (templatePath: string): string => templatePath.split('/').filter(Boolean).join('.');
const under = (base: string, rest: string): string => (base ? `${base}.${rest}` : rest);

// --- edits -------------------------------------------------------------------------------------

const verb = (field: string) => (field === 'annotations' ? 'annotate' : 'label');
const fieldOf = (path: string) => path.split('.').pop() ?? '';

function renderEdit(e: Edit): string[] {
  if (e.target.manifest) {
    const path = e.template ? under(templateYaml((e.target as TemplateTarget).templatePath), e.path) : e.path;
    return manifestEdits(e.target.manifest, e.target, path, e.changes);
  }
  const set: Record<string, Scalar> = Object.fromEntries(
    e.changes.filter((c) => c.value !== undefined).map((c) => [c.key, c.value!]),
  );
  const remove = e.changes.filter((c) => c.value === undefined).map((c) => c.key);
  return e.template
    ? templateEdit(e.target as TemplateTarget, e.path, set, remove)
    : objectEdit(e.target, e.path, e.changes, set, remove);
}

/** A merge patch nesting `value` under the segments of `path` (a JSON path /a/b or a YAML path a.b). */
function nest(path: string, value: unknown): Record<string, unknown> {
  let out = value as Record<string, unknown>;
  for (const seg of path.split(/[/.]/).filter(Boolean).reverse()) out = { [seg]: out };
  return out;
}

/** A change to an object itself: label or annotate a Namespace; annotate a workload; a JSON patch for a nested map; else a merge patch. */
function objectEdit(
  t: Target,
  path: string,
  changes: readonly Change[],
  set: Record<string, Scalar>,
  remove: readonly string[],
): string[] {
  const where = t.namespace !== undefined ? ` -n ${ns(t)}` : '';
  if (t.kind === 'Namespace' && (path === 'metadata.labels' || path === 'metadata.annotations')) {
    // Nothing to change: no command (never `kubectl annotate namespace NS ` with no key).
    if (changes.length === 0) return [];
    const args = changes.map((c) => shq(c.value === undefined ? `${c.key}-` : `${c.key}=${c.value}`)).join(' ');
    const overwrite = changes.some((c) => c.value !== undefined) ? ' --overwrite' : '';
    return [`kubectl ${verb(fieldOf(path))} namespace ${shq(t.name)} ${args}${overwrite}`];
  }
  const out: string[] = [];
  if (Object.keys(set).length)
    out.push(
      `kubectl patch ${shq(t.kind.toLowerCase())} ${shq(t.name)}${where} --type=merge -p ${shq(JSON.stringify(nest(path, { ...set })))}`,
    );
  for (const key of remove) {
    if (path === 'metadata.annotations' || path === 'metadata.labels')
      out.push(`kubectl ${verb(fieldOf(path))} ${kref(t.kind, t.name)}${where} ${shq(`${key}-`)}`);
    else {
      const pointer = `/${path.split('.').join('/')}/${jsonPointer(key)}`;
      out.push(
        `kubectl patch ${kref(t.kind, t.name)}${where} --type=json -p ${shq(JSON.stringify([{ op: 'remove', path: pointer }]))}`,
      );
    }
  }
  return out;
}

/** What an edit of a pod template does, as comment-safe text: "set annotations k: 'v'", "remove labels k". */
function changeText(path: string, set: Record<string, Scalar>, remove: readonly string[]): string {
  const field = path === 'spec' ? '' : `${fieldOf(path)} `;
  const sets = Object.entries(set).map(([k, v]) => `${yamlKey(k)}: ${yamlScalar(v)}`);
  return [
    ...(sets.length ? [`set ${field}${sets.join(', ')}`] : []),
    ...remove.map((k) => `remove ${field}${yamlKey(k)}`),
  ].join(', ');
}

/**
 * A change to a workload's pod template: a patch (rolls a Deployment, StatefulSet or DaemonSet out
 * by itself; a CronJob's next Job uses it), a Job's re-creation, the bare pod's edit, or, for a
 * controller meshdoctor does not know (no template path), `kubectl edit` of that controller.
 */
function templateEdit(
  t: TemplateTarget,
  path: string,
  set: Record<string, Scalar>,
  remove: readonly string[],
): string[] {
  const change = changeText(path, set, remove);
  if (t.kind === 'Job')
    return jobTemplateEdit(t, change, path === 'spec' ? 'spec.template.spec' : 'spec.template.metadata');
  if (t.kind === 'Pod') {
    if (path === 'spec') {
      const file = fileName(t.name);
      return [
        `kubectl get pod ${shq(t.name)} -n ${ns(t)} -o yaml > ${file}`,
        `# edit ${file} before replacing the pod with it: ${change} under spec`,
        `kubectl replace --force -f ${file}`,
      ];
    }
    const field = fieldOf(path);
    const sets = Object.entries(set);
    return [
      '# after this, re-create the pod: editing a running pod does not inject it',
      ...(sets.length
        ? [
            `kubectl ${verb(field)} --overwrite pod ${shq(t.name)} -n ${ns(t)} ${sets.map(([k, v]) => shq(`${k}=${v}`)).join(' ')}`,
          ]
        : []),
      ...(remove.length
        ? [`kubectl ${verb(field)} pod ${shq(t.name)} -n ${ns(t)} ${remove.map((k) => shq(`${k}-`)).join(' ')}`]
        : []),
    ];
  }
  // No template path: the object was not read, or its kind is none meshdoctor knows (a Workflow, a TaskRun, an
  // operator's resource), whose pod template, if it has one, is where only its own schema says.
  if (!t.templatePath)
    return TEMPLATE_KINDS.has(t.kind)
      ? [
          `# in the pod template of ${note(`${t.kind}/${t.name}`)}: ${change}`,
          `kubectl edit ${kref(t.kind, t.name)} -n ${ns(t)}`,
        ]
      : [
          `# ${note(`${t.kind}/${t.name}`)} is a kind meshdoctor does not read, so where it keeps the pod template of its pods is not known: there, ${change}`,
          `kubectl edit ${kref(t.kind, t.name)} -n ${ns(t)}`,
        ];
  const out: string[] = [];
  if (Object.keys(set).length)
    out.push(
      `kubectl patch ${kref(t.kind, t.name)} -n ${ns(t)} --type=merge -p ${shq(JSON.stringify(nest(t.templatePath, nest(path, { ...set }))))}`,
    );
  for (const key of remove) {
    const pointer = `${t.templatePath}/${path.split('.').join('/')}/${jsonPointer(key)}`;
    out.push(
      `kubectl patch ${kref(t.kind, t.name)} -n ${ns(t)} --type=json -p ${shq(JSON.stringify([{ op: 'remove', path: pointer }]))}`,
    );
  }
  return out;
}

/**
 * A Job's pod template is immutable: it can only be re-created from its edited manifest, never
 * while it runs (`kubectl replace --force` deletes it, and its pods, mid-run). `change` is
 * comment-safe text.
 */
function jobTemplateEdit(
  t: Target & { jobRunning?: boolean },
  change: string,
  where = 'spec.template.metadata',
): string[] {
  const file = fileName(t.name);
  if (t.jobRunning)
    return [
      `# Job ${note(`${t.namespace}/${t.name}`)} is still running: re-creating it now with kubectl replace --force would delete its pods mid-run. Once it has finished, or in the manifest its next run is created from: ${change} under ${where}`,
    ];
  return [
    `kubectl get job ${shq(t.name)} -n ${ns(t)} -o yaml > ${file}`,
    `# edit ${file} before replacing the Job with it: ${change} under ${where}, and drop spec.selector and the controller-uid labels`,
    `kubectl replace --force -f ${file}`,
  ];
}

// --- re-creating pods ---------------------------------------------------------------------------

const RESTARTABLE = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** The kinds whose pod template meshdoctor reads (src/k8s/kinds.ts POD_TEMPLATE_PATH), by kind name. */
const TEMPLATE_KINDS: ReadonlySet<string> = new Set(
  (Object.keys(POD_TEMPLATE_PATH) as KindKey[]).map((k) => KINDS[k].kind),
);

/**
 * A fix re-creating many workloads' pods shows at most this many lines of commands, and a rollout
 * restart names at most MAX_RESTART_REFS workloads (docs/cli.md "Fix lines"); past that, one comment line
 * counts the workloads left out, and the finding's evidence lists them all. A fix of 20,000 bare
 * pods would otherwise be 40,000 lines, which nobody pastes or reads.
 */
export const MAX_RECREATE_LINES = 12;
export const MAX_RESTART_REFS = 20;

/**
 * How to get new pods from one workload's (fixed) template: a rollout restart where kubectl has
 * one; a running Job or a bare Pod must be re-created; a CronJob's next run picks the template up
 * by itself, and a finished Job needs nothing (re-creating it would run its work again); pods of a
 * controller meshdoctor does not know (an Argo Rollout, a bare ReplicaSet) are deleted by name for
 * their controller to re-create. A workload from the manifests needs nothing: applying it creates
 * its pods.
 */
function recreateLines(t: RestartTarget): string[] {
  if (t.manifest) return [];
  if (RESTARTABLE.has(t.kind)) return [`kubectl rollout restart ${kref(t.kind, t.name)} -n ${ns(t)}`];
  if (t.kind === 'CronJob' || t.activePods.length === 0) return [];
  if (t.kind === 'Job') return jobTemplateEdit(t, 'keep the template as it is');
  const file = fileName(t.name);
  if (t.kind === 'Pod')
    return [`kubectl get pod ${shq(t.name)} -n ${ns(t)} -o yaml > ${file}`, `kubectl replace --force -f ${file}`];
  // A kind meshdoctor does not read (an Argo Rollout, a Workflow, an operator's resource): whether it re-creates a
  // deleted pod is its own (a Rollout does, a finished Workflow step does not), said as such.
  return [
    `# ${note(t.kind)} ${note(t.name)} is a kind meshdoctor does not read: if it re-creates its pods once they are deleted, this gives new ones`,
    `kubectl delete pod -n ${ns(t)} ${t.activePods.map(shq).join(' ')}`,
  ];
}

/**
 * The lines re-creating several workloads' pods, in their order, each workload once: the rollout
 * restarts of one kind in one namespace in one command naming each of them (`kubectl rollout
 * restart deployment/a deployment/b -n shop`), never the whole kind; at most MAX_RECREATE_LINES
 * lines, then a comment line counting the rest. Linear in the workloads.
 */
export function restartPlan(ws: readonly RestartTarget[]): { lines: string[]; left: number } {
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
        restarts.set(key, { at: out.length, refs: [kref(w.kind, w.name)], ns: w.namespace ?? '' });
        out.push(''); // the group's line, written below
      } else left++;
      continue;
    }
    const commands = recreateLines(w);
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
