/**
 * Where proxy-egress-blocked fires, and its near misses (test/helpers/check-tester.ts); the egress
 * rules of src/k8s/networkpolicy.ts; the message, evidence and fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { egressVerdict, inCidr, type EgressDestination } from '../../src/k8s/networkpolicy.js';

checkCases('proxy-egress-blocked', {
  fires: [
    { fixtures: 'fires-linkerd-default-deny-egress.yaml', findings: ['NetworkPolicy shop/default-deny-egress'] },
    { fixtures: 'fires-istio-xds-port-missing.yaml', findings: ['NetworkPolicy store/frontend-egress'] },
    { fixtures: 'fires-kuma-isolated-both-ways.yaml', findings: ['NetworkPolicy orders/lockdown'] },
    // Issue 31: port 53 admitted, the cluster DNS pods listening elsewhere behind the Service.
    {
      fixtures: 'fires-istio-dns-pod-port-8053.yaml',
      findings: ['NetworkPolicy test-egress/allow-egress-to-istio-system-and-kube-dns'],
    },
    { fixtures: 'fires-linkerd-openshift-dns-5353.yaml', findings: ['NetworkPolicy shop/shop-egress'] },
    { fixtures: 'fires-consul-only-own-namespace.yaml', findings: ['NetworkPolicy catalog/same-namespace-only'] },
    // The other end (gen8net): an ingress policy of the control plane's namespace refusing the meshed pods.
    {
      fixtures: 'fires-istio-istiod-ingress-gateways-only.yaml',
      findings: ['NetworkPolicy istio-system/istiod-lockdown'],
      said: [{ id: 'ingress-refused', params: { service: 'istiod', ports: 'TCP 15012' } }],
    },
    {
      fixtures: 'fires-kuma-cp-ingress-namespace-allowlist.yaml',
      findings: ['NetworkPolicy kuma-system/kuma-cp-allowlist'],
      said: [{ id: 'ingress-refused', params: { service: 'kuma-control-plane', ports: 'TCP 5678' } }],
    },
    {
      fixtures: 'fires-linkerd-destination-ingress-default-deny.yaml',
      findings: ['NetworkPolicy linkerd/allow-webhooks', 'NetworkPolicy linkerd/allow-webhooks'],
      said: [
        { id: 'ingress-refused', params: { service: 'linkerd-dst', others: ' (with default-deny-ingress)' } },
        { id: 'ingress-refused', params: { service: 'linkerd-policy' } },
      ],
    },
    {
      name: 'linkerd, -n shop',
      fixtures: 'fires-linkerd-default-deny-egress.yaml',
      namespace: 'shop',
      findings: ['NetworkPolicy shop/default-deny-egress'],
    },
    // check -f: the policy about to be applied is found, and its file is where the rules go.
    {
      name: 'check -f of the policy',
      base: 'istio',
      manifests: 'fires-istio-xds-port-missing.yaml',
      findings: ['NetworkPolicy store/frontend-egress'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-openshift-dns-5353-admitted.yaml' },
    { fixtures: 'ok-linkerd-allows-control-plane.yaml' },
    { fixtures: 'ok-istio-ingress-only.yaml' },
    { fixtures: 'ok-kuma-ip-block.yaml' },
    { fixtures: 'ok-consul-unmeshed-namespace.yaml' },
    { fixtures: 'ok-istio-istiod-ingress-admits-meshed.yaml' },
  ],
});

const pod = { metadata: { name: 'p', namespace: 'app', labels: { app: 'web' } }, spec: {} };
const np = (spec: object) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'n', namespace: 'app' },
  spec,
});
const dest: EgressDestination = {
  namespace: 'cp',
  namespaceLabels: { 'kubernetes.io/metadata.name': 'cp' },
  labels: { app: 'cp' },
  ip: '10.1.2.3',
};

describe('NetworkPolicy egress (src/k8s/networkpolicy.ts)', () => {
  it('isolated only with Egress in policyTypes; an empty egress list admits nothing', () => {
    expect(egressVerdict([np({ podSelector: {} })], pod, 15012, dest).policies).toEqual([]);
    const v = egressVerdict([np({ podSelector: {}, policyTypes: ['Egress'] })], pod, 15012, dest);
    expect(v.policies).toEqual(['n']);
    expect(v.allows).toEqual([]);
  });

  it('peers: namespace and pod selectors, the policy namespace by default, ipBlocks by address', () => {
    const how = (to: object[], d = dest) =>
      egressVerdict([np({ podSelector: {}, policyTypes: ['Egress'], egress: [{ to }] })], pod, 8086, d).allows.map(
        (a) => a.how,
      );
    expect(how([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'cp' } } }])).toEqual(['pods']);
    expect(how([{ podSelector: {} }])).toEqual([]);
    expect(how([{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'other' } } }])).toEqual([]);
    expect(how([{ ipBlock: { cidr: '10.0.0.0/8' } }])).toEqual(['ip-block']);
    expect(how([{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }])).toEqual([]);
    expect(how([{ ipBlock: { cidr: '192.168.0.0/16' } }])).toEqual([]);
    const { ip: _ip, ...noIp } = dest;
    expect(how([{ ipBlock: { cidr: '192.168.0.0/16' } }], noIp)).toEqual(['ip-block']);
  });

  it('ports and protocols; DNS judged against any destination', () => {
    const allows = (ports: object[], port: number, protocol = 'TCP', d: EgressDestination | undefined = dest) =>
      egressVerdict([np({ podSelector: {}, policyTypes: ['Egress'], egress: [{ ports }] })], pod, port, d, protocol)
        .allows.length > 0;
    expect(allows([{ port: 15010 }, { port: 443 }], 15012)).toBe(false);
    expect(allows([{ port: 15000, endPort: 15020 }], 15012)).toBe(true);
    expect(allows([{ protocol: 'UDP', port: 53 }], 53, 'UDP', undefined)).toBe(true);
    expect(allows([{ protocol: 'UDP', port: 53 }], 53, 'TCP', undefined)).toBe(false);
    expect(inCidr('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(inCidr('fd00::1', '10.0.0.0/8')).toBeUndefined();
  });
});

describe('proxy-egress-blocked findings', () => {
  it('names the endpoints cut off, their source, and the proxies not ready; the fix is a policy from stdin', () => {
    const [f] = findings(cluster('linkerd', ['checks/proxy-egress-blocked/fires-linkerd-default-deny-egress.yaml']), [
      'proxy-egress-blocked',
    ]);
    expect(f!.message).toContain('linkerd-identity (TCP 8080');
    expect(f!.message).toContain('linkerd-dst (TCP 8086');
    expect(f!.message).toContain('linkerd-policy (TCP 8090');
    expect(f!.message).not.toContain('DNS');
    expect(f!.message).toContain('1 pod with linkerd-proxy not ready');
    expect(f!.evidence).toMatchObject({ dnsBlocked: false, proxyNotReady: ['web-5b7c9d8f4-ccccc'] });
    expect(f!.fix.join('\n')).toContain('kubectl apply -f -');
    expect(f!.fix.join('\n')).not.toContain('withheld');
  });

  it('a policy with no egress rule cuts DNS off too; Consul: the servers on 8502 and 8500 or 8501', () => {
    const [k] = findings(cluster('kuma', ['checks/proxy-egress-blocked/fires-kuma-isolated-both-ways.yaml']), [
      'proxy-egress-blocked',
    ]);
    expect(k!.message).toContain('kuma-control-plane (TCP 5678');
    expect(k!.message).toContain('the cluster DNS (port 53)');
    const [c] = findings(cluster('consul', ['checks/proxy-egress-blocked/fires-consul-only-own-namespace.yaml']), [
      'proxy-egress-blocked',
    ]);
    expect(c!.message).toContain('consul-server (TCP 8502');
    expect(c!.message).toContain('TCP 8500 or TCP 8501');
    for (const f of [k!, c!]) expect(f.fix.join('\n')).not.toContain('withheld');
  });
});

describe("issue 31: the cluster DNS judged at its pods' port", () => {
  it('says the rules admit 53 while the DNS pods listen on 5353 behind the Service (OpenShift, istio/istio#14736)', () => {
    const [f] = findings(cluster('linkerd', ['checks/proxy-egress-blocked/fires-linkerd-openshift-dns-5353.yaml']), [
      'proxy-egress-blocked',
    ]);
    expect(f!.message).toContain(
      'its pods (openshift-dns/dns-default-7x2kq) listen on UDP 5353 and TCP 5353 behind Service openshift-dns/dns-default port 53',
    );
    expect(f!.fix.join('\n')).toContain('"port":5353');
  });
});
