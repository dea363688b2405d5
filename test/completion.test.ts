/**
 * Shell completion: the scripts are valid shell, offer exactly the commands and flags of the
 * commander program (derived from it here too, so they cannot drift), and complete for real:
 * bash runs the completion function on typed command lines.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli.js';
import { CHECKS } from '../src/checks/index.js';
import { REPORTERS } from '../src/report/index.js';
import { runCli } from './helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-completion-'));
const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));
const program = buildProgram(
  { stdout: () => {}, stderr: () => {}, stdoutTTY: false, stderrTTY: false, env: {}, readStdin: async () => '' },
  () => {},
);
/** The commands a user sees (not the hidden __complete that kubectl_complete-meshdoctor runs). */
const commands = program.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden);
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
  const out = execFileSync('bash', ['--norc', '-c', code, 'bash', file], {
    encoding: 'utf8',
    env: { PATH: path, HOME: tmp },
  });
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
    const names = commands.map((c) => c.name());
    expect(names).toEqual(expect.arrayContaining(['check', 'snapshot', 'explain', 'checks', 'completion']));
    expect(complete(file, 'meshdoctor ')).toEqual([...names, '-V', '--version', '-h', '--help']);
    for (const c of commands) {
      const got = complete(file, `meshdoctor ${c.name()} -`);
      expect(got.sort(), c.name()).toEqual([...flagsOf(c), '-h', '--help'].sort());
    }
    expect(complete(file, 'meshdoctor explain --')).not.toContain('--only');
    expect(complete(file, 'meshdoctor ch')).toEqual(['check', 'checks']);
  });

  it('completes flag values: choices, check ids (also after a comma), files', async () => {
    const file = await script('bash');
    // check's -o offers the output formats of the reporter map, set from it when a command runs.
    expect(complete(file, 'meshdoctor check -o ')).toEqual(Object.keys(REPORTERS));
    expect(complete(file, 'meshdoctor explain -o ')).toEqual(['table', 'json', 'yaml']);
    // -A takes its value only after '=' (--all-namespaces=true): the next word is a flag again.
    expect(complete(file, 'meshdoctor check -A --fail')).toEqual(['--fail-on']);
    expect(complete(file, 'meshdoctor check --fail-on w')).toEqual(['warning']);
    expect(complete(file, 'meshdoctor completion ')).toEqual(['-h', '--help', 'bash', 'zsh', 'fish']);
    expect(complete(file, 'meshdoctor check --only ')).toEqual(CHECKS.flatMap((c) => [c.id, c.code]));
    expect(complete(file, 'meshdoctor check --skip webhook-ca-e')).toEqual([
      'webhook-ca-expired',
      'webhook-ca-expiring',
    ]);
    expect(complete(file, 'meshdoctor check --only namespace-not-enabled,pod-o')).toEqual([
      'namespace-not-enabled,pod-opted-out',
    ]);
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
      '#!/bin/sh\ncase "$*" in *namespaces*) printf "namespace/default\\nnamespace/shop\\nnamespace/staging\\n" ;; *get-contexts*) printf "prod\\nstaging\\n" ;; esac\n',
    );
    chmodSync(join(fake, 'kubectl'), 0o755);
    const withFake = `${fake}${delimiter}/usr/bin${delimiter}/bin`;
    expect(complete(file, 'meshdoctor check -n s', withFake)).toEqual(['shop', 'staging']);
    expect(complete(file, 'meshdoctor explain --context p', withFake)).toEqual(['prod']);
    const empty = join(tmp, 'empty');
    execFileSync('mkdir', ['-p', empty]);
    // No kubectl on PATH (bash itself is run by absolute path): no candidates, no error.
    const code = `source "$1"; COMP_WORDS=(meshdoctor check -n ''); COMP_CWORD=3; _meshdoctor; echo "n=\${#COMPREPLY[@]}"`;
    expect(
      execFileSync('/bin/bash', ['--norc', '-c', code, 'bash', file], { encoding: 'utf8', env: { PATH: empty } }),
    ).toBe('n=0\n');
  });

  it("explain's workload from kubectl, in the namespace of -n; a name kubectl could not have is dropped (issue 35 item 7)", async () => {
    const file = await script('bash');
    const fake = join(tmp, 'fakebin-workloads');
    execFileSync('mkdir', ['-p', fake]);
    // Echo the namespace asked for into a name, and add names no API server allows (a shell word, a newline trick).
    writeFileSync(
      join(fake, 'kubectl'),
      '#!/bin/sh\nns=all; while [ $# -gt 0 ]; do [ "$1" = -n ] && ns="$2"; shift; done\nprintf "deployment.apps/cart\\nstatefulset.apps/db-$ns\\ndeployment.apps/\\$(touch pwned)\\ncronjob.batch/a;b\\nconfigmap/x\\n"\n',
    );
    chmodSync(join(fake, 'kubectl'), 0o755);
    const withFake = `${fake}${delimiter}/usr/bin${delimiter}/bin`;
    expect(complete(file, 'meshdoctor explain ', withFake)).toEqual([
      'deployment.apps/cart',
      'statefulset.apps/db-all',
    ]);
    expect(complete(file, 'meshdoctor explain -n shop s', withFake)).toEqual(['statefulset.apps/db-shop']);
    // A namespace that is no DNS label is not passed on.
    expect(complete(file, 'meshdoctor explain -n $(x) s', withFake)).toEqual(['statefulset.apps/db-all']);
    expect(complete(file, 'meshdoctor explain --', withFake)).toContain('--namespace');
    expect(existsSync(join(tmp, 'pwned'))).toBe(false);
    // kubectl's plugin completion: the same candidates.
    const saved = process.env.PATH;
    process.env.PATH = withFake; // spawnSync finds kubectl on the process's PATH
    try {
      const r = await runCli(['__complete', '--', 'explain', '-n', 'shop', '']);
      expect(r.stdout).toBe(
        'statefulset.apps/db-shop\n:4\n'.replace('statefulset', 'deployment.apps/cart\nstatefulset'),
      );
    } finally {
      process.env.PATH = saved;
    }
  });

  it('an unknown shell is a usage error (exit 2)', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
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

// ---------------------------------------------------------------------------------------------
// Hostile names (issue "Hostile input, round 2", item 1): a namespace from a hostile API server or
// a context name in any merged kubeconfig must neither run when TAB is pressed (`compgen -W
// "$(...)"` expands it in bash, bashcompinit globs it in zsh) nor when the completed line is run
// (bash inserts a candidate as it is): every candidate is inert.

/** A directory with a stub kubectl printing $NS_FILE / $CTX_FILE, and a meshdoctor recording its argv (NUL-separated) to ./ran. */
function stubs(): { bin: string; ns: string; ctx: string } {
  const dir = mkdtempSync(join(tmp, 'hostile-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'kubectl'),
    '#!/bin/sh\ncase "$*" in *namespaces*) cat "$NS_FILE" ;; *get-contexts*) cat "$CTX_FILE" ;; esac\n',
  );
  // Written whole, then renamed: the file `ran` never exists half written (the test reads it once it exists).
  writeFileSync(
    join(bin, 'meshdoctor'),
    '#!/bin/sh\nfor a; do printf \'%s\\0\' "$a"; done > ran.part && mv ran.part ran\n',
  );
  chmodSync(join(bin, 'kubectl'), 0o755);
  chmodSync(join(bin, 'meshdoctor'), 0o755);
  return { bin, ns: join(dir, 'ns.txt'), ctx: join(dir, 'ctx.txt') };
}

/** Names that run a command, glob, split or quote when a shell expands or parses them. */
const HOSTILE = [
  '$(touch PWNED)',
  '`touch PWNED`',
  'a;touch PWNED',
  'a&&touch PWNED',
  'a|touch PWNED',
  "it's",
  'say "hi"',
  '*(e:touch PWNED:)',
  "*(e:'touch PWNED':)",
  '-rf',
  '--help',
  '!!',
  '~root',
  '{a,b}',
  'a #;touch PWNED',
  '$HOME',
  'a\\b',
  '>PWNED',
  '<(touch PWNED)',
];

/**
 * The candidates `_meshdoctor` gives for `meshdoctor check FLAG ` with kubectl printing `lines`, in
 * bash, and in zsh through bashcompinit's own compgen -F and its `${(Q)...}` (what
 * _bash_complete hands to compadd, which quotes again); plus whether anything ran.
 */
function candidates(
  shell: 'bash' | 'zsh',
  file: string,
  flag: string,
  lines: string[],
): { got: string[]; pwned: boolean } {
  const s = stubs();
  writeFileSync(s.ns, lines.map((l) => `namespace/${l}\n`).join(''));
  writeFileSync(s.ctx, lines.map((l) => `${l}\n`).join(''));
  const cwd = mkdtempSync(join(tmp, 'cwd-'));
  const env = { PATH: `${s.bin}${delimiter}/usr/bin${delimiter}/bin`, HOME: tmp, NS_FILE: s.ns, CTX_FILE: s.ctx };
  const words = `COMP_WORDS=(meshdoctor check ${flag} ''); COMP_CWORD=3`;
  let out: string;
  if (shell === 'bash') {
    // Each candidate as the shell would read it back from the command line: eval'd into the positional words.
    const code = `source "$1"; ${words}; _meshdoctor; for c in "\${COMPREPLY[@]}"; do eval "set -- $c"; [ $# = 1 ] || printf 'WORDS %s\\0' "$#"; printf '%s\\0' "$1"; done`;
    out = execFileSync('bash', ['--norc', '--noprofile', '-c', code, 'bash', file], { cwd, env, encoding: 'utf8' });
  } else {
    // As _bash_complete does: the lines compgen prints, empty ones dropped, each unquoted once;
    // one trailing space becomes compadd's suffix, not part of the word.
    // compinit's dump file is kept (in the test's directory): without it each zsh spends ~0.3 s scanning fpath.
    const code = `autoload -U compinit && compinit -u -d "$2"; source "$1"; ${words}; m=( \${(f)"$(compgen -F _meshdoctor -- '')"} ); for c in "\${(@)m}"; do c="\${(Q)c}"; c="\${c% }"; [[ -n $c ]] && printf '%s\\0' "$c"; done; true`;
    out = execFileSync('zsh', ['-f', '-c', code, 'zsh', file, join(tmp, 'zcompdump')], { cwd, env, encoding: 'utf8' });
  }
  return { got: out.split('\0').slice(0, -1), pwned: existsSync(join(cwd, 'PWNED')) };
}

const DNS1123 = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SHELLS = onPath('zsh') ? (['bash', 'zsh'] as const) : (['bash'] as const);

describe('completion of names from the cluster and the kubeconfig is inert', () => {
  if (!onPath('zsh')) it.skip('zsh is not installed: its cases are skipped', () => {});

  for (const shell of SHELLS) {
    it(`${shell}: a namespace can only be a DNS-1123 label; every other name from the API server is dropped, nothing runs`, async () => {
      const file = await script(shell);
      const r = candidates(shell, file, '-n', [
        'default',
        ...HOSTILE,
        'shop',
        'a\x1bb',
        'UPPER',
        `${'a'.repeat(64)}`,
        `${'a'.repeat(63)}`,
      ]);
      expect(r).toEqual({ got: ['default', 'shop', 'a'.repeat(63)], pwned: false });
    });

    it(`${shell}: a context name is offered quoted, so that it reads back as exactly that one word; nothing runs`, async () => {
      const file = await script(shell);
      const r = candidates(shell, file, '--context', ['prod', ...HOSTILE, 'my ctx', 'bad\x1b]52;c;x\x07name']);
      // Names with a control character are dropped (a newline would split one name into two candidates).
      expect(r).toEqual({ got: ['prod', ...HOSTILE, 'my ctx'], pwned: false });
    });

    it(`${shell}: property: any context names read back as themselves (or are dropped for a control character), nothing runs`, async () => {
      const file = await script(shell);
      const unit = fc.oneof(
        fc.constantFrom(...'$`;&|\'"*?[](){}<>!~#\\ -=:,.@^%+é字', '\t', '\n', '\x1b', '\x7f'),
        fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
      );
      const name = fc.string({ unit, minLength: 1, maxLength: 12 });
      fc.assert(
        fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 8 }), (names) => {
          // kubectl prints one name per line: a newline makes two lines of one name; NUL bytes are
          // dropped from its output; lines with any other control character are dropped.
          const kept = names
            .flatMap((n) => n.replaceAll('\0', '').split('\n'))
            .filter((l) => l !== '' && !/[\x00-\x1f\x7f]/.test(l));
          // zsh's _bash_complete makes one trailing space compadd's suffix (the word is inserted without it).
          const want = shell === 'zsh' ? kept.map((n) => n.replace(/ $/, '')).filter((n) => n !== '') : kept;
          expect(candidates(shell, file, '--context', names)).toEqual({ got: want, pwned: false });
        }),
        { numRuns: 25 },
      );
    });

    it(`${shell}: property: of any namespace names only DNS-1123 labels are offered, all of them`, async () => {
      const file = await script(shell);
      const name = fc.oneof(
        fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/),
        fc.string({ minLength: 1, maxLength: 10 }),
      );
      fc.assert(
        fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 8 }), (names) => {
          const r = candidates(shell, file, '-n', names);
          expect(r).toEqual({ got: names.filter((n) => DNS1123.test(n)), pwned: false });
        }),
        { numRuns: 25 },
      );
    });
  }
});

