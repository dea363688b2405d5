/**
 * Run fix lines as a user pasting them would, in the three shells they are pasted into: bash and
 * zsh interactive (zsh with no `interactivecomments`, its default: there `#` is a command, not a
 * comment) and dash (sh), lines on stdin. Every command a fix may name is a stub recording its
 * argv and the number of the pasted line it came from, `touch` creates its files (so an injected
 * `$(touch PWNED)` shows as a file), PATH is empty, so anything else shows as "not found".
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { K8sObject } from '../../src/util/types.js';

export type Shell = 'bash' | 'dash' | 'zsh';
export const SHELLS: readonly Shell[] = ['bash', 'dash', 'zsh'];

/** How each shell is started to read a paste on stdin: interactive, no start-up files. */
const ARGV: Record<Shell, string[]> = {
  bash: ['/bin/bash', '--norc', '--noprofile', '--noediting', '-i'],
  dash: ['/usr/bin/dash', '-i'],
  zsh: ['/usr/bin/zsh', '-f', '-i'],
};

/** Whether the shell is installed (the tests that need it say so when it is not). */
export const hasShell = (s: Shell): boolean => existsSync(ARGV[s][0]!);

// The commands fix lines run (names a POSIX function may have: dash refuses `consul-k8s() {`).
// printf is a builtin: a function shadows it too, and the preamble's own calls reach the builtin (preamble()).
export const COMMANDS = [
  'kubectl',
  'linkerd',
  'istioctl',
  'helm',
  'step',
  'base64',
  'openssl',
  'grep',
  'jq',
  'cat',
  'kumactl',
  'printf',
  'gcloud',
  'aws',
  'oc',
];

// One file per process (its pid read from /proc/self/stat, which works in all three shells): the
// commands of a pipeline run at once. $L is the number of the pasted line being run.
const preamble = (shell: Shell): string => {
  // The builtin printf past the function of the same name: `builtin` in bash and zsh (zsh's `command` runs only external commands), `command` in dash.
  const PRINTF = shell === 'dash' ? 'command printf' : 'builtin printf';
  return [
    "PS1=''",
    "PS2=''",
    `rec() { read -r P _ < /proc/self/stat; ${PRINTF} '%s\\0' "$L" "$@" END >> "$OUT.$P"; }`,
    ...COMMANDS.map((c) => `${c}() { rec ${c} "$@"; }`),
    'touch() { for f in "$@"; do : >> "$f"; done; }',
    // bash and zsh call these for a command not found (dash prints it: read from stderr).
    `command_not_found_handle() { ${PRINTF} '%s %s\\n' "$L" "$1" >> "$NF"; return 127; }`,
    `command_not_found_handler() { ${PRINTF} '%s %s\\n' "$L" "$1" >> "$NF"; return 127; }`,
  ].join('\n');
};

export interface ShellRun {
  /** Every stubbed command run: the number (0-based) of the pasted line, and its argv. */
  calls: { line: number; argv: string[] }[];
  /** Commands not found, with the line they came from (-1 where the shell does not say: dash). */
  notFound: { line: number; command: string }[];
  /** What the shell said went wrong: syntax errors, unmatched quotes, globs matching nothing. */
  errors: string[];
  /** Files a command created in the working directory (an injected `touch PWNED`). */
  files: string[];
}

// Start-up noise of an interactive shell on a pipe, not an error of the paste.
const NOISE = /cannot set terminal process group|no job control in this shell|can't access tty; job control turned off/;

/**
 * One long-lived shell of each kind, started as runInShell first needs it (spawning a shell per
 * paste was most of fix-safety's CPU: ~2,000 spawns of a large worker). It reads its stdin from a
 * FIFO this process alone writes: every paste is written to it as it would be pasted, top-level
 * lines of an interactive shell, then a line printing an end marker to its stdout (a file). It
 * exits at EOF, when this process ends.
 */
interface Session {
  pid: number;
  input: number;
  out: number;
  err: number;
  outAt: number;
  errAt: number;
  seq: number;
}
const sessions = new Map<Shell, Session>();
const nap = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(nap, 0, 0, ms);
const TIMEOUT_MS = 60_000;

const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

