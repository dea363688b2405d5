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

/** C0 and C1 control characters and DEL: a terminal acts on them (ESC starts escapes, OSC 52 writes the clipboard). */

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Whether a string holds a character a terminal or a shell line would act on. */
export const hasControl = (s: string): boolean => {
  CONTROL.lastIndex = 0;
  return CONTROL.test(s);
};

/**
 * Text from outside (the API server, an exec plugin, a file) made safe for one line of a terminal:
 * every control character is shown as an escape (`\n`, `\x1b`), never acted on, and the length is
 * capped. Tabs and newlines become `\t` / `\n` so that a message stays one line.
 */
export function printable(s: string, max = 500): string {
  const out = s.replace(CONTROL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** One line for any error: a UserError's message, else "internal error", never a stack trace. */
export function errorLine(e: unknown): string {
  if (e instanceof UserError) return printable(e.message);
  return `internal error: ${printable(errorMessage(e))} (please report this with the output of --version)`;
}
