/**
 * Work that grows with hostile input, and --timeout over the whole run. A webhook whose
 * namespaceSelector lists 100k values in a NotIn over 1,000 namespaces used to re-evaluate the
 * list and build its full text (about 1 MB) for every namespace, and keep it in the evidence of
 * every finding: minutes and gigabytes. Selectors are now prepared once (a Set per term, the
 * text bounded), and --timeout, which used to bound the read only, ends a run whose checks go on
 * too long with one line and exit 2 (the clock is injected: no test waits for the wall clock).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { Deadline, DeadlineError } from '../src/util/deadline.js';
import { evalSelector, TERM_TEXT_MAX, TERM_VALUES_SHOWN } from '../src/k8s/selectors.js';
import { REPORTERS } from '../src/report/index.js';
import { runChecks } from '../src/run/run.js';
import type { K8sObject } from '../src/util/types.js';
import { main } from '../src/cli.js';
import { FIXTURES, NOW, baseObjects, snapshotFrom } from './helpers/fixtures.js';

const VALUES = 100_000;
const NAMESPACES = 1_000;

/** Linkerd whose webhook excludes 100k namespace names (the 1,000 that ask for injection among them). */
function hugeSelectorCluster(): K8sObject[] {
  const excluded = Array.from({ length: VALUES }, (_, i) => `ns-${i}`);
  const objects = baseObjects('linkerd').map((o) => {
    if (o.kind !== 'MutatingWebhookConfiguration') return o;
    const copy = structuredClone(o) as any;
    for (const h of copy.webhooks)
      h.namespaceSelector.matchExpressions.push({
        key: 'kubernetes.io/metadata.name',
        operator: 'NotIn',
        values: excluded,
      });
    return copy;
  });
  for (let i = 0; i < NAMESPACES; i++) {
    const ns = `ns-${i}`;
    objects.push(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns, uid: `uid-${ns}`, annotations: { 'linkerd.io/inject': 'enabled' } },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: ns, uid: `dep-${ns}` },
        spec: {
          replicas: 1,
          template: {
            metadata: { labels: { app: 'app' } },
            spec: { containers: [{ name: 'app', image: 'example/app:1' }] },
          },
        },
      },
    );
  }
  return objects;
}

describe('a NotIn of 100k values over 1,000 namespaces', () => {
  it('finishes, every namespace reported, and the evidence names the first values and counts the rest', () => {
    const snap = snapshotFrom(hugeSelectorCluster());
    const result = runChecks(snap, CHECKS, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
    expect(result.errors).toEqual([]);
    const excluded = result.findings.filter((f) => f.id === 'webhook-excludes-namespace');
    expect(excluded.map((f) => f.resource.name).sort()).toEqual(
      Array.from({ length: NAMESPACES }, (_, i) => `ns-${i}`).sort(),
    );
    const expected = `kubernetes.io/metadata.name notin (${Array.from({ length: TERM_VALUES_SHOWN }, (_, i) => `ns-${i}`).join(',')}, … and ${VALUES - TERM_VALUES_SHOWN} more)`;
    for (const f of excluded) {
      const terms = (f.evidence.webhooks as { failedTerms: string[] }[]).flatMap((h) => h.failedTerms);
      expect(terms).toEqual([expected]);
    }
    // The whole report stays small: about 1 KB of evidence per namespace, not the 1 MB list.
    expect(REPORTERS.json!(result, { version: 'test', color: false }).length).toBeLessThan(20 * 1024 * 1024);
  }, 180_000);

  it('term texts are bounded whatever the selector holds (a long key, long values, many values)', () => {
    const long = 'v'.repeat(100_000);
    for (const expr of [
      { key: 'k', operator: 'In', values: Array.from({ length: 50 }, (_, i) => `value-${i}`) },
      { key: long, operator: 'Exists' },
      { key: 'k', operator: 'NotIn', values: [long, long] },
      { key: 'k', operator: long, values: [] },
    ]) {
      const r = evalSelector({ matchExpressions: [expr] }, {});
      expect(r.terms).toHaveLength(1);
      expect(r.terms[0]!.term.length).toBeLessThanOrEqual(TERM_TEXT_MAX + 1);
    }
    expect(evalSelector({ matchLabels: { k: long } }, { k: long })).toEqual({
      matched: true,
      terms: [{ term: `k=${long}`.slice(0, TERM_TEXT_MAX) + '…', matched: true }],
    });
    expect(
      evalSelector({ matchExpressions: [{ key: 'k', operator: 'In', values: ['a', 'b'] }] }, { k: 'b' }).terms,
    ).toEqual([{ term: 'k in (a,b)', matched: true }]);
  });
});

/** A clock that moves `step` ms each time it is read: the deadline passes after timeout/step reads. */
const ticking = (step: number) => {
  let t = 0;
  return () => (t += step);
};

describe('--timeout covers the checks', () => {
  it('runChecks stops with a DeadlineError once the deadline passes, naming the check', () => {
    const snap = snapshotFrom(baseObjects('both'));
    const deadline = new Deadline(10_000, ticking(1_000));
    let thrown: unknown;
    try {
      runChecks(snap, CHECKS, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW, deadline });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DeadlineError);
    expect((thrown as Error).message).toMatch(
      /^the run took longer than the --timeout of 10s: stopped in check [a-z-]+ \(\d+ of \d+ checks done\)$/,
    );
    // The control: a clock that stands still lets the same run finish.
    expect(
      runChecks(snap, CHECKS, {
        mesh: 'auto',
        certExpiryWarningDays: 60,
        now: NOW,
        deadline: new Deadline(10_000, () => 0),
      }).errors,
    ).toEqual([]);
  });

  it('the CLI: one line, exit 2, nothing on stdout, for check and explain; the same run with time to spare completes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-deadline-'));
    const file = join(dir, 'cluster.json');
    writeFileSync(file, JSON.stringify({ kind: 'List', items: baseObjects('both') }));
    const cli = async (args: string[], now: () => number) => {
      let stdout = '';
      let stderr = '';
      const code = await main(args, {
        stdout: (s) => void (stdout += s),
        stderr: (s) => void (stderr += s),
        stdoutTTY: false,
        stderrTTY: false,
        env: {},
        readStdin: async () => '',
        now,
      });
      return { code, stdout, stderr };
    };
    for (const args of [
      ['check', '-A', '--snapshot', file, '-o', 'json', '--timeout', '30'],
      ['explain', 'deploy/web', '-n', 'shop', '--snapshot', join(FIXTURES, 'golden-cluster.yaml'), '--timeout', '30'],
    ]) {
      const late = await cli(args, ticking(1_000));
      expect(late.code, args[0]).toBe(2);
      expect(late.stdout).toBe('');
      expect(late.stderr).toMatch(
        /^meshdoctor: the run took longer than the --timeout of 30s: stopped in check [a-z-]+ \(\d+ of \d+ checks done\)\n$/,
      );
      const onTime = await cli(args, ticking(0.001));
      expect([0, 1], args[0]).toContain(onTime.code);
      expect(onTime.stderr).toBe('');
    }
  });
});
