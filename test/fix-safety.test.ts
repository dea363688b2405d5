/**
 * Every fix line is safe to paste (issue 12; "Hostile input, round 2" items 2 and 3), into bash,
 * dash (sh) and an interactive zsh without `interactivecomments`, where `#` is a command and its
 * words are arguments. The classes tested, each over a large input space (fast-check):
 * - shq: any value comes back whole in all three shells, in POSIX quotes only (never `$'...'`);
 * - note: cluster text in a comment line keeps it one inert line (zsh runs `#` and nothing else);
 * - the validator (shell.ts) is sound: a line it accepts runs, in every shell, exactly the words it
 *   read, and writes no file but its own `> file`;
 * - every fix line of every fixture, with hostile names, controller kinds, marker values, label
 *   keys and revision names, and the RBAC lines with hostile namespaces and users, keep the
 *   contract: no trailing comment, each value whole, a value with a control character withheld.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rbacFix } from '../src/run/coverage.js';
import { jsonPointer } from '../src/fix/commands.js';
import { hasControl, printable } from '../src/util/errors.js';
import { fixLineProblem, guardFix, isComment, note, shq } from '../src/util/shell.js';
import type { K8sObject } from '../src/util/types.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { SHELLS, hostileCluster, runInShell, type Shell } from './helpers/bash.js';
import { commandsOf, expectPastesExactly, shells } from './helpers/paste.js';
import {
  FIXTURES,
  HEALTHY_FILES,
  baseObjects,
  baseOf,
  cluster,
  findings,
  fixtureObjects,
  overlay,
  snapshotFrom,
  type Base,
} from './helpers/fixtures.js';

/** Characters that mean something to some shell, and a few that mean nothing. */
const NASTY = [...'\'"$()`;&|<>*?[]{}!~#\\=-^%,:@+./ \t'].concat(['a', 'Z', '0', 'é', '⟩', '\u202e', '\u00a0']);
const CONTROLS = [
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u0001',
  '\u001b',
  '\u0007',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u2028',
  '\u2029',
];
const nasty = (max = 12) =>
  fc.string({ unit: fc.constantFrom(...NASTY.filter((c) => !hasControl(c))), minLength: 1, maxLength: max });
/** Hostile text: mostly shell syntax, now and then a control character. */
const hostileText = fc.oneof(
  { weight: 5, arbitrary: nasty() },
  {
    weight: 1,
    arbitrary: fc.tuple(nasty(6), fc.constantFrom(...CONTROLS), nasty(6)).map(([a, c, b]) => `${a}${c}${b}`),
  },
);
const anyText = fc.oneof(
  nasty(20),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const seedOf = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7);

