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
    // gen9skew: a data plane ahead of its control plane past the mesh's own bound, and proxies a pod annotation pins.
    { fixtures: 'fires-kuma-three-ahead.yaml', findings: ['Deployment orders/api', 'Deployment billing/invoicer'] },
    { fixtures: 'fires-istio-pinned-newer.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-linkerd-pinned-older.yaml', findings: ['Deployment shop/web'] },
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
    { fixtures: 'ok-kuma-two-ahead.yaml' },
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

describe('proxy-outdated: proxies ahead of the control plane, and pinned proxies (gen9skew)', () => {
  it('a data plane past the lead its mesh allows: an error with the releases ahead and the skew source', () => {
    const fs = findings(cluster('kuma', [`${dir}/fires-kuma-three-ahead.yaml`]), ['proxy-outdated']);
    const f = fs.find((x) => x.resource.name === 'api')!;
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/Kuma proxy 2\.14\.3, 3 releases newer than the 2\.11\.2/);
    expect(f.evidence).toMatchObject({ releasesAhead: 3, supportedSkew: { ahead: 2 } });
  });

  it('a pinned proxy: says which annotation pins it, and the fix removes the pin instead of restarting', () => {
    const newer = one('istio', 'fires-istio-pinned-newer.yaml');
    expect(newer.message).toMatch(/pinned by the pod template annotation sidecar\.istio\.io\/proxyImage/);
    expect(JSON.stringify(newer.fix)).toMatch(/proxyImage/);
    const older = one('linkerd', 'fires-linkerd-pinned-older.yaml');
    expect(older.message).toMatch(
      /config\.linkerd\.io\/proxy-version: stable-2\.13\.12 pins it.*a restart keeps the pin/,
    );
    expect(JSON.stringify(older.fix)).not.toMatch(/rollout restart/);
  });
});
