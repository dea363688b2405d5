/**
 * The team's configuration (`.meshdoctor.yaml` in the working directory, or `--config FILE`) and
 * `--baseline FILE` (an earlier `check -o json` report): what a CI gate accepts without writing
 * annotations into other teams' objects (docs/cli.md "Configuration file", docs/ci.md).
 *
 * - `suppressions`: `check` (id, code or `*`), `resource` (`Kind/namespace/name` or `Kind/name`, as
 *   --suppress), `reason` and `owner` (both required), `expires` (YYYY-MM-DD, required: the end of
 *   that day, UTC). An expired suppression stops suppressing and is reported as expired.
 * - `severity`: check id or code -> error | warning | info (the findings' severity in every format).
 * - `exclude.namespaces` (globs) and `exclude.meshes`: findings there are reported as suppressed
 *   with the configuration as reason, never dropped silently.
 * - The baseline's findings, by identity (check id + resource kind, namespace, name; never the
 *   message), are suppressed as known: the exit code is decided by new findings only.
 *
 * A bad file is one line, exit 2 (a usage error). Nothing here reads the cluster.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CHECKS } from '../checks/index.js';
import { unknownCheck } from '../checks/lookup.js';
import { MESH_NAMES, type MeshName } from '../mesh/names.js';
import { UserError, errorMessage } from '../util/errors.js';
import { decodeText, readFileBounded } from '../util/io.js';
import { isObj } from '../util/objects.js';
import { SEVERITIES, type Severity } from '../util/types.js';
import { flagMatch, parseSuppressions, type SuppressRule } from './suppress.js';
import type { Finding } from './result.js';

/** The file read from the working directory when --config is not given. */
const CONFIG_FILE = '.meshdoctor.yaml';
/** The most bytes of a configuration file or baseline report read. */
const MAX_CONFIG_BYTES = 1 << 20;
const MAX_BASELINE_BYTES = 256 << 20;
/** The most suppressions, excludes and baseline findings kept (bounded, as every read). */
const MAX_ENTRIES = 10_000;
const MAX_BASELINE = 1_000_000;

interface ConfigSuppression {
  check: string;
  resource: string;
  reason: string;
  owner: string;
  /** YYYY-MM-DD as written; expired after the end of that day (UTC). */
  expires: string;
}

/** The configuration as a run uses it (resolved check ids; the clock applied to expiries). */
export interface RunConfig {
  /** The file it came from, as given (or `.meshdoctor.yaml`). */
  file?: string;
  /** Severity by check id. */
  severity: Record<string, Severity>;
  /** Why a finding is set aside (suppressed, excluded, in the baseline), if it is. */
  reasonFor(f: Finding): string | undefined;
  /** Suppressions past their expiry: not applied; reported. */
  expired: ConfigSuppression[];
  /** Suppressions that are active. */
  active: ConfigSuppression[];
  /** --baseline: the file and how many findings it holds. */
  baseline?: { file: string; findings: number };
}

const fail = (file: string, what: string): never => {
  throw new UserError(`invalid ${file}: ${what}`);
};

const ID_BY_NAME = new Map(CHECKS.flatMap((c) => [[c.id, c.id] as const, [c.code.toLowerCase(), c.id] as const]));
const checkId = (file: string, where: string, v: string): string =>
  ID_BY_NAME.get(v.toLowerCase()) ?? fail(file, `${where}: ${unknownCheck(v)} (see: meshdoctor checks)`);

