/**
 * Fix lines are printed for a person to paste into a shell: bash, dash (sh) or an interactive zsh,
 * where `#` starts a comment only with `interactivecomments` (off by default: there a comment line
 * is the command `#` with its words as arguments). So every printed line, comment lines included,
 * must be inert or exact in all three. The contract, which fixLineProblem() checks:
 *
 * - a line is a command line or a comment line (`# ` then prose); no command ever has a comment
 *   after it: explanatory text goes on its own line, before the command it explains;
 * - every piece of cluster text is quoted with shq(), POSIX single quotes only (no `$'...'`, which
 *   dash does not know: there `\'` would close the quote); in a comment it is made printable first
 *   (note()), so the comment stays one line;
 * - our own words in a comment line use no shell metacharacter, so zsh without interactivecomments
 *   runs nothing but `#` (command not found) with literal arguments;
 * - a command whose exact argument holds a control character cannot be one safe line: it is
 *   withheld (guardFix), never altered, since a changed argument would name another object.
 *
 * This module has no dependency but errors.ts, so that every renderer can share it.
 */
import { hasControl, printable } from './errors.js';

/** Characters that mean nothing to sh, bash or zsh anywhere in a word (`=` is checked apart: zsh expands a word starting with it). */
const SAFE = /^[A-Za-z0-9._/:=@%+,-]$/;
/** A word that needs no quotes: SAFE characters, not starting with `=` (zsh's `=cmd`) or `-` (it would read as a flag). */
const PLAIN = /^[A-Za-z0-9._/:@%+,][A-Za-z0-9._/:=@%+,-]*$/;

/**
 * Quote a value for sh, bash and zsh alike, so that a name from the cluster cannot turn a copied
 * line into another command: plain names (the common case) stay bare, anything else is single-quoted
 * with each `'` written `'\''`. Every byte is kept: a value holding a control character comes out
 * holding it, and guardFix withholds that line (stripping the character would name another object).
 */
