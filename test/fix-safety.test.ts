/**
 * Every fix line is safe to paste (issue 12): with hostile names and values in the cluster (a
 * newline, quotes, `$(...)`, backquotes, terminal escapes, a leading dash), every fix of every
 * check fixture is one line, runs no command but the ones it names, and hands each hostile value
 * to kubectl whole (stripping or splitting it would name another object).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasControl } from '../src/errors.js';
import { hostile, runInBash } from './helpers/bash.js';
import { FIXTURES, baseObjects, findings, fixtureObjects, overlay, snapshotFrom } from './helpers/fixtures.js';

/** Run one fix line in bash (see helpers/bash.ts). */
const runLine = (line: string) => runInBash([line]);

const fixtures = readdirSync(join(FIXTURES, 'checks')).flatMap((check) =>
  readdirSync(join(FIXTURES, 'checks', check))
    .filter((f) => !f.startsWith('ok-'))
    .map((f) => `checks/${check}/${f}`),
);

describe('fix lines with hostile names from the cluster', () => {
  it.each(fixtures)('%s: every fix is one line, runs only what it names, keeps each value whole', (path) => {
    const base = path.includes('ambient') ? 'istio-ambient' : path.includes('istio') ? 'istio' : 'linkerd';
    const { objects, values } = hostile(overlay(baseObjects(base), fixtureObjects(path)));
    const fs = findings(snapshotFrom(objects));
    let lines = 0;
    for (const f of fs) {
      for (const line of f.fix) {
        lines++;
        expect(hasControl(line), `${f.id}: ${JSON.stringify(line)}`).toBe(false);
        expect(line).not.toMatch(/^# fix withheld/);
        if (line.startsWith('#')) continue;
        const { calls, notFound } = runLine(line);
        expect(notFound, `${f.id}: ${line}`).toEqual([]);
        expect(calls.length, `${f.id} ran nothing: ${line}`).toBeGreaterThan(0);
        const args = calls.flat();
        for (const v of values) {
          const start = v.slice(v.indexOf('⟨'), v.indexOf('|') + 1);
          const touched = args.filter((a) => a.includes(start));
          // A value is passed whole (inside one argument), and never as an argument kubectl could read as a flag.
          for (const a of touched) expect(a, `${f.id}: ${line}`).toContain(v);
          for (const a of touched) expect(a.startsWith('-'), `${f.id}: ${line}`).toBe(false);
        }
      }
    }
    expect(lines).toBeGreaterThanOrEqual(0);
  });

  it('the hostile cases do reach fix lines (the test would see a broken quote)', () => {
    const { objects, values } = hostile(overlay(baseObjects('linkerd'), fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml')));
    const fix = findings(snapshotFrom(objects))
      .flatMap((f) => f.fix)
      .join('\n');
    expect(values.length).toBeGreaterThan(0);
    expect(fix).toContain("$'");
    // The guard itself: a naive line with a raw newline would run `touch`.
    expect(runLine(`kubectl get pod a\ntouch PWNED`).notFound).toEqual(['NOTFOUND touch']);
  });
});

describe('controllers and names no cluster can hold', () => {
  const pods = (kind: string, names: string[]) =>
    names
      .map(
        (n) => `
apiVersion: v1
kind: Pod
metadata:
  name: ${JSON.stringify(n)}
  namespace: shop
  labels: {app: odd}
  ownerReferences: [{apiVersion: x/v1, kind: ${JSON.stringify(kind)}, name: ${JSON.stringify(`odd\nrm -rf ~`)}, uid: u1, controller: true}]
spec: {containers: [{name: app, image: app}]}
status: {phase: Running}
`,
      )
      .join('---');

  it('an ownerReference kind or name with a newline stays inside the comment of one line', async () => {
    const { cluster } = await import('./helpers/fixtures.js');
    const fs = findings(cluster('linkerd', [pods('Rollout\ntouch PWNED', ['odd-1'])]));
    const fix = fs.flatMap((f) => f.fix);
    expect(fix.length).toBeGreaterThan(0);
    for (const line of fix) expect(hasControl(line), line).toBe(false);
    expect(fix).toContain('kubectl delete pod -n shop odd-1  # Rollout\\ntouch PWNED odd\\nrm -rf ~ re-creates them');
  });

  it('a pod named like a flag (--all) gets no command: kubectl would delete every pod', async () => {
    const { cluster } = await import('./helpers/fixtures.js');
    const fix = findings(cluster('linkerd', [pods('Rollout', ['--all'])])).flatMap((f) => f.fix);
    expect(fix.some((l) => l.includes('--all'))).toBe(true);
    for (const line of fix.filter((l) => l.includes('--all'))) expect(line).toMatch(/^# fix withheld: it names an object whose name starts with '-'/);
  });

  it('a name with a path in it never writes outside the current directory', async () => {
    const { fileName } = await import('../src/util.js');
    expect(fileName('../../etc/cron.d/x')).toBe('_._.._etc_cron.d_x.yaml');
    expect(fileName('-rf')).toBe('_rf.yaml');
  });
});
