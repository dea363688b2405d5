/**
 * Where init-before-proxy fires, and its near misses (test/helpers/check-tester.ts): an init
 * container of the app that fails under a redirection its proxy does not serve yet (the mesh's CNI
 * plugin from the pod's start, or the mesh's iptables init container before it), for every mesh;
 * silent where it runs as the proxy's UID, the pod excludes traffic, a native proxy runs before
 * it, the redirection comes after it, or it did not fail.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from './../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

const dir = 'checks/init-before-proxy';

checkCases('init-before-proxy', {
  fires: [
    {
      fixtures: 'fires-istio-cni-app-init.yaml',
      findings: ['Deployment dctest04/kimlexir-cron'],
      said: [{ id: 'redirected', params: { container: 'kimlexir-migrate', uid: '1337' } }],
    },
    {
      fixtures: 'fires-istio-1.5-cni-app-init.yaml',
      findings: ['Deployment dctest04/kimlexir-cron'],
      said: [{ id: 'redirected', params: { container: 'kimlexir-migrate', uid: '1337' } }],
    },
    {
      fixtures: 'fires-linkerd-cni-app-init.yaml',
      findings: ['Deployment orgchart/orgchart'],
      said: [{ id: 'redirected', params: { container: 'init-ping', uid: '2102' } }],
    },
    {
      fixtures: 'fires-kuma-init-first.yaml',
      findings: ['Deployment orders/checkout'],
      said: [{ id: 'redirected', params: { container: 'wait-for-db', uid: '5678' } }],
    },
    {
      fixtures: 'fires-consul-cni-app-init.yaml',
      findings: ['Deployment ledger/ledger'],
      said: [{ id: 'redirected', params: { container: 'db-migrate', uid: '5995' } }],
    },
    // istio/istio#53150 and linkerd/website#1512 (test/reports-gen6run.test.ts): the app's init container under the CNI plugin.
    {
      fixtures: 'fires-istio-app-init-under-cni.yaml',
      findings: ['Deployment store/orders'],
      said: [{ id: 'redirected', params: { container: 'migrate', uid: '1337' } }],
    },
    {
      fixtures: 'fires-linkerd-app-init-under-cni.yaml',
      findings: ['Deployment shop/ledger'],
      said: [{ id: 'redirected', params: { container: 'migrate', uid: '2102' } }],
    },
    // An init container the template does not have, appended by a webhook called after the mesh's (Vault's agent
    // injector: linkerd/linkerd2#4758, hashicorp/vault-k8s#41; test/reports-gen7admit.test.ts): that layer is named.
    {
      fixtures: 'fires-linkerd-vault-appended.yaml',
      findings: ['Deployment shop/orgchart'],
      said: [{ id: 'redirected', params: { container: 'vault-agent-init', uid: '2102' } }],
    },
    {
      fixtures: 'fires-kuma-vault-appended.yaml',
      findings: ['Deployment orders/ledger'],
      said: [{ id: 'redirected', params: { container: 'vault-agent-init', uid: '5678' } }],
    },
    {
      fixtures: 'fires-consul-vault-appended.yaml',
      findings: ['Deployment catalog/tax'],
      said: [{ id: 'redirected', params: { container: 'vault-agent-init', uid: '5995' } }],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-vault-init-first.yaml' },
    { fixtures: 'ok-istio-cni-app-init-as-1337.yaml' },
    { fixtures: 'ok-istio-cni-app-init-excluded.yaml' },
    { fixtures: 'ok-istio-native-proxy-first.yaml' },
    { fixtures: 'ok-istio-cni-app-init-completed.yaml' },
    { fixtures: 'ok-istio-init-after-app-init.yaml' },
    { fixtures: 'ok-linkerd-cni-app-init-completed.yaml' },
    { fixtures: 'ok-kuma-init-appended.yaml' },
    { fixtures: 'ok-kuma-init-first-as-sidecar-uid.yaml' },
    { fixtures: 'ok-kuma-native-sidecar-before-app-init.yaml' },
    { fixtures: 'ok-consul-no-cni-app-init.yaml' },
    { fixtures: 'ok-linkerd-app-init-as-proxy-uid.yaml' },
    { fixtures: 'ok-istio-app-init-native-sidecar.yaml' },
  ],
});

const one = (base: 'istio' | 'istio-1.5' | 'linkerd' | 'kuma' | 'consul', file: string) => {
  const fs = findings(cluster(base, [`${dir}/${file}`]), ['init-before-proxy']);
  expect(fs).toHaveLength(1);
  return fs[0]!;
};

describe('init-before-proxy: what redirected the pod, what it saw, the ways out of its release', () => {
  it('Istio CNI: names the plugin, quotes the refusal, offers UID 1337 and the exclusion annotations', () => {
    const f = one('istio', 'fires-istio-cni-app-init.yaml');
    expect(f.message).toContain('the Istio CNI plugin');
    expect(f.message).toContain('connection refused');
    const fix = JSON.stringify(f.fix);
    expect(fix).toContain('1337');
    expect(fix).toContain('traffic.sidecar.istio.io/excludeOutboundIPRanges');
    expect(fix).toContain('sidecar.istio.io/nativeSidecar');
  });

  it('Kuma with kuma.io/init-first: names kuma-init before it and offers kuma.io/init-first=false', () => {
    const f = one('kuma', 'fires-kuma-init-first.yaml');
    expect(f.message).toContain('the init container kuma-init before it');
    const fix = JSON.stringify(f.fix);
    expect(fix).toContain('kuma.io/init-first');
    // 2.5 knows exclude-outbound-ports-for-uids but not exclude-outbound-ips (2.9)
    expect(fix).toContain('traffic.kuma.io/exclude-outbound-ports-for-uids');
    expect(fix).not.toContain('traffic.kuma.io/exclude-outbound-ips');
  });

  it('Consul CNI: the init container is before consul-connect-inject-init, the plugin redirects from the start', () => {
    const f = one('consul', 'fires-consul-cni-app-init.yaml');
    expect(f.message).toContain('the Consul CNI plugin');
    expect(JSON.stringify(f.fix)).toContain('consul.hashicorp.com/transparent-proxy-exclude-outbound-ports');
  });

  it('Istio 1.5: the ways out its release knows (no native sidecar annotation before it existed)', () => {
    const f = one('istio-1.5', 'fires-istio-1.5-cni-app-init.yaml');
    const fix = JSON.stringify(f.fix);
    expect(fix).toContain('traffic.sidecar.istio.io/excludeOutboundPorts');
    expect(fix).not.toContain('sidecar.istio.io/nativeSidecar');
  });
});

describe('init-before-proxy: the layer that appended the init container', () => {
  for (const [base, file] of [
    ['linkerd', 'fires-linkerd-vault-appended'],
    ['kuma', 'fires-kuma-vault-appended'],
    ['consul', 'fires-consul-vault-appended'],
  ] as const)
    it(`names the webhook called after the mesh's (${file})`, () => {
      const [f] = findings(cluster(base, [`${dir}/${file}.yaml`]), ['init-before-proxy']);
      expect(f?.message).toContain('vault-agent-init is not in the pod template');
      expect(f?.message).toContain('vault-agent-injector-cfg/vault.hashicorp.com');
      expect(f?.fix.some((s) => JSON.stringify(s).includes('vault-agent-injector-cfg'))).toBe(true);
      expect(JSON.stringify(f?.fix)).not.toContain('withheld');
    });
  it('says nothing of a webhook for the app init container of the template', () => {
    const [f] = findings(cluster('linkerd', [`${dir}/fires-linkerd-cni-app-init.yaml`]), ['init-before-proxy']);
    expect(f?.message).not.toContain('not in the pod template');
  });
});
