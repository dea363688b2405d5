/**
 * The image recipe, verified without Docker or a registry: the Dockerfile is read instruction by
 * instruction and its build steps are run as written (COPY from this checkout, WORKDIR, ENV, RUN
 * with sh), each stage in a directory of its own; the final stage's ENTRYPOINT and CMD are then
 * run against the demo snapshot. So a step that fails (a file not copied, a script that needs
 * what was pruned) fails here, in CI, before anyone builds the image.
 *
 * Not covered: the base image itself (node:20-slim; the test runs on this machine's Node) and
 * USER (the files are the test's own). npm reads its cache first: without the network
 * (MESHDOCTOR_TEST_NETWORK unset) `npm ci` runs offline and the test is skipped, saying so, when
 * the cache lacks a package.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NETWORK = process.env.MESHDOCTOR_TEST_NETWORK === '1';

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions: comments dropped, `\` continuations joined. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const m = /^([A-Z]+)\s+(.*)$/.exec(t);
    if (!m) throw new Error(`Dockerfile: cannot read ${JSON.stringify(t)}`);
    out.push({ op: m[1]!, args: m[2]! });
  }
  return out;
}

function sh(
  cmd: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', cmd], { cwd, env, maxBuffer: 1 << 26, timeout: 600_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0, stdout, stderr });
    });
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-dockerfile-'));
/** Each stage's root directory, by name and by index. */
const stages = new Map<string, string>();
let final = {
  root: '',
  workdir: '/',
  entrypoint: [] as string[],
  cmd: [] as string[],
  env: {} as Record<string, string>,
};
let skipped: string | undefined;
const ran: string[] = [];

describe('the Dockerfile, its build steps run as written (no Docker, no registry)', { timeout: 900_000 }, () => {
  beforeAll(async () => {
    const args = new Map<string, string>();
    const steps = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    const at = (root: string, workdir: string, p: string) => join(root, p.startsWith('/') ? p : join(workdir, p));
    for (const { op, args: a } of steps) {
      if (op === 'ARG') {
        const [k, v] = a.split('=');
        args.set(k!, v ?? '');
      } else if (op === 'FROM') {
        const name = / AS (\S+)$/i.exec(a)?.[1] ?? `stage${stages.size}`;
        const root = join(tmp, name);
        mkdirSync(root);
        stages.set(name, root);
        final = { root, workdir: '/', entrypoint: [], cmd: [], env: {} };
      } else if (op === 'WORKDIR') {
        final.workdir = a;
        mkdirSync(at(final.root, '/', a), { recursive: true });
      } else if (op === 'ENV') {
        for (const m of a.matchAll(/(\w+)=(\S+)/g)) final.env[m[1]!] = m[2]!;
      } else if (op === 'COPY') {
        const words = a.split(/\s+/);
        const from = words[0]!.startsWith('--from=') ? stages.get(words.shift()!.slice('--from='.length)) : undefined;
        const dest = words.pop()!;
        for (const src of words) {
          const source = from ? join(from, src) : join(ROOT, src);
          const target = at(final.root, final.workdir, dest.endsWith('/') ? join(dest, src.split('/').pop()!) : dest);
          cpSync(source, target, { recursive: true });
        }
      } else if (op === 'RUN') {
        const env = {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ...final.env,
          ...(NETWORK ? {} : { npm_config_offline: 'true' }),
        };
        const r = await sh(a, at(final.root, '/', final.workdir), env);
        ran.push(a);
        if (r.code !== 0 && !NETWORK && /ENOTCACHED/.test(r.stderr)) {
          skipped = `npm's cache lacks a package for "${a}"; set MESHDOCTOR_TEST_NETWORK=1 to fetch it`;
          console.warn(`dockerfile.test.ts: the build steps are not verified: ${skipped}`);
          return;
        }
        if (r.code !== 0) throw new Error(`Dockerfile RUN ${a}: exit ${r.code}\n${r.stderr.slice(-2000)}`);
      } else if (op === 'ENTRYPOINT') {
        final.entrypoint = JSON.parse(a);
      } else if (op === 'CMD') {
        final.cmd = JSON.parse(a);
      } else if (op !== 'USER') {
        throw new Error(`Dockerfile: instruction ${op} is not understood by this test: teach it`);
      }
    }
  }, 900_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('runs every RUN step of every stage, in order', (ctx) => {
    if (skipped) ctx.skip(skipped);
    expect(ran.length).toBeGreaterThanOrEqual(2);
    expect(ran[0]).toMatch(/^npm ci\b/);
  });

  it('the final stage holds what runs, without dev or optional dependencies', (ctx) => {
    if (skipped) ctx.skip(skipped);
    const app = join(final.root, final.workdir);
    for (const p of [
      'bin/meshdoctor.js',
      'dist/cli.js',
      'package.json',
      'schema/report.schema.json',
      'node_modules/commander',
    ])
      expect(existsSync(join(app, p)), p).toBe(true);
    // The packages left (npm prune leaves the emptied @scope directories behind).
    const modules = readdirSync(join(app, 'node_modules'))
      .filter((d) => !d.startsWith('.'))
      .flatMap((d) => (d.startsWith('@') ? readdirSync(join(app, 'node_modules', d)).map((p) => `${d}/${p}`) : [d]));
    expect(modules.sort()).toEqual(
      Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).dependencies).sort(),
    );
    expect(modules).not.toContain('vitest');
    expect(modules).not.toContain('typescript');
    expect(modules).not.toContain('@kubernetes/client-node');
    expect(existsSync(join(app, 'src'))).toBe(false);
  });

  it("its ENTRYPOINT runs: --version, and the CronJob's CMD on the demo snapshot prints JSON findings, exit 0", async (ctx) => {
    if (skipped) ctx.skip(skipped);
    const [node, ...entry] = final.entrypoint;
    expect(node).toBe('node');
    const main = join(final.root, entry[0]!);
    const env = { PATH: process.env.PATH, ...final.env };
    const q = (w: string) => `'${w.replaceAll("'", "'\\''")}'`;
    const version = await sh([process.execPath, main, '--version'].map(q).join(' '), tmp, env);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    const run = await sh(
      [process.execPath, main, ...final.cmd, '--snapshot', join(ROOT, 'demo/cluster.json')].map(q).join(' '),
      tmp,
      env,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).findings.length).toBeGreaterThan(0);
  });
});
