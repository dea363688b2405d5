/**
 * A fix is data: a list of steps. Edits name the object, the path and the values to set or remove;
 * restarts name the workloads whose pods must be re-created; commands that are not edits
 * (describe, logs, helm upgrade) are argv words; notes are prose; a choice lists alternatives, of
 * which the user runs one. One renderer (render.ts) turns them into paste-safe lines: kubectl
 * commands, or, for objects from `check -f` manifests, "change this in file X, document N". No
 * check writes a shell line itself, and every quoting rule lives in the renderer (util/shell.ts).
 *
 * Words are parts: a literal string is text of our own (a program, a flag, a path we chose), a
 * `{ value }` is text from the cluster or the user, always quoted. The tags below build them from
 * template literals, so that a step reads like the line it becomes:
 *   cmd`kubectl rollout restart ${`deployment/${name}`} -n ${ns}`
 *   comment`Job ${ns}/${name} is still running`
 */
import type { ManifestSource } from '../util/types.js';

/** Text of our own (literal), or a value from the cluster or the user (quoted when rendered). */
export type Part = string | { readonly value: string };
/** One argument of a command (its parts concatenated), or one piece of prose. */
export type Word = readonly Part[];

/** A command, or a pipeline of commands, each its argv; `into`: `> file`, a plain file name of the working directory. */
export interface Command {
  readonly kind: 'command';
  readonly pipeline: readonly (readonly Word[])[];
  readonly into?: string;
}

/** A line of prose (a comment line when rendered). */
interface Note {
  readonly kind: 'note';
  readonly text: Word;
}

/** The object an edit changes: a cluster object, or one from the `check -f` manifests. */
export interface Target {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** `check -f`: the manifest document it comes from (edited there, not in the cluster). */
  readonly manifest?: ManifestSource;
}

/** A workload whose pod template an edit changes, with what decides how (a Job running, a bare pod). */
export interface TemplateTarget extends Target {
  /** JSON path of the pod template in the object (/spec/template), '' for a bare pod or an unknown controller's pod. */
  readonly templatePath: string;
  /** A Job that has not finished: its template cannot be replaced now. */
  readonly jobRunning?: boolean;
}

export type Scalar = string | number | boolean;

/** One key of a map set to a value, or removed (no value). */
export interface Change {
  readonly key: string;
  readonly value?: Scalar;
}

/**
 * Set or remove keys of one map of an object, in order: `path` is its YAML path (metadata.labels,
 * spec.hard, spec.jobTemplate.metadata.annotations, '' for the top level) in the object, or in the
 * pod template when `template` is set.
 */
export interface Edit {
  readonly kind: 'edit';
  readonly target: Target | TemplateTarget;
  /** The path is inside the workload's pod template. */
  readonly template?: boolean;
  readonly path: string;
  readonly changes: readonly Change[];
}

/** A workload whose pods a restart re-creates, with what decides how. */
export interface RestartTarget extends Target {
  /** Its active pods, by name (an unknown controller's are deleted by name). */
  readonly activePods: readonly string[];
  readonly jobRunning?: boolean;
}

/** Re-create the pods of these workloads from their (fixed) templates. */
export interface Restart {
  readonly kind: 'restart';
  readonly workloads: readonly RestartTarget[];
}

/** Alternatives: the user runs the steps of one. Rendered as comment lines, so that pasting all of it runs nothing. */
export interface Choice {
  readonly kind: 'choice';
  /** What to choose, and why (the first comment line). */
  readonly intro: Word;
  readonly options: readonly { readonly label: Word; readonly steps: readonly Step[] }[];
}

export type Step = Command | Note | Edit | Restart | Choice;
export type Fix = readonly Step[];

/** Literal text for a tag (a flag or fragment of our own chosen at run time): spliced in as if written in the template. */
interface Lit {
  readonly lit: string;
}
export const lit = (text: string): Lit => ({ lit: text });

/** Several arguments at once (a list of pod names). */
interface Args {
  readonly args: readonly Word[];
}

type Hole = string | number | Lit | Args | readonly Part[];

const isLit = (h: Hole): h is Lit => typeof h === 'object' && h !== null && 'lit' in h;
const isArgs = (h: Hole): h is Args => typeof h === 'object' && h !== null && 'args' in h;

/**
 * The words of a template: literal text is split at spaces (`|` and `>` alone are operators), a
 * string hole is a value joined to the word it stands in, a number or lit() is literal text, args()
 * are whole words of their own, and a Part[] is spliced into the word as it is.
 */