/** Runs test/helpers/complete.zsh: the shell on a pseudo-terminal, TAB pressed, the line run with Enter. */
function typed(
  shell: 'bash' | 'zsh' | 'fish',
  file: string,
  line: string,
  ns: string[],
  ctx: string[],
): { line: string; argv: string[]; pwned: boolean } {
  const s = stubs();
  writeFileSync(s.ns, ns.map((l) => `namespace/${l}\n`).join(''));
  writeFileSync(s.ctx, ctx.map((l) => `${l}\n`).join(''));
  const cwd = mkdtempSync(join(tmp, 'pty-'));
  execFileSync('zsh', ['-f', join(import.meta.dirname, 'helpers/complete.zsh'), shell, file, cwd, line], {
    env: {
      PATH: `${s.bin}${delimiter}/usr/bin${delimiter}/bin`,
      HOME: tmp,
      NS_FILE: s.ns,
      CTX_FILE: s.ctx,
      TERM: 'dumb',
    },
    timeout: 30_000,
  });
  const ran = existsSync(join(cwd, 'ran')) ? readFileSync(join(cwd, 'ran'), 'utf8').split('\0').slice(0, -1) : [];
  return { line: readFileSync(join(cwd, 'line'), 'utf8'), argv: ran, pwned: existsSync(join(cwd, 'PWNED')) };
}

