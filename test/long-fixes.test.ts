/**
 * Fixes that grow with the cluster ("Hostile input, round 2", item 15): re-creating the pods of
 * 20,000 bare pods was 40,000 fix lines built in quadratic time (each new line looked up in the
 * lines before it). A fix now shows at most MAX_RECREATE_LINES re-creation lines and counts the
 * workloads left out in a comment line (the finding's evidence lists them all); no fix is longer
 * than MAX_FIX_LINES, whatever built it.
 */
import { cmd } from '../src/fix/steps.js';
import { render } from '../src/fix/render.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import type { Check } from '../src/checks/define.js';
import { MAX_RECREATE_LINES, MAX_RESTART_REFS, recreateAll } from '../src/fix/commands.js';
import type { Workload } from '../src/facts/model.js';
import { MAX_FIX_LINES, capFix, runChecks } from '../src/run/run.js';
import { fixLineProblem, isComment } from '../src/util/shell.js';
import type { K8sObject } from '../src/util/types.js';
import { NOW, baseObjects, findings, overlay, snapshotFrom } from './helpers/fixtures.js';

const bare = (n: number, ns = 'bulk'): K8sObject[] => [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, uid: `ns-${ns}` } },
  ...Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `p-${i}`,
      namespace: ns,
      uid: `u${i}`,
      creationTimestamp: '2026-11-01T00:00:00Z',
      labels: { app: 'bulk' },
    },
    spec: { containers: [{ name: 'app', image: 'app' }] },
    status: { phase: 'Running' },
  })),
];

const LEFT_OUT =
  /^# (\d+) more workloads? to re-create the same way, left out to keep this fix short: the evidence of this finding lists them, see -o json$/;

describe('long fix lists are summarised', () => {
  it('20,000 bare pods in a namespace to enable: a short fix, the rest counted, every pod in the evidence', () => {
    const fs = findings(
      snapshotFrom(overlay(baseObjects('linkerd'), bare(20_000)), { allNamespaces: false, namespace: 'bulk' }),
      ['namespace-not-enabled'],
    );
    expect(fs).toHaveLength(1);
    const f = fs[0]!;
    expect(f.fix.length).toBeLessThanOrEqual(MAX_RECREATE_LINES + 2);
    expect(f.fix[0]).toBe('kubectl annotate namespace bulk linkerd.io/inject=enabled --overwrite');
    // Each pod shown is re-created whole (get, then replace): never half of one.
    const shown = f.fix.filter((l) => l.startsWith('kubectl get pod ')).length;
    expect(f.fix.filter((l) => l.startsWith('kubectl replace --force -f ')).length).toBe(shown);
    expect(Number(LEFT_OUT.exec(f.fix.at(-1)!)?.[1])).toBe(20_000 - shown);
    expect(f.evidence.unmeshedWorkloads).toHaveLength(20_000);
    for (const line of f.fix) expect(fixLineProblem(line), line).toBeUndefined();
  }, 240_000);

  it('recreateAll, any workloads: at most MAX_RECREATE_LINES lines and one count; each workload shown once or counted', () => {
    const kinds = ['Deployment', 'StatefulSet', 'DaemonSet', 'Pod', 'Rollout', 'CronJob'] as const;
    const workload = fc.record({
      kind: fc.constantFrom(...kinds),
      ns: fc.constantFrom('a', 'b'),
      name: fc.stringMatching(/^[a-z]{1,3}$/),
    });
    fc.assert(
      fc.property(fc.array(workload, { maxLength: 120 }), (specs) => {
        const ws = specs.map(
          (s): Workload =>
            ({
              ref: { kind: s.kind, namespace: s.ns, name: s.name },
              kind: s.kind,
              namespace: s.ns,
              name: s.name,
              template: {},
              templatePath: s.kind === 'Pod' ? '' : '/spec/template',
              pods: [{ kind: 'Pod', metadata: { name: `${s.name}-1`, namespace: s.ns }, status: { phase: 'Running' } }],
            }) as unknown as Workload,
        );
        const out = render(recreateAll(ws));
        const count = out.filter((l) => LEFT_OUT.test(l));
        expect(count.length).toBeLessThanOrEqual(1);
        expect(out.length - count.length).toBeLessThanOrEqual(MAX_RECREATE_LINES);
        if (count.length) expect(out.at(-1)).toBe(count[0]);
        // Distinct workloads that need a command: shown (by name) or counted, never both, never twice.
        const distinct = new Map(
          ws.filter((w) => w.kind !== 'CronJob').map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w]),
        );
        const refsShown = out
          .filter((l) => l.startsWith('kubectl rollout restart '))
          .flatMap((l) => {
            const refs = l.split(' ').slice(3, -2);
            expect(refs.length).toBeLessThanOrEqual(MAX_RESTART_REFS);
            return refs.map((r) => `${l.split(' ').at(-1)}/${r}`);
          });
        expect(new Set(refsShown).size).toBe(refsShown.length);
        const others = out.filter(
          (l) => l.startsWith('kubectl delete pod ') || l.startsWith('kubectl get pod '),
        ).length;
        const left = count.length ? Number(LEFT_OUT.exec(count[0]!)![1]) : 0;
        expect(refsShown.length + others + left).toBe(distinct.size);
        for (const line of out) expect(fixLineProblem(line), line).toBeUndefined();
      }),
      { seed: 15, numRuns: 300 },
    );
  });

  it('any fix longer than MAX_FIX_LINES is cut there, with a comment line counting the rest', () => {
    const many: Check = {
      ...CHECKS[0]!,
      *run() {
        yield {
          mesh: 'linkerd',
          message: 'many lines.',
          resource: { kind: 'Namespace', name: 'x' },
          evidence: {},
          fix: Array.from({ length: 100 }, (_, i) => cmd`kubectl get pod ${`p-${i}`} -n x`),
        };
      },
    };
    const r = runChecks(snapshotFrom(baseObjects('linkerd')), [many], {
      mesh: 'auto',
      certExpiryWarningDays: 60,
      now: NOW,
    });
    const fix = r.findings[0]!.fix;
    expect(fix).toHaveLength(MAX_FIX_LINES);
    expect(fix.slice(0, -1)).toEqual(
      Array.from({ length: MAX_FIX_LINES - 1 }, (_, i) => `kubectl get pod p-${i} -n x`),
    );
    expect(fix.at(-1)).toBe(
      `# ${100 - MAX_FIX_LINES + 1} more fix lines left out to keep this fix short: the evidence of this finding names the objects, see -o json`,
    );
    expect(isComment(fix.at(-1)!)).toBe(true);
    expect(capFix(['a', 'b'])).toEqual(['a', 'b']);
  });
});
