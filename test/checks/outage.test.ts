/**
 * Pods admitted while the injector was down are consequences of that outage (issue 4): dated
 * against the injector container's last termination and restart, and linked to its finding.
 */
import { describe, expect, it } from 'vitest';
import { cluster, findings, ids } from '../helpers/fixtures.js';

const OUTAGE = 'checks/sidecar-missing/fires-linkerd-during-outage.yaml';

describe('sidecar-missing during an injector outage', () => {
  it('names the outage, dates each pod against it, and links to the OOMKilled injector', () => {
    const fs = findings(cluster('linkerd', [OUTAGE]), ['sidecar-missing', 'injector-oomkilled']);
    expect(ids(fs)).toEqual([
      'sidecar-missing Deployment shop/cart',
      'injector-oomkilled Deployment linkerd/linkerd-proxy-injector',
    ]);
    const missing = fs[0]!;
    expect(missing.messageId).toBe('sidecar-missing/during-injector-outage-reason');
    expect(missing.params).toMatchObject({
      from: '2026-11-20T09:59:58.000Z',
      to: '2026-11-20T10:04:00.000Z',
      reason: 'OOMKilled',
    });
    expect(missing.message).toMatch(
      /were created while the Linkerd injector was down \(2026-11-20T09:59:58.000Z to 2026-11-20T10:04:00.000Z, OOMKilled\)/,
    );
    expect(missing.causedBy).toBe('injector-oom:linkerd');
    expect(fs[1]!.causeKey).toBe('injector-oom:linkerd');
    expect(missing.evidence.pods).toEqual([
      {
        name: 'cart-6f7d8c9b5-aaaaa',
        creationTimestamp: '2026-11-20T10:00:00Z',
        createdWhileInjectorDown: {
          from: '2026-11-20T09:59:58.000Z',
          to: '2026-11-20T10:04:00.000Z',
          reason: 'OOMKilled',
        },
      },
      {
        name: 'cart-6f7d8c9b5-bbbbb',
        creationTimestamp: '2026-11-20T10:03:59Z',
        createdWhileInjectorDown: {
          from: '2026-11-20T09:59:58.000Z',
          to: '2026-11-20T10:04:00.000Z',
          reason: 'OOMKilled',
        },
      },
    ]);
  });

  it('pods created outside the outage are not blamed on it', () => {
    const later = `
apiVersion: v1
kind: Pod
metadata:
  name: cart-6f7d8c9b5-bbbbb
  namespace: shop
  uid: pod-cart-b
  creationTimestamp: "2026-11-21T10:00:00Z"
  labels: {app: cart, pod-template-hash: 6f7d8c9b5}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: cart-6f7d8c9b5, uid: rs-cart, controller: true}]
spec: {containers: [{name: cart, image: example/cart:1}]}
status: {phase: Running}
`;
    const [missing] = findings(cluster('linkerd', [OUTAGE, later]), ['sidecar-missing']);
    expect(missing!.messageId).toBe('sidecar-missing/after-marker');
    expect(missing!.causedBy).toBeUndefined(); // webhook-broken:linkerd, dropped: no webhook finding here
    const pods = missing!.evidence.pods as any[];
    expect(pods[0].createdWhileInjectorDown).toBeDefined();
    expect(pods[1].createdWhileInjectorDown).toBeUndefined();
    expect(missing!.evidence.injectorOutages).toEqual([
      { from: '2026-11-20T09:59:58.000Z', to: '2026-11-20T10:04:00.000Z', reason: 'OOMKilled' },
    ]);
  });

  it('a second injector replica that stayed up means there was no outage', () => {
    const replica = 'checks/sidecar-missing/ok-second-injector-replica.yaml';
    const [missing] = findings(cluster('linkerd', [OUTAGE, replica]), ['sidecar-missing']);
    expect(missing!.messageId).toBe('sidecar-missing/after-marker');
    expect(missing!.evidence.injectorOutages).toBeUndefined();
  });
});
