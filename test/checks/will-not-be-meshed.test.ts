import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { overlayManifests } from '../../src/run/manifests.js';
import { runChecks } from '../../src/run/run.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { NOW, cluster, ids, parseObjects, type Base } from '../helpers/fixtures.js';
import { checkCases } from '../helpers/check-tester.js';

const CHECK = CHECKS.filter((c) => c.id === 'will-not-be-meshed');

/** The base cluster with these manifests (file m.yaml, one document each) applied. */
function applied(base: Base, yaml: string, defaultNs = 'default'): Snapshot {
  const objects = parseObjects(yaml).map((obj, i) => ({ obj, source: { file: 'm.yaml', document: i + 1 } }));
  return overlayManifests(cluster(base), { files: ['m.yaml'], objects }, defaultNs);
}
const run = (snap: Snapshot, expectMeshed = true) => {
  const r = runChecks(snap, CHECK, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW, expectMeshed });
  expect(r.errors).toEqual([]);
  return r.findings;
};
const deploy = (name: string, ns: string, extra = '') => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: 3
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}${extra}}
    spec: {containers: [{name: app, image: example/app:1}]}
---`;

describe("'will-not-be-meshed'", () => {
  it('fires for a manifest workload no mesh would inject, with the verdict and the namespace marker fix', () => {
    const fs = run(applied('linkerd', deploy('api', 'legacy')));
    expect(ids(fs)).toEqual(['will-not-be-meshed Deployment legacy/api']);
    expect(fs[0]).toMatchObject({
      code: 'MD1011',
      severity: 'error',
      mesh: 'linkerd',
      affectedPods: 3,
      source: { file: 'm.yaml', document: 1 },
      evidence: {
        verdicts: [
          {
            mesh: 'linkerd',
            verdict:
              'the linkerd injector would skip it: neither the namespace nor the pod template has linkerd.io/inject=enabled',
          },
        ],
      },
      fix: ['kubectl annotate namespace legacy linkerd.io/inject=enabled --overwrite'],
    });
  });

  it('is silent without --expect-meshed', () => {
    expect(run(applied('linkerd', deploy('api', 'legacy')), false)).toEqual([]);
  });

  it('is silent for a workload that would be meshed, opts out explicitly, or uses hostNetwork', () => {
    const yaml =
      deploy('meshed', 'shop') +
      deploy('opted-out', 'legacy', ', annotations: {linkerd.io/inject: disabled}') +
      `
apiVersion: v1
kind: Pod
metadata: {name: agent, namespace: legacy}
spec: {hostNetwork: true, containers: [{name: agent, image: example/agent:1}]}`;
    expect(run(applied('linkerd', yaml))).toEqual([]);
  });

  it('never reports cluster workloads that are not in the manifests (legacy/billing is unmeshed)', () => {
    expect(ids(run(applied('linkerd', deploy('meshed', 'shop'))))).toEqual([]);
    // Without manifests the check has nothing to judge, even when asked to.
    expect(run(cluster('linkerd'))).toEqual([]);
  });

  it('points the fix at the manifest Namespace when it is in the same change', () => {
    const yaml =
      `
apiVersion: v1
kind: Namespace
metadata: {name: legacy, labels: {team: core}}
---` + deploy('api', 'legacy');
    const [f] = run(applied('linkerd', yaml));
    expect(f!.fix).toEqual([
      "# in m.yaml, document 1, Namespace legacy: under metadata.annotations set linkerd.io/inject: 'enabled'",
    ]);
  });

  it('Istio: the label fix; the verdict of every installed mesh', () => {
    const [f] = run(applied('istio', deploy('api', 'default')));
    expect(f).toMatchObject({
      mesh: 'istio',
      fix: ['kubectl label namespace default istio-injection=enabled --overwrite'],
    });
    const [both] = run(applied('both', deploy('api', 'default')));
    expect((both!.evidence.verdicts as { mesh: string }[]).map((v) => v.mesh)).toEqual(['linkerd', 'istio']);
  });

  it('no fix where no marker helps: Istio never injects kube-system', () => {
    const [f] = run(applied('istio', deploy('api', 'kube-system')));
    expect(f!.fix).toEqual([]);
    expect(f!.evidence.verdicts).toEqual([
      {
        mesh: 'istio',
        verdict: expect.stringMatching(/^no istio webhook would be called|^the istio injector would skip it/),
      },
    ]);
  });
});

// The check's table of cases (test/helpers/check-tester.ts): manifests checked with -f --expect-meshed.
checkCases('will-not-be-meshed', {
  fires: [
    { base: 'linkerd', manifests: deploy('api', 'legacy'), findings: ['Deployment legacy/api'] },
    { base: 'istio', manifests: deploy('api', 'default'), findings: ['Deployment default/api'] },
    // Istio never injects kube-system: no marker helps, and it is still said.
    { base: 'istio', manifests: deploy('api', 'kube-system'), findings: ['Deployment kube-system/api'] },
  ],
  silent: [
    { base: 'linkerd', manifests: deploy('meshed', 'shop') },
    { base: 'linkerd', manifests: deploy('opted-out', 'legacy', ', annotations: {linkerd.io/inject: disabled}') },
  ],
});
