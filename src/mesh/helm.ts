/**
 * Helm upgrade steps for a control plane installed with Helm: the release name and chart version
 * are read from the installed objects (their labels or image tag) by the mesh's profile, so the
 * upgrade keeps the installed chart (`--version`) instead of moving to the newest one. When either
 * is unknown the command is shown in a comment with placeholders: never run as it is.
 */
import { commandLine } from '../fix/render.js';
import { cmd, noteStep, type Command, type Step, type Part, type Word } from '../fix/steps.js';

export interface HelmRelease {
  /** The release name (undefined: not found on the objects). */
  release?: string;
  /** The installed chart version (undefined: not found). */
  version?: string;
}

/** `helm upgrade RELEASE CHART -n NS --version V --reuse-values --set k=v ...`, and what is unknown of it. */
function upgrade(
  r: HelmRelease,
  chart: string,
  ns: string,
  set: readonly (readonly [string, string])[],
): { command: Command; missing: string } {
  const release: Part = r.release !== undefined ? { value: r.release } : 'RELEASE';
  const version: Part = r.version !== undefined ? { value: r.version } : 'CHART-VERSION';
  const base = cmd`helm upgrade ${[release]} ${chart} -n ${ns} --version ${[version]} --reuse-values`;
  const sets = set.map(([k, v]) => [['--set'], [`${k}=`, { value: v }]] as const).flat();
  const command: Command = { ...base, pipeline: [[...base.pipeline[0]!, ...sets]] };
  const missing = [r.release === undefined ? 'release name' : '', r.version === undefined ? 'chart version' : '']
    .filter(Boolean)
    .join(' and ');
  return { command, missing };
}

const unknown = (missing: string) =>
  `with the ${missing} of your install, not found on the labels of the control plane`;

/**
 * A command as prose, for a comment line that shows it with placeholders to fill in: its words, or,
 * for a pipeline or a redirection, the whole line as one value (quoted whole, so the comment line
 * stays inert: util/shell.ts).
 */
export function commandText(c: Command): Word {
  if (c.pipeline.length > 1 || c.into !== undefined) return [{ value: commandLine(c) }];
  const out: Part[] = [];
  c.pipeline.forEach((argv, i) => {
    if (i > 0) out.push(' | ');
    argv.forEach((w, j) => {
      if (j > 0) out.push(' ');
      out.push(...w);
    });
  });
  if (c.into !== undefined) out.push(` > ${c.into}`);
  return out;
}

/**
 * The upgrade as fix steps: a note saying why, then the command; where the release or the version
 * is unknown, one comment line with placeholders instead. `why` is our own prose.
 */
export function helmUpgrade(
  r: HelmRelease,
  chart: string,
  ns: string,
  set: readonly (readonly [string, string])[],
  why: Word,
): Step[] {
  const { command, missing } = upgrade(r, chart, ns, set);
  return missing ? [noteStep([...why, `, ${unknown(missing)}: `, ...commandText(command)])] : [noteStep(why), command];
}

/** The upgrade as one option among install methods: `Helm` (`Helm, WHY`), with the command, or a comment with placeholders. */
export function helmOption(
  r: HelmRelease,
  chart: string,
  ns: string,
  set: readonly (readonly [string, string])[],
  why?: string,
): { label: Word; steps: Step[] } {
  const { command, missing } = upgrade(r, chart, ns, set);
  return {
    label: [['Helm', ...(why ? [why] : []), ...(missing ? [unknown(missing)] : [])].join(', ')],
    steps: [command],
  };
}