const glob = (s: string) =>
  new RegExp(
    `^${s
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

function stringList(file: string, where: string, v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === ''))
    fail(file, `${where} must be a list of non-empty strings`);
  if ((v as string[]).length > MAX_ENTRIES) fail(file, `${where}: more than ${MAX_ENTRIES} entries`);
  return v as string[];
}

/** YYYY-MM-DD (a YAML date is read as this text, never as a Date). */
function expiryEnd(file: string, where: string, v: unknown): number {
  const m = typeof v === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(v) : null;
  const end = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1) : NaN;
  if (!m || Number.isNaN(end) || new Date(end - 1).toISOString().slice(0, 10) !== v)
    fail(file, `${where}: expires must be a date YYYY-MM-DD`);
  return end;
}

/** Parse the configuration text; `now` decides which suppressions have expired (tests inject it). */
export function parseConfig(text: string, file: string, now: Date): Omit<RunConfig, 'baseline'> {
  const YAML = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  let doc: unknown;
  try {
    // Dates stay text (core schema), one document, no aliases expanded past a bound.
    doc = YAML.parse(text, { schema: 'core', maxAliasCount: 100, uniqueKeys: true });
  } catch (e) {
    fail(file, `not YAML: ${errorMessage(e).split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isObj(doc)) fail(file, 'expected a mapping with suppressions, severity, exclude');
  const top = doc as Record<string, unknown>;
  for (const k of Object.keys(top))
    if (!['suppressions', 'severity', 'exclude'].includes(k))
      fail(file, `unknown key "${k}" (known: suppressions, severity, exclude)`);

  const severity: Record<string, Severity> = {};
  if (top.severity !== undefined && top.severity !== null) {
    if (!isObj(top.severity)) fail(file, 'severity must map check ids to error, warning or info');
    for (const [k, v] of Object.entries(top.severity as Record<string, unknown>)) {
      if (typeof v !== 'string' || !SEVERITIES.includes(v as Severity))
        fail(file, `severity.${k}: expected error, warning or info`);
      severity[checkId(file, `severity.${k}`, k)] = v as Severity;
    }
  }

  const rawSup = top.suppressions ?? [];
  if (!Array.isArray(rawSup)) fail(file, 'suppressions must be a list');
  if ((rawSup as unknown[]).length > MAX_ENTRIES) fail(file, `suppressions: more than ${MAX_ENTRIES} entries`);
  const active: (ConfigSuppression & { rule: SuppressRule })[] = [];
  const expired: ConfigSuppression[] = [];
  (rawSup as unknown[]).forEach((s, i) => {
    const where = `suppressions[${i}]`;
    if (!isObj(s)) fail(file, `${where} must be a mapping`);
    const e = s as Record<string, unknown>;
    for (const k of Object.keys(e))
      if (!['check', 'resource', 'reason', 'owner', 'expires'].includes(k))
        fail(file, `${where}: unknown key "${k}" (known: check, resource, reason, owner, expires)`);
    for (const k of ['check', 'resource', 'reason', 'owner'])
      if (typeof e[k] !== 'string' || (e[k] as string).trim() === '') fail(file, `${where}: ${k} is required`);
    const entry: ConfigSuppression = {
      check: e.check as string,
      resource: e.resource as string,
      reason: (e.reason as string).trim(),
      owner: (e.owner as string).trim(),
      expires: String(e.expires ?? ''),
    };
    const end = expiryEnd(file, where, e.expires);
    let rule: SuppressRule;
    try {
      [rule] = parseSuppressions([`${entry.check}=${entry.resource}`]) as [SuppressRule];
    } catch (err) {
      return fail(file, `${where}: ${errorMessage(err).replace(/^invalid --suppress "[^"]*": /, '')}`);
    }
    if (now.getTime() >= end) expired.push(entry);
    else active.push({ ...entry, rule });
  });

  const ex = top.exclude ?? {};
  if (!isObj(ex)) fail(file, 'exclude must be a mapping with namespaces and meshes');
  const exo = ex as Record<string, unknown>;
  for (const k of Object.keys(exo))
    if (!['namespaces', 'meshes'].includes(k)) fail(file, `exclude: unknown key "${k}" (known: namespaces, meshes)`);
  const namespaces = stringList(file, 'exclude.namespaces', exo.namespaces).map((n) => ({ n, re: glob(n) }));
  const meshes = stringList(file, 'exclude.meshes', exo.meshes);
  for (const m of meshes)
    if (!MESH_NAMES.includes(m as MeshName))
      fail(file, `exclude.meshes: unknown mesh "${m}" (known: ${MESH_NAMES.join(', ')})`);

  const nsOf = (f: Finding) => f.resource.namespace ?? (f.resource.kind === 'Namespace' ? f.resource.name : undefined);
  return {
    file,
    severity,
    active: active.map(({ rule: _rule, ...rest }) => rest),
    expired,
    reasonFor(f) {
      const s = active.find((x) => flagMatch(f, x.rule));
      if (s) return `config ${file}: ${s.reason} (owner ${s.owner}, expires ${s.expires})`;
      const ns = nsOf(f);
      const n = ns !== undefined ? namespaces.find((x) => x.re.test(ns)) : undefined;
      if (n) return `config ${file}: namespace ${ns} excluded (exclude.namespaces ${n.n})`;
      if (f.mesh && meshes.includes(f.mesh)) return `config ${file}: mesh ${f.mesh} excluded (exclude.meshes)`;
      return undefined;
    },
  };
}

