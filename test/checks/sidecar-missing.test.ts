/**
 * Where sidecar-missing fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/injection.test.ts, test/checks/outage.test.ts, test/checks/istio-injector.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('sidecar-missing', {
  fires: [
    { fixtures: 'fires-consul.yaml', findings: ['Deployment catalog/cart'] },
    { fixtures: 'fires-istio.yaml', findings: ['Pod payments/teller', 'Deployment store/search'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Deployment orders/cart'] },
    { fixtures: 'fires-linkerd-during-outage.yaml', findings: ['Deployment shop/cart'] },
    { fixtures: 'fires-linkerd.yaml', findings: ['Deployment shop/cart'] },
    { fixtures: 'fires-linkerd-before-ready.yaml', findings: ['Deployment shop/cart'] },
  ],
  silent: [{ fixtures: 'ok-istio.yaml' }, { fixtures: 'ok-linkerd.yaml' }, { fixtures: 'ok-second-injector-replica.yaml' }],
});

describe('sidecar-missing: pods created before the injector was first ready', () => {
  const F = 'checks/sidecar-missing/fires-linkerd-before-ready.yaml';
  it('says so, with the window from the pods creation to the injector readiness (failurePolicy Ignore)', () => {
    const [f] = findings(cluster('linkerd', [F]), ['sidecar-missing']);
    expect(f!.message).toBe(
      '2 pods of Deployment shop/cart were created at 2026-11-20T10:00:40.000Z to 2026-11-20T10:01:10.000Z, before the Linkerd injector was first ready (Deployment linkerd/linkerd-proxy-injector created 2026-11-20T10:00:00.000Z, ready 2026-11-20T10:01:30.000Z), and failurePolicy Ignore let them through but have no Linkerd proxy, although webhook linkerd-proxy-injector.linkerd.io should have injected them.',
    );
    expect(f!.evidence.createdBeforeInjectorReady).toEqual({
      deployment: 'linkerd/linkerd-proxy-injector',
      installedAt: '2026-11-20T10:00:00.000Z',
      readyAt: '2026-11-20T10:01:30.000Z',
    });
  });

  const injector = (restarts: number, podCreated: string) => `apiVersion: v1
kind: Pod
metadata:
  name: linkerd-proxy-injector-6d8f9c7b5-x2k4p
  namespace: linkerd
  uid: pod-injector
  creationTimestamp: "${podCreated}"
  labels: {linkerd.io/control-plane-component: proxy-injector, linkerd.io/control-plane-ns: linkerd, pod-template-hash: 6d8f9c7b5}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: linkerd-proxy-injector-6d8f9c7b5, uid: rs-injector, controller: true}]
spec: {containers: [{name: proxy-injector, image: "cr.l5d.io/linkerd/controller:stable-2.14.10"}]}
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-11-20T10:01:30Z"}]
  containerStatuses: [{name: proxy-injector, ready: true, restartCount: ${restarts}, state: {running: {startedAt: "2026-11-20T10:01:10Z"}}}]
`;
  it('claims nothing when the first readiness is unknown: the injector restarted, or its pod came from a later rollout', () => {
    for (const y of [injector(1, '2026-11-20T10:00:05Z'), injector(0, '2026-11-20T10:30:00Z')]) {
      const [f] = findings(cluster('linkerd', [F, y]), ['sidecar-missing']);
      expect(f!.message).not.toContain('first ready');
      expect(f!.evidence.createdBeforeInjectorReady).toBeUndefined();
    }
  });
});