function endSession(shell: Shell): void {
  const s = sessions.get(shell);
  if (!s) return;
  sessions.delete(shell);
  for (const fd of [s.input, s.out, s.err]) closeSync(fd);
  try {
    process.kill(s.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
process.on('exit', () => SHELLS.forEach(endSession));

function session(shell: Shell): Session {
  const open = sessions.get(shell);
  if (open && alive(open.pid)) return open;
  if (open) endSession(shell);
  const dir = mkdtempSync(join(tmpdir(), `meshdoctor-${shell}-`));
  const fifo = join(dir, 'stdin');
  const made = spawnSync('mkfifo', [fifo]);
  if (made.status !== 0) throw new Error(`mkfifo: ${String(made.stderr)}`);
  const out = openSync(join(dir, 'stdout'), 'w+');
  const err = openSync(join(dir, 'stderr'), 'w+');
  // sh opens the FIFO as the shell's stdin and execs it: the shell is the only reader, this
  // process the only writer (EOF when it ends).
  const child = spawn('/bin/sh', ['-c', 'exec "$@" < "$0"', fifo, ...ARGV[shell]], {
    cwd: tmpdir(),
    env: { PATH: '/nonexistent', HOME: '/home/x' },
    stdio: ['ignore', out, err],
  });
  child.unref();
  const deadline = Date.now() + TIMEOUT_MS;
  let input = -1;
  while (input < 0) {
    try {
      input = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() > deadline) throw e;
      sleep(1);
    }
  }
  // The shell and this process hold what they need open: nothing of the directory is left behind.
  rmSync(dir, { recursive: true, force: true });
  const s: Session = { pid: child.pid!, input, out, err, outAt: 0, errAt: 0, seq: 0 };
  sessions.set(shell, s);
  return s;
}

/** Write all of `text` to the non-blocking FIFO, waiting while the shell has not read enough of it. */
function writeAll(s: Session, text: string, deadline: number): void {
  const buf = Buffer.from(text);
  for (let at = 0; at < buf.length;) {
    try {
      at += writeSync(s.input, buf, at, buf.length - at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      if (Date.now() > deadline || !alive(s.pid)) throw new Error('the shell stopped reading');
      sleep(1);
    }
  }
}

/** What was appended to a file descriptor's file since `from`. */
function readFrom(fd: number, from: number): Buffer {
  const size = fstatSync(fd).size;
  const buf = Buffer.alloc(Math.max(0, size - from));
  let n = 0;
  while (n < buf.length) {
    const r = readSync(fd, buf, n, buf.length - n, from + n);
    if (r === 0) break;
    n += r;
  }
  return buf.subarray(0, n);
}

/**
 * Paste `lines` into `shell` (each preceded by `L=<n>` so calls know their line) in a fresh directory.
 * The paste is what a fresh shell was given before: the preamble (it defines the stubs again),
 * then the lines, each at top level, read and run one at a time.
 */
export function runInShell(shell: Shell, lines: string[]): ShellRun {
  const s = session(shell);
  const dir = mkdtempSync(join(tmpdir(), `meshdoctor-${shell}-`));
  const work = join(dir, 'cwd');
  const seq = ++s.seq;
  const PRINTF = shell === 'dash' ? 'command printf' : 'builtin printf';
  const script = [
    preamble(shell),
    `export OUT='${join(dir, 'argv')}' NF='${join(dir, 'nf')}'`,
    `cd '${work}'`,
    ...lines.map((l, i) => `L=${i}\n${l}`),
    // After the paste: back out of its directory, say it is done.
    `cd /`,
    `${PRINTF} 'DONE%s\\n' ${seq}`,
    '',
  ].join('\n');
  const errors: string[] = [];
  let stderr = '';
  try {
    mkdirSync(work);
    const deadline = Date.now() + TIMEOUT_MS;
    const done = `DONE${seq}\n`;
    let said = '';
    try {
      writeAll(s, script, deadline);
      for (;;) {
        said += readFrom(s.out, s.outAt + said.length).toString('latin1');
        if (said.includes(done)) break;
        if (Date.now() > deadline) throw new Error(`the paste did not end within ${TIMEOUT_MS} ms`);
        if (!alive(s.pid)) throw new Error('the shell exited during the paste');
        sleep(0.2);
      }
      s.outAt += said.length;
    } catch (e) {
      errors.push(String(e));
    }
    const err = readFrom(s.err, s.errAt);
    s.errAt += err.length;
    stderr = err.toString('utf8');
    if (errors.length) endSession(shell);
    const read = (f: string) => {
      try {
        return readFileSync(join(dir, f), 'utf8');
      } catch {
        return '';
      }
    };
    const calls = readdirSync(dir)
      .filter((f) => f.startsWith('argv.'))
      .flatMap((f) =>
        read(f)
          .split('END\0')
          .filter(Boolean)
          .map((c) => c.split('\0').slice(0, -1))
          .map(([line, ...argv]) => ({ line: Number(line), argv })),
      )
      // In the order of the lines; the commands of one pipeline run at once: in argv order.
      .sort(
        (a, b) =>
          a.line - b.line ||
          (a.argv.join('\0') < b.argv.join('\0') ? -1 : a.argv.join('\0') > b.argv.join('\0') ? 1 : 0),
      );
    const notFound = read('nf')
      .split('\n')
      .filter(Boolean)
      .map((l) => ({ line: Number(l.slice(0, l.indexOf(' '))), command: l.slice(l.indexOf(' ') + 1) }));
    for (const m of stderr.matchAll(/(?:\/usr\/bin\/|\/bin\/)?(?:bash|dash|zsh): [^\n\r]*/g)) {
      if (NOISE.test(m[0])) continue;
      const nf = /^\S+ \d+: (.+): not found$/.exec(m[0]);
      if (shell === 'dash' && nf) notFound.push({ line: -1, command: nf[1]! });
      else errors.push(m[0]);
    }
    return { calls, notFound, errors, files: readdirSync(work) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** runInShell in bash, dash and zsh. */
export const runEverywhere = (lines: string[]): Record<Shell, ShellRun> =>
  Object.fromEntries(SHELLS.map((s) => [s, runInShell(s, lines)])) as Record<Shell, ShellRun>;

/** Run lines in bash; the argv of every command they ran, and any command not found (as `NOTFOUND cmd`). */
export function runInBash(lines: string[]): { calls: string[][]; notFound: string[] } {
  const r = runInShell('bash', lines);
  return {
    calls: r.calls.map((c) => c.argv),
    notFound: [...r.notFound.map((n) => `NOTFOUND ${n.command}`), ...r.errors, ...r.files.map((f) => `CREATED ${f}`)],
  };
}

/** Values that break a naive shell line; `⟨N|` and `N⟩` mark where each one starts and ends. */
export const HOSTILE = [
  (n: number) => `⟨${n}|a\nb; touch PWNED${n}⟩`,
  (n: number) => `⟨${n}|x'$(touch PWNED)'"\`touch PWNED\`"${n}⟩`,
  (n: number) => `⟨${n}|\u001b]52;c;cHduZWQ=\u0007\r${n}⟩`,
  (n: number) => `⟨${n}| -A --all #${n}⟩`,
  (n: number) => `⟨${n}|$HOME\\\t\u2028${n}⟩`,
  (n: number) => `⟨${n}|odd$(touch PWNED${n}) ;x & y | z > f < g !! ~ * ? [a] {b,c} =e ^f %g \\'h${n}⟩`,
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

/** Label keys of the fixtures that mean nothing to a mesh (webhook selectors and fixes use them): made hostile too. */
const CUSTOM_KEYS = new Set(['example.com/no-mesh', 'openshift.io/cluster-monitoring', 'tier', 'role']);
/** Injection markers: a value none of them accepts reaches messages and fixes as it is. */
const MARKER_KEYS = new Set([
  'linkerd.io/inject',
  'sidecar.istio.io/inject',
  'istio-injection',
  'kuma.io/sidecar-injection',
  'consul.hashicorp.com/connect-inject',
]);
const MARKER_WORDS = new Set(['enabled', 'disabled', 'true', 'false', 'ingress', '']);
const MAPS = new Set(['labels', 'annotations', 'matchLabels']);

/**
 * A cluster whose every piece of text that can reach a fix line is hostile, replaced consistently
 * wherever it appears: namespace and object names (so ownerReference names too), Istio revision
 * names, marker values no mesh accepts, custom label keys (and selectors on them); and every other
 * bare pod (the first, third, ...) gets an ownerReference to a controller of a hostile kind and name (one no one knows:
 * its pods are deleted by name for it to re-create). `variant(i)` is the hostile text of value i.
 */
export function hostileCluster(
  objects: K8sObject[],
  variant: (i: number) => string,
): { objects: K8sObject[]; values: string[] } {
  const texts = new Set<string>();
  const collect = (v: unknown, parent = ''): void => {
    if (Array.isArray(v)) return v.forEach((x) => collect(x, parent));
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (MAPS.has(parent) && typeof x === 'string') {
        if (CUSTOM_KEYS.has(k)) texts.add(k);
        if (MARKER_KEYS.has(k) && !MARKER_WORDS.has(x)) texts.add(x);
        if (k === 'istio.io/rev' && x !== 'default') texts.add(x);
      }
      collect(x, k);
    }
  };
  collect(objects);
  for (const o of objects) {
    const ns = o.metadata?.namespace;
    if (o.kind === 'Namespace' && o.metadata?.name && !SYSTEM.has(o.metadata.name)) texts.add(o.metadata.name);
    if (ns && !SYSTEM.has(ns) && o.metadata?.name) texts.add(o.metadata.name);
  }
  const bare = objects
    .filter((o) => o.kind === 'Pod' && !o.metadata?.ownerReferences?.length && !SYSTEM.has(o.metadata?.namespace ?? ''))
    .filter((_, i) => i % 2 === 0);
  const map = new Map([...texts].sort().map((t, i) => [t, `${t}${variant(i)}`]));
  const kind = `Rollout${variant(map.size)}`;
  const owner = `owner${variant(map.size + 1)}`;
  const walk = (v: unknown, parent = ''): unknown => {
    if (typeof v === 'string') return map.get(v) ?? v;
    if (Array.isArray(v)) return v.map((x) => walk(x, parent));
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [MAPS.has(parent) ? (map.get(k) ?? k) : k, walk(x, k)]),
      );
    return v;
  };
  return {
    objects: objects.map((o) => {
      const w = walk(o) as K8sObject;
      if (!bare.includes(o)) return w;
      return {
        ...w,
        metadata: {
          ...w.metadata,
          ownerReferences: [{ apiVersion: 'example.com/v1', kind, name: owner, uid: 'u-hostile', controller: true }],
        },
      };
    }),
    values: [...map.values(), ...(bare.length ? [kind, owner] : [])],
  };
}
