/**
 * Where known-release-bug fires, and its near misses (test/helpers/check-tester.ts): a known bug of
 * the installed release is named only when the version is in its affected range and the cluster
 * shows its symptom; the evidence, the release that fixes it and the fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

const dir = 'checks/known-release-bug';

checkCases('known-release-bug', {
  fires: [
    { fixtures: 'fires-istio-istiod-151-crash.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-linkerd-noop-runasnonroot.yaml', findings: ['Deployment shop/web'] },
    { fixtures: 'fires-linkerd-noop-quota.yaml', findings: ['Deployment shop/api'] },
    { fixtures: 'fires-kuma-2.9.0-empty-init-container.yaml', findings: ['Deployment lrtest/lrtest-dashboard'] },
    { fixtures: 'fires-kuma-2.8-validation-restricted.yaml', findings: ['Deployment payments/checkout'] },
    { fixtures: 'fires-consul-0.2-default-annotations.yaml', findings: ['Deployment web/frontend'] },
    { fixtures: 'fires-consul-0.16-init-oomkilled.yaml', findings: ['Deployment api/apiserver'] },
    // A release older than the tables (Istio 1.0.3, olderBugs): its known bug is still named.
    { fixtures: 'fires-istio-1.5-release-1.0.3-label-env-name.yaml', findings: ['StatefulSet web/nginx'] },
    { fixtures: 'fires-kuma-1.x-0.4-headless-service.yaml', findings: ['StatefulSet orders/zk'] },
    // Bugs a pod's own spec triggers (an annotation, a flag in a container's command), gen10bugs.
    { fixtures: 'fires-linkerd-admin-port-await.yaml', findings: ['Deployment ledger/ledger'] },
    { fixtures: 'fires-istio-stats-flush-interval.yaml', findings: ['Deployment metrics/collector'] },
    { fixtures: 'fires-kuma-1.x-ebpf-init-oomkilled.yaml', findings: ['Deployment payments/ledger'] },
    { fixtures: 'fires-consul-0.10-lifecycle-token-file.yaml', findings: ['Deployment ledger/ledger'] },
    // A refusal whose message says the injected limit is 0 (istio/istio#58805, gen12bugs2).
    { fixtures: 'fires-istio-null-limit-refused.yaml', findings: ['Deployment ledger/ledger'] },
    // gen13bugs: a crash of a serving proxy (afterRunning); an ACL flag of an old major's init container.
    { fixtures: 'fires-istio-1.22.0-envoy-aborts-serving.yaml', findings: ['Deployment metrics/collector'] },
    { fixtures: 'fires-consul-0.26-redirect-traffic-acl.yaml', findings: ['Deployment infra/backend'] },
  ],
  silent: [
    { fixtures: 'ok-istio-istiod-152-crash.yaml' },
    { fixtures: 'ok-istio-istiod-150-running.yaml' },
    { fixtures: 'ok-istio-1.5-standalone-injector-crash.yaml' },
    { fixtures: 'ok-linkerd-noop-runasnonroot-fixed.yaml' },
    { fixtures: 'ok-linkerd-noop-affected-running.yaml' },
    { fixtures: 'ok-linkerd-noop-edge-build.yaml' },
    { fixtures: 'ok-linkerd-noop-quota-fixed.yaml' },
    { fixtures: 'ok-linkerd-noop-quota-app-lacks-limits.yaml' },
    { fixtures: 'ok-kuma-2.9.1-empty-init-container.yaml' },
    { fixtures: 'ok-kuma-2.8-restricted-app-container.yaml' },
    { fixtures: 'ok-kuma-2.9-validation-restricted.yaml' },
    { fixtures: 'ok-consul-0.4-default-annotations.yaml' },
    { fixtures: 'ok-consul-0.17-init-oomkilled.yaml' },
    { fixtures: 'ok-istio-1.5-release-1.0.4-label-env-name.yaml' },
    { fixtures: 'ok-kuma-1.x-0.5.1-headless-service.yaml' },
    { fixtures: 'ok-linkerd-admin-port-await-fixed.yaml' },
    { fixtures: 'ok-linkerd-admin-port-default.yaml' },
    { fixtures: 'ok-istio-stats-flush-interval-fixed.yaml' },
    { fixtures: 'ok-istio-stats-flush-interval-10s.yaml' },
    { fixtures: 'ok-kuma-2.1-ebpf-init-oomkilled.yaml' },
    { fixtures: 'ok-kuma-1.x-init-oomkilled-no-ebpf.yaml' },
    { fixtures: 'ok-consul-0.10.1-lifecycle-token-file.yaml' },
    { fixtures: 'ok-consul-0.10-lifecycle-no-acl.yaml' },
    { fixtures: 'ok-istio-null-limit-fixed.yaml' },
    { fixtures: 'ok-istio-limit-below-request.yaml' },
    // gen12bugs1: a refusal only the control plane's own PSP makes, seen on an app workload; a node agent fixed on the pod's node.
    { fixtures: 'ok-linkerd-2.11.3-psp-app-workload.yaml' },
    { fixtures: 'ok-linkerd-cni-token-agent-fixed-on-node.yaml' },
    // gen13bugs: the crash on the release that fixes it; a proxy that fails at start (not a crash while serving); no ACLs.
    { fixtures: 'ok-istio-1.22.1-envoy-aborts-serving.yaml' },
    { fixtures: 'ok-istio-1.22.0-exits-at-start.yaml' },
    { fixtures: 'ok-consul-0.26-redirect-traffic-no-acl.yaml' },
  ],
});

const one = (base: 'linkerd' | 'istio' | 'kuma' | 'consul-0.x', file: string) => {
  const fs = findings(cluster(base, [`${dir}/${file}`]), ['known-release-bug']);
  expect(fs).toHaveLength(1);
  return fs[0]!;
};

describe('known-release-bug: the bug, the release that fixes it, the fix', () => {
  it('istiod 1.5.1 crash-looping: istio/istio#23027, fixed in 1.5.2', () => {
    const f = one('istio', 'fires-istio-istiod-151-crash.yaml');
    expect(f.severity).toBe('error');
    expect(f.message).toContain('istio/istio#23027');
    expect(f.message).toContain('Fixed in Istio 1.5.2');
    expect(f.evidence).toMatchObject({
      bug: 'istio/istio#23027',
      affected: { from: '1.5.0', to: '1.5.1' },
      fixedIn: '1.5.2',
      version: { version: '1.5.1' },
      pods: ['istiod-7f8c9d6b5-m4n5b'],
      source: expect.stringContaining('13aa33b5'),
    });
    expect(String(f.fix[0])).toContain('upgrade the Istio control plane to 1.5.2 or later');
  });

  it('a pod of stable-2.12.2 whose noop the kubelet refuses: linkerd/linkerd2#9671, fixed in stable-2.12.3, then recreate', () => {
    const f = one('linkerd', 'fires-linkerd-noop-runasnonroot.yaml');
    expect(f.message).toContain('linkerd/linkerd2#9671');
    expect(f.message).toContain('runAsNonRoot and image will run as root');
    expect(f.message).toContain('Fixed in Linkerd stable-2.12.3');
    expect(f.affectedPods).toBe(1);
    expect(f.evidence).toMatchObject({ pods: ['web-5b7c9d8f4-nnnnn'], fixedIn: 'stable-2.12.3' });
  });

  it('pods refused by a quota under a stable-2.12.3 injector, the app setting its limits: linkerd/linkerd2#10162', () => {
    const f = one('linkerd', 'fires-linkerd-noop-quota.yaml');
    expect(f.message).toContain('linkerd/linkerd2#10162');
    expect(f.message).toContain('must specify limits.cpu,limits.memory');
    expect(f.evidence).toMatchObject({ fixedIn: 'stable-2.12.4', version: { version: 'stable-2.12.3' } });
  });

  it('Kuma 2.9.0 pods refused as invalid (an empty init container): kumahq/kuma#11993, fixed in 2.9.1', () => {
    const f = one('kuma', 'fires-kuma-2.9.0-empty-init-container.yaml');
    expect(f.messageId).toBe('known-release-bug/shown');
    expect(f.message).toContain('kumahq/kuma#11993');
    expect(f.message).toContain('spec.initContainers[0].name: Required value');
    expect(f.evidence).toMatchObject({
      fixedIn: '2.9.1',
      version: { version: '2.9.0' },
      source: expect.stringContaining('9beda2b2'),
    });
  });

  it('Kuma 2.8 kuma-validation refused by the restricted standard: kumahq/kuma#11176, fixed in 2.9.0', () => {
    const f = one('kuma', 'fires-kuma-2.8-validation-restricted.yaml');
    expect(f.message).toContain('kumahq/kuma#11176');
    expect(f.message).toContain('Fixed in Kuma 2.9.0');
  });

  it('consul-k8s 0.2.0 refusing pods without annotations: hashicorp/consul-k8s#20, fixed in 0.4.0', () => {
    const f = one('consul-0.x', 'fires-consul-0.2-default-annotations.yaml');
    expect(f.message).toContain('hashicorp/consul-k8s#20');
    expect(f.evidence).toMatchObject({ fixedIn: '0.4.0', version: { version: '0.2.0' } });
  });

  it('consul-k8s 0.16.0 init container OOMKilled, judged by the lifecycle sidecar image: hashicorp/consul-k8s#283', () => {
    const f = one('consul-0.x', 'fires-consul-0.16-init-oomkilled.yaml');
    expect(f.message).toContain('hashicorp/consul-k8s#283');
    expect(f.message).toContain('OOMKilled (exit code 137)');
    expect(f.evidence).toMatchObject({
      fixedIn: '0.17.0',
      version: { version: '0.16.0', from: expect.stringContaining('consul-connect-lifecycle-sidecar') },
      pods: ['apiserver-6dbcb68646-k7j2p'],
    });
  });

  it('a pod spec trigger is quoted beside the symptom: Istio 1.29.3 statsFlushInterval 1m, fixed in 1.30.5', () => {
    const f = one('istio', 'fires-istio-stats-flush-interval.yaml');
    expect(f.message).toContain('istio/istio#57736');
    expect(f.message).toContain('container istio-proxy terminated: Error (exit code 255)');
    expect(f.message).toContain('annotation sidecar.istio.io/statsFlushInterval: "1m"');
    expect(f.evidence).toMatchObject({ fixedIn: '1.30.5', version: { version: '1.29.3' } });
  });

  it('a flag in an injected container: consul-k8s 0.10.0 lifecycle sidecar with -token-file, fixed in 0.10.1', () => {
    const f = one('consul-0.x', 'fires-consul-0.10-lifecycle-token-file.yaml');
    expect(f.message).toContain('hashicorp/consul-k8s#182');
    expect(f.message).toContain('container consul-connect-lifecycle-sidecar runs -token-file');
    expect(f.evidence).toMatchObject({ fixedIn: '0.10.1', version: { version: '0.10.0' } });
  });

  it('a crash of a serving proxy: Istio 1.22.0 ended in Error after six hours, ISTIO-SECURITY-2024-004, fixed in 1.22.1', () => {
    const f = one('istio', 'fires-istio-1.22.0-envoy-aborts-serving.yaml');
    expect(f.message).toContain('istio/istio#53028');
    expect(f.message).toContain('ISTIO-SECURITY-2024-004');
    expect(f.message).toContain('container istio-proxy terminated: Error (exit code 255)');
    expect(f.evidence).toMatchObject({ fixedIn: '1.22.1', version: { version: '1.22.0' } });
  });

  it('consul-k8s 0.26.0 redirect-traffic without the ACL token, judged by the init container image: fixed in 0.33.0', () => {
    const f = one('consul-0.x', 'fires-consul-0.26-redirect-traffic-acl.yaml');
    expect(f.message).toContain('hashicorp/consul-k8s#570');
    expect(f.message).toContain('container consul-connect-inject-init runs redirect-traffic');
    expect(f.evidence).toMatchObject({
      fixedIn: '0.33.0',
      version: { version: '0.26.0', from: expect.stringContaining('consul-connect-inject-init') },
    });
  });

  it('two triggers and alternate waiting reasons: Linkerd stable-2.13.4 admin port 9990, fixed in stable-2.14.0', () => {
    const f = one('linkerd', 'fires-linkerd-admin-port-await.yaml');
    expect(f.message).toContain('container linkerd-proxy waiting: PostStartHookError');
    expect(f.message).toContain('annotation config.linkerd.io/admin-port: "9990"');
    expect(f.message).toContain('container linkerd-proxy runs linkerd-await');
    expect(f.evidence).toMatchObject({ fixedIn: 'stable-2.14.0' });
  });
});
