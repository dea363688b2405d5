/**
 * Run fix lines in bash as a user pasting them would, with every command a fix may name stubbed
 * out (each stub records its argv) and PATH empty, so anything else shows as "not found".
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { K8sObject } from '../../src/types.js';

const STUBS = ['kubectl', 'linkerd', 'istioctl', 'helm', 'step', 'base64', 'openssl', 'grep', 'jq', 'cat']
  // One file per stub process: the commands of a pipeline run at once.
  .map((c) => `${c}() { printf '%s\\0' "${c}" "$@" END >> "$OUT.$BASHPID"; }`)
  .join('\n');

/** Run lines as one bash script in a fresh directory; the argv of every command they ran, and any command not found. */
export function runInBash(lines: string[]): { calls: string[][]; notFound: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-bash-'));
  const script = `${STUBS}\ncommand_not_found_handle() { printf 'NOTFOUND %s\\n' "$1" >> "$NF"; return 127; }\n${lines.join('\n')}\n`;
  try {
    execFileSync('/bin/bash', ['--norc', '--noprofile', '-c', script], {
      cwd: dir,
      env: { PATH: '/nonexistent', OUT: join(dir, 'argv'), NF: join(dir, 'nf'), HOME: '/home/x' },
      stdio: 'pipe',
      input: '',
    });
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
  const recorded = readdirSync(dir)
    .filter((f) => f.startsWith('argv.'))
    .map(read)
    .join('');
  const calls = recorded
    .split('END\0')
    .filter(Boolean)
    .map((c) => c.split('\0').slice(0, -1));
  const notFound = read('nf').split('\n').filter(Boolean);
  rmSync(dir, { recursive: true, force: true });
  return { calls, notFound };
}

/** Values that break a naive shell line; `⟨N|` and `N⟩` mark where each one starts and ends. */
export const HOSTILE = [
  (n: number) => `⟨${n}|a\nb; touch PWNED${n}⟩`,
  (n: number) => `⟨${n}|x'$(touch PWNED)'"\`touch PWNED\`"${n}⟩`,
  (n: number) => `⟨${n}|\u001b]52;c;cHduZWQ=\u0007\r${n}⟩`,
  (n: number) => `⟨${n}| -A --all #${n}⟩`,
  (n: number) => `⟨${n}|$HOME\\\t\u2028${n}⟩`,
];
const SYSTEM = new Set(['linkerd', 'istio-system', 'kube-system', 'default', 'cert-manager']);

/** Replace every string equal to a workload-side name (namespaces, objects in them) by a hostile variant, consistently. */
export function hostile(objects: K8sObject[], variants = HOSTILE): { objects: K8sObject[]; values: string[] } {
  const names = new Set<string>();
  for (const o of objects) {
    const ns = o.metadata?.namespace;
    if (o.kind === 'Namespace' && o.metadata?.name && !SYSTEM.has(o.metadata.name)) names.add(o.metadata.name);
    if (ns && !SYSTEM.has(ns) && o.metadata?.name) names.add(o.metadata.name);
  }
  const map = new Map([...names].sort().map((n, i) => [n, `${n}${variants[i % variants.length]!(i)}`]));
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return map.get(v) ?? v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { objects: objects.map((o) => walk(o) as K8sObject), values: [...map.values()] };
}
