/**
 * `meshdoctor completion bash|zsh`: a completion script generated from the commander program
 * itself (commands, each command's flags, the choices of flags like -o), so it cannot drift from
 * the CLI. Check ids and codes complete --only/--skip (comma-separated lists too); -n and
 * --context ask kubectl when it is installed; <file>/<path> flags complete file names.
 *
 * The CLI is first described shell-neutrally (spec()), then rendered per shell (RENDERERS): zsh
 * runs the bash function through bashcompinit; another shell is another renderer of the same spec.
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
import type { Command, Option } from 'commander';
import { EXIT } from '../util/errors.js';
import type { CommandContext } from './io.js';

type Shell = 'bash' | 'zsh';
const SHELLS: readonly Shell[] = ['bash', 'zsh'];

const SAFE = /^[-\w./]+$/; // every static word is spliced into shell code: refuse anything else

/**
 * A DNS-1123 label, what a namespace name must be: kubernetes/kubernetes
 * staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go (@1a76ea44)
 * `ValidateNamespaceName = NameIsDNSLabel` -> validation.IsDNS1123Label (63 characters at most).
 */
const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';

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
  commands: { name: string; flags: readonly string[]; args: readonly string[]; values: { flags: readonly string[]; value: Value }[] }[];
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

/** Helpers the completion function calls; each expansion quoted (zsh's sh emulation globs unquoted ones). */
const BASH_HELPERS = [
  // NUL bytes dropped here: bash would warn about each on the terminal.
  '_meshdoctor_kubectl() { command -v kubectl >/dev/null 2>&1 && kubectl --request-timeout=5s "$@" 2>/dev/null | tr -d \'\\000\'; }',
  '# COMPREPLY from untrusted lines ($1): lines with a control character or not matching the regex $2',
  '# (if any) are dropped, "namespace/" is cut off, and the ones starting with the word being completed',
  '# ($3, as typed or quoted) are added shell-quoted, so that no candidate can expand or run.',
  '_meshdoctor_reply() {',
  '  local w q',
  '  COMPREPLY=()',
  '  while IFS= read -r w; do',
  '    w="${w#namespace/}"',
  '    case "$w" in \'\' | *[[:cntrl:]]*) continue ;; esac',
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
    ...BASH_HELPERS,
    '_meshdoctor() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    `    case "\${COMP_WORDS[i]}" in ${s.commands.map((c) => c.name).join('|')}) cmd="\${COMP_WORDS[i]}"; break ;; esac`,
    '  done',
    '  case "$cmd $prev" in',
  ];
  for (const c of s.commands) {
    for (const { flags, value } of c.values) lines.push(`    ${flags.map((f) => `"${c.name} ${f}"`).join('|')}) ${bashValue(value, s.checkWords)}; return ;;`);
  }
  lines.push('  esac', '  case "$cmd" in');
  lines.push(`    "") COMPREPLY=($(compgen -W "${[...s.commands.map((c) => c.name), ...s.topFlags].join(' ')}" -- "$cur")) ;;`);
  for (const c of s.commands) lines.push(`    ${c.name}) COMPREPLY=($(compgen -W "${[...c.flags, ...c.args].join(' ')}" -- "$cur")) ;;`);
  lines.push('  esac', '}');
  return lines.join('\n');
}

const BIND = 'complete -F _meshdoctor meshdoctor kubectl-meshdoctor';

const RENDERERS: Record<Shell, (s: Spec) => string> = {
  bash: (s) => `# meshdoctor bash completion. Load it: source <(meshdoctor completion bash)\n${bashFunction(s)}\n${BIND}\n`,
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
};

function completionScript(shell: Shell, program: Command, checkWords: readonly string[]): string {
  return RENDERERS[shell](spec(program, checkWords));
}

/** `meshdoctor completion bash|zsh`. */
export function completionCommand({ program, io, setExit }: CommandContext): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(meshdoctor completion bash)')
    .addArgument(program.createArgument('<shell>', 'bash or zsh').choices(SHELLS))
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
}
