/**
 * Where control-plane-down fires (test/helpers/check-tester.ts): a component of each mesh's control plane whose pods
 * crash, cannot be created (a quota), are scaled to 0 while pods wait, or cannot pull their image, on several meshes and
 * releases; and its near misses (a pod starting, one replica of two serving, scaled to 0 with nothing waiting, no
 * Citadel with no pod waiting for its Secrets). The real reports are in test/reports-gen10cp.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('control-plane-down', {
  fires: [
    {
      fixtures: 'fires-linkerd-destination-crashloop.yaml',
      findings: ['Deployment linkerd/linkerd-destination'],
      said: [
        {
          id: 'down',
          params: {
            component: 'destination service',
            why: /keeps exiting with code 1 \(Error\): its previous log says why/,
          },
        },
      ],
    },
    {
      fixtures: 'fires-istio-1.5-pilot-failedcreate-quota.yaml',
      findings: ['Deployment istio-system/istio-pilot'],
      said: [
        {
          id: 'down',
          params: { component: 'Pilot', why: /exceeded quota: compute/, affected: /store\/frontend-6c8d9f7b5-k8s9d/ },
        },
      ],
    },
    {
      fixtures: 'fires-consul-server-scaled-to-zero.yaml',
      findings: ['StatefulSet consul/consul-server'],
      said: [{ id: 'scaled-to-zero', params: { affected: /consul-connect-inject-init running and not finished/ } }],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-identity-image-pull.yaml',
      findings: ['Deployment linkerd/linkerd-identity'],
      said: [
        {
          id: 'down',
          params: {
            why: /ErrImagePull, the kubelet says: "rpc error: .*pull access denied/,
            affected: /shop\/web-5b7c9d8f4-aaaaa/,
          },
        },
      ],
    },
    {
      fixtures: 'fires-linkerd-identity-missing-service-selects-nothing.yaml',
      findings: ['Namespace linkerd'],
      said: [
        {
          id: 'missing',
          params: {
            seen: /^Service linkerd\/linkerd-identity, which they dial for it, selects no pod, and 1 pod of the mesh shows it/,
          },
        },
      ],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-identity-service-no-symptom.yaml' },
    { fixtures: 'ok-linkerd-identity-starting.yaml' },
    { fixtures: 'ok-linkerd-destination-one-replica-ready.yaml' },
    { fixtures: 'ok-consul-server-scaled-to-zero-nothing-waits.yaml' },
    { fixtures: 'ok-istio-1.5-no-citadel-nothing-waits.yaml' },
  ],
});

describe('control-plane-down: one cause, one finding', () => {
  it('names itself the cause of the symptoms other checks report', () => {
    const fs = findings(
      cluster('linkerd', ['checks/control-plane-down/fires-linkerd-stable-2.10-identity-image-pull.yaml']),
    );
    const root = fs.find((f) => f.id === 'control-plane-down')!;
    expect(root.causeKey).toBe('component-down:linkerd:identity');
    const symptom = fs.find((f) => f.id === 'proxy-cannot-start');
    expect(symptom?.causedBy).toBe(root.causeKey);
  });
});
