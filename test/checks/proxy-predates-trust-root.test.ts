/**
 * Where proxy-predates-trust-root fires (a reinstall generated a new trust root after the pods were
 * injected), and its near misses: a bundled rotation, a reinstall with the same anchors, pods
 * re-created since (test/helpers/check-tester.ts). Times are the fixtures' own; "now" is the tests' NOW.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('proxy-predates-trust-root', {
  fires: [
    {
      fixtures: 'fires-linkerd-cli-reinstall.yaml',
      findings: ['Deployment shop/web', 'StatefulSet shop/db'],
    },
    {
      fixtures: 'fires-linkerd-helm-reinstall.yaml',
      findings: ['Deployment shop/web', 'StatefulSet shop/db', 'Deployment payments/api'],
    },
    // An upgrade that replaced the anchors in place and rolled the issuer out (linkerd/linkerd2#8664).
    {
      fixtures: 'fires-linkerd-upgrade-anchors.yaml',
      findings: ['Deployment linkerd-viz/metrics-api', 'Deployment shop/web', 'StatefulSet shop/db'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-anchor-without-rollout.yaml' },
    { fixtures: 'ok-linkerd-bundle-rotation.yaml' },
    { fixtures: 'ok-linkerd-reinstall-same-anchors.yaml' },
    { fixtures: 'ok-linkerd-restarted-after-reinstall.yaml' },
  ],
});

describe('proxy-predates-trust-root: the window, the evidence and the fix', () => {
  it('says when the root became valid, what the reinstall re-created, and restarts the workload', () => {
    const fs = findings(cluster('linkerd', ['checks/proxy-predates-trust-root/fires-linkerd-helm-reinstall.yaml']), [
      'proxy-predates-trust-root',
    ]);
    const api = fs.find((f) => f.resource.name === 'api')!;
    expect(api.message).toBe(
      '1 pod of Deployment payments/api runs a Linkerd proxy injected before the current trust root (ConfigMap linkerd/linkerd-identity-trust-roots, valid from 2026-11-10T09:00:00.000Z; Deployment linkerd/linkerd-identity created 2026-11-10T09:00:03.000Z: a reinstall or an upgrade that replaced the anchors), so it holds the old root and cannot verify the identity service or the proxies injected since (certificate signed by unknown authority) until re-created.',
    );
    // The pod whose proxy container restarted after the reinstall is still reported: the anchors were written at injection.
    expect(api.evidence.pods).toEqual([
      {
        name: 'api-7c9d8f4b5-old01',
        injectedAt: '2026-11-09T17:42:10.000Z',
        from: 'pod creationTimestamp (injection)',
      },
    ]);
    expect(api.evidence.trustRoot).toMatchObject({ validFrom: '2026-11-10T09:00:00.000Z', key: 'ca-bundle.crt' });
    expect(api.fix.join('\n')).toContain('kubectl rollout restart deployment/api -n payments');
    expect(api.affectedPods).toBe(1);
  });

  it('stays silent on every healthy cluster and beside another mesh', () => {
    for (const base of ['linkerd', 'both', 'linkerd+kuma'] as const)
      expect(findings(cluster(base, []), ['proxy-predates-trust-root'])).toEqual([]);
  });
});
