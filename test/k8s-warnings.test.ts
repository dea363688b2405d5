/**
 * Warning events read whole (src/k8s/warnings.ts, issue 31 round 9): the volumes a kubelet volume warning names, and
 * what a snapshot keeps of Warning events (the kubelet's volume warnings and the meshes' own, whole; any other Warning
 * message redacted or dropped as before).
 */
import { describe, expect, it } from 'vitest';
import { volumesNamed } from '../src/k8s/warnings.js';
import { keepObject } from '../src/mesh/keep.js';

const ev = (reason: string, message: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'shop', uid: 'u' },
  involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'shop' },
  type: 'Warning',
  reason,
  message,
  source: { component: 'kubelet', host: 'node-1' },
  ...extra,
});

describe('volumesNamed', () => {
  it('reads the volume of MountVolume.SetUp and the list of unmounted volumes, across kubelet releases', () => {
    expect(
      volumesNamed('MountVolume.SetUp failed for volume "istiod-ca-cert" : configmap "istio-ca-root-cert" not found'),
    ).toEqual(['istiod-ca-cert']);
    expect(
      volumesNamed(
        'Unable to attach or mount volumes: unmounted volumes=[istiod-ca-cert], unattached volumes=[a b]: timed out waiting for the condition',
      ),
    ).toEqual(['istiod-ca-cert']);
    expect(
      volumesNamed(
        'Unable to mount volumes for pod "x": timeout expired. list of unmounted volumes=[a b]. list of unattached volumes=[c]',
      ),
    ).toEqual(['a', 'b']);
    expect(volumesNamed('something else')).toEqual([]);
  });
});

describe('what a snapshot keeps of Warning events', () => {
  it("keeps the kubelet's volume warnings and a mesh's own warning whole, with type and component", () => {
    const m = keepObject(
      'events',
      ev('FailedMount', 'MountVolume.SetUp failed for volume "v" : secret "s" not found') as any,
    )!;
    expect(m).toMatchObject({ type: 'Warning', reason: 'FailedMount', source: { component: 'kubelet' } });
    expect(m.message).toContain('secret "s" not found');
    expect((m.source as any).host).toBeUndefined();
    const k = keepObject(
      'events',
      ev('FailedToGenerateKumaDataplane', 'Failed to generate Kuma Dataplane: x', {
        source: undefined,
        reportingComponent: 'k8s.kuma.io/dataplane-generator',
      }) as any,
    )!;
    expect(k).toMatchObject({
      reportingComponent: 'k8s.kuma.io/dataplane-generator',
      message: 'Failed to generate Kuma Dataplane: x',
    });
  });
  it('drops a Warning of another reason, and a Normal event of a kept reason', () => {
    expect(keepObject('events', ev('SomethingElse', 'an app said: password=x') as any)).toBeUndefined();
    expect(keepObject('events', ev('FailedMount', 'x', { type: 'Normal' }) as any)).toBeUndefined();
  });
});
