/**
 * Run fix lines in bash as a user pasting them would, with every command a fix may name stubbed
 * out (each stub records its argv) and PATH empty, so anything else shows as "not found".
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STUBS = ['kubectl', 'linkerd', 'istioctl', 'helm', 'step', 'base64', 'openssl', 'grep', 'jq', 'cat']
  // One file per stub process: the commands of a pipeline run at once.
  .map((c) => `${c}() { printf '%s\\0' "${c}" "$@" END >> "$OUT.$BASHPID"; }`)
  .join('\n');

/** Run lines as one bash script in a fresh directory; the argv of every command they ran, and any command not found. */
export function runInBash(lines: string[]): { calls: string[][]; notFound: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-bash-'));
  const script = `${STUBS}\ncommand_not_found_handle() { printf 'NOTFOUND %s\\n' "$1" >> "$NF"; return 127; }\n${lines.join('\n')}\n`;
  try {
    execFileSync('/bin/bash', ['--norc', '--noprofile', '-c', script], { cwd: dir, env: { PATH: '/nonexistent', OUT: join(dir, 'argv'), NF: join(dir, 'nf'), HOME: '/home/x' }, stdio: 'pipe', input: '' });
  } catch {
    // a stub exits 0; a syntax error shows as missing calls
  }
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f), 'utf8');
    } catch {
      return '';
    }
  };
  const recorded = readdirSync(dir).filter((f) => f.startsWith('argv.')).map(read).join('');
  const calls = recorded.split('END\0').filter(Boolean).map((c) => c.split('\0').slice(0, -1));
  const notFound = read('nf').split('\n').filter(Boolean);
  rmSync(dir, { recursive: true, force: true });
  return { calls, notFound };
}
