/**
 * Every flag of every command, once: its name, help, parser, default and the commands that take
 * it (with what differs for one of them). The commands add their flags from this table in its
 * order (help and completion list them so), and each command's options type is derived from it.
 * Loaded by `--help` and `--version`: commander and small helpers only.
 */
import { Option, InvalidArgumentError, type Command } from 'commander';
import { MESH_NAMES, type MeshName } from '../mesh/names.js';
import { kubectlTimeoutMs } from '../util/duration.js';
import { UserError } from '../util/errors.js';
import { DEFAULT_LIMITS, type Limits } from '../util/limits.js';
import { FAIL_ON, type FailOn } from './exit.js';

/** The commands that take flags from this table. */
type CommandName = 'check' | 'snapshot' | 'explain' | 'checks' | 'watch';

function positiveNumber(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
    if (n > max) throw new InvalidArgumentError(`${name} must be at most ${max}`);
    return n;
  };
}
/**
 * A duration as kubectl takes --request-timeout (src/util/duration.ts): `30s`, `2m`, `1h30m`, or a
 * bare number of seconds; in seconds. `zero`: 0 is allowed (kubectl's "no timeout").
 */
function duration(name: string, zero: boolean) {
  return (v: string) => {
    const ms = kubectlTimeoutMs(v.trim());
    if (ms === undefined)
      throw new InvalidArgumentError(`${name} takes a duration such as 30s, 2m or 1h30m (a bare number is seconds)`);
    if (ms < 0) throw new InvalidArgumentError(`${name} cannot be negative`);
    if (ms === 0 && !zero) throw new InvalidArgumentError(`${name} must be more than 0`);
    if (ms > 86_400_000) throw new InvalidArgumentError(`${name} must be at most 24h`);
    return ms / 1000;
  };
}
/** A boolean flag's optional value, as kubectl's (pflag's strconv.ParseBool) take `--flag=true`. */
function boolean(name: string) {
  return (v: string): boolean => {
    if (['true', 't', '1', 'TRUE', 'True', 'T'].includes(v)) return true;
    if (['false', 'f', '0', 'FALSE', 'False', 'F'].includes(v)) return false;
    throw new InvalidArgumentError(`${name} takes true or false`);
  };
}
const list = (v: string, prev: string[] = []) =>
  prev.concat(
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
const collect = (v: string, prev: string[] = []) => prev.concat(v);

/** What may differ for one command: the help, the choices, the default. */
interface Variant {
  help?: string;
  /** The values accepted; 'reporters': the output formats of src/report/index.ts (REPORTERS), see reporterChoices. */
  choices?: readonly string[] | 'reporters';
  default?: unknown;
}

interface Flag<T> extends Variant {
  /** commander's flags: `-n, --namespace <ns>`; the option's name is commander's attribute name (the table's key). */
  flags: string;
  help: string;
  parse?: (value: string, previous: T | undefined) => T;
  default?: T;
  /** The commands taking it: `true`, or what differs for that command. */
  commands: Partial<Record<CommandName, true | Variant>>;
}

/** Each flag's value once parsed, by commander's attribute name. */
interface FlagValues {
  output: string;
  outputFile: string;
  suppress: string[];
  mesh: 'auto' | MeshName;
  failOn: FailOn;
  only: string[];
  skip: string[];
  certExpiryWarning: number;
  allowPartial: boolean;
  strict: boolean;
  filename: string[];
  recursive: boolean;
  expectMeshed: boolean;
  color: boolean;
  namespace: string;
  allNamespaces: boolean;
  selector: string;
  fieldSelector: string;
  context: string;
  allContexts: boolean;
  contexts: string[];
  maxParallelContexts: number;
  outputDir: string;
  kubeconfig: string;
  as: string;
  asGroup: string[];
  asUid: string;
  requestTimeout: number;
  timeout: number;
  maxBytes: number;
  maxObjects: number;
  snapshot: string[];
  listen: string;
  acceptHosts: string;
  findingsEndpoint: boolean;
  maxSeries: number;
  secrets: boolean;
  config: string;
  baseline: string;
}

export const FLAGS = {
  output: {
    flags: '-o, --output <format>',
    help: 'output format',
    commands: {
      check: {
        help: 'output format (table: compact; wide: with evidence, every fix line and causes)',
        choices: 'reporters',
      },
      explain: { choices: ['table', 'json', 'yaml'] },
      checks: { choices: ['table', 'json', 'yaml'], default: 'table' },
    },
  },
  outputFile: {
    flags: '--output-file <file>',
    help: 'write the report to this file (format: -o, default json); stdout gets the table on a terminal, else nothing',
    commands: { check: true },
  },
  suppress: {
    flags: '--suppress <ID=Kind/ns/name>',
    help: 'suppress matching findings (reported as suppressed, not counted for the exit code; * wildcards; cluster-scoped: ID=Kind/name; repeatable)',
    parse: collect,
    commands: { check: true, watch: { help: 'suppress matching findings (as check does; repeatable)' } },
  },
  mesh: {
    flags: '--mesh <mesh>',
    help: 'which mesh to check',
    choices: ['auto', ...MESH_NAMES],
    default: 'auto',
    commands: { check: true, explain: { help: 'which mesh to explain' }, watch: true },
  },
  config: {
    flags: '--config <file>',
    help: 'the configuration file (default: .meshdoctor.yaml in the working directory, when there is one): suppressions with reason, owner and expiry, severity overrides, namespace and mesh excludes',
    commands: { check: true },
  },
  baseline: {
    flags: '--baseline <file>',
    help: 'an earlier check -o json report: its findings (same check and object) are suppressed as known, so only new ones decide the exit code',
    commands: { check: true },
  },
  failOn: {
    flags: '--fail-on <severity>',
    help: 'exit 1 when a finding is at or above this severity',
    choices: FAIL_ON,
    default: 'error',
    commands: { check: true },
  },
  only: {
    flags: '--only <ids>',
    help: 'run only these checks (ids or codes, comma-separated)',
    parse: list,
    commands: { check: true, watch: true },
  },
  skip: {
    flags: '--skip <ids>',
    help: 'skip these checks (ids or codes, comma-separated)',
    parse: list,
    commands: { check: true, watch: true },
  },
  certExpiryWarning: {
    flags: '--cert-expiry-warning <days>',
    help: 'warn when a certificate expires within this many days',
    parse: positiveNumber('--cert-expiry-warning'),
    default: 60,
    commands: { check: true, explain: true, watch: true },
  },
  allowPartial: {
    flags: '--allow-partial',
    help: 'exit 0 instead of 3 when some checks could not run (missing permissions) and no finding decided the exit code',
    commands: {
      check: true,
      explain: { help: 'exit 0 instead of 3 when something the explanation or the checks need could not be read' },
    },
  },
  strict: {
    flags: '--strict',
    help: 'exit 3 when some checks could not run, even when findings would exit 1',
    commands: { check: true },
  },
  filename: {
    flags: '-f, --filename <path>',
    help: 'check manifests before applying them: a file, a directory, or - for stdin (repeatable)',
    parse: collect,
    commands: { check: true },
  },
  recursive: { flags: '-R, --recursive', help: 'with -f, read directories recursively', commands: { check: true } },
  expectMeshed: {
    flags: '--expect-meshed',
    help: 'with -f, an error for each workload in the manifests that no mesh would inject',
    commands: { check: true },
  },
  color: {
    flags: '--no-color',
    help: 'disable colors (also: NO_COLOR, or stdout not a terminal)',
    commands: { check: true, explain: true },
  },
  namespace: {
    flags: '-n, --namespace <ns>',
    help: 'the namespace to check (default: the kubeconfig context namespace)',
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  allNamespaces: {
    // kubectl's boolean flags take a value after `=` (pflag): scripts write --all-namespaces=true.
    flags: '-A, --all-namespaces [bool]',
    help: 'check every namespace (also --all-namespaces=true|false, as kubectl takes it)',
    parse: boolean('--all-namespaces'),
    commands: { check: true, snapshot: true, watch: true },
  },
  selector: {
    flags: '-l, --selector <selector>',
    help: "check only the workloads whose pod labels match this label selector (kubectl's syntax: app=cart, tier in (web,api), !canary); the control plane's findings that affect them stay",
    commands: { check: true },
  },
  fieldSelector: {
    flags: '--field-selector <selector>',
    help: 'check only the workloads whose fields match: metadata.name, metadata.namespace with =, == or != (comma-separated, as kubectl)',
    commands: { check: true },
  },
  context: {
    flags: '--context <name>',
    help: 'the kubeconfig context to use',
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  allContexts: {
    flags: '--all-contexts',
    help: 'every context of the merged kubeconfig, one report per cluster (a fleet: docs/cli.md)',
    commands: { check: true, snapshot: true },
  },
  contexts: {
    flags: '--contexts <names>',
    help: 'these kubeconfig contexts, one report per cluster (comma-separated; a fleet: docs/cli.md)',
    parse: list,
    commands: { check: true, snapshot: true },
  },
  maxParallelContexts: {
    flags: '--max-parallel-contexts <n>',
    help: 'with --all-contexts or --contexts, most clusters read at once',
    parse: positiveNumber('--max-parallel-contexts', 64),
    default: 4,
    commands: { check: true, snapshot: true },
  },
  outputDir: {
    flags: '--output-dir <dir>',
    help: 'with --all-contexts or --contexts, write one snapshot per context into this directory (read back with check --snapshot DIR)',
    commands: { snapshot: true },
  },
  kubeconfig: {
    flags: '--kubeconfig <file>',
    help: 'path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)',
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  as: {
    flags: '--as <user>',
    help: 'username to impersonate for every request (kubectl --as; the kubeconfig user needs the impersonate permission)',
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  asGroup: {
    flags: '--as-group <group>',
    help: 'group to impersonate, with --as (repeatable)',
    parse: collect,
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  asUid: {
    flags: '--as-uid <uid>',
    help: 'UID to impersonate, with --as',
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  requestTimeout: {
    flags: '--request-timeout <duration>',
    help: 'timeout of each API request and of an exec credential plugin: 30s, 2m, 1h30m or seconds; 0 for none (--timeout still ends the run)',
    parse: duration('--request-timeout', true),
    default: DEFAULT_LIMITS.requestTimeoutMs / 1000,
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  timeout: {
    flags: '--timeout <duration>',
    help: 'time limit of the whole run, the read of the cluster and the checks: 5m, 90s or seconds',
    parse: duration('--timeout', false),
    default: DEFAULT_LIMITS.deadlineMs / 1000,
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  maxBytes: {
    flags: '--max-bytes <MiB>',
    help: 'largest file, stdin or API response (decompressed) meshdoctor reads',
    parse: positiveNumber('--max-bytes', 4096),
    default: DEFAULT_LIMITS.maxBytes / 1024 / 1024,
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  maxObjects: {
    flags: '--max-objects <n>',
    help: 'most objects of one kind meshdoctor reads (and of all -f manifests)',
    parse: positiveNumber('--max-objects', 100_000_000),
    default: DEFAULT_LIMITS.maxObjects,
    commands: { check: true, snapshot: true, explain: true, watch: true },
  },
  snapshot: {
    flags: '--snapshot <path>',
    help: 'run offline on a snapshot: meshdoctor snapshot, kubectl -o json|yaml output, a directory, or - for stdin (repeatable)',
    parse: collect,
    commands: { check: true, explain: true },
  },
  listen: {
    flags: '--listen <addr>',
    help: 'where to serve: HOST:PORT, or :PORT for every interface (in a pod)',
    default: '127.0.0.1:9090',
    commands: { watch: true },
  },
  acceptHosts: {
    flags: '--accept-hosts <regexes>',
    help: 'Host headers served (comma-separated regular expressions, matched without the port; the rest get 403), as kubectl proxy takes them; in a pod: --accept-hosts=.*',
    default: '^localhost$,^127\\.0\\.0\\.1$,^\\[::1\\]$',
    commands: { watch: true },
  },
  secrets: {
    flags: '--no-secrets',
    help: 'read no Secret (the default deployment grants none): the checks that need one are reported as not run, by choice',
    default: true,
    commands: { check: true, explain: true, snapshot: true, watch: true },
  },
  findingsEndpoint: {
    flags: '--no-findings-endpoint',
    help: 'serve /metrics, /healthz and /readyz only, not /findings (which names every finding and its fix)',
    default: true,
    commands: { watch: true },
  },
  maxSeries: {
    flags: '--max-series <n>',
    help: 'most series of meshdoctor_finding and of meshdoctor_workloads (the rest are counted)',
    parse: positiveNumber('--max-series', 1_000_000),
    default: 10_000,
    commands: { watch: true },
  },
} as const satisfies { [K in keyof FlagValues]: Flag<FlagValues[K]> };

type Flags = typeof FLAGS;
/** The flags command C takes. */
type TakenBy<C extends CommandName> = {
  [K in keyof Flags]: C extends keyof Flags[K]['commands'] ? K : never;
}[keyof Flags];
/** The flags with a default (always set after parsing). */
type Defaulted = { [K in keyof Flags]: Flags[K] extends { default: unknown } ? K : never }[keyof Flags];
/** The options commander hands command C's action. */
export type OptionsOf<C extends CommandName> = Partial<Pick<FlagValues, TakenBy<C>>> &
  Pick<FlagValues, TakenBy<C> & Defaulted>;

/** The options of a command that reads a cluster or a snapshot. */
type ClusterOpts = Omit<OptionsOf<'snapshot'>, 'maxParallelContexts' | 'outputDir'> & { snapshot?: string[] };

/**
 * Options whose choices are the output formats of REPORTERS, filled in by reporterChoices: the
 * reporters load chalk and every format, which `--help` and `--version` must not pay for.
 */
const REPORTER_CHOICES = new WeakSet<Option>();

/** Add command C's flags from the table, in its order. */
export function addFlags(cmd: Command, name: CommandName): Command {
  for (const flag of Object.values(FLAGS) as Flag<unknown>[]) {
    const variant = flag.commands[name];
    if (!variant) continue;
    const v: Variant = variant === true ? {} : variant;
    const option = new Option(flag.flags, v.help ?? flag.help);
    if (flag.parse) option.argParser(flag.parse);
    const def = 'default' in v ? v.default : flag.default;
    if (def !== undefined) option.default(def);
    const choices = v.choices ?? flag.choices;
    if (choices === 'reporters') REPORTER_CHOICES.add(option);
    else if (choices) option.choices(choices);
    cmd.addOption(option);
  }
  return cmd;
}

/** Set the choices of -o from the REPORTERS map (src/report/index.ts) on the options of `commands` that take them. */
export async function reporterChoices(commands: readonly Command[]): Promise<void> {
  const options = commands.flatMap((c) => c.options.filter((o) => REPORTER_CHOICES.has(o) && !o.argChoices));
  if (!options.length) return;
  const { REPORTERS } = await import('../report/index.js');
  const formats = Object.keys(REPORTERS);
  for (const o of options) {
    o.choices(formats); // argChoices: help and shell completion
    o.argParser((v: string) => {
      if (formats.includes(v)) return v;
      // kubectl's JSONPath template over the -o json document (src/report/jsonpath.ts), parsed by check.
      if (v.startsWith('jsonpath=')) return v;
      if (v === 'jsonpath') throw new InvalidArgumentError('-o jsonpath needs a template: -o jsonpath={.summary}');
      // kubectl's other template formats: refused by name, with what to use instead (no template is evaluated).
      const template =
        /^(jsonpath|jsonpath-as-json|jsonpath-file|go-template|go-template-file|template|templatefile|custom-columns|custom-columns-file)(=|$)/.exec(
          v,
        );
      if (template)
        throw new InvalidArgumentError(
          `-o ${template[1]} is not supported: use -o json with jq (meshdoctor check -o json | jq -r '.findings[].resource.name'), or -o name for the findings' objects`,
        );
      throw new InvalidArgumentError(`Allowed choices are ${formats.join(', ')}.`);
    });
  }
}

/**
 * The bounds of a run from the flags (README "Limits"). --request-timeout 0 is kubectl's "no
 * timeout": a request is then bounded by the whole run's --timeout only.
 */
export function limitsOf(o: ClusterOpts): Limits {
  return {
    requestTimeoutMs: (o.requestTimeout || o.timeout) * 1000,
    deadlineMs: o.timeout * 1000,
    maxBytes: Math.floor(o.maxBytes * 1024 * 1024),
    maxObjects: Math.floor(o.maxObjects),
  };
}

/** --as, --as-group, --as-uid, for resolveKubeContext (undefined when none is given). */
export function impersonationOf(o: Partial<Pick<FlagValues, 'as' | 'asGroup' | 'asUid'>>) {
  if (o.as === undefined && !o.asGroup?.length && o.asUid === undefined) return undefined;
  return {
    ...(o.as !== undefined ? { user: o.as } : {}),
    ...(o.asGroup?.length ? { groups: o.asGroup } : {}),
    ...(o.asUid !== undefined ? { uid: o.asUid } : {}),
  };
}

export function validateScope(o: ClusterOpts): void {
  if (o.allContexts && o.contexts?.length) throw new UserError('--all-contexts and --contexts cannot be used together');
  if ((o.allContexts || o.contexts?.length) && o.context !== undefined)
    throw new UserError('--context and --all-contexts/--contexts cannot be used together');
  if (o.snapshot?.length && impersonationOf(o))
    throw new UserError('--as, --as-group and --as-uid act on the API server: they cannot be used with --snapshot');
  if (o.namespace !== undefined && o.allNamespaces)
    throw new UserError('-n/--namespace and -A/--all-namespaces cannot be used together');
  if (o.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(o.namespace)) {
    throw new UserError(`invalid namespace name "${o.namespace}"`);
  }
}