const zpty = onPath('zsh') && spawnSync('zsh', ['-f', '-c', 'zmodload zsh/zpty']).status === 0;

describe.skipIf(!zpty)('TAB pressed in a real interactive bash and zsh (pseudo-terminal), then Enter', () => {
  for (const shell of ['bash', 'zsh'] as const) {
    it(`${shell}: each hostile context completes to one inert word: the line runs meshdoctor with exactly that argument`, async () => {
      const file = await script(shell);
      const problems: string[] = [];
      for (const name of HOSTILE) {
        const r = typed(shell, file, 'meshdoctor check --context ', [], [name]);
        const want = ['check', '--context', name];
        if (r.pwned || JSON.stringify(r.argv) !== JSON.stringify(want))
          problems.push(
            `${JSON.stringify(name)}: line ${JSON.stringify(r.line)} ran ${JSON.stringify(r.argv)}${r.pwned ? ', PWNED' : ''}`,
          );
      }
      expect(problems).toEqual([]);
    }, 120_000);

    it(`${shell}: two hostile contexts with a common start: the common part inserted is inert too`, async () => {
      const file = await script(shell);
      const r = typed(shell, file, 'meshdoctor check --context ', [], ['x$(touch PWNED)a', 'x$(touch PWNED)b']);
      expect(r.pwned).toBe(false);
      expect(r.argv).toEqual(['check', '--context', 'x$(touch PWNED)']);
    }, 30_000);

    it(`${shell}: hostile namespaces are never offered; the valid one is`, async () => {
      const file = await script(shell);
      const r = typed(shell, file, 'meshdoctor check -n ', [...HOSTILE, 'shop'], []);
      expect(r).toMatchObject({ argv: ['check', '-n', 'shop'], pwned: false });
      const none = typed(shell, file, 'meshdoctor check -n ', HOSTILE, []);
      expect(none).toMatchObject({ argv: ['check', '-n'], pwned: false });
    }, 30_000);
  }
});

