#!/usr/bin/env zsh
# Completes a command line for real in an interactive bash, zsh or fish on a pseudo-terminal (zsh/zpty):
# types LINE, presses TAB, saves the edited line (what the shell put on it) to DIR/line, then
# presses Enter, so the line runs as a user's would. Used by test/completion.test.ts.
#
#   complete.zsh bash|zsh|fish SCRIPT DIR LINE
#
# DIR is the shell's working directory; PATH is the caller's (a stub kubectl and a recording
# meshdoctor first). The interactive zsh has no interactivecomments: there `#` is no comment.
emulate -L zsh
zmodload zsh/zpty || exit 3
local shell=$1 script=$2 dir=$3 line=$4
# Waits in hundredths of a second: zselect is a builtin (no sleep process per poll), polled every 10 ms.
if zmodload zsh/zselect 2>/dev/null; then pause() { zselect -t $1 } else pause() { sleep $(( $1 / 100.0 )) } fi
cd -- "$dir" || exit 3
# The completion function, once it returns, leaves a file `completed`: the keys after TAB wait for
# it (a busy machine may take longer than any fixed pause to run it), not for a clock. The files
# waited for (line, and ran from the stub meshdoctor) are written whole, then renamed.
if [[ $shell == bash ]]; then
  zpty -b sh bash --norc --noprofile -i
  zpty -w sh "PS1='> '; bind 'set bell-style none'; source ${(q)script}"
  zpty -w sh 'eval "_meshdoctor_run() $(declare -f _meshdoctor | tail -n +2)"; _meshdoctor() { _meshdoctor_run "$@"; local s=$?; : > completed; return $s; }'
  # Ctrl-X Ctrl-D writes the line as edited so far.
  zpty -w sh "bind -x '\"\\C-x\\C-d\": printf %s \"\$READLINE_LINE\" > line.part && mv line.part line'"
elif [[ $shell == fish ]]; then
  zpty -b sh fish --no-config -i
  zpty -w sh "function fish_prompt; echo '> '; end; source ${(q)script}"
  # Every kubectl call of the completion leaves `completed` (fish calls them from its own code).
  zpty -w sh 'function kubectl; command kubectl $argv; : > completed; end'
  zpty -w sh 'bind \cx\cd "printf %s (commandline | string collect) > line.part && mv line.part line"'
  zpty -w sh 'function print_ready; echo READY; end; print_ready'
  zpty -r -m sh out '*READY*' || exit 4
else
  zpty -b sh zsh -f -i
  zpty -w sh "PS1='> '; unsetopt interactivecomments beep; autoload -U compinit && compinit -u"
  zpty -w sh "source ${(q)script}"
  zpty -w sh 'functions[_meshdoctor_run]=$functions[_meshdoctor]; _meshdoctor() { _meshdoctor_run "$@"; local s=$?; : > completed; return $s; }'
  zpty -w sh 'dump() { print -rn -- "$BUFFER" > line.part && mv line.part line }; zle -N dump; bindkey "^X^D" dump'
fi
if [[ $shell != fish ]]; then
  zpty -w sh 'print_ready() { echo READY; }; print_ready'
  zpty -r -m sh out '*READY*' || exit 4
fi
# The line and TAB; then the dump, once the completion is done (zsh drops completion when keys
# are already waiting), then Enter.
zpty -wn sh "$line"$'\t'
local i
for i in {1..1000}; do [[ -e completed ]] && break; pause 1; done
# The candidates are inserted once the function has returned.
pause 10
zpty -wn sh $'\C-x\C-d'
for i in {1..1000}; do [[ -e line ]] && break; pause 1; done
zpty -wn sh $'\r'
for i in {1..1000}; do [[ -e ran ]] && break; pause 1; done
zpty -w sh 'exit'
zpty -d sh
[[ -e line ]] || exit 5
