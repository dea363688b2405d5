/**
 * Where proxy-removed fires (test/helpers/check-tester.ts): the injector's own mark announces
 * containers a later admission webhook removed; the later webhooks are named; sidecar-missing
 * leaves these pods to it. Silent where the announced containers are there (a native sidecar too).
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings, ids } from '../helpers/fixtures.js';

checkCases('proxy-removed', {
  fires: [
    { fixtures: 'fires-linkerd-kubemod.yaml', findings: ['Deployment shop/invoices'] },
    { fixtures: 'fires-linkerd-kubemod-conditions.yaml', findings: ['Deployment shop/invoices'] },
    { fixtures: 'fires-istio-lxcfs.yaml', findings: ['Deployment store/ratings'] },
    { fixtures: 'fires-kuma-kyverno.yaml', findings: ['Deployment orders/billing'] },
    { fixtures: 'fires-consul-vault.yaml', findings: ['Deployment catalog/tax'] },
    // consul-k8s 0.x: the installed release's proxy is envoy-sidecar (src/mesh/consul/releases.ts).
    { fixtures: 'fires-consul-0.x-vault.yaml', findings: ['Deployment shop/tax'] },
    // The mark is gone, the proxy stays, and istio-cni skips the pod (item B of issue 31).
    { fixtures: 'fires-istio-cni-status-dropped.yaml', findings: ['Deployment store/ratings'] },
    { fixtures: 'fires-istio-cni-copied-spec.yaml', findings: ['Deployment store/details'] },
  ],
  silent: [
    { fixtures: 'ok-linkerd-native-sidecar.yaml' },
    { fixtures: 'ok-istio-all-present.yaml' },
    // A multi-port Consul pod: one proxy per service, named consul-dataplane-<service>.
    { fixtures: 'ok-consul-multiport-proxy-per-service.yaml' },
    // The opposite: a later webhook removed the mark, the containers stay.
    { fixtures: 'ok-istio-mark-stripped.yaml' },
    { fixtures: 'ok-linkerd-mark-stripped.yaml' },
    { fixtures: 'ok-kuma-mark-stripped.yaml' },
    { fixtures: 'ok-consul-mark-stripped.yaml' },
    { fixtures: 'ok-istio-cni-annotated.yaml' },
    { fixtures: 'ok-istio-cni-gateway.yaml' },
    { fixtures: 'ok-istio-cni-with-istio-init.yaml' },
    { fixtures: 'ok-istio-no-cni-seen.yaml' },
  ],
});

const F = (name: string) => `checks/proxy-removed/${name}.yaml`;

describe('proxy-removed', () => {
  it('names the mesh, what was announced and what is missing, and the later webhook in order', () => {
    const [f, ...rest] = findings(cluster('istio', [F('fires-istio-lxcfs')]), ['proxy-removed']);
    expect(rest).toEqual([]);
    expect(f!.messageId).toBe('proxy-removed/removed');
    expect(f!.params).toMatchObject({
      meshTitle: 'Istio',
      mark: expect.stringContaining('sidecar.istio.io/status'),
      announced: 'istio-init, istio-proxy',
      missing: 'istio-proxy',
      by: expect.stringContaining('mutating-lxcfs-admission-webhook-cfg/mutating.lxcfs-admission-webhook.aliyun.com'),
    });
    expect(JSON.stringify(f!.fix)).toContain('reinvocationPolicy');
  });

  it("names the installed release's proxy: envoy-sidecar on consul-k8s 0.x, consul-dataplane today", () => {
    const [old] = findings(cluster('consul-0.x', [F('fires-consul-0.x-vault')]), ['proxy-removed']);
    expect(old!.params).toMatchObject({ announced: 'envoy-sidecar', missing: 'envoy-sidecar' });
    expect(JSON.stringify(old)).not.toContain('consul-dataplane');
    const [now] = findings(cluster('consul', [F('fires-consul-vault')]), ['proxy-removed']);
    expect(now!.params).toMatchObject({ announced: 'consul-dataplane', missing: 'consul-dataplane' });
  });

  it('takes the cause from sidecar-missing: one root cause, one finding', () => {
    for (const [base, name] of [
      ['linkerd', 'fires-linkerd-kubemod'],
      ['istio', 'fires-istio-lxcfs'],
      ['kuma', 'fires-kuma-kyverno'],
      ['consul', 'fires-consul-vault'],
      ['consul-0.x', 'fires-consul-0.x-vault'],
    ] as const) {
      const fs = ids(findings(cluster(base, [F(name)]), ['sidecar-missing', 'proxy-removed']));
      expect(fs.filter((x) => x.startsWith('sidecar-missing'))).toEqual([]);
      expect(fs.filter((x) => x.startsWith('proxy-removed'))).toHaveLength(1);
    }
  });

  it('a mark removed by a later webhook while the containers stay: meshed, no check reports the pod', () => {
    // Meshed-ness comes from the containers (src/mesh/proxy.ts injectedMesh), not from the mark.
    for (const [base, name] of [
      ['istio', 'ok-istio-mark-stripped'],
      ['linkerd', 'ok-linkerd-mark-stripped'],
      ['kuma', 'ok-kuma-mark-stripped'],
      ['consul', 'ok-consul-mark-stripped'],
    ] as const) {
      expect(ids(findings(cluster(base, [F(name)])))).toEqual([]);
    }
  });

  it('names the later webhooks whose matchConditions hold for the pod, not those whose conditions are false', () => {
    const [f] = findings(cluster('linkerd', [F('fires-linkerd-kubemod-conditions')]), ['proxy-removed']);
    const text = JSON.stringify(f);
    expect(text).not.toContain('unlabelled.policy.example.com');
    expect(text).toContain('z-policy-shop/shop.policy.example.com');
    expect(text).not.toMatch(/shop\.policy\.example\.com \([^)]*not evaluated/);
    expect(text).toMatch(/users\.policy\.example\.com \(Ignore, reinvocation Never, 1 matchConditions not evaluated\)/);
  });

  it('istio-cni skips a pod that runs istio-proxy without sidecar.istio.io/status: names the plugin, the reason, the later webhook', () => {
    const [f, ...rest] = findings(cluster('istio', [F('fires-istio-cni-status-dropped')]), ['proxy-removed']);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('runs istio-proxy without istio-init');
    expect(f!.message).toContain('DaemonSet istio-system/istio-cni-node');
    expect(f!.message).toContain('lacks the injector');
    expect(f!.message).toContain('No traffic reaches the proxy');
    expect(f!.message).toContain('z-lxcfs-admission-webhook/mutating.lxcfs.example.com');
    expect(f!.evidence).toMatchObject({ source: expect.stringContaining('cni/pkg/plugin/plugin.go') });
    expect(JSON.stringify(f!.fix)).toContain('keep the existing pod annotation sidecar.istio.io/status');
    expect(JSON.stringify(f!.fix)).not.toContain('withheld');
  });

  it('a template copied from an injected pod: no later webhook, the fix removes the proxy from the template', () => {
    const [f] = findings(cluster('istio', [F('fires-istio-cni-copied-spec')]), ['proxy-removed']);
    expect(f!.message).toContain('injected by hand or copied from an injected pod');
    expect(JSON.stringify(f!.fix)).toContain('remove them and let the Istio injector add them');
  });
});