// ---------------------------------------------------------------------------------------------
// fish (issue 27, Distribution): `complete` lines from the same spec; fish escapes a candidate
// itself when it inserts it, so the script only filters names.

/** fish's candidates for `line` (complete -C), without descriptions; and whether anything ran. */
function fishComplete(
  file: string,
  line: string,
  ns: string[] = [],
  ctx: string[] = [],
): { got: string[]; pwned: boolean } {
  const s = stubs();
  writeFileSync(s.ns, ns.map((l) => `namespace/${l}\n`).join(''));
  writeFileSync(s.ctx, ctx.map((l) => `${l}\n`).join(''));
  // Not beside the files completed (fish-snap.json): fish matches `fish-s` case-insensitively, so a
  // working directory named fish-S... or fish-s... would be completed too.
  mkdirSync(join(tmp, 'fish-cwd'), { recursive: true });
  const cwd = mkdtempSync(join(tmp, 'fish-cwd', 'c-'));
  const env = { PATH: `${s.bin}${delimiter}/usr/bin${delimiter}/bin`, HOME: tmp, NS_FILE: s.ns, CTX_FILE: s.ctx };
  const out = execFileSync('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', file, line], {
    cwd,
    env,
    encoding: 'utf8',
  });
  return {
    got: out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0]!),
    pwned: existsSync(join(cwd, 'PWNED')),
  };
}

