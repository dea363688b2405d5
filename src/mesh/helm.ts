/**
 * Helm upgrade lines for a control plane installed with Helm: the release name and chart version
 * are read from the installed objects (their labels or image tag) by the mesh's profile, so the
 * upgrade keeps the installed chart (`--version`) instead of moving to the newest one. When either
 * is unknown the line is a comment with placeholders: never run as it is.
 */
import { shq } from '../util/objects.js';

export interface HelmRelease {
  /** The release name (undefined: not found on the objects). */
  release?: string;
  /** The installed chart version (undefined: not found). */
  version?: string;
}

/** `helm upgrade RELEASE CHART -n NS --version V --reuse-values ARGS`, and what is unknown of it. `ns` is quoted already; `args` are literal words. */
function upgrade(r: HelmRelease, chart: string, ns: string, args: string): { line: string; missing: string } {
  const line = `helm upgrade ${r.release !== undefined ? shq(r.release) : 'RELEASE'} ${chart} -n ${ns} --version ${r.version !== undefined ? shq(r.version) : 'CHART-VERSION'} --reuse-values${args ? ` ${args}` : ''}`;
  const missing = [r.release === undefined ? 'release name' : '', r.version === undefined ? 'chart version' : ''].filter(Boolean).join(' and ');
  return { line, missing };
}

const unknown = (missing: string) => `with the ${missing} of your install, not found on the labels of the control plane`;

/**
 * The upgrade as fix lines: `# WHY` then the command; where the release or the version is unknown,
 * one comment line with placeholders instead. `why` is our own comment-safe prose (shell.ts).
 */
export function helmUpgrade(r: HelmRelease, chart: string, ns: string, args: string, why: string): string[] {
  const { line, missing } = upgrade(r, chart, ns, args);
  return missing ? [`# ${why}, ${unknown(missing)}: ${line}`] : [`# ${why}`, line];
}

/** The upgrade as one choice among install methods, a comment line: `# Helm: helm upgrade ...` (`# Helm, WHY: ...`). */
export function helmChoice(r: HelmRelease, chart: string, ns: string, args: string, why?: string): string {
  const { line, missing } = upgrade(r, chart, ns, args);
  return `# Helm${why ? `, ${why}` : ''}${missing ? `, ${unknown(missing)}` : ''}: ${line}`;
}

/** A namespace as passed quoted (shq) by a caller, back to the name among the candidates. */
export const unquoteNamespace = (ns: string, candidates: readonly string[]): string =>
  candidates.find((x) => shq(x) === ns || x === ns) ?? ns.replace(/^'|'$/g, '');