describe('the quoting function and the fix-line contract (src/util/shell.ts)', () => {
  it("shq: any value without a control character comes back whole, as one argument, in bash, dash and zsh; never as $'...'", () => {
    const values = fc.sample(
      // A value starting with '-' is withheld instead (see the --all test below).
      anyText.filter((v) => !hasControl(v) && !v.startsWith('-')),
      { seed: 1, numRuns: 300 },
    );
    for (const v of values) expect(shq(v)).not.toMatch(/^\$'/);
    const lines = values.map((v) => `kubectl get ${shq(v)} x`);
    expectPastesExactly(lines);
    for (const shell of shells)
      expect(
        runInShell(shell, lines).calls.map((c) => c.argv[2]),
        shell,
      ).toEqual(values);
  });

  it('shq: a value with a control character makes the command withheld, naming the value printable and quoted', () => {
    const values = fc.sample(
      fc.tuple(nasty(8), fc.constantFrom(...CONTROLS), nasty(8)).map(([a, c, b]) => `${a}${c}${b}`),
      { seed: 2, numRuns: 100 },
    );
    const lines = values.map((v) => guardFix(`kubectl delete pod -n shop ${shq(v)} other`));
    values.forEach((v, i) => {
      expect(lines[i]).toMatch(/^# fix withheld: a control character in /);
      expect(lines[i]).toContain(note(v, 120));
      expect(lines[i]).not.toContain('kubectl');
    });
    expectPastesExactly(lines);
  });

  it('note: cluster text in a comment line keeps it one inert line in every shell (zsh runs only `#`)', () => {
    const values = fc.sample(anyText, { seed: 3, numRuns: 300 });
    const lines = values.map((v) => `# ${note(v)} re-creates these pods once they are deleted`);
    for (const [i, line] of lines.entries()) expect(line.split('\n'), JSON.stringify(values[i])).toHaveLength(1);
    expectPastesExactly(lines);
  });

  it('the validator is sound: every line it accepts runs, in every shell, exactly the words it read', () => {
    const word = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._/:=@%+,-]{1,8}$/),
      anyText.map(shq),
      fc.tuple(fc.constantFrom('--set=', 'a=', '-p'), anyText).map(([p, v]) => `${p}${shq(v)}`),
      nasty(4),
      fc.constantFrom("'a'\\''b'", "x'y'z", '|', '>', "''"),
    );
    const command = fc
      .tuple(fc.constantFrom('kubectl', 'helm', 'grep', 'linkerd'), fc.array(word, { maxLength: 5 }))
      .map(([c, args]) => [c, ...args].join(' '));
    const line = fc.oneof(
      command,
      fc.tuple(command, command).map(([a, b]) => `${a} | ${b}`),
      fc.tuple(command, fc.stringMatching(/^[a-z][a-z0-9._-]{0,8}$/)).map(([a, f]) => `${a} > ${f}`),
      fc.array(word, { maxLength: 6 }).map((ws) => `# ${ws.join(' ')}`),
    );
    const all = fc.sample(line, { seed: 4, numRuns: 1500 });
    const accepted = all.filter((l) => fixLineProblem(l) === undefined);
    // Enough of both kinds for the property to mean something.
    expect(accepted.filter((l) => !isComment(l)).length).toBeGreaterThan(150);
    expect(accepted.filter(isComment).length).toBeGreaterThan(30);
    expect(all.length - accepted.length).toBeGreaterThan(100);
    expectPastesExactly(accepted);
  });

  it("refuses what would run more than it says: trailing comments, $'...', open quotes, globs, paths, a second #", () => {
    for (const line of [
      'kubectl delete pod -n shop odd-1  # Rollout odd$(touch PWNED) re-creates them',
      "kubectl get pod $'a\\nb'",
      "kubectl get pod 'a",
      "# the app's command",
      'kubectl get pod a*',
      'kubectl get pod a > /etc/passwd',
      'kubectl get pod a > ../x',
      '# Helm: helm upgrade x  # the installed chart',
      '# kumactl install | kubectl apply -f -',
      '# (with the flags you installed with)',
      'kubectl get pod a; touch x',
      'kubectl get pod a && touch x',
      'kubectl get pod ~',
      'kubectl get pod =ls',
      'kubectl get pod a |',
      "kubectl get pod '--all'",
      "'kubectl' get pod",
      'a=b kubectl get pod',
      '#no space',
    ])
      expect(fixLineProblem(line), line).toBeDefined();
  });
});

// --- every fixture, hostile -------------------------------------------------------------------

const checkFixtures = readdirSync(join(FIXTURES, 'checks')).flatMap((check) =>
  readdirSync(join(FIXTURES, 'checks', check)).map((f) => `checks/${check}/${f}`),
);
const bases = HEALTHY_FILES;
const objectsOf = (path: string): K8sObject[] => {
  if (path === 'demo/cluster.json') {
    const snap = JSON.parse(readFileSync(join(FIXTURES, '..', '..', 'demo', 'cluster.json'), 'utf8')) as {
      objects: Record<string, K8sObject[]>;
    };
    return Object.values(snap.objects).flat();
  }
  if (path.startsWith('healthy/')) return baseObjects(path.slice('healthy/'.length) as Base);
  const file = path.split('/').pop()!;
  return overlay(baseObjects(baseOf(file)), fixtureObjects(path));
};
const reached = { args: 0, comments: 0, withheld: 0, controllers: 0 };

