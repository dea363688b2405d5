/**
 * Where pod-security-blocks-init fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/ambient-and-admission.test.ts, test/checks/kuma-consul.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('pod-security-blocks-init', {
  fires: [
    { fixtures: 'fires-consul-confirmed.yaml', findings: ['Deployment catalog/products', 'Job catalog/sync-prices'] },
    { fixtures: 'fires-istio-predicted.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-predicted.yaml', findings: ['Deployment orders/api', 'Job orders/reindex'] },
    // The plugin's node agent runs, but the injector is not configured for it (istio/istio#54968).
    { fixtures: 'fires-kuma-cni-agent-unused.yaml', findings: ['Deployment orders/api', 'Job orders/reindex'] },
    { fixtures: 'fires-kuma-cni-agent-not-ready.yaml', findings: ['Deployment orders/api', 'Job orders/reindex'] },
    {
      fixtures: 'fires-linkerd-cni-agent-unused.yaml',
      findings: ['Deployment shop/web', 'CronJob shop/report', 'StatefulSet shop/db'],
    },
    // A value that is not a level (Baseline, privilege, empty) is enforced as restricted (issue 36 class 12).
    { fixtures: 'fires-istio-invalid-level.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-istio-empty-level.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-invalid-level.yaml', findings: ['Deployment orders/api', 'Job orders/reindex'] },
    // No enforce label on the namespace: the API server's own PodSecurity default refused (linkerd/linkerd2#11667).
    { fixtures: 'fires-kuma-cluster-default.yaml', findings: ['Deployment orders/api'] },
    { fixtures: 'fires-istio-cluster-default.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-linkerd-cluster-default.yaml', findings: ['Deployment ingress-nginx/ingress-nginx-controller'] },
    {
      fixtures: 'fires-linkerd-confirmed.yaml',
      findings: ['Deployment shop/web', 'CronJob shop/report', 'StatefulSet shop/db'],
    },
  ],
  silent: [
    { fixtures: 'ok-consul-cni.yaml' },
    { fixtures: 'ok-consul-cni-restricted-seccomp.yaml' },
    { fixtures: 'ok-consul-transparent-proxy-off.yaml' },
    { fixtures: 'ok-istio-cni.yaml' },
    { fixtures: 'ok-kuma-cni.yaml' },
    { fixtures: 'ok-istio-privileged-invalid-version.yaml' },
    { fixtures: 'ok-kuma-invalid-warn-audit.yaml' },
    { fixtures: 'ok-kuma-privileged.yaml' },
    { fixtures: 'ok-linkerd-cni.yaml' },
    { fixtures: 'ok-istio-cluster-default-app-container.yaml' },
  ],
});

describe('pod-security-blocks-init: the CNI plugin runs but the injector does not use it', () => {
  const messages = (file: string, base: Parameters<typeof cluster>[0]) =>
    findings(cluster(base, [`checks/pod-security-blocks-init/${file}`]), ['pod-security-blocks-init']).map(
      (f) => f.message,
    );
  it('names the running DaemonSet and the setting that leaves it unused (Kuma, Linkerd; Istio in reports-gen5admit)', () => {
    for (const [file, base, ds] of [
      ['fires-kuma-cni-agent-unused.yaml', 'kuma', 'kube-system/kuma-cni-node'],
      ['fires-linkerd-cni-agent-unused.yaml', 'linkerd', 'linkerd-cni/linkerd-cni'],
    ] as const)
      for (const msg of messages(file, base)) {
        expect(msg).toContain(`CNI plugin runs (DaemonSet ${ds})`);
        expect(msg).toContain('not configured for it');
      }
  });
  it('a DaemonSet with no ready pod is not said to run', () => {
    for (const msg of messages('fires-kuma-cni-agent-not-ready.yaml', 'kuma'))
      expect(msg).not.toContain('runs (DaemonSet');
  });
});

describe('pod-security-blocks-init: who enforces the level', () => {
  it('names the cluster-wide default where the namespace has no enforce label, and the label where it has one', () => {
    for (const [base, file] of [
      ['kuma', 'fires-kuma-cluster-default.yaml'],
      ['istio', 'fires-istio-cluster-default.yaml'],
      ['linkerd', 'fires-linkerd-cluster-default.yaml'],
    ] as const) {
      const fs = findings(cluster(base, [`checks/pod-security-blocks-init/${file}`]), ['pod-security-blocks-init']);
      expect(fs.length, file).toBe(1);
      expect(fs[0]!.message).toMatch(/by the API server's cluster-wide default/);
      expect(fs[0]!.message).not.toMatch(/^Namespace \S+ enforces/);
      expect(fs[0]!.evidence.enforcedBy).toBe('cluster default (PodSecurity admission configuration)');
    }
    const labelled = findings(cluster('linkerd', ['checks/pod-security-blocks-init/fires-linkerd-confirmed.yaml']), [
      'pod-security-blocks-init',
    ]);
    expect(labelled.every((f) => /^Namespace shop enforces Pod Security "restricted"/.test(f.message))).toBe(true);
  });
});