export function shq(v: string): string {
  if (PLAIN.test(v)) return v;
  return `'${v.replace(/'/g, `'\\''`)}'`;
}

/** Cluster text inside a comment line: control characters shown escaped (`\n`, `\x1b`), then quoted, so the comment stays one inert line. */
export const note = (v: string, max = 200): string => shq(printable(v, max));

/**
 * A YAML scalar shown in a comment line (a manifest edit: `key: 'true'`): a string in YAML's single
 * quotes (`'` written `''`), made printable first; numbers and booleans bare. YAML, not shq, because
 * in a manifest `'true'` is a string and `true` a boolean; and a YAML single-quoted scalar is also a
 * run of POSIX single-quoted strings (`'it''s'` is `'it'` `'s'`), so the comment line stays inert.
 */
export const yamlScalar = (v: string | number | boolean): string =>
  typeof v === 'string' ? `'${printable(v, 200).replace(/'/g, "''")}'` : String(v);

/** A YAML mapping key shown in a comment line: plain when YAML and every shell read it as it is, else as yamlScalar. */
export const yamlKey = (k: string): string => (/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(k) ? k : yamlScalar(k));

/**
 * A command shown inside a comment line (one choice among several, to be copied from behind its
 * prefix): as it is when it is inert there (no operator such as `|` or `>`), else quoted whole.
 */
export const shown = (cmd: string): string => (checkWords(cmd, 'comment') === undefined ? cmd : shq(cmd));

/** One word of a line: where it starts, its text as printed, its value to the shell, and whether it starts with a quote. */
export interface Word {
  at: number;
  text: string;
  value: string;
  quoted: boolean;
  /** An operator our own templates use between commands: `|` (a pipe) or `>` (into a file). */
  operator?: '|' | '>';
}

/** The words of a line as a POSIX shell reads them, for the subset fix lines may use; a string saying what is wrong otherwise. */
export function words(line: string): Word[] | string {
  const out: Word[] = [];
  let i = 0;
  while (i < line.length) {
    const at = i;
    if (line[i] === ' ') {
      i++;
      continue;
    }
    if ((line[i] === '|' || line[i] === '>') && (line[i + 1] === ' ' || i + 1 === line.length)) {
      out.push({ at, text: line[i]!, value: line[i]!, quoted: false, operator: line[i] as '|' | '>' });
      i++;
      continue;
    }
    let value = '';
    while (i < line.length && line[i] !== ' ') {
      const c = line[i]!;
      if (c === "'") {
        const end = line.indexOf("'", i + 1);
        if (end < 0) return 'an unclosed quote';
        value += line.slice(i + 1, end);
        i = end + 1;
      } else if (c === '\\' && line[i + 1] === "'") {
        // shq writes a quote inside a value as '\'': the backslash keeps this one literal.
        value += "'";
        i += 2;
      } else if (SAFE.test(c) && !(c === '=' && i === at)) {
        value += c;
        i++;
      } else return `the character ${JSON.stringify(c)} unquoted`;
    }
    out.push({ at, text: line.slice(at, i), value, quoted: line[at] === "'" });
  }
  return out;
}

/** A file a fix writes with `>`: a plain name in the working directory. */
const FILE = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** A command name of our own templates (kubectl, helm, grep): no quote, no `=` (an assignment), no leading dash. */
const COMMAND = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * What makes a line break the contract (undefined: nothing). A comment line is `#` and words of
 * SAFE characters and single-quoted strings; a command line is commands of such words, each named
 * by a plain word, joined by `|`, each with at most one `> file`, and no word starting with a
 * quoted `-`: shq quotes such a value, no Kubernetes name starts so, and kubectl would read it as a
 * flag (`--all`).
 */
function checkWords(line: string, kind: 'comment' | 'command'): string | undefined {
  const ws = words(line);
  if (typeof ws === 'string') return ws;
  if (kind === 'comment') return ws.some((w) => w.operator) ? 'an operator in a comment' : undefined;
  let start = true;
  let redirected = false;
  for (const [n, w] of ws.entries()) {
    if (w.operator) {
      if (start || n === ws.length - 1 || ws[n + 1]!.operator) return `${w.text} without a word on each side`;
      if (w.operator === '>') {
        if (redirected) return 'a second redirection';
        // Into a plain file name of the working directory only (fileName() makes one): never a path.
        if (!FILE.test(ws[n + 1]!.text)) return 'a redirection into a path';
        redirected = true;
      } else {
        redirected = false;
        start = true;
      }
      continue;
    }
    if (start && !COMMAND.test(w.text)) return 'a command name that is not a plain word';
    if (w.quoted && w.value.startsWith('-')) return 'dash';
    start = false;
  }
  return ws.length === 0 ? 'an empty line' : undefined;
}

/** Whether a fix line is a comment line: `#` alone or `# ...`. */
export const isComment = (line: string): boolean => line === '#' || line.startsWith('# ');

/** What makes a fix line break the contract, in a few words; undefined when it keeps it. */
export function fixLineProblem(line: string): string | undefined {
  if (hasControl(line)) return 'control';
  if (line.startsWith('#') && !isComment(line)) return 'a comment without a space after its #';
  return isComment(line) ? checkWords(line.slice(1), 'comment') : checkWords(line, 'command');
}

/**
 * The last guard of every fix line: the line when it keeps the contract, else a comment line saying
 * it was withheld and why, naming the value at fault (printable, quoted), never echoing the line.
 */
export function guardFix(line: string): string {
  const problem = fixLineProblem(line);
  if (problem === undefined) return line;
  if (problem === 'control') {
    // The words holding a control character: found in a copy with every other character made plain, then read from the line.
    const from = isComment(line) ? 1 : 0;
    const ws = words(line.slice(from).replace(/[^\x20-\x7e]/g, 'x'));
    const named =
      typeof ws === 'string'
        ? []
        : ws.map((w) => line.slice(from + w.at, from + w.at + w.text.length)).filter(hasControl);
    const valueOf = (t: string) => {
      const w = words(t);
      return typeof w === 'string' || w.length !== 1 ? t : w[0]!.value;
    };
    const shownAs = [...new Set(named.map((t) => note(valueOf(t), 120)))];
    return `# fix withheld: a control character in ${shownAs.length ? shownAs.join(' and ') : 'a value'} keeps the command from being one safe line`;
  }
  if (problem === 'dash') {
    const named = (words(line) as Word[])
      .filter((w) => w.quoted && w.value.startsWith('-'))
      .map((w) => note(w.value, 120));
    return `# fix withheld: it names ${[...new Set(named)].join(' and ')}, which starts with a dash: no Kubernetes name does, and kubectl would read it as a flag`;
  }
  return '# fix withheld: it would not be one safe line';
}
