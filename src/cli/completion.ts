/**
 * `meshdoctor completion bash|zsh`: a completion script generated from the commander program
 * itself (commands, each command's flags, the choices of flags like -o), so it cannot drift from
 * the CLI. Check ids and codes complete --only/--skip (comma-separated lists too); -n and
 * --context ask kubectl when it is installed; <file>/<path> flags complete file names.
 *
 * The CLI is first described shell-neutrally (spec()), then rendered per shell (RENDERERS): zsh
 * runs the bash function through bashcompinit; fish gets its own `complete` lines. kubectl's own
 * completion (`kubectl meshdoctor <TAB>`, kubectl 1.26+) asks the executable
 * kubectl_complete-meshdoctor, which runs the hidden command `__complete` (pluginCompletion()).
 *
 * Names from kubectl (namespaces from the API server, context names from any merged kubeconfig)
 * and file names are untrusted, and a candidate is text the shell puts on the command line:
 * - never `compgen -W "$(...)"`: bash expands each word of that list (`$(...)`, backticks), and
 *   zsh's bashcompinit globs it (`${~...}`), so a name would run when TAB is pressed;
 * - bash inserts a candidate as it is (without `-o filenames`), so `a;b` or `$(x)` would run when
 *   the line is run. Every such candidate is shell-quoted with `printf %q`; zsh's bashcompinit
 *   removes that quoting (`${(Q)...}`) and compadd quotes the name again its own way;
 * - a namespace can only be a DNS-1123 label (Kubernetes validates them): anything else is
 *   dropped. Context names are free text, so they are quoted, not filtered; a name holding a
 *   control character (a newline would split it into two candidates) is dropped.
 */
import { spawnSync } from 'node:child_process';
import type { Command, Option } from 'commander';
import { EXIT, hasControl } from '../util/errors.js';
import type { CommandContext } from './io.js';

type Shell = 'bash' | 'zsh' | 'fish';
const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

const SAFE = /^[-\w./]+$/; // every static word is spliced into shell code: refuse anything else

/**
 * A DNS-1123 label, what a namespace name must be: kubernetes/kubernetes
 * staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go (@1a76ea44)
 * `ValidateNamespaceName = NameIsDNSLabel` -> validation.IsDNS1123Label (63 characters at most).
 */
const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';

/**
 * `explain`'s workload: what kubectl's `-o name` prints for the kinds explain takes, the name a
 * DNS-1123 subdomain (kubernetes/kubernetes apimachinery validation IsDNS1123Subdomain: what the
 * API server lets a Deployment, StatefulSet, DaemonSet, Job or CronJob be called). Anything else
 * is dropped: only these characters reach the command line.
 */
const WORKLOAD_NAME =
  '^(deployment\\.apps|statefulset\\.apps|daemonset\\.apps|job\\.batch|cronjob\\.batch)/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$';
const WORKLOAD_KINDS = 'deployments,statefulsets,daemonsets,jobs,cronjobs';

/** What the value of a flag is completed from. */
type Value =
  | { type: 'words'; words: readonly string[] }
  | { type: 'checks' } // ids and codes, a comma-separated list
  | { type: 'namespace' }
  | { type: 'context' }
  | { type: 'file' }
  | { type: 'free' }; // a number or a name: nothing to offer

/** The CLI as completion sees it, for any shell. */
interface Spec {
  commands: {
    name: string;
    flags: readonly string[];
    args: readonly string[];
    values: { flags: readonly string[]; value: Value }[];
  }[];
  topFlags: readonly string[];
  checkWords: readonly string[];
}

function safeWords(list: readonly string[]): readonly string[] {
  for (const w of list) if (!SAFE.test(w)) throw new Error(`unsafe completion word ${JSON.stringify(w)}`);
  return list;
}

const flagsOf = (o: Option): string[] => [o.short, o.long].filter((f): f is string => !!f);

function valueOf(o: Option): Value | undefined {
  // An optional value (-A, --all-namespaces[=true]) is written with `=`: the next word is not its value.
  if (!o.required) return undefined;
  if (o.argChoices) return { type: 'words', words: safeWords(o.argChoices) };
  const long = o.long ?? '';
  if (long === '--only' || long === '--skip') return { type: 'checks' };
  if (long === '--namespace') return { type: 'namespace' };
  if (long === '--context') return { type: 'context' };
  if (/<(file|path)>/.test(o.flags)) return { type: 'file' };
  return { type: 'free' };
}

