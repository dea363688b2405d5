/**
 * Shell completion: the scripts are valid shell, offer exactly the commands and flags of the
 * commander program (derived from it here too, so they cannot drift), and complete for real:
 * bash runs the completion function on typed command lines.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli.js';
import { CHECKS } from '../src/checks/index.js';
import { runCli } from './helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-completion-'));
const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));
const program = buildProgram({ stdout: () => {}, stderr: () => {}, stdoutTTY: false, stderrTTY: false, env: {}, readStdin: async () => '' }, () => {});
const flagsOf = (c: typeof program) => c.options.flatMap((o) => [o.short, o.long].filter(Boolean) as string[]);

async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell]);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  const file = join(tmp, `meshdoctor.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

/** Complete `line` (the cursor at its end) in bash; returns the candidates. */
function complete(file: string, line: string, path = process.env.PATH): string[] {
  const words = line.split(' ');
  const code = `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _meshdoctor; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['--norc', '-c', code, 'bash', file], { encoding: 'utf8', env: { PATH: path, HOME: tmp } });
  return out.split('\n').filter(Boolean);
}

describe('meshdoctor completion bash', () => {
  it('is valid bash (bash -n) and binds meshdoctor and the kubectl plugin', async () => {
    const file = await script('bash');
    execFileSync('bash', ['--norc', '-n', file], { env: { PATH: process.env.PATH } }); // throws on a syntax error
    const text = (await runCli(['completion', 'bash'])).stdout;
    expect(text).toContain('complete -F _meshdoctor meshdoctor kubectl-meshdoctor\n');
  });

  it('offers every command, and for each command exactly its flags', async () => {
    const file = await script('bash');
    const commands = program.commands.map((c) => c.name());
    expect(commands).toEqual(expect.arrayContaining(['check', 'snapshot', 'explain', 'checks', 'completion']));
    expect(complete(file, 'meshdoctor ')).toEqual([...commands, '-V', '--version', '-h', '--help']);
    for (const c of program.commands) {
      const got = complete(file, `meshdoctor ${c.name()} -`);
      expect(got.sort(), c.name()).toEqual([...flagsOf(c), '-h', '--help'].sort());
    }
    expect(complete(file, 'meshdoctor explain --')).not.toContain('--only');
    expect(complete(file, 'meshdoctor ch')).toEqual(['check', 'checks']);
  });

  it('completes flag values: choices, check ids (also after a comma), files', async () => {
    const file = await script('bash');
    const check = program.commands.find((c) => c.name() === 'check')!;
    const output = check.options.find((o) => o.long === '--output')!;
    expect(complete(file, 'meshdoctor check -o ')).toEqual(output.argChoices);
    expect(complete(file, 'meshdoctor check --fail-on w')).toEqual(['warning']);
    expect(complete(file, 'meshdoctor completion ')).toEqual(['-h', '--help', 'bash', 'zsh']);
    expect(complete(file, 'meshdoctor check --only ')).toEqual(CHECKS.flatMap((c) => [c.id, c.code]));
    expect(complete(file, 'meshdoctor check --skip webhook-ca-e')).toEqual(['webhook-ca-expired', 'webhook-ca-expiring']);
    expect(complete(file, 'meshdoctor check --only namespace-not-enabled,pod-o')).toEqual(['namespace-not-enabled,pod-opted-out']);
    writeFileSync(join(tmp, 'cluster-snap.json'), '{}');
    expect(complete(file, `meshdoctor check --snapshot ${tmp}/cluster-s`)).toEqual([join(tmp, 'cluster-snap.json')]);
    expect(complete(file, 'meshdoctor check --request-timeout ')).toEqual([]);
  });

  it('namespaces and contexts come from kubectl when it exists, nothing otherwise', async () => {
    const file = await script('bash');
    const fake = join(tmp, 'fakebin');
    execFileSync('mkdir', ['-p', fake]);
    writeFileSync(
      join(fake, 'kubectl'),
      '#!/bin/sh\ncase "$*" in *namespaces*) echo "default shop staging" ;; *get-contexts*) printf "prod\\nstaging\\n" ;; esac\n',
    );
    chmodSync(join(fake, 'kubectl'), 0o755);
    const withFake = `${fake}${delimiter}/usr/bin${delimiter}/bin`;
    expect(complete(file, 'meshdoctor check -n s', withFake)).toEqual(['shop', 'staging']);
    expect(complete(file, 'meshdoctor explain --context p', withFake)).toEqual(['prod']);
    const empty = join(tmp, 'empty');
    execFileSync('mkdir', ['-p', empty]);
    // No kubectl on PATH (bash itself is run by absolute path): no candidates, no error.
    const code = `source "$1"; COMP_WORDS=(meshdoctor check -n ''); COMP_CWORD=3; _meshdoctor; echo "n=\${#COMPREPLY[@]}"`;
    expect(execFileSync('/bin/bash', ['--norc', '-c', code, 'bash', file], { encoding: 'utf8', env: { PATH: empty } })).toBe('n=0\n');
  });

  it('an unknown shell is a usage error (exit 2)', async () => {
    const r = await runCli(['completion', 'fish']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Allowed choices are bash, zsh/);
  });
});

describe.skipIf(!onPath('zsh'))('meshdoctor completion zsh (zsh installed)', () => {
  it('is valid zsh (zsh -n)', async () => {
    execFileSync('zsh', ['-n', await script('zsh')], { env: { PATH: process.env.PATH } });
  });
});

describe('meshdoctor completion zsh', () => {
  it('loads bashcompinit and the same function, for both executables', async () => {
    const text = (await runCli(['completion', 'zsh'])).stdout;
    expect(text.startsWith('#compdef meshdoctor kubectl-meshdoctor\n')).toBe(true);
    expect(text).toContain('bashcompinit');
    expect(text).toContain((await runCli(['completion', 'bash'])).stdout.split('\n').slice(1, -2).join('\n'));
  });
});
