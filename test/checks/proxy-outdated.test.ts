/**
 * Where proxy-outdated fires, and its near misses (test/helpers/check-tester.ts); the severity by
 * the mesh's supported skew, the evidence and the restart fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

const dir = 'checks/proxy-outdated';

checkCases('proxy-outdated', {
  fires: [
    { fixtures: 'fires-linkerd-one-behind.yaml', findings: ['Deployment shop/web'] },
    { fixtures: 'fires-linkerd-two-behind.yaml', findings: ['StatefulSet shop/db'] },
    { fixtures: 'fires-istio-one-behind.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-three-behind.yaml', findings: ['Deployment orders/api'] },
    { fixtures: 'fires-consul-older-dataplane.yaml', findings: ['Deployment catalog/products'] },
    // Servers the control plane's release is not compatible with, by consul-k8s's matrix (hashicorp/consul-k8s#1809).
    { fixtures: 'fires-consul-servers-incompatible.yaml', findings: ['StatefulSet consul/consul-server'] },
    {
      fixtures: ['fires-linkerd-one-behind.yaml', 'fires-istio-one-behind.yaml'],
      base: 'both',
      findings: ['Deployment shop/web', 'Deployment store/frontend'],
    },
  ],
  silent: [
    { fixtures: 'ok-consul-servers-compatible.yaml' },
    { fixtures: 'ok-linkerd-edge-proxy.yaml' },
    { fixtures: 'ok-linkerd-digest-annotation.yaml' },
    { fixtures: 'ok-istio-newer-proxy.yaml' },
    { fixtures: 'ok-kuma-injected-image-unknown.yaml' },
    { fixtures: 'ok-consul-custom-tag.yaml' },
  ],
});

const one = (base: 'linkerd' | 'istio' | 'kuma' | 'consul', file: string) => {
  const fs = findings(cluster(base, [`${dir}/${file}`]), ['proxy-outdated']);
  expect(fs).toHaveLength(1);
  return fs[0]!;
};

describe('proxy-outdated: severity, evidence, fix', () => {
  it('within the supported skew: a warning naming the pods, their version and where it was read, and a restart', () => {
    const f = one('linkerd', 'fires-linkerd-one-behind.yaml');
    expect(f.severity).toBe('warning');
    expect(f.affectedPods).toBe(1);
    expect(f.message).toBe(
      '1 pod of Deployment shop/web runs Linkerd proxy stable-2.13.12, older than the stable-2.14.10 its injector linkerd/linkerd-proxy-injector injects now: created before the control plane was upgraded; a restart gives it the current one.',
    );
    expect(f.evidence).toMatchObject({
      injects: { version: 'stable-2.14.10', from: expect.stringContaining('container linkerd-proxy') },
      pods: [
        {
          pod: 'web-5b7c9d8f4-aaaaa',
          version: 'stable-2.13.12',
          from: 'container linkerd-proxy image cr.l5d.io/linkerd/proxy:stable-2.13.12',
        },
      ],
      releasesBehind: 1,
      supportedSkew: { releases: 1 },
    });
    expect(f.fix).toEqual(['kubectl rollout restart deployment/web -n shop']);
  });

  it('past the supported skew: an error saying how far', () => {
    const f = one('linkerd', 'fires-linkerd-two-behind.yaml');
    expect(f.severity).toBe('error');
    expect(f.message).toContain('2 releases behind (Linkerd supports a data plane one major version');
    const k = one('kuma', 'fires-kuma-three-behind.yaml');
    expect(k.severity).toBe('error');
    expect(k.evidence).toMatchObject({
      releasesBehind: 3,
      supportedSkew: { releases: 2 },
      injects: { version: '2.14.3' },
    });
  });

  it('reads the version Istio injects from istiod, without the image variant', () => {
    const f = one('istio', 'fires-istio-one-behind.yaml');
    expect(f.evidence).toMatchObject({
      injects: { version: '1.24.2' },
      pods: [{ version: '1.23.3' }],
      releasesBehind: 1,
    });
    expect(f.severity).toBe('warning');
  });

  it("reads what Consul injects from the injector's -consul-dataplane-image flag", () => {
    const f = one('consul', 'fires-consul-older-dataplane.yaml');
    expect(f.evidence).toMatchObject({
      injects: { version: '2.0.3', from: expect.stringContaining('-consul-dataplane-image=') },
    });
  });
});
