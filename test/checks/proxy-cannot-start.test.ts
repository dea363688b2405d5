/**
 * Where proxy-cannot-start fires, and its near misses (test/helpers/check-tester.ts): the container,
 * the reason from its status and the kubelet's events, and the mesh's own cause and fix; and every
 * runtime fix of every profile renders as safe lines.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { render } from '../../src/fix/render.js';
import { guardFix } from '../../src/util/shell.js';
import { PROFILE_LIST } from '../../src/mesh/registry.js';

checkCases('proxy-cannot-start', {
  fires: [
    { fixtures: 'fires-linkerd-init-nft.yaml', findings: ['Deployment shop/orders'] },
    { fixtures: 'fires-linkerd-network-validator.yaml', findings: ['Deployment shop/invoices'] },
    { fixtures: 'fires-istio-validation-excluded.yaml', findings: ['Deployment store/catalog'] },
    { fixtures: 'fires-istio-validation-no-agent.yaml', findings: ['Deployment store/basket'] },
    { fixtures: 'fires-consul-no-service.yaml', findings: ['Deployment catalog/reports'] },
    { fixtures: 'fires-consul-several-services.yaml', findings: ['Deployment catalog/reports'] },
    { fixtures: 'fires-consul-acl-default-serviceaccount.yaml', findings: ['Deployment catalog/billing'] },
    { fixtures: 'fires-kuma-sidecar-image.yaml', findings: ['Deployment orders/shipping'] },
  ],
  silent: [{ fixtures: 'ok-linkerd-recovered-or-app.yaml' }],
});

const F = (name: string) => `checks/proxy-cannot-start/${name}.yaml`;
const one = (base: Parameters<typeof cluster>[0], name: string) => {
  const [f, ...rest] = findings(cluster(base, [F(name)]), ['proxy-cannot-start']);
  expect(rest).toEqual([]);
  return f!;
};

describe('proxy-cannot-start', () => {
  it("reads linkerd-init's termination message: nftables unsupported, so legacy iptables", () => {
    const f = one('linkerd', 'fires-linkerd-init-nft');
    expect(f.message).toMatch(
      /^1 pod of Deployment shop\/orders cannot start: Linkerd's init container linkerd-init keeps failing \(CrashLoopBackOff, exit code 1, 7 restarts\): the node's kernel does not support iptables-nft/,
    );
    expect(f.evidence).toMatchObject({
      container: 'linkerd-init',
      init: true,
      events: { count: 40, reason: 'BackOff' },
    });
    expect(String(f.evidence.line)).toContain('Could not fetch rule set generation id');
    expect(f.fix.join('\n')).toContain('proxyInit.iptablesMode=legacy');
  });

  it("reads the mesh's exit codes: Linkerd's validator 95", () => {
    const f = one('linkerd', 'fires-linkerd-network-validator');
    expect(f.message).toContain('linkerd-cni had not set up');
    expect(f.fix).toContain('kubectl delete pod invoices-6e7f8a9b0-m3n5p -n shop');
  });

  it('names what the cluster lacks: the istio-cni agent skipping the namespace, no Service for Consul', () => {
    const i = one('istio', 'fires-istio-validation-excluded');
    expect(i.message).toContain('the Istio CNI plugin skips namespace store');
    expect(i.evidence).toMatchObject({ needs: [{ configMap: 'istio-system/istio-cni-config' }] });
    const a = one('istio', 'fires-istio-validation-no-agent');
    expect(a.message).toContain("the istio-cni node agent is not ready on the pod's node node-b");
    expect(a.evidence).toMatchObject({ needs: [{ node: 'node-b', cniAgentPods: ['istio-cni-node-bbbbb'] }] });
    const c = one('consul', 'fires-consul-no-service');
    expect(c.message).toContain('no Kubernetes Service selects the pod');
    expect(c.fix).toContain('kubectl expose deployment/reports -n catalog --port=8080');
    const several = one('consul', 'fires-consul-several-services');
    expect(several.evidence).toMatchObject({ needs: [{ servicesSelecting: ['reports', 'reports-metrics'] }] });
    expect(several.fix.join('\n')).toContain(
      'kubectl label service reports-metrics -n catalog consul.hashicorp.com/service-ignore=true',
    );
    const acl = one('consul', 'fires-consul-acl-default-serviceaccount');
    expect(acl.message).toContain('refuses the default one');
    expect(acl.fix).toContain('kubectl create serviceaccount billing -n catalog');
  });

  it('an image the node cannot pull: the image, the kubelet event, and how the mesh picks it', () => {
    const f = one('kuma', 'fires-kuma-sidecar-image');
    expect(f.message).toContain(
      "Kuma's proxy kuma-sidecar cannot be pulled (ImagePullBackOff): the node cannot pull its image registry.example.com/kuma/kuma-dp:2.14.3",
    );
    expect(f.evidence).toMatchObject({
      image: 'registry.example.com/kuma/kuma-dp:2.14.3',
      events: { reason: 'Failed', count: 12 },
    });
  });

  it('every runtime fix of every profile is made of safe lines (none withheld)', () => {
    const c = { namespace: 'ns', pod: 'p', container: 'c', controlPlaneNamespace: 'cp' };
    for (const p of PROFILE_LIST) {
      const steps = [
        ...p.runtime.openshift('ns', 'cp'),
        ...p.runtime.image('cp'),
        ...p.runtime.failures.flatMap((f) => f.fix(c)),
      ];
      const lines = render(steps);
      expect(lines.length, p.name).toBeGreaterThan(2);
      expect(
        lines.filter((l) => guardFix(l) !== l),
        p.name,
      ).toEqual([]);
    }
  });
});
