/**
 * Where kubernetes-version-unsupported fires, and its near misses (test/helpers/check-tester.ts);
 * the API server's version (GET /version, Snapshot.server) beside the nodes'; message, evidence, fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cluster, findings, FIXTURES } from '../helpers/fixtures.js';
import { kubeVersion, parseVersion } from '../../src/k8s/server.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';

const dir = 'checks/kubernetes-version-unsupported';

checkCases('kubernetes-version-unsupported', {
  fires: [
    { fixtures: 'fires-linkerd-node-newer.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-istio-node-older.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-istio-digest-pinned.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-kuma-node-older.yaml', findings: ['Deployment kuma-system/kuma-control-plane'] },
    { fixtures: 'fires-consul-1.9-node-older.yaml', findings: ['Deployment consul/consul-connect-injector'] },
    // The older stable releases the Linkerd page listed (2.10 to 2.12): stable-2.10 on Kubernetes 1.24.
    { fixtures: 'fires-linkerd-stable-2.10-node-1.24.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    // consul-k8s 0.13-0.26 speak admissionregistration.k8s.io/v1beta1, gone in Kubernetes 1.22 (issue 31.7).
    {
      fixtures: 'fires-consul-0.x-v1beta1-node-1.22.yaml',
      base: 'consul-0.x',
      findings: ['Deployment consul/consul-connect-injector-webhook-deployment'],
    },
    // Two meshes on the same nodes: each judged by its own table (1.30 is past Linkerd 2.14's 1.28, inside Istio 1.24's 1.28-1.31).
    {
      fixtures: 'fires-linkerd-node-newer.yaml',
      base: 'both',
      findings: ['Deployment linkerd/linkerd-proxy-injector'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-nodes-in-range.yaml' },
    { fixtures: 'ok-linkerd-stable-2.10-node-1.23.yaml' },
    { fixtures: 'ok-istio-nodes-at-the-ends.yaml' },
    { fixtures: 'ok-kuma-node-unreadable.yaml' },
    { fixtures: 'ok-consul-release-not-in-table.yaml' },
    { fixtures: 'ok-consul-0.x-node-1.21.yaml', base: 'consul-0.x' },
    // No nodes and no server version: nothing to compare.
    { base: 'both' },
  ],
});

const withServer = (snap: Snapshot, gitVersion: string): Snapshot => ({
  ...snap,
  server: { version: { state: 'read', value: parseVersion({ gitVersion })! } },
});

describe('kubernetes-version-unsupported: the API server, message, evidence, fix', () => {
  it("the API server's version alone (no nodes read) is compared", () => {
    const fs = findings(withServer(cluster('istio'), 'v1.33.1'), ['kubernetes-version-unsupported']);
    expect(fs).toHaveLength(1);
    const f = fs[0]!;
    expect(f.message).toBe(
      'Istio 1.24.2 (istio-system/istiod) supports Kubernetes 1.28 to 1.31, but the API server runs v1.33.1.',
    );
    expect(f.evidence).toMatchObject({
      release: '1.24',
      supported: { min: '1.28', max: '1.31' },
      apiServer: 'v1.33.1',
      nodesOutside: [],
      releasesSupporting: ['1.30', '1.29', '1.28', '1.27', '1.26'],
    });
    expect(f.fix[0]).toContain(
      'upgrade Istio to a release that supports Kubernetes 1.33: 1.30, 1.29, 1.28, 1.27, 1.26',
    );
  });

  it('consul-k8s releases that speak admissionregistration.k8s.io/v1beta1 end at 1.21; older ones and 0.33 are not judged by it', () => {
    const [f] = findings(withServer(cluster('consul-0.x'), 'v1.24.3'), ['kubernetes-version-unsupported']);
    expect(f!.message).toBe(
      'Consul 0.25.0 (consul/consul-connect-injector-webhook-deployment) supports Kubernetes 1.13 to 1.21, but the API server runs v1.24.3.',
    );
    expect(f!.evidence).toMatchObject({ release: '0.25', supported: { min: '1.13', max: '1.21' } });
    // consul-k8s 0.18.0 (chart README: Kubernetes 1.9+), the same bound at the top.
    const base = readFileSync(join(FIXTURES, 'healthy/consul-0.x.yaml'), 'utf8');
    const injector = base.slice(
      base.indexOf(
        '- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: consul-connect-injector-webhook-deployment',
      ),
    );
    const only = injector.slice(0, injector.indexOf('\n- apiVersion', 1)).replace(/^- /, '').replace(/^ {2}/gm, '');
    const older = only.replaceAll('hashicorp/consul-k8s:0.25.0', 'hashicorp/consul-k8s:0.18.0');
    expect(older).not.toBe(only);
    const [g] = findings(withServer(cluster('consul-0.x', [older]), 'v1.22.0'), ['kubernetes-version-unsupported']);
    expect(g!.message).toContain('Consul 0.18.0');
    expect(g!.message).toContain('supports Kubernetes 1.9 to 1.21, but the API server runs v1.22.0');
    // consul-k8s 0.2 never calls that API (no row: not examined), nor the API server inside the range.
    expect(findings(withServer(cluster('consul-0.2'), 'v1.24.3'), ['kubernetes-version-unsupported'])).toEqual([]);
    expect(findings(withServer(cluster('consul-0.x'), 'v1.21.2'), ['kubernetes-version-unsupported'])).toEqual([]);
  });

  it('a server inside the range and nodes inside it: silent; the server outside: fires', () => {
    expect(findings(withServer(cluster('istio'), 'v1.31.0-eks-1234'), ['kubernetes-version-unsupported'])).toEqual([]);
    expect(findings(withServer(cluster('linkerd'), 'v1.29.0'), ['kubernetes-version-unsupported'])).toHaveLength(1);
  });

  it('a version no release supports yet: says so, in a line that stays a comment', () => {
    const [f] = findings(withServer(cluster('istio'), 'v1.40.0'), ['kubernetes-version-unsupported']);
    expect(f!.evidence.releasesSupporting).toEqual([]);
    expect(f!.fix).toEqual([
      '# no Istio release in the support table supports Kubernetes 1.40 yet: keep the cluster in range',
      '# or bring the cluster into 1.28 to 1.31',
    ]);
  });

  it('nodes: names each node outside the range, and says the server was not read', () => {
    const [f] = findings(cluster('linkerd', [`${dir}/fires-linkerd-node-newer.yaml`]), [
      'kubernetes-version-unsupported',
    ]);
    expect(f!.message).toBe(
      'Linkerd stable-2.14.10 (linkerd/linkerd-proxy-injector) supports Kubernetes 1.21 to 1.28, but 1 node runs kubelet v1.30.2.',
    );
    expect(f!.evidence).toMatchObject({
      apiServer: null,
      apiServerUnread: 'not read (not in the snapshot)',
      nodesOutside: [{ node: 'worker-2', kubelet: 'v1.30.2' }],
    });
    expect(f!.evidence.supported).toMatchObject({ source: expect.stringContaining('k8s-versions.md') });
  });

  it('reads provider builds of a version, and refuses what is not one', () => {
    expect(kubeVersion('v1.29.3-eks-4f4795d')).toMatchObject({ major: 1, minor: 29, patch: 3 });
    expect(kubeVersion('v1.30.2+k3s1')).toMatchObject({ major: 1, minor: 30, patch: 2 });
    expect(kubeVersion('unknown')).toBeUndefined();
    expect(kubeVersion('v1.29.3; rm -rf /')).toBeUndefined();
    // What a snapshot keeps of GET /version: major, minor and gitVersion, nothing else.
    expect(parseVersion({ gitVersion: 'v1.29.0', platform: 'linux/amd64', buildDate: 'x' })).toEqual({
      major: 1,
      minor: 29,
      gitVersion: 'v1.29.0',
    });
    expect(parseVersion({ gitVersion: 'nginx' })).toBeUndefined();
  });
});
