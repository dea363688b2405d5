/**
 * Where native-sidecar-unsupported fires, and its near misses (test/helpers/check-tester.ts); the
 * API server's version beside the nodes'; message, evidence and fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { parseVersion } from '../../src/k8s/server.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';

const dir = 'checks/native-sidecar-unsupported';

checkCases('native-sidecar-unsupported', {
  fires: [
    { fixtures: 'fires-linkerd-node-1.28.yaml', findings: ['StatefulSet shop/db', 'CronJob shop/report'] },
    { fixtures: 'fires-istio-nodes-1.27.yaml', findings: ['Deployment payments/ledger', 'Job payments/migrate-v14'] },
    {
      fixtures: 'fires-kuma-node-1.28.yaml',
      findings: ['Deployment orders/api', 'Deployment billing/invoicer', 'Job orders/reindex'],
    },
    { fixtures: 'fires-consul-annotation-node-1.28.yaml', findings: ['Deployment catalog/products'] },
    { fixtures: 'fires-consul-acls-node-1.28.yaml', findings: ['Deployment catalog/products'] },
    // The API server dropped restartPolicy: the proxy is a plain init container that never exits (one finding, not also sidecar-missing).
    {
      fixtures: 'fires-kuma-server-dropped-restartpolicy.yaml',
      findings: ['Deployment orders/api', 'Deployment billing/invoicer', 'Job orders/reindex'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-node-1.29.yaml' },
    { fixtures: 'ok-istio-nodes-1.33.yaml' },
    { fixtures: 'ok-kuma-native-off.yaml' },
    { fixtures: 'ok-consul-not-native.yaml' },
    // Native sidecars everywhere, but no version read: nothing to compare.
    { base: 'both' },
  ],
});

const withServer = (snap: Snapshot, gitVersion: string): Snapshot => ({
  ...snap,
  server: { version: { state: 'read', value: parseVersion({ gitVersion })! } },
});

describe('native-sidecar-unsupported: the API server, message, evidence, fix', () => {
  it('the API server below 1.29 alone: fires, and names it', () => {
    const fs = findings(withServer(cluster('istio'), 'v1.28.3'), ['native-sidecar-unsupported']);
    expect(fs.map((f) => f.resource.name).sort()).toEqual(['ledger', 'migrate-v14']);
    const f = fs.find((x) => x.resource.name === 'ledger')!;
    expect(f.message).toBe(
      'Deployment payments/ledger gets its Istio proxy as a native sidecar (pod template annotation sidecar.istio.io/nativeSidecar=true), but the API server runs v1.28.3: native sidecars are off before Kubernetes 1.29, so its pods hang in initialization behind a proxy that never exits.',
    );
    expect(f.evidence).toMatchObject({ apiServer: 'v1.28.3', nodesOlder: [], nativeSidecarsFrom: '1.29' });
    expect(f.fix).toEqual([
      '# turn the native sidecar off for this workload, or upgrade the cluster to 1.29 or later',
      'kubectl patch deployment/ledger -n payments --type=merge -p \'{"spec":{"template":{"metadata":{"annotations":{"sidecar.istio.io/nativeSidecar":"false"}}}}}\'',
    ]);
    expect(findings(withServer(cluster('istio'), 'v1.29.0'), ['native-sidecar-unsupported'])).toEqual([]);
  });

  it('nodes: names each older node; a mesh without a per-workload switch is told to change its control plane', () => {
    const fs = findings(cluster('kuma', [`${dir}/fires-kuma-node-1.28.yaml`]), ['native-sidecar-unsupported']);
    const f = fs.find((x) => x.resource.name === 'api')!;
    expect(f.evidence).toMatchObject({
      nodesOlder: [{ node: 'kind-control-plane', kubelet: 'v1.28.9' }],
      apiServer: null,
    });
    expect(f.fix).toEqual([
      '# turn native sidecars off in the Kuma control plane, which has no switch per workload, or upgrade the cluster to 1.29 or later',
    ]);
  });
});

describe('native-sidecar-unsupported: one finding where the API server already dropped the sidecar', () => {
  const F = `${dir}/fires-kuma-server-dropped-restartpolicy.yaml`;
  it('the pod whose proxy became a plain init container is this finding alone, not also sidecar-missing', () => {
    const fs = findings(cluster('kuma', [F])).filter((f) => f.resource.name === 'api');
    expect(fs.map((f) => f.id)).toEqual(['native-sidecar-unsupported']);
    expect(fs[0]!.evidence.proxyAsPlainInitContainer).toEqual(['api-5d7f9c8b6-a1b2c']);
  });

  it('without /version, the kubelets bound the API server (version skew policy) and the message says so', () => {
    const [f] = findings(cluster('kuma', [F]), ['native-sidecar-unsupported']);
    expect(f!.evidence.apiServerBound).toEqual({
      atLeast: '1.27',
      atMost: '1.30',
      from: 'the kubelets of 1 node (https://kubernetes.io/releases/version-skew-policy/#kubelet)',
    });
    // 1.27 + 3 = 1.30: the server may run native sidecars, so it is not said to be below.
    expect(f!.message).not.toContain('the API server, its version not read');
    const old = `apiVersion: v1
kind: Node
metadata: {name: worker-1, uid: node-worker-1}
status: {nodeInfo: {kubeletVersion: v1.25.16}}
`;
    const [g] = findings(cluster('kuma', [F, old]), ['native-sidecar-unsupported']);
    expect(g!.message).toContain('the API server, its version not read, runs at most 1.28 by the version skew policy');
  });
});