/** A finding's identity across runs: its check and its object, never its message or severity. */
export const findingIdentity = (f: Pick<Finding, 'id' | 'resource'>): string =>
  JSON.stringify([f.id, f.resource.kind, f.resource.namespace ?? null, f.resource.name]);

/** The identities of an earlier `check -o json` report's findings (and those it suppressed). */
function parseBaseline(text: string, file: string): Set<string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    fail(file, 'not a meshdoctor JSON report (check -o json): not JSON');
  }
  const findings = isObj(doc) ? doc.findings : undefined;
  if (!Array.isArray(findings)) fail(file, 'not a meshdoctor JSON report (check -o json): no findings list');
  const suppressed = isObj(doc) && Array.isArray(doc.suppressed) ? (doc.suppressed as unknown[]) : [];
  const all = [...(findings as unknown[]), ...suppressed];
  if (all.length > MAX_BASELINE) fail(file, `more than ${MAX_BASELINE} findings`);
  const ids = new Set<string>();
  for (const f of all) {
    const r = isObj(f) ? f.resource : undefined;
    if (!isObj(f) || typeof f.id !== 'string' || !isObj(r) || typeof r.kind !== 'string' || typeof r.name !== 'string')
      fail(file, 'not a meshdoctor JSON report (check -o json): a finding without id and resource');
    const ff = f as Record<string, any>;
    ids.add(
      findingIdentity({
        id: ff.id,
        resource: {
          kind: ff.resource.kind,
          name: ff.resource.name,
          ...(typeof ff.resource.namespace === 'string' ? { namespace: ff.resource.namespace } : {}),
        },
      }),
    );
  }
  return ids;
}

/**
 * The run's configuration: `--config FILE`, else `.meshdoctor.yaml` in `cwd` when there is one;
 * plus `--baseline FILE`. Undefined when there is neither.
 */
export function loadRunConfig(opts: {
  config?: string;
  baseline?: string;
  cwd: string;
  now: Date;
}): RunConfig | undefined {
  const found = opts.config ?? (existsSync(resolve(opts.cwd, CONFIG_FILE)) ? CONFIG_FILE : undefined);
  const read = (path: string, max: number, what: string) =>
    decodeText(readFileBounded(resolve(opts.cwd, path), max, what));
  const cfg = found ? parseConfig(read(found, MAX_CONFIG_BYTES, 'configuration file'), found, opts.now) : undefined;
  if (!cfg && opts.baseline === undefined) return undefined;
  const base = cfg ?? { severity: {}, active: [], expired: [], reasonFor: () => undefined };
  if (opts.baseline === undefined) return base;
  const file = opts.baseline;
  const known = parseBaseline(read(file, MAX_BASELINE_BYTES, 'baseline'), file);
  return {
    ...base,
    baseline: { file, findings: known.size },
    reasonFor: (f) =>
      base.reasonFor(f) ?? (known.has(findingIdentity(f)) ? `baseline ${file}: reported before` : undefined),
  };
}
