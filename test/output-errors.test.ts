/**
 * Output that cannot be written is a failed run (issue "Hostile input, round 2", items 10 and 11).
 *
 * stdout: any write error but EPIPE (ENOSPC on /dev/full, EIO, EBADF) ends in one line on stderr
 * and exit 2, for every command, decided once stdout has taken everything; EPIPE (`| head`) keeps
 * its quiet exit. Run as a child process (bin/meshdoctor.js over the built dist/, which
 * `npm test` builds first) with stdout on the real /dev/full.
 *
 * --output-file: the report is written to a temporary file beside the target and renamed over it:
 * a symbolic link planted at the path is replaced (the file it points to is untouched), and a
 * failed write (no room, no permission) leaves the previous report whole and no temporary file.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileOps } from '../src/util/io.js';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { FIXTURES, baseObjects } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/meshdoctor.js');
const BUILT = existsSync(join(ROOT, 'dist/cli.js'));
const GOLDEN = join(FIXTURES, 'golden-cluster.yaml');
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-output-'));

/** Run bin/meshdoctor.js with stdout on `stdout` (a path opened for writing, or 'pipe'). */
function child(
  args: string[],
  stdout: string | 'pipe',
  onStdout?: (c: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; stderr: string }> {
  const fd = stdout === 'pipe' ? 'pipe' : openSync(stdout, 'w');
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', fd, 'pipe'],
      env: { PATH: process.env.PATH, HOME: tmp },
    });
    if (typeof fd === 'number') closeSync(fd);
    let stderr = '';
    c.stderr!.on('data', (d) => (stderr += d));
    c.on('error', reject);
    c.on('close', (code) => resolve({ code, stderr }));
    onStdout?.(c);
  });
}