describe('every fix line of every fixture, with hostile cluster text, in bash, dash and zsh', () => {
  it.each([...bases.map((b) => `healthy/${b}`), ...checkFixtures, 'demo/cluster.json'])('%s', (path) => {
    const texts = fc.sample(hostileText, { seed: seedOf(path), numRuns: 64 });
    const { objects, values } = hostileCluster(objectsOf(path), (i) => `⟨${i}|${texts[i % texts.length]}${i}⟩`);
    const lines = findings(snapshotFrom(objects)).flatMap((f) => f.fix);
    // No $'...' quoting: outside single-quoted spans (a value may itself hold `$'`, quoted as `'$'\''`).
    for (const line of lines) expect(line.replace(/'[^']*'/g, ''), line).not.toContain("$'");
    const starts = values.map((v) => v.slice(v.indexOf('⟨'), v.indexOf('|') + 1));
    // A line is withheld only for a value with a control character, and says which.
    for (const line of lines.filter((l) => l.startsWith('# fix withheld'))) {
      reached.withheld++;
      expect(line).toMatch(/^# fix withheld: a control character in /);
      expect(
        values.some((v, i) => hasControl(v) && line.includes(starts[i]!)),
        line,
      ).toBe(true);
    }
    expectPastesExactly(lines);
    // Each hostile value is whole in every argument that holds it (in a -p patch: JSON-escaped, in a patch path
    // also JSON-pointer-escaped), never read as a flag.
    const forms = values.map((v) => [v, JSON.stringify(v).slice(1, -1), JSON.stringify(jsonPointer(v)).slice(1, -1)]);
    for (const line of lines.filter((l) => !isComment(l))) {
      for (const arg of commandsOf(line).flat()) {
        values.forEach((_v, i) => {
          const v = values[i]!;
          if (!arg.includes(starts[i]!)) return;
          reached.args++;
          expect(
            forms[i]!.some((f) => arg.includes(f)),
            `${JSON.stringify(v)} in ${line}`,
          ).toBe(true);
          expect(arg.startsWith('-'), line).toBe(false);
        });
      }
    }
    const kind = values.find((v) => v.startsWith('Rollout⟨'));
    for (const line of lines.filter(isComment)) {
      if (starts.some((s) => line.includes(s))) reached.comments++;
      if (kind && line.includes(kind.slice(0, kind.indexOf('|') + 1))) reached.controllers++;
    }
  });

  it('the hostile text did reach fix lines: as arguments, in comments, withheld, as a controller kind', () => {
    expect(reached.args).toBeGreaterThan(200);
    expect(reached.comments).toBeGreaterThan(100);
    expect(reached.withheld).toBeGreaterThan(20);
    expect(reached.controllers).toBeGreaterThanOrEqual(3);
  });

  it('RBAC lines for hostile namespaces and users', () => {
    const texts = fc.sample(
      hostileText.filter((t) => !t.includes('"')),
      { seed: 5, numRuns: 40 },
    );
    const live: Snapshot = {
      source: { type: 'live', context: 'c' },
      scope: { allNamespaces: true },
      objects: {},
      unavailable: {},
    };
    const lines = texts.flatMap((t, i) => {
      const refused = (where: string, user: string) =>
        `forbidden: pods is forbidden: User "${user}" cannot list resource "pods" in API group "" ${where}`;
      return [
        ...rbacFix(live, [
          {
            kind: 'pods',
            reason: refused(`in the namespace "ns${t}${i}"`, `system:serviceaccount:shop:${t}`),
            checks: ['x'],
          },
        ]),
        ...rbacFix(live, [{ kind: 'events', reason: refused(`in the namespace "${t}"`, `u${t}`), checks: ['x'] }]),
        ...rbacFix(live, [{ kind: 'pods', reason: 'forbidden: no user named', checks: ['x'] }]),
      ];
    });
    expect(lines.filter((l) => l.startsWith('kubectl create rolebinding')).length).toBeGreaterThan(40);
    expectPastesExactly(lines);
  });
});

describe('controllers and names no cluster can hold', () => {
  const pods = (kind: string, names: string[], owner = `odd\nrm -rf ~`) =>
    names
      .map(
        (n) => `
apiVersion: v1
kind: Pod
metadata:
  name: ${JSON.stringify(n)}
  namespace: shop
  labels: {app: odd}
  ownerReferences: [{apiVersion: x/v1, kind: ${JSON.stringify(kind)}, name: ${JSON.stringify(owner)}, uid: u1, controller: true}]
spec: {containers: [{name: app, image: app}]}
status: {phase: Running}
`,
      )
      .join('---');

  it('an ownerReference kind like Rollout odd$(touch PWNED): a comment line of its own, before the command; zsh runs nothing but #', () => {
    const fix = findings(
      cluster('linkerd', [pods('Rollout odd$(touch PWNED)', ['odd-1'], 'x re-creates them')]),
    ).flatMap((f) => f.fix);
    expect(fix).toContain(
      "# 'Rollout odd$(touch PWNED)' 'x re-creates them' is a kind meshdoctor does not read: if it re-creates its pods once they are deleted, this gives new ones",
    );
    expect(fix).toContain('kubectl delete pod -n shop odd-1');
    for (const line of fix) expect(line, line).not.toMatch(/ {2}#/);
    expectPastesExactly(fix);
    for (const shell of shells) expect(runInShell(shell, fix).files, shell).toEqual([]);
  });

  it('an ownerReference kind or name with a newline stays inside its own comment line', () => {
    const fix = findings(cluster('linkerd', [pods('Rollout\ntouch PWNED', ['odd-1'])])).flatMap((f) => f.fix);
    for (const line of fix) expect(hasControl(line), line).toBe(false);
    expect(fix).toContain(
      "# 'Rollout\\ntouch PWNED' 'odd\\nrm -rf ~' is a kind meshdoctor does not read: if it re-creates its pods once they are deleted, this gives new ones",
    );
    expectPastesExactly(fix);
  });

  it("a name with a control character and a quote: withheld (no $'...' that dash would end at \\'), naming it printable", () => {
    const name = "x\u0001';touch PWNED;#";
    const fix = findings(cluster('linkerd', [pods('Rollout', [name], 'odd')])).flatMap((f) => f.fix);
    const withheld = fix.filter((l) => l.startsWith('# fix withheld'));
    expect(withheld).toEqual([
      `# fix withheld: a control character in ${note(name)} keeps the command from being one safe line`,
    ]);
    expect(withheld[0]).toContain(shq(printable(name)));
    for (const line of fix) expect(line).not.toContain("$'");
    expectPastesExactly(fix);
  });

  it('a pod named like a flag (--all) gets no command: kubectl would delete every pod', () => {
    const fix = findings(cluster('linkerd', [pods('Rollout', ['--all'])])).flatMap((f) => f.fix);
    expect(fix.some((l) => l.includes('--all'))).toBe(true);
    for (const line of fix.filter((l) => l.includes('--all')))
      expect(line).toBe(
        "# fix withheld: it names '--all', which starts with a dash: no Kubernetes name does, and kubectl would read it as a flag",
      );
  });

  it('a name with a path in it never writes outside the current directory', async () => {
    const { fileName } = await import('../src/util/objects.js');
    expect(fileName('../../etc/cron.d/x')).toBe('_._.._etc_cron.d_x.yaml');
    expect(fileName('-rf')).toBe('_rf.yaml');
  });
});

/** Each shell type is used (a typo in SHELLS would silently test fewer). */
it('the three shells are bash, dash and zsh', () => {
  expect([...SHELLS].sort()).toEqual(['bash', 'dash', 'zsh'] satisfies Shell[]);
});