function tokens(strings: TemplateStringsArray, holes: Hole[]): (Part[] | '|' | '>')[] {
  const out: (Part[] | '|' | '>')[] = [];
  let word: Part[] = [];
  const end = () => {
    if (word.length) out.push(word);
    word = [];
  };
  const literal = (text: string) => {
    const pieces = text.split(' ');
    pieces.forEach((p, i) => {
      if (i > 0) end();
      if (p === '|' || p === '>') {
        end();
        out.push(p);
      } else if (p) word.push(p);
    });
  };
  strings.forEach((s, i) => {
    literal(s);
    if (i >= holes.length) return;
    const h = holes[i]!;
    if (typeof h === 'string') word.push({ value: h });
    else if (typeof h === 'number') word.push(String(h));
    else if (isLit(h)) literal(h.lit);
    else if (isArgs(h)) {
      end();
      for (const w of h.args) out.push([...w]);
    } else word.push(...h);
  });
  end();
  return out;
}

/** A command (or pipeline, `a | b`, with at most one `> file` at its end) from a template. */
export function cmd(strings: TemplateStringsArray, ...holes: Hole[]): Command {
  const pipeline: Part[][][] = [[]];
  let into: string | undefined;
  const toks = tokens(strings, holes);
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t === '|') pipeline.push([]);
    else if (t === '>') {
      const file = toks[++i];
      if (!Array.isArray(file)) throw new Error('cmd: `>` without a file');
      into = file.map((p) => (typeof p === 'string' ? p : p.value)).join('');
    } else pipeline[pipeline.length - 1]!.push(t);
  }
  return { kind: 'command', pipeline, ...(into !== undefined ? { into } : {}) };
}

/** A line of prose from a template: literal text as written, string holes are values (quoted when rendered). */
export function comment(strings: TemplateStringsArray, ...holes: (string | number | Lit)[]): Note {
  return { kind: 'note', text: text(strings, ...holes) };
}

/** A line of prose from a Word built in code (a list with values in it). */
export const noteStep = (text: Word): Note => ({ kind: 'note', text });

/** Prose as a Word (for a choice's intro and labels). */
export function text(strings: TemplateStringsArray, ...holes: (string | number | Lit)[]): Word {
  const parts: Part[] = [];
  strings.forEach((s, i) => {
    if (s) parts.push(s);
    if (i >= holes.length) return;
    const h = holes[i]!;
    parts.push(typeof h === 'string' ? { value: h } : typeof h === 'number' ? String(h) : h.lit);
  });
  return parts;
}

/** A choice among alternatives (the user runs one). */
export const choice = (intro: Word, options: { label: Word; steps: readonly Step[] }[]): Choice => ({
  kind: 'choice',
  intro,
  options,
});

/** The exact text of a word: its parts concatenated (values as they are, unquoted). */
const wordText = (w: Word): string => w.map((p) => (typeof p === 'string' ? p : p.value)).join('');

/** A fix as JSON data (the report's `fixData`): commands as their exact argv, prose as plain text. */
export function fixData(fix: Fix): unknown[] {
  return fix.map((s): unknown => {
    switch (s.kind) {
      case 'command':
        return {
          kind: 'command',
          pipeline: s.pipeline.map((c) => c.map(wordText)),
          ...(s.into !== undefined ? { into: s.into } : {}),
        };
      case 'note':
        return { kind: 'note', text: wordText(s.text) };
      case 'choice':
        return {
          kind: 'choice',
          intro: wordText(s.intro),
          options: s.options.map((o) => ({ label: wordText(o.label), steps: fixData(o.steps) })),
        };
      case 'edit':
        return {
          kind: 'edit',
          target: targetData(s.target),
          ...(s.template ? { template: true } : {}),
          path: s.path,
          ...(s.changes.some((c) => c.value !== undefined)
            ? { set: Object.fromEntries(s.changes.filter((c) => c.value !== undefined).map((c) => [c.key, c.value])) }
            : {}),
          ...(s.changes.some((c) => c.value === undefined)
            ? { remove: s.changes.filter((c) => c.value === undefined).map((c) => c.key) }
            : {}),
        };
      case 'restart':
        return { kind: 'restart', workloads: s.workloads.map(targetData) };
    }
  });
}

const targetData = (t: Target) => ({
  kind: t.kind,
  ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
  name: t.name,
  ...(t.manifest ? { manifest: { ...t.manifest } } : {}),
});
