/**
 * Evidence has a type per check (defineCheck<E>, src/checks/define.ts): inferred from what its
 * run() yields, or declared where its findings differ (serviceaccount-missing). The type
 * assertions fail at type-check time (`tsc -p tsconfig.test.json`, part of `npm test`) when a
 * check's evidence loses a key; the runs below hold the types to what the findings really carry.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EvidenceOf } from '../../src/checks/define.js';
import hostNetworkPod from '../../src/checks/host-network-pod.js';
import serviceaccountMissing from '../../src/checks/serviceaccount-missing.js';
import webhookMissing from '../../src/checks/webhook-missing.js';
import { baseOf, cluster, findings } from '../helpers/fixtures.js';

const run = (check: string, file: string, namespace?: string) =>
  findings(
    cluster(baseOf(file), [`checks/${check}/${file}`], namespace ? { allNamespaces: false, namespace } : undefined),
    [check],
  );

describe('evidence types', () => {
  it('host-network-pod: the pods, hostNetwork and what asks (the namespace marker, or the template)', () => {
    expectTypeOf<EvidenceOf<typeof hostNetworkPod>>().toEqualTypeOf<{
      hostNetwork: boolean;
      namespaceMarker: string | undefined;
      templateAsks: boolean;
      pods: string[];
    }>();
    const [f] = run('host-network-pod', 'fires.yaml', 'shop');
    expect(Object.keys(f!.evidence).sort()).toEqual(expect.arrayContaining(['hostNetwork', 'pods']));
  });

  it('webhook-missing: what an install creates, and what shows the mesh is meant to be there', () => {
    expectTypeOf<EvidenceOf<typeof webhookMissing>>().toExtend<{
      expectedConfigurations: string[];
      controlPlaneNamespaces: string[];
    }>();
    const [f] = run('webhook-missing', 'fires-linkerd.yaml');
    expect(f!.evidence).toMatchObject({
      expectedConfigurations: expect.any(Array),
      controlPlaneNamespaces: expect.any(Array),
    });
  });

  it('serviceaccount-missing: declared, one shape per cause', () => {
    type E = EvidenceOf<typeof serviceaccountMissing>;
    expectTypeOf<E>().toExtend<{ serviceAccount: string; pods: string[] }>();
    expectTypeOf<Extract<E, { exists: false }>>().toHaveProperty('field');
    const fs = [
      ...run('serviceaccount-missing', 'fires-linkerd.yaml'),
      ...run('serviceaccount-missing', 'fires-linkerd-token.yaml'),
    ];
    expect(fs.length).toBeGreaterThan(1);
    for (const f of fs)
      expect(f.evidence).toMatchObject({ serviceAccount: expect.any(String), pods: expect.any(Array) });
  });
});
