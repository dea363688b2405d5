/**
 * Assertions on pasting fix lines (helpers/bash.ts runs them): every line keeps the contract of
 * src/util/shell.ts and runs, in bash, dash and zsh, exactly the argv the validator reads from it.
 */
import { expect } from 'vitest';
import { fixLineProblem, isComment, words, type Word } from '../../src/util/shell.js';
import { SHELLS, hasShell, runInShell } from './bash.js';

const missing = SHELLS.filter((s) => !hasShell(s));
if (missing.length) console.warn(`${missing.join(', ')} not installed: fix lines are not tried there`);
/** The shells installed here. */
export const shells = SHELLS.filter(hasShell);

/** The argv of each command of a command line as the validator reads it (`> file` left out). */
export function commandsOf(line: string): string[][] {
  const ws = words(line) as Word[];
  const out: string[][] = [[]];
  for (let i = 0; i < ws.length; i++) {
    if (ws[i]!.operator === '|') out.push([]);
    else if (ws[i]!.operator === '>') i++;
    else out[out.length - 1]!.push(ws[i]!.value);
  }
  return out;
}

const redirects = (line: string): string[] => {
  const ws = words(line) as Word[];
  return ws.flatMap((w, i) => (w.operator === '>' ? [ws[i + 1]!.value] : []));
};

const sorted = (calls: string[][]) => calls.map((c) => JSON.stringify(c)).sort();

/**
 * Paste `lines` into every shell: no error, no file but the lines' own `> file`, no command not
 * found but `#` (zsh, once per comment line), and each command line runs exactly the argv the
 * validator reads from it (so a value is passed whole, as one argument).
 */
export function expectPastesExactly(lines: string[]): void {
  for (const line of lines) expect(fixLineProblem(line), line).toBeUndefined();
  const comments = lines.map((l, i) => (isComment(l) ? i : -1)).filter((i) => i >= 0);
  const files = new Set(lines.filter((l) => !isComment(l)).flatMap(redirects));
  for (const shell of shells) {
    const r = runInShell(shell, lines);
    expect(r.errors, shell).toEqual([]);
    expect(
      r.files.filter((f) => !files.has(f)),
      shell,
    ).toEqual([]);
    const expectedNotFound = shell === 'zsh' ? comments.map((line) => ({ line, command: '#' })) : [];
    expect(r.notFound, shell).toEqual(expectedNotFound);
    const byLine = new Map<number, string[][]>();
    for (const c of r.calls) byLine.set(c.line, [...(byLine.get(c.line) ?? []), c.argv]);
    lines.forEach((line, i) => {
      expect(sorted(byLine.get(i) ?? []), `${shell}: ${line}`).toEqual(isComment(line) ? [] : sorted(commandsOf(line)));
    });
  }
}

/** The command of a choice line (`# to mesh it with Linkerd: CMD`): CMD, or the value of CMD quoted whole. */
export function choiceCommand(line: string, prefix: RegExp): string | undefined {
  const m = prefix.exec(line);
  if (!m) return undefined;
  const rest = line.slice(m[0].length);
  const ws = words(rest);
  return typeof ws !== 'string' && ws.length === 1 && ws[0]!.quoted && ws[0]!.text === rest ? ws[0]!.value : rest;
}
