/** Exit codes, the same for every output format (README "Exit codes"). */
export const EXIT = {
  OK: 0,
  FINDINGS: 1,
  ERROR: 2,
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