function spec(program: Command, checkWords: readonly string[]): Spec {
  const commands = program.commands.filter((c) => !(c as any)._hidden);
  return {
    topFlags: safeWords([...program.options.flatMap(flagsOf), '-h', '--help']),
    checkWords: safeWords(checkWords),
    commands: commands.map((c) => ({
      name: safeWords([c.name()])[0]!,
      flags: safeWords([...c.options.flatMap(flagsOf), '-h', '--help']),
      args: safeWords(c.registeredArguments.flatMap((a) => a.argChoices ?? [])),
      values: c.options.flatMap((o) => {
        const value = valueOf(o);
        return value ? [{ flags: safeWords(flagsOf(o)), value }] : [];
      }),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// bash (and zsh through bashcompinit)

/**
 * The UTF-8 byte sequences of the characters hasControl finds above ASCII (C1 controls, Unicode Cf:
 * bidi overrides and isolates, zero-width characters, the soft hyphen, tags; U+2028/U+2029), as a
 * POSIX ERE over bytes in bash's `$'...'` quoting, so that the shell can drop a name holding one
 * whatever its locale (matched under LC_ALL=C). Derived from the one class, never listed by hand.
 */
function invisibleBytesEre(): string {
  const groups = new Map<string, number[]>();
  for (let cp = 0x80; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (!hasControl(ch)) continue;
    const b = [...Buffer.from(ch, 'utf8')];
    const key = b
      .slice(0, -1)
      .map((x) => `\\x${x.toString(16)}`)
      .join('');
    groups.set(key, [...(groups.get(key) ?? []), b.at(-1)!]);
  }
  const x = (n: number) => `\\x${n.toString(16)}`;
  const alternatives = [...groups].map(([prefix, last]) => {
    const runs: string[] = [];
    for (let i = 0; i < last.length;) {
      let j = i;
      while (j + 1 < last.length && last[j + 1] === last[j]! + 1) j++;
      runs.push(i === j ? x(last[i]!) : `${x(last[i]!)}-${x(last[j]!)}`);
      i = j + 1;
    }
    return `${prefix}[${runs.join('')}]`;
  });
  return `$'(${alternatives.join('|')})'`;
}

/** Helpers the completion function calls; each expansion quoted (zsh's sh emulation globs unquoted ones). */
const BASH_HELPERS = () => [
  // NUL bytes dropped here: bash would warn about each on the terminal.
  '_meshdoctor_kubectl() { command -v kubectl >/dev/null 2>&1 && kubectl --request-timeout=5s "$@" 2>/dev/null | tr -d \'\\000\'; }',
  '# Whether $1 holds an invisible character (C1, bidi overrides, zero-width, tags: UTF-8 bytes, any locale).',
  `_meshdoctor_hidden() { local LC_ALL=C re=${invisibleBytesEre()}; [[ $1 =~ $re ]]; }`,
  '# COMPREPLY from untrusted lines ($1): lines with a control or invisible character or not matching the regex $2',
  '# (if any) are dropped, "namespace/" is cut off, and the ones starting with the word being completed',
  '# ($3, as typed or quoted) are added shell-quoted, so that no candidate can expand or run.',
  '_meshdoctor_reply() {',
  '  local w q',
  '  COMPREPLY=()',
  '  while IFS= read -r w; do',
  '    w="${w#namespace/}"',
  '    case "$w" in \'\' | *[[:cntrl:]]*) continue ;; esac',
  '    if _meshdoctor_hidden "$w"; then continue; fi',
  '    if [[ -n "$2" ]] && ! [[ "$w" =~ $2 ]]; then continue; fi',
  '    printf -v q \'%q\' "$w"',
  '    if [[ "$w" == "$3"* || "$q" == "$3"* ]]; then COMPREPLY+=("$q"); fi',
  '  done <<< "$1"',
  '}',
];

/** The shell code that completes one flag value. */
function bashValue(v: Value, checkWords: readonly string[]): string {
  switch (v.type) {
    case 'words':
      return `COMPREPLY=($(compgen -W "${v.words.join(' ')}" -- "$cur"))`;
    case 'checks':
      // A comma-separated list: complete the last element, keep the ones before it.
      return `local pre=""; [[ $cur == *,* ]] && pre="\${cur%,*},"; COMPREPLY=($(compgen -P "$pre" -W "${checkWords.join(' ')}" -- "\${cur##*,}"))`;
    case 'namespace':
      return `_meshdoctor_reply "$(_meshdoctor_kubectl get namespaces -o name)" '${DNS1123_LABEL}' "$cur"`;
    case 'context':
      return `_meshdoctor_reply "$(_meshdoctor_kubectl config get-contexts -o name)" '' "$cur"`;
    case 'file':
      return `_meshdoctor_reply "$(compgen -f -- "$cur")" '' "$cur"`;
    case 'free':
      return 'COMPREPLY=()';
  }
}

function bashFunction(s: Spec): string {
  const lines: string[] = [
    ...BASH_HELPERS(),
    '_meshdoctor() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    `    case "\${COMP_WORDS[i]}" in ${s.commands.map((c) => c.name).join('|')}) cmd="\${COMP_WORDS[i]}"; break ;; esac`,
    '  done',
    '  case "$cmd $prev" in',
  ];
  for (const c of s.commands) {
    for (const { flags, value } of c.values)
      lines.push(`    ${flags.map((f) => `"${c.name} ${f}"`).join('|')}) ${bashValue(value, s.checkWords)}; return ;;`);
  }
  lines.push('  esac', '  case "$cmd" in');
  lines.push(
    `    "") COMPREPLY=($(compgen -W "${[...s.commands.map((c) => c.name), ...s.topFlags].join(' ')}" -- "$cur")) ;;`,
  );
  for (const c of s.commands) {
    const words = `COMPREPLY=($(compgen -W "${[...c.flags, ...c.args].join(' ')}" -- "$cur"))`;
    if (c.name !== 'explain') lines.push(`    ${c.name}) ${words} ;;`);
    else
      // The workload, from kubectl in the namespace typed with -n (a DNS-1123 label, else none).
      lines.push(
        `    explain) if [[ $cur == -* ]]; then ${words}; else local ns="" j; for ((j = 1; j < COMP_CWORD - 1; j++)); do case "\${COMP_WORDS[j]}" in -n|--namespace) ns="\${COMP_WORDS[j+1]}" ;; esac; done; [[ $ns =~ ${DNS1123_LABEL} ]] || ns=""; _meshdoctor_reply "$(_meshdoctor_kubectl get ${WORKLOAD_KINDS} -o name \${ns:+-n "$ns"})" '${WORKLOAD_NAME}' "$cur"; fi ;;`,
      );
  }
  lines.push('  esac', '}');
  return lines.join('\n');
}

const BIND = 'complete -F _meshdoctor meshdoctor kubectl-meshdoctor';

// ---------------------------------------------------------------------------------------------
// fish

/**
 * fish: one `complete` line per flag and command. fish never expands what a command substitution
 * in `-a` prints (each line is one literal candidate) and escapes a candidate itself when it
 * inserts it, so names need no quoting here, only the filters: DNS-1123 for namespaces, no control
 * character in a context name, nor a leading `~` (fish leaves it unescaped, so it would expand). `-F` (files) is fish's own file completion.
 */
function fishScript(s: Spec): string {
  const q = (w: string) => `'${w}'`; // every static word passed safeWords(): no quote inside
  const lines: string[] = [
    '# meshdoctor fish completion. Load it: meshdoctor completion fish | source',
    '# (or save it as ~/.config/fish/completions/meshdoctor.fish)',
    'function __meshdoctor_kubectl',
    '    command -q kubectl; and kubectl --request-timeout=5s $argv 2>/dev/null',
    'end',
    'function __meshdoctor_namespaces',
    // string match -r prints each capture group too: the group is made non-capturing (PCRE2).
    `    __meshdoctor_kubectl get namespaces -o name | string replace -r '^namespace/' '' | string match -r -- '${DNS1123_LABEL.replace('(', '(?:')}'`,
    'end',
    'function __meshdoctor_contexts',
    // fish inserts a leading ~ unescaped (a home directory): such a name would not arrive as typed.
    // Nor a name holding an invisible character (bidi overrides, zero-width, tags: Unicode Cf, U+2028/9).
    "    __meshdoctor_kubectl config get-contexts -o name | string match -rv -- '[[:cntrl:]]|\\p{Cf}|\\p{Zl}|\\p{Zp}|^$|^~'",
    'end',
    '# A comma-separated list of check ids and codes: the ones before the last comma are kept.',
    'function __meshdoctor_checks',
    '    set -l cur (commandline -ct)',
    "    set -l pre (string match -r -- '^.*,' $cur)",
    `    printf '%s\\n' "$pre"${s.checkWords.length ? '(string split " " -- ' + q(s.checkWords.join(' ')) + ')' : ''}`,
    'end',
    'function __meshdoctor_command',
    '    set -l words (commandline -opc)',
    '    for w in $words[2..-1]',
    `        if contains -- $w ${s.commands.map((c) => c.name).join(' ')}`,
    '            echo $w',
    '            return 0',
    '        end',
    '    end',
    '    return 1',
    'end',
  ];
  for (const cmd of ['meshdoctor', 'kubectl-meshdoctor']) {
    const c = (rest: string) => lines.push(`complete -c ${cmd} ${rest}`);
    c('-f');
    c(`-n 'not __meshdoctor_command' -a ${q(s.commands.map((x) => x.name).join(' '))}`);
    for (const f of s.topFlags) c(`-n 'not __meshdoctor_command' ${fishFlag(f)}`);
    for (const command of s.commands) {
      const when = `-n '__meshdoctor_command | string match -q -- ${command.name}'`;
      if (command.args.length) c(`${when} -a ${q(command.args.join(' '))}`);
      const valued = new Map(command.values.flatMap(({ flags, value }) => flags.map((f) => [f, value] as const)));
      for (const f of command.flags) {
        const v = valued.get(f);
        c(`${when} ${fishFlag(f)}${v ? ` ${fishValue(v)}` : ''}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A flag as fish's complete takes it: -s x, -l name (a long name may hold only safe words). */
const fishFlag = (f: string) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);

function fishValue(v: Value): string {
  switch (v.type) {
    case 'words':
      return `-x -a '${v.words.join(' ')}'`;
    case 'checks':
      return "-x -a '(__meshdoctor_checks)'";
    case 'namespace':
      return "-x -a '(__meshdoctor_namespaces)'";
    case 'context':
      return "-x -a '(__meshdoctor_contexts)'";
    case 'file':
      return '-r -F';
    case 'free':
      return '-x';
  }
}

// ---------------------------------------------------------------------------------------------
// kubectl's plugin completion

/**
 * cobra's ShellCompDirective bits, which kubectl reads from the last line `:<n>`:
 * spf13/cobra completions.go (@03adb791) ShellCompDirectiveError = 1 << iota, NoSpace 2,
 * NoFileComp 4, FilterFileExt 8, FilterDirs 16, KeepOrder 32; Default 0 (the shell's own file
 * completion when there is no candidate).
 */
const DIRECTIVE = { default: 0, noFileComp: 4 } as const;

/**
 * Context names kubectl's completion scripts may receive: its bash script hands candidates to
 * `compgen -W` (cobra's bash_completionsV2.go __*_handle_standard_completion_case), which expands
 * `$(...)`, so only names made of these characters are offered (EKS's `arn:aws:eks:...:cluster/x`
 * and kind's `kind-x` are); any other is dropped rather than quoted for one shell.
 */
const PLAIN_CONTEXT = /^[-\w.:@/+]+$/;

/**
 * What kubectl 1.26+ asks the executable kubectl_complete-meshdoctor for `kubectl meshdoctor
 * <words> <TAB>` (kubernetes staging/src/k8s.io/kubectl/pkg/cmd/plugin/plugin_completion.go
 * @78fc8e44, getPluginCompletions): the plugin's words, the last one being completed (empty after
 * a space); it prints one candidate a line, then `:<directive>`. Files are left to the shell
 * (directive 0, no candidate), so no file name passes through kubectl's scripts.
 */
function pluginCompletion(s: Spec, words: readonly string[], kubectl: (args: string[]) => string): string {
  const cur = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const prev = before.at(-1);
  const command = s.commands.find((c) => before.includes(c.name));
  const out = (candidates: readonly string[], directive: number = DIRECTIVE.noFileComp) =>
    [...candidates.filter((w) => w.startsWith(cur)), `:${directive}`].map((l) => `${l}\n`).join('');
  const lines = (text: string) => text.split('\n').filter((l) => l !== '' && !hasControl(l));
  if (!command) return out([...s.commands.map((c) => c.name), ...s.topFlags]);
  const value = command.values.find((v) => prev !== undefined && v.flags.includes(prev))?.value;
  if (!value) {
    if (command.name === 'explain' && !cur.startsWith('-')) {
      const i = before.findIndex((w) => w === '-n' || w === '--namespace');
      const ns = i >= 0 ? before[i + 1] : undefined;
      const label = new RegExp(DNS1123_LABEL);
      const scope = ns !== undefined && label.test(ns) ? ['-n', ns] : [];
      const name = new RegExp(WORKLOAD_NAME);
      return out(lines(kubectl(['get', WORKLOAD_KINDS, '-o', 'name', ...scope])).filter((l) => name.test(l)));
    }
    return out([...command.flags, ...command.args]);
  }
  switch (value.type) {
    case 'words':
      return out(value.words);
    case 'checks': {
      const pre = cur.slice(0, cur.lastIndexOf(',') + 1);
      return out(s.checkWords.map((w) => pre + w));
    }
    case 'namespace': {
      const label = new RegExp(DNS1123_LABEL);
      return out(
        lines(kubectl(['get', 'namespaces', '-o', 'name']))
          .map((l) => l.replace(/^namespace\//, ''))
          .filter((n) => label.test(n)),
      );
    }
    case 'context':
      return out(lines(kubectl(['config', 'get-contexts', '-o', 'name'])).filter((n) => PLAIN_CONTEXT.test(n)));
    case 'file':
      return out([], DIRECTIVE.default);
    case 'free':
      return out([]);
  }
}

/** kubectl for completion: bounded in time and output, no shell; nothing when it fails or is absent. */
function kubectlLines(args: string[]): string {
  const r = spawnSync('kubectl', ['--request-timeout=5s', ...args], {
    encoding: 'utf8',
    timeout: 10_000,
    maxBuffer: 4 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return r.status === 0 && typeof r.stdout === 'string' ? r.stdout : '';
}

const RENDERERS: Record<Shell, (s: Spec) => string> = {
  bash: (s) =>
    `# meshdoctor bash completion. Load it: source <(meshdoctor completion bash)\n${bashFunction(s)}\n${BIND}\n`,
  zsh: (s) =>
    [
      '#compdef meshdoctor kubectl-meshdoctor',
      '# meshdoctor zsh completion. Load it: source <(meshdoctor completion zsh)',
      'autoload -U +X compinit && { (( $+functions[compdef] )) || compinit; }',
      'autoload -U +X bashcompinit && bashcompinit',
      bashFunction(s),
      BIND,
      '',
    ].join('\n'),
  fish: fishScript,
};

function completionScript(shell: Shell, program: Command, checkWords: readonly string[]): string {
  return RENDERERS[shell](spec(program, checkWords));
}

/** `meshdoctor completion bash|zsh|fish`, and the hidden `__complete` kubectl_complete-meshdoctor runs. */
export function completionCommand({ program, io, setExit }: CommandContext): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(meshdoctor completion bash)')
    .addArgument(program.createArgument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action(async (shell: Shell) => {
      const { CHECK_META: CHECKS } = await import('../checks/catalog.js');
      io.stdout(
        completionScript(
          shell,
          program,
          CHECKS.flatMap((c) => [c.id, c.code]),
        ),
      );
      setExit(EXIT.OK);
    });
  // bin/kubectl_complete-meshdoctor.js runs `__complete -- WORDS...`: after `--` no word is an
  // option (not even -V or --help), so every word typed after `kubectl meshdoctor` arrives as it is.
  program
    .command('__complete', { hidden: true })
    .helpOption(false)
    .argument('[words...]')
    .action(async (words: string[]) => {
      const { CHECK_META: CHECKS } = await import('../checks/catalog.js');
      const s = spec(
        program,
        CHECKS.flatMap((c) => [c.id, c.code]),
      );
      io.stdout(pluginCompletion(s, words.length ? words : [''], kubectlLines));
      setExit(EXIT.OK);
    });
}
