/** Exit codes, the same for every output format (README "Exit codes"). */
export const EXIT = {
  OK: 0,
  FINDINGS: 1,
  ERROR: 2,
  /** Some checks could not run (missing permissions, kinds not in the snapshot) and no finding decided the code. */
  INCOMPLETE: 3,
} as const;

/**
 * An error meshdoctor expects and explains: printed as one line on stderr (no stack trace),
 * exit code 2.
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

/**
 * Characters a terminal or a shell line acts on, or that change what a line shows without being
 * seen: C0 and C1 control characters and DEL (ESC starts escapes, OSC 52 writes the clipboard);
 * every invisible format character (Unicode category Cf): the bidi embeddings, overrides and
 * isolates U+202A-U+202E and U+2066-U+2069 that make a line display as one command and run as
 * another (Trojan Source, CVE-2021-42574), the zero-width U+200B-U+200F, U+2060-U+2064, U+FEFF,
 * U+061C, U+180E, the soft hyphen U+00AD and the tags U+E0000-U+E007F; the line and paragraph
 * separators U+2028/U+2029; and lone surrogates, which no encoding can print.
 */
const CONTROL_CLASS = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u{E0000}-\u{E007F}`;
const CONTROL = new RegExp(`[${CONTROL_CLASS}]`, 'gu');

/** A new global regex of the characters hasControl finds (for other modules to remove or replace them). */
export const controlChars = (): RegExp => new RegExp(`[${CONTROL_CLASS}]`, 'gu');

/**
 * controlChars() without the line feed (\p{Cc} is exactly U+0000-U+001F and U+007F-U+009F): for
 * escaping a whole document whose own layout breaks its lines (a report of 100k lines made one
 * call of the replacer per line, to give the line feed back unchanged).
 */
export const controlCharsButNewline = (): RegExp =>
  new RegExp(`[${CONTROL_CLASS.replace(String.raw`\p{Cc}`, String.raw`\0-\t\v-\x1f\x7f-\x9f`)}]`, 'gu');

/** Whether a string holds a character a terminal or a shell line would act on, or an invisible one. */
export const hasControl = (s: string): boolean => {
  CONTROL.lastIndex = 0;
  return CONTROL.test(s);
};

/**
 * Text from outside (the API server, an exec plugin, a file) made safe for one line of a terminal:
 * every control or invisible character is shown as an escape (`\n`, `\x1b`, `\u202e`), never acted
 * on, and the length is capped. Tabs and newlines become `\t` / `\n` so that a message stays one line.
 */
export function printable(s: string, max = 500): string {
  const out = s.replace(CONTROL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.codePointAt(0)!;
    if (code > 0xffff) return `\\u{${code.toString(16)}}`;
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** One line for any error: a UserError's message, else "internal error", never a stack trace. */
export function errorLine(e: unknown): string {
  if (e instanceof UserError) return printable(e.message);
  return `internal error: ${printable(errorMessage(e))} (please report this with the output of --version)`;
}
