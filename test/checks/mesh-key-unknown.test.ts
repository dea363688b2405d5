/**
 * Where mesh-key-unknown fires (a key of a mesh's domain its installed release does not know), its
 * near misses (keys the release knows, keys only later releases know, other tools' keys), and its
 * message, evidence and fixes (src/mesh/<mesh>/releases.ts).
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

const dir = 'checks/mesh-key-unknown';

checkCases('mesh-key-unknown', {
  fires: [
    { fixtures: 'fires-linkerd-typo.yaml', findings: ['Deployment shop/web'] },
    { fixtures: 'fires-linkerd-namespace.yaml', findings: ['Namespace legacy'] },
    { fixtures: 'fires-istio-typo.yaml', findings: ['Deployment store/checkout'] },
    { fixtures: 'fires-kuma-removed.yaml', findings: ['Deployment orders/fulfil'] },
    { fixtures: 'fires-consul-typo.yaml', findings: ['Deployment catalog/search'] },
    // The installed injection template is the key table of the keys only it reads (issue 31.6).
    {
      fixtures: 'fires-istio-1.5-template-without-limit-annotations.yaml',
      findings: ['Deployment batch/reporter', 'Deployment batch/reporter'],
      said: ['not-in-template', 'not-in-template'],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-known-keys.yaml' },
    { fixtures: 'ok-linkerd-cni-namespace.yaml', base: 'linkerd' },
    { fixtures: 'ok-kuma-1.x-keys.yaml', base: 'kuma-1.x' },
    { fixtures: 'ok-istio-1.5-later-key.yaml', base: 'istio-1.5' },
    { fixtures: 'ok-istio-1.5-template-reads-limit-annotations.yaml' },
    // The old releases' healthy clusters.
    { base: 'kuma-1.x' },
    { base: 'consul-0.x' },
  ],
});

const one = (base: 'linkerd' | 'istio' | 'kuma' | 'consul', file: string) => {
  const fs = findings(cluster(base, [`${dir}/${file}`]), ['mesh-key-unknown']);
  expect(fs).toHaveLength(1);
  return fs[0]!;
};

describe('mesh-key-unknown: message, evidence, fix', () => {
  it('a typo: names the release, the nearest key it knows and what that key does, and renames it', () => {
    const f = one('linkerd', 'fires-linkerd-typo.yaml');
    expect(f.message).toContain('config.linkerd.io/proxy-cpu-requests, a key Linkerd 2.14 does not know');
    expect(f.message).toContain('It was probably meant as config.linkerd.io/proxy-cpu-request');
    expect(f.evidence).toMatchObject({
      key: 'pod template annotation config.linkerd.io/proxy-cpu-requests=100m',
      release: 'Linkerd 2.14',
      nearest: ['config.linkerd.io/proxy-cpu-request'],
    });
    expect(String(f.evidence.keyTable)).toContain('pkg/k8s/labels.go');
    expect(f.fix.join('\n')).toContain('config.linkerd.io/proxy-cpu-request');
  });

  it('a key an older release read: says which releases read it', () => {
    const f = one('kuma', 'fires-kuma-removed.yaml');
    expect(f.message).toContain('kuma.io/builtindns, a key Kuma read in 1.2 to 2.1 but Kuma 2.14 no longer does');
    expect(f.evidence).toMatchObject({ knownIn: '1.2 to 2.1', nearest: ['kuma.io/builtin-dns'] });
  });

  it('Istio and Consul: case and plural typos', () => {
    expect(one('istio', 'fires-istio-typo.yaml').evidence).toMatchObject({ nearest: ['sidecar.istio.io/proxyCPU'] });
    expect(one('consul', 'fires-consul-typo.yaml').evidence).toMatchObject({
      nearest: ['consul.hashicorp.com/connect-service-upstreams'],
    });
  });
});