describe.skipIf(!onPath('fish'))('meshdoctor completion fish (fish installed)', () => {
  it('is valid fish (fish -n) and completes both executables', async () => {
    const file = await script('fish');
    execFileSync('fish', ['--no-config', '-n', file], { env: { PATH: process.env.PATH } });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('complete -c meshdoctor ');
    expect(text).toContain('complete -c kubectl-meshdoctor ');
  });

  it('offers every command, and for each command exactly its flags', async () => {
    const file = await script('fish');
    expect(fishComplete(file, 'meshdoctor ').got.sort()).toEqual(commands.map((c) => c.name()).sort());
    for (const c of commands) {
      const long = c.options.map((o) => o.long).filter(Boolean) as string[];
      expect(fishComplete(file, `meshdoctor ${c.name()} --`).got.sort(), c.name()).toEqual([...long, '--help'].sort());
    }
  });

  it('completes flag values: choices, check ids (also after a comma), files', async () => {
    const file = await script('fish');
    expect(fishComplete(file, 'meshdoctor check -o ').got.sort()).toEqual(Object.keys(REPORTERS).sort());
    expect(fishComplete(file, 'meshdoctor check --fail-on w').got).toEqual(['warning']);
    expect(fishComplete(file, 'meshdoctor completion ').got.sort()).toEqual(['bash', 'fish', 'zsh']);
    expect(fishComplete(file, 'meshdoctor check --skip webhook-ca-e').got.sort()).toEqual([
      'webhook-ca-expired',
      'webhook-ca-expiring',
    ]);
    expect(fishComplete(file, 'meshdoctor check --only namespace-not-enabled,pod-o').got).toEqual([
      'namespace-not-enabled,pod-opted-out',
    ]);
    writeFileSync(join(tmp, 'fish-snap.json'), '{}');
    expect(fishComplete(file, `meshdoctor check --snapshot ${tmp}/fish-s`).got).toEqual([join(tmp, 'fish-snap.json')]);
    expect(fishComplete(file, 'meshdoctor check --request-timeout ').got).toEqual([]);
  });

  it('hostile names: only DNS-1123 namespaces; contexts but those with a control character or a leading ~; nothing runs', async () => {
    const file = await script('fish');
    expect(
      fishComplete(file, 'meshdoctor check -n ', ['default', ...HOSTILE, 'shop', 'a\x1bb', 'UPPER', 'a'.repeat(64)]),
    ).toEqual({
      got: ['default', 'shop'],
      pwned: false,
    });
    const r = fishComplete(
      file,
      'meshdoctor check --context ',
      [],
      ['prod', ...HOSTILE, 'my ctx', 'bad\x1b]52;c;x\x07name'],
    );
    expect(r.pwned).toBe(false);
    expect(r.got.sort()).toEqual(['prod', ...HOSTILE.filter((n) => !n.startsWith('~')), 'my ctx'].sort());
  });

  it.skipIf(!zpty)(
    'TAB in a real interactive fish, then Enter: each hostile context arrives as exactly one argument',
    async () => {
      const file = await script('fish');
      const problems: string[] = [];
      for (const name of HOSTILE.filter((n) => !n.startsWith('~'))) {
        const r = typed('fish', file, 'meshdoctor check --context ', [], [name]);
        if (r.pwned || JSON.stringify(r.argv) !== JSON.stringify(['check', '--context', name]))
          problems.push(
            `${JSON.stringify(name)}: line ${JSON.stringify(r.line)} ran ${JSON.stringify(r.argv)}${r.pwned ? ', PWNED' : ''}`,
          );
      }
      expect(problems).toEqual([]);
      // A context named ~root is not offered: fish would insert it unescaped, as root's home directory.
      expect(typed('fish', file, 'meshdoctor check --context ', [], ['~root']).argv).toEqual(['check', '--context']);
    },
    180_000,
  );
});

