/**
 * The RBAC a skipped check needs (issue 13): exact, one line each, collision-free, as narrow as
 * the refusal (a kind refused in one namespace is granted there only), bound to the refused user.
 */
import { describe, expect, it } from 'vitest';
import { rbacFix } from '../src/run/coverage.js';
import { runCli } from './helpers/cli.js';
import type { Snapshot } from '../src/k8s/snapshot.js';

const live = (objects: Snapshot['objects'] = {}): Snapshot => ({
  source: { type: 'live', context: 'c' },
  scope: { allNamespaces: false, namespace: 'shop' },
  objects,
  unavailable: {},
});
const refused = (kind: string, where: string, user = 'system:serviceaccount:shop:alice') =>
  `forbidden: ${kind} is forbidden: User "${user}" cannot list resource "${kind}" in API group "" ${where}`;

describe('rbacFix', () => {
  it('cluster-scope refusals: one ClusterRole named after its rules, a ClusterRoleBinding to the refused ServiceAccount', () => {
    const out = rbacFix(live(), [
      { kind: 'namespaces', reason: refused('namespaces', 'at the cluster scope'), checks: ['a'] },
      {
        kind: 'mutatingwebhookconfigurations',
        reason: refused('mutatingwebhookconfigurations', 'at the cluster scope'),
        checks: ['b'],
      },
    ]);
    expect(out).toHaveLength(2);
    const role =
      /^kubectl create clusterrole (meshdoctor-reader-[0-9a-f]{8}) --verb=get,list --resource=namespaces,mutatingwebhookconfigurations.admissionregistration.k8s.io$/.exec(
        out[0]!,
      )![1];
    expect(out[1]).toBe(`kubectl create clusterrolebinding ${role} --clusterrole=${role} --serviceaccount=shop:alice`);
  });

  it('a kind refused only in a mesh namespace is granted there only (RoleBinding), a user by name', () => {
    const out = rbacFix(live(), [
      { kind: 'pods', reason: refused('pods', 'in the namespace "linkerd"', 'alice@example.com'), checks: ['x'] },
    ]);
    expect(out[1]).toMatch(
      /^kubectl create rolebinding meshdoctor-reader-[0-9a-f]{8} -n linkerd --clusterrole=meshdoctor-reader-[0-9a-f]{8} --user=alice@example.com$/,
    );
  });

  it('different rules, different names (a second round does not collide); no user named: USER with a hint', () => {
    const a = rbacFix(live(), [{ kind: 'pods', reason: 'forbidden: nope', checks: [] }]);
    const b = rbacFix(live(), [{ kind: 'events', reason: 'forbidden: nope', checks: [] }]);
    expect(a[0]!.split(' ')[3]).not.toBe(b[0]!.split(' ')[3]);
    expect(a[1]).toBe('# USER below: the name meshdoctor authenticates as, which kubectl auth whoami shows');
    expect(a[2]).toMatch(/ --user=USER$/);
  });

  it('nothing for offline snapshots or refusals that are not 403s', () => {
    expect(
      rbacFix({ ...live(), source: { type: 'file' } }, [{ kind: 'pods', reason: 'forbidden: x', checks: [] }]),
    ).toEqual([]);
    expect(rbacFix(live(), [{ kind: 'pods', reason: 'not found: x', checks: [] }])).toEqual([]);
  });
});

describe('--no-secrets (the default deployment reads no Secret)', () => {
  const DEMO = ['--snapshot', 'demo/cluster.json', '-A'];
  it('drops the Secrets of a snapshot, lists the checks that need one as not run (declined), and leaves the exit code to the findings', async () => {
    const only = ['--only', 'webhook-cert-mismatch,identity-cert-expired,identity-cert-expiring'];
    const r = await runCli(['check', ...DEMO, ...only, '--no-secrets', '-o', 'json']);
    const report = JSON.parse(r.stdout);
    expect(r.code).toBe(0);
    expect(report.coverage).toEqual({
      complete: true,
      unavailable: [
        {
          kind: 'secrets',
          reason: expect.stringMatching(/^not read \(--no-secrets\): no Secret was read/),
          checks: ['webhook-cert-mismatch'],
          declined: true,
        },
      ],
      rbac: [],
    });
    expect(report.summary).toMatchObject({ checksRun: 2, checksSkipped: 1 });
    // The table and markdown say it too; never the all-clear sentence.
    const table = await runCli(['check', ...DEMO, ...only, '--no-secrets']);
    expect(table.stdout).toMatch(/secrets not read \(--no-secrets\)/);
    expect(table.stdout).toMatch(/not run: webhook-cert-mismatch/);
    expect(table.stdout).not.toMatch(/No findings: every workload/);
    const md = await runCli(['check', ...DEMO, ...only, '--no-secrets', '-o', 'markdown']);
    expect(md.stdout).toMatch(/secrets not read \(--no-secrets\).*\(not run: webhook-cert-mismatch\)/);
    // --strict does not turn a choice into exit 3.
    expect((await runCli(['check', ...DEMO, ...only, '--no-secrets', '--strict'])).code).toBe(0);
  });

  it('a check that needs no Secret is untouched', async () => {
    const a = await runCli(['check', ...DEMO, '--only', 'pod-opted-out', '-o', 'json']);
    const b = await runCli(['check', ...DEMO, '--only', 'pod-opted-out', '-o', 'json', '--no-secrets']);
    expect(JSON.parse(b.stdout).coverage).toEqual({ complete: true, unavailable: [], rbac: [] });
    expect(JSON.parse(b.stdout).findings).toEqual(JSON.parse(a.stdout).findings);
  });
});
