/**
 * Helm upgrade lines for a control plane installed with Helm: the release name and chart version
 * are read from the installed objects (their labels or image tag) by the mesh's profile, so the
 * upgrade keeps the installed chart (`--version`) instead of moving to the newest one. When either
 * is unknown the line is a comment with placeholders: never run as it is.
 */
import { shq } from '../util.js';

export interface HelmRelease {
  /** The release name (undefined: not found on the objects). */
  release?: string;
  /** The installed chart version (undefined: not found). */
  version?: string;
}

/**
 * `helm upgrade RELEASE CHART -n NS --version V --reuse-values ARGS  # NOTE`; as a comment where the
 * release or the version is unknown. `ns` is quoted already; `args` are literal words.
 */
export function helmUpgrade(r: HelmRelease, chart: string, ns: string, args: string, note: string): string {
  const known = r.release !== undefined && r.version !== undefined;
  const line = `helm upgrade ${r.release !== undefined ? shq(r.release) : 'RELEASE'} ${chart} -n ${ns} --version ${r.version !== undefined ? shq(r.version) : 'CHART-VERSION'} --reuse-values${args ? ` ${args}` : ''}`;
  if (known) return `${line}  # ${note}`;
  const missing = [r.release === undefined ? 'release name' : '', r.version === undefined ? 'chart version' : ''].filter(Boolean).join(' and ');
  return `# ${note}, with the ${missing} of your install (not found on the control plane's labels): ${line}`;
}

/** A namespace as passed quoted (shq) by a caller, back to the name among the candidates. */
export const unquoteNamespace = (ns: string, candidates: readonly string[]): string =>
  candidates.find((x) => shq(x) === ns || x === ns) ?? ns.replace(/^'|'$/g, '');