describe.skipIf(!BUILT || !existsSync('/dev/full'))(
  'stdout that cannot be written (/dev/full): exit 2, one line, every command',
  () => {
    let server: ApiServer;
    let kubeconfig: string;
    beforeAll(async () => {
      server = await startApiServer({ objects: baseObjects('linkerd') });
      kubeconfig = await server.writeKubeconfig(tmp, { namespace: 'shop' });
    });
    afterAll(() => server?.close());

    const commands: [string, () => string[]][] = [
      ...['table', 'wide', 'json', 'sarif', 'junit', 'markdown'].map((o): [string, () => string[]] => [
        `check -o ${o}`,
        () => ['check', '-A', '--snapshot', GOLDEN, '-o', o, '--fail-on', 'none'],
      ]),
      ['check (default table)', () => ['check', '-A', '--snapshot', GOLDEN, '--fail-on', 'none']],
      ['snapshot (live)', () => ['snapshot', '-A', '--kubeconfig', kubeconfig]],
      ['explain', () => ['explain', 'deploy/web', '-n', 'shop', '--snapshot', GOLDEN]],
      ['explain -o json', () => ['explain', 'deploy/web', '-n', 'shop', '--snapshot', GOLDEN, '-o', 'json']],
      ['checks', () => ['checks']],
      ['checks -o json', () => ['checks', '-o', 'json']],
      ['checks ID', () => ['checks', 'pod-opted-out']],
      ['completion bash', () => ['completion', 'bash']],
      ['completion zsh', () => ['completion', 'zsh']],
      ['--help', () => ['--help']],
      ['--version', () => ['--version']],
      ['no arguments (help)', () => []],
    ];
    for (const [name, args] of commands) {
      it(name, async () => {
        const r = await child(args(), '/dev/full');
        expect(r.stderr).toMatch(/^meshdoctor: cannot write to stdout: [^\n]*ENOSPC[^\n]*\n$/);
        expect(r.code).toBe(2);
      });
    }

    it('the same commands to a file that can take them still exit as before (not vacuous)', async () => {
      const out = join(tmp, 'out.txt');
      const r = await child(['check', '-A', '--snapshot', GOLDEN, '-o', 'json', '--fail-on', 'none'], out);
      expect(r).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(readFileSync(out, 'utf8')).findings.length).toBeGreaterThan(0);
      const s = await child(['snapshot', '-A', '--kubeconfig', kubeconfig], out);
      expect(s).toEqual({ code: 0, stderr: '' });
      expect(readFileSync(out, 'utf8')).toMatch(/^\{"kind":"MeshdoctorSnapshot"/);
    });

    it('EPIPE (`| head` closing the pipe) stays quiet and is not exit 2', async () => {
      const r = await child(['check', '-A', '--snapshot', GOLDEN, '-o', 'json', '--fail-on', 'none'], 'pipe', (c) =>
        c.stdout!.once('data', () => c.stdout!.destroy()),
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    });
  },
);

// ---------------------------------------------------------------------------------------------

const ARGS = ['check', '-A', '--snapshot', GOLDEN, '--only', 'pod-opted-out', '--fail-on', 'none'];
const OLD = '{"old":"report"}\n';
/** Files in `dir` other than the expected ones: temporary files left behind. */
const leftovers = (dir: string, keep: string[]) => readdirSync(dir).filter((f) => !keep.includes(f));

describe('--output-file writes a whole file or nothing', () => {
  it('a symlink planted at the path is replaced by the report; the file it pointed to is untouched', async () => {
    const dir = mkdtempSync(join(tmp, 'link-'));
    const victim = join(tmp, `victim-${Date.now()}.txt`);
    writeFileSync(victim, 'VICTIM\n');
    chmodSync(victim, 0o644);
    const path = join(dir, 'report.json');
    symlinkSync(victim, path);
    const r = await runCli([...ARGS, '--output-file', path]);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n');
    expect(lstatSync(path).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8')).findings.length).toBeGreaterThan(0);
    expect(leftovers(dir, ['report.json'])).toEqual([]);
  });

  it('a dangling symlink (to a path the attacker wants created) is replaced too, nothing created there', async () => {
    const dir = mkdtempSync(join(tmp, 'dangling-'));
    const target = join(tmp, `created-${Date.now()}.txt`);
    const path = join(dir, 'report.json');
    symlinkSync(target, path);
    const r = await runCli([...ARGS, '--output-file', path]);
    expect(r.code).toBe(0);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(path).isFile()).toBe(true);
  });

  it('an existing report keeps its permission bits', async () => {
    const dir = mkdtempSync(join(tmp, 'mode-'));
    const path = join(dir, 'report.json');
    writeFileSync(path, OLD);
    chmodSync(path, 0o600);
    expect((await runCli([...ARGS, '--output-file', path])).code).toBe(0);
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).not.toBe(OLD);
  });

  it('no room on the disk (a write fails half way): exit 2, one line, the old report intact, no temporary file', async () => {
    const dir = mkdtempSync(join(tmp, 'enospc-'));
    const path = join(dir, 'report.json');
    writeFileSync(path, OLD);
    const real = fileOps.writeSync;
    let calls = 0;
    // The first write takes a part, the next finds the disk full (what a full filesystem does).
    fileOps.writeSync = ((fd: number, buf: Buffer, off: number, len: number) => {
      if (calls++ === 0) return real(fd, buf, off, Math.max(1, Math.floor(len / 2)));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }) as typeof fileOps.writeSync;
    try {
      const r = await runCli([...ARGS, '--output-file', path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`meshdoctor: cannot write --output-file ${path}: no space left on device\n`);
      expect(calls).toBeGreaterThan(1);
    } finally {
      fileOps.writeSync = real;
    }
    expect(readFileSync(path, 'utf8')).toBe(OLD);
    expect(leftovers(dir, ['report.json'])).toEqual([]);
  });

  it('a rename that fails (the target is a directory) leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmp, 'isdir-'));
    const path = join(dir, 'report.json');
    mkdirSync(path);
    const r = await runCli([...ARGS, '--output-file', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`meshdoctor: cannot write --output-file ${path}: is a directory\n`);
    expect(leftovers(dir, ['report.json'])).toEqual([]);
  });

  it('a device or FIFO at the path is refused (it would be replaced by a regular file)', async () => {
    const r = await runCli([...ARGS, '--output-file', '/dev/null']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'meshdoctor: cannot write --output-file /dev/null: not a regular file (a device, FIFO or socket)\n',
    );
  });

  /** Make `dir` refuse new files: chmod for a normal user; root ignores modes, so the immutable attribute. */
  function readOnly(dir: string): (() => void) | undefined {
    if (process.getuid?.() !== 0) {
      chmodSync(dir, 0o555);
      return () => chmodSync(dir, 0o755);
    }
    if (spawnSync('chattr', ['+i', dir]).status !== 0) return undefined;
    return () => void spawnSync('chattr', ['-i', dir]);
  }

  it('a directory that refuses new files: exit 2, one line, the old report intact', async (ctx) => {
    const dir = mkdtempSync(join(tmp, 'readonly-'));
    const path = join(dir, 'report.json');
    writeFileSync(path, OLD);
    const undo = readOnly(dir);
    if (!undo) return ctx.skip(); // root without chattr: no way to make a directory refuse root
    try {
      const r = await runCli([...ARGS, '--output-file', path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^meshdoctor: cannot write --output-file ${path}: (permission denied|operation not permitted[^\\n]*)\\n$`,
          'i',
        ),
      );
    } finally {
      undo();
    }
    expect(readFileSync(path, 'utf8')).toBe(OLD);
    expect(leftovers(dir, ['report.json'])).toEqual([]);
  });

  // A real full filesystem: a 16 KiB tmpfs in a private mount namespace (root with unshare only).
  const canMount =
    BUILT &&
    process.getuid?.() === 0 &&
    spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=16k none /mnt']).status === 0;
  it.skipIf(!canMount)(
    'a real full filesystem (a 16 KiB tmpfs): exit 2, the old report intact, no temporary file',
    () => {
      const mnt = mkdtempSync(join(tmp, 'tmpfs-'));
      // demo/cluster.json's JSON report is about 22 KiB: more than the 16 KiB, less the old report's page, left.
      const script = [
        `mount -t tmpfs -o size=16k none "$1"`,
        `printf '%s' "$2" > "$1/report.json"`,
        `"$3" "$4" check -A --snapshot "$5" -o json --fail-on none --output-file "$1/report.json" >/dev/null; code=$?`,
        `printf '%s\\n%s\\n' "$code" "$(ls -A "$1" | tr '\\n' ' ')"; cat "$1/report.json"`,
      ].join('\n');
      const r = spawnSync(
        'unshare',
        ['-m', 'sh', '-c', script, 'sh', mnt, OLD, process.execPath, BIN, join(ROOT, 'demo/cluster.json')],
        { encoding: 'utf8' },
      );
      const [code, files, ...rest] = r.stdout.split('\n');
      expect({ code, files: files!.trim(), err: r.stderr }).toEqual({
        code: '2',
        files: 'report.json',
        err: `meshdoctor: cannot write --output-file ${mnt}/report.json: no space left on device\n`,
      });
      expect(rest.join('\n')).toBe(OLD);
    },
  );
});
