/**
 * `meshdoctor completion bash|zsh`: a completion script generated from the commander program
 * itself (commands, each command's flags, the choices of flags like -o), so it cannot drift from
 * the CLI. Check ids and codes complete --only/--skip (comma-separated lists too); -n and
 * --context ask kubectl when it is installed; <file>/<path> flags complete file names.
 * zsh runs the same function through bashcompinit.
 */
import type { Command, Option } from 'commander';

const SAFE = /^[-\w./]+$/; // every word is spliced into shell code: refuse anything else

function words(list: readonly string[]): string {
  for (const w of list) if (!SAFE.test(w)) throw new Error(`unsafe completion word ${JSON.stringify(w)}`);
  return list.join(' ');
}

function flags(o: Option): string[] {
  return [o.short, o.long].filter((f): f is string => !!f);
}

/** The shell code that completes the value of one option, or undefined when it takes none. */
function valueCompletion(o: Option, checkWords: readonly string[]): string | undefined {
  if (!o.required && !o.optional) return undefined;
  if (o.argChoices) return `COMPREPLY=($(compgen -W "${words(o.argChoices)}" -- "$cur"))`;
  const long = o.long ?? '';
  if (long === '--only' || long === '--skip') {
    // A comma-separated list: complete the last element, keep the ones before it.
    return `local pre=""; [[ $cur == *,* ]] && pre="\${cur%,*},"; COMPREPLY=($(compgen -P "$pre" -W "${words(checkWords)}" -- "\${cur##*,}"))`;
  }
  if (long === '--namespace') return 'COMPREPLY=($(compgen -W "$(_meshdoctor_kubectl get namespaces -o jsonpath=\'{.items[*].metadata.name}\')" -- "$cur"))';
  if (long === '--context') return 'COMPREPLY=($(compgen -W "$(_meshdoctor_kubectl config get-contexts -o name)" -- "$cur"))';
  if (/<(file|path)>/.test(o.flags)) return 'COMPREPLY=($(compgen -f -- "$cur"))';
  return 'COMPREPLY=()'; // a free value (a number, a name): nothing to offer
}

function bashFunction(program: Command, checkWords: readonly string[]): string {
  const commands = program.commands.filter((c) => !(c as any)._hidden);
  const names = commands.map((c) => c.name());
  const lines: string[] = [];
  const topFlags = [...program.options.flatMap(flags), '-h', '--help'];
  lines.push(
    '_meshdoctor_kubectl() { command -v kubectl >/dev/null 2>&1 && kubectl --request-timeout=5s "$@" 2>/dev/null; }',
    '_meshdoctor() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    `    case "\${COMP_WORDS[i]}" in ${names.join('|')}) cmd="\${COMP_WORDS[i]}"; break ;; esac`,
    '  done',
    '  case "$cmd $prev" in',
  );
  for (const c of commands) {
    for (const o of c.options) {
      const code = valueCompletion(o, checkWords);
      if (code)
        lines.push(
          `    ${flags(o)
            .map((f) => `"${c.name()} ${f}"`)
            .join('|')}) ${code}; return ;;`,
        );
    }
  }
  lines.push('  esac', '  case "$cmd" in');
  lines.push(`    "") COMPREPLY=($(compgen -W "${words([...names, ...topFlags])}" -- "$cur")) ;;`);
  for (const c of commands) {
    const own = [...c.options.flatMap(flags), '-h', '--help'];
    const choices = c.registeredArguments.flatMap((a) => a.argChoices ?? []);
    lines.push(`    ${c.name()}) COMPREPLY=($(compgen -W "${words([...own, ...choices])}" -- "$cur")) ;;`);
  }
  lines.push('  esac', '}');
  return lines.join('\n');
}

export function completionScript(shell: 'bash' | 'zsh', program: Command, checkWords: readonly string[]): string {
  const fn = bashFunction(program, checkWords);
  const bind = 'complete -F _meshdoctor meshdoctor kubectl-meshdoctor';
  if (shell === 'bash') {
    return `# meshdoctor bash completion. Load it: source <(meshdoctor completion bash)\n${fn}\n${bind}\n`;
  }
  return [
    '#compdef meshdoctor kubectl-meshdoctor',
    '# meshdoctor zsh completion. Load it: source <(meshdoctor completion zsh)',
    'autoload -U +X compinit && { (( $+functions[compdef] )) || compinit; }',
    'autoload -U +X bashcompinit && bashcompinit',
    fn,
    bind,
    '',
  ].join('\n');
}