// ---------------------------------------------------------------------------------------------
// kubectl meshdoctor <TAB> (issue 27): kubectl 1.26+ asks kubectl_complete-meshdoctor on PATH.

const COMPLETER = join(import.meta.dirname, '..', 'bin', 'kubectl_complete-meshdoctor.js');
const BUILT = existsSync(join(import.meta.dirname, '..', 'dist', 'cli.js'));

/** kubectl_complete-meshdoctor run as kubectl runs it (the words after `meshdoctor`), a stub kubectl printing ns/ctx. */
function pluginComplete(words: string[], ns: string[] = [], ctx: string[] = []): { lines: string[]; pwned: boolean } {
  const s = stubs();
  writeFileSync(s.ns, ns.map((l) => `namespace/${l}\n`).join(''));
  writeFileSync(s.ctx, ctx.map((l) => `${l}\n`).join(''));
  const cwd = mkdtempSync(join(tmp, 'plugin-'));
  const env = { PATH: `${s.bin}${delimiter}/usr/bin${delimiter}/bin`, HOME: tmp, NS_FILE: s.ns, CTX_FILE: s.ctx };
  const out = execFileSync(process.execPath, [COMPLETER, ...words], { cwd, env, encoding: 'utf8' });
  return { lines: out.split('\n').slice(0, -1), pwned: existsSync(join(cwd, 'PWNED')) };
}

describe.skipIf(!BUILT)('kubectl_complete-meshdoctor (kubectl plugin completion)', () => {
  it('is installed beside the plugin (package.json bin)', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
    expect(pkg.bin['kubectl_complete-meshdoctor']).toBe('bin/kubectl_complete-meshdoctor.js');
  });

  it("prints candidates, then cobra's directive: 4 (no files) or 0 (the shell's own file completion)", () => {
    expect(pluginComplete(['']).lines).toEqual([
      ...commands.map((c) => c.name()),
      '-V',
      '--version',
      '-h',
      '--help',
      ':4',
    ]);
    expect(pluginComplete(['ch']).lines).toEqual(['check', 'checks', ':4']);
    expect(pluginComplete(['check', '-o', '']).lines).toEqual([...Object.keys(REPORTERS), ':4']);
    expect(pluginComplete(['check', '--only', 'namespace-not-enabled,pod-o']).lines).toEqual([
      'namespace-not-enabled,pod-opted-out',
      ':4',
    ]);
    expect(pluginComplete(['check', '--snapshot', '']).lines).toEqual([':0']);
    // Words that are meshdoctor's own options arrive as words, not as --version or --help.
    expect(pluginComplete(['check', '-V']).lines).toEqual([':4']);
    expect(pluginComplete(['--help']).lines).toEqual(['--help', ':4']);
  });

  it('hostile names: only DNS-1123 namespaces, only plain context names; nothing runs', () => {
    expect(pluginComplete(['check', '-n', ''], ['default', ...HOSTILE, 'shop', 'UPPER'])).toEqual({
      lines: ['default', 'shop', ':4'],
      pwned: false,
    });
    const eks = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod';
    expect(pluginComplete(['check', '--context', ''], [], ['kind-demo', eks, ...HOSTILE, 'my ctx'])).toEqual({
      // -rf and --help are plain words: after --context they are its value.
      lines: ['kind-demo', eks, '-rf', '--help', ':4'],
      pwned: false,
    });
  });

  it.skipIf(!onPath('kubectl'))('the real kubectl finds and runs it: kubectl __complete meshdoctor check -o ""', () => {
    const dir = mkdtempSync(join(tmp, 'kubectl-path-'));
    execFileSync('ln', [
      '-s',
      join(import.meta.dirname, '..', 'bin', 'kubectl-meshdoctor.js'),
      join(dir, 'kubectl-meshdoctor'),
    ]);
    execFileSync('ln', ['-s', COMPLETER, join(dir, 'kubectl_complete-meshdoctor')]);
    const out = execFileSync('kubectl', ['__complete', 'meshdoctor', 'check', '-o', ''], {
      env: { PATH: `${dir}${delimiter}${process.env.PATH}`, HOME: tmp },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(out.split('\n').filter(Boolean)).toEqual([...Object.keys(REPORTERS), ':4']);
  });
});
