/**
 * Where webhook-port-blocked fires, and its near misses (test/helpers/check-tester.ts); the
 * NetworkPolicy rules of src/k8s/networkpolicy.ts; the message, evidence and fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { ingressVerdict, policyTypes, selectsPod } from '../../src/k8s/networkpolicy.js';
import { managedProvider } from '../../src/k8s/providers.js';
import { KEEPER } from '../../src/mesh/keep.js';

checkCases('webhook-port-blocked', {
  fires: [
    {
      fixtures: 'fires-linkerd-default-deny.yaml',
      findings: ['NetworkPolicy linkerd/default-deny-ingress'],
      said: [{ id: 'blocks-injector', params: { port: 8443, targetPort: 'proxy-injector' } }],
    },
    {
      fixtures: 'fires-istio-443-only.yaml',
      findings: ['NetworkPolicy istio-system/istiod-ingress'],
      said: [{ id: 'blocks-injector', params: { port: 15017, servicePort: 443, meshTitle: 'Istio' } }],
    },
    {
      fixtures: 'fires-kuma-named-port-udp.yaml',
      findings: ['NetworkPolicy kuma-system/kuma-cp'],
      said: [{ id: 'blocks-injector', params: { policy: 'kuma-system/kuma-cp', port: 5443 } }],
    },
    {
      fixtures: 'fires-consul-deny-and-egress.yaml',
      findings: ['NetworkPolicy consul/connect-injector'],
      said: [{ id: 'blocks-injector-timed-out', params: { port: 8080, timedOut: '3 timed-out calls' } }],
    },
    {
      fixtures: 'fires-linkerd-gke-firewall.yaml',
      findings: ['Service linkerd/linkerd-proxy-injector'],
      said: [{ id: 'gke-firewall', params: { calls: '2 calls', port: 8443 } }],
    },
    // Private GKE failing open (issue 31, gen9path): no event, the nodes without external address and the port say it.
    {
      fixtures: 'fires-linkerd-gke-private-ignore.yaml',
      findings: ['Service linkerd/linkerd-proxy-injector'],
      said: [{ id: 'gke-private-silent', params: { port: 8443, missing: '1 pod', ready: '1 of 1' } }],
    },
    {
      fixtures: 'fires-consul-0.x-gke-private-ignore.yaml',
      findings: ['Service consul/consul-connect-injector-svc'],
      said: [{ id: 'gke-private-silent', params: { port: 8080, meshTitle: 'Consul' } }],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-gke-private-ignore.yaml',
      findings: ['Service linkerd/linkerd-proxy-injector'],
      said: [{ id: 'gke-private-silent', params: { port: 8443, meshTitle: 'Linkerd' } }],
    },
    // EKS with an overlay pod network instead of the VPC CNI: the managed API server has no route to the injector.
    {
      fixtures: 'fires-istio-1.5-eks-calico-overlay.yaml',
      findings: ['Service istio-system/istio-sidecar-injector'],
      said: [{ id: 'overlay-unreachable', params: { cni: 'Calico', agent: 'DaemonSet kube-system/calico-node' } }],
    },
    {
      fixtures: 'fires-kuma-eks-cilium-overlay.yaml',
      findings: ['Service kuma-system/kuma-control-plane'],
      said: [{ id: 'overlay-unreachable', params: { cni: 'Cilium', seen: 'no failed call in the events read' } }],
    },
    // The API server's environment sends the calls to an HTTP proxy (linkerd/linkerd2#2847, istio/istio#12441, #13575).
    {
      fixtures: 'fires-kuma-apiserver-proxy-cluster-local.yaml',
      findings: ['Pod kube-system/kube-apiserver-cp-1'],
      said: [
        {
          id: 'apiserver-proxy',
          params: {
            proxyVariable: 'HTTPS_PROXY',
            noProxy: 'no NO_PROXY entry covers kuma-control-plane.kuma-system.svc',
            seen: '4 calls answered by the proxy in FailedCreate events',
          },
        },
      ],
    },
    {
      fixtures: 'fires-consul-apiserver-proxy-no-no-proxy.yaml',
      findings: ['Pod kube-system/kube-apiserver-cp-2'],
      said: [
        {
          id: 'apiserver-proxy',
          params: { proxyVariable: 'https_proxy', noProxy: 'no NO_PROXY covers consul-connect-injector.consul.svc' },
        },
      ],
    },
    // -n of an app namespace: the policies of the mesh's namespace are read as the control plane's.
    {
      name: 'linkerd, -n shop',
      fixtures: 'fires-linkerd-default-deny.yaml',
      namespace: 'shop',
      findings: ['NetworkPolicy linkerd/default-deny-ingress'],
    },
    // check -f: the policy about to be applied is found, and its file is where the rule goes.
    {
      name: 'check -f of the policy',
      base: 'linkerd',
      manifests: 'fires-linkerd-default-deny.yaml',
      findings: ['NetworkPolicy linkerd/default-deny-ingress'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-allowed.yaml' },
    { fixtures: 'ok-istio-ip-block-and-range.yaml' },
    { fixtures: 'ok-kuma-from-kube-system.yaml' },
    { fixtures: 'ok-consul-eks-no-timeouts.yaml' },
    { fixtures: 'ok-linkerd-same-node.yaml' },
    { fixtures: 'ok-linkerd-eks-calico-policy-only.yaml' },
    { fixtures: 'ok-kuma-eks-cilium-eni.yaml' },
    { fixtures: 'ok-linkerd-apiserver-no-proxy-svc.yaml' },
    { fixtures: 'ok-linkerd-gke-public-node-ignore.yaml' },
    { fixtures: 'ok-linkerd-gke-private-every-pod-meshed.yaml' },
    { fixtures: 'ok-istio-apiserver-http-proxy-only.yaml' },
    // -n of an app namespace: the kube-apiserver pods of kube-system are not read, so nothing is said of them.
    {
      name: 'consul proxy, -n catalog',
      fixtures: 'fires-consul-apiserver-proxy-no-no-proxy.yaml',
      namespace: 'catalog',
    },
  ],
});

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'inj', namespace: 'm', labels: { app: 'inj' } },
  spec: { containers: [{ name: 'c', ports: [{ name: 'https', containerPort: 8443 }] }] },
};
const np = (spec: object, ns = 'm') => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'p', namespace: ns },
  spec,
});

describe('NetworkPolicy ingress (src/k8s/networkpolicy.ts)', () => {
  it('policyTypes default to Ingress, plus Egress with egress rules; a policy of another namespace selects nothing here', () => {
    expect(policyTypes(np({}))).toEqual(['Ingress']);
    expect(policyTypes(np({ egress: [{}] }))).toEqual(['Ingress', 'Egress']);
    expect(policyTypes(np({ policyTypes: ['Egress'] }))).toEqual(['Egress']);
    expect(selectsPod(np({ podSelector: {} }), pod)).toBe(true);
    expect(selectsPod(np({ podSelector: {} }, 'other'), pod)).toBe(false);
    expect(selectsPod(np({ podSelector: { matchLabels: { app: 'x' } } }), pod)).toBe(false);
  });

  it('ports: missing admits all, named ports resolve on the pod, ranges with endPort, TCP by default', () => {
    const admits = (ingress: object[]) =>
      ingressVerdict([np({ podSelector: {}, ingress })], pod, 8443).admits.length > 0;
    expect(admits([{}])).toBe(true);
    expect(admits([{ ports: [{ port: 'https' }] }])).toBe(true);
    expect(admits([{ ports: [{ port: 'http' }] }])).toBe(false);
    expect(admits([{ ports: [{ port: 8000, endPort: 9000 }] }])).toBe(true);
    expect(admits([{ ports: [{ port: 8443, protocol: 'UDP' }] }])).toBe(false);
    expect(admits([{ ports: [{ port: 443 }] }])).toBe(false);
  });

  it("sources: anywhere, an ipBlock, kube-system's pods admit; pods of other namespaces never do", () => {
    const how = (from: object[]) =>
      ingressVerdict([np({ podSelector: {}, ingress: [{ from }] })], pod, 8443).admits.map((a) => a.how);
    expect(how([])).toEqual(['anywhere']);
    expect(how([{ ipBlock: { cidr: '10.0.0.0/8' } }])).toEqual(['ip-block']);
    expect(how([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }])).toEqual([
      'kube-system-pods',
    ]);
    expect(how([{ namespaceSelector: {} }])).toEqual(['kube-system-pods']);
    expect(how([{ podSelector: {} }])).toEqual([]);
    expect(how([{ namespaceSelector: { matchLabels: { team: 'a' } } }])).toEqual([]);
  });

  it('the managed provider from node labels: a providerID alone (self-managed on a cloud) is not enough', () => {
    const node = (labels: Record<string, string>, providerID?: string) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n', labels },
      spec: { providerID },
    });
    expect(managedProvider([node({ 'cloud.google.com/gke-nodepool': 'p' })])).toBe('gke');
    expect(managedProvider([node({ 'eks.amazonaws.com/nodegroup': 'w' })])).toBe('eks');
    expect(managedProvider([node({ 'kubernetes.azure.com/cluster': 'MC_x' })])).toBe('aks');
    expect(managedProvider([node({}, 'aws:///eu-west-1a/i-1')])).toBeUndefined();
    expect(managedProvider([])).toBeUndefined();
    // Nodes unread: the node names the pods run on (GKE's prefix, an EC2 DNS name); labels win over names.
    const on = (nodeName: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName } });
    expect(managedProvider([], [on('gke-prod-pool-1-abcd')])).toBe('gke');
    expect(managedProvider([], [on('ip-10-0-3-17.us-west-2.compute.internal')])).toBe('aws');
    expect(managedProvider([], [on('worker-1')])).toBeUndefined();
    expect(managedProvider([node({ 'eks.amazonaws.com/nodegroup': 'w' })], [on('gke-x')])).toBe('eks');
  });
});

describe('webhook-port-blocked: message, evidence, fix', () => {
  it('names the policy, the port (Service port -> targetPort -> container port) and applies an allowing policy', () => {
    const [f] = findings(cluster('linkerd', ['checks/webhook-port-blocked/fires-linkerd-default-deny.yaml']), [
      'webhook-port-blocked',
    ]);
    expect(f!.messageId).toBe('webhook-port-blocked/blocks-injector');
    expect(f!.params).toMatchObject({
      policy: 'linkerd/default-deny-ingress',
      withOthers: '',
      meshTitle: 'Linkerd',
      pods: '1 pod',
      port: 8443,
      service: 'linkerd-proxy-injector',
      servicePort: 443,
      targetPort: 'proxy-injector',
      webhooks: 'linkerd-proxy-injector.linkerd.io',
    });
    // The rendered text, once.
    expect(f!.message).toContain(
      "NetworkPolicy linkerd/default-deny-ingress selects the Linkerd injector's 1 pod and admits no traffic to TCP 8443 (Service linkerd-proxy-injector port 443 -> targetPort proxy-injector)",
    );
    expect(f!.evidence).toMatchObject({
      servicePort: 443,
      targetPort: 'proxy-injector',
      containerPort: 8443,
      policies: ['default-deny-ingress'],
      provider: null,
    });
    // The fix as data: the policy, printed and piped to kubectl apply (its JSON an argument of its own).
    const apply = f!.fixData.find(
      (s): s is { kind: 'command'; pipeline: string[][] } =>
        (s as { kind: string }).kind === 'command' &&
        JSON.stringify((s as { pipeline: string[][] }).pipeline.at(-1)) === '["kubectl","apply","-f","-"]',
    )!;
    expect(apply.pipeline[0]!.slice(0, 2)).toEqual(['printf', '%s']);
    const policy = JSON.parse(apply.pipeline[0]![2]!);
    expect(policy).toMatchObject({
      kind: 'NetworkPolicy',
      metadata: { namespace: 'linkerd' },
      spec: { ingress: [{ ports: [{ protocol: 'TCP', port: 8443 }] }] },
    });
    expect(policy.spec.podSelector.matchLabels).toEqual({ 'linkerd.io/control-plane-component': 'proxy-injector' });
  });

  it('confirms with the timed-out calls of the events', () => {
    const [f] = findings(cluster('consul', ['checks/webhook-port-blocked/fires-consul-deny-and-egress.yaml']), [
      'webhook-port-blocked',
    ]);
    expect(f!.evidence).toMatchObject({ containerPort: 8080, timedOutCalls: 3 });
    expect(f!.messageId).toBe('webhook-port-blocked/blocks-injector-timed-out');
    expect(f!.params?.timedOut).toBe('3 timed-out calls');
  });

  it("GKE: the provider's firewall rule for the port", () => {
    const [f] = findings(cluster('linkerd', ['checks/webhook-port-blocked/fires-linkerd-gke-firewall.yaml']), [
      'webhook-port-blocked',
    ]);
    expect(f!.evidence).toMatchObject({ provider: 'gke', timedOutCalls: 2, policies: [] });
    // The fix as data: the rule's argv, the port its own word.
    const rule = f!.fixData.find((s) => JSON.stringify(s).includes('firewall-rules')) as { pipeline: string[][] };
    expect(rule.pipeline[0]!.slice(0, 4)).toEqual(['gcloud', 'compute', 'firewall-rules', 'create']);
    expect(rule.pipeline[0]).toContain('tcp:8443');
  });

  it('a policy that cuts off some replicas only: how many of the injector pods, its own message', () => {
    // The single-node cluster, plus a second injector replica on a node of its own: the default deny cuts that one off.
    const second = `apiVersion: v1
kind: Pod
metadata:
  name: linkerd-proxy-injector-6d8f9c7b5-y7z8w
  namespace: linkerd
  uid: pod-injector-second
  creationTimestamp: "2026-01-02T00:01:00Z"
  labels: {linkerd.io/control-plane-component: proxy-injector, linkerd.io/control-plane-ns: linkerd, pod-template-hash: 6d8f9c7b5}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: linkerd-proxy-injector-6d8f9c7b5, uid: rs-injector, controller: true}]
spec:
  nodeName: worker-1
  containers:
  - name: proxy-injector
    image: cr.l5d.io/linkerd/controller:stable-2.14.10
    ports: [{name: proxy-injector, containerPort: 8443}]
status:
  phase: Running
  conditions: [{type: Ready, status: "True"}]
  containerStatuses: [{name: proxy-injector, ready: true, restartCount: 0, state: {running: {startedAt: "2026-01-02T00:01:10Z"}}}]
`;
    const fs = findings(cluster('linkerd', ['checks/webhook-port-blocked/ok-linkerd-same-node.yaml', second]), [
      'webhook-port-blocked',
    ]);
    expect(fs.map((f) => [f.messageId, f.params?.blocked, f.params?.injectorPods])).toEqual([
      ['webhook-port-blocked/blocks-some-injector-pods', 1, 2],
    ]);
    expect(fs[0]!.message).toContain("selects 1 of the injector's 2 pods and admits no traffic to TCP 8443");
  });

  it('EKS: the security groups, said by their own message', () => {
    const snap = cluster('linkerd', ['checks/webhook-port-blocked/fires-linkerd-gke-firewall.yaml']);
    for (const n of snap.objects.nodes!) n.metadata!.labels = { 'eks.amazonaws.com/nodegroup': 'workers' };
    const [f] = findings(snap, ['webhook-port-blocked']);
    expect(f!.messageId).toBe('webhook-port-blocked/aws-security-groups');
    expect(f!.params).toMatchObject({ provider: 'EKS', calls: '2 calls', port: 8443 });
    expect(f!.message).toContain(
      'on EKS the security groups between the control plane and the nodes must open that port',
    );
  });
});

describe('the API server behind an HTTP proxy, in a snapshot (gen8net)', () => {
  const apiserver = (env: { name: string; value: string }[]) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'kube-apiserver-cp',
      namespace: 'kube-system',
      labels: { component: 'kube-apiserver', tier: 'control-plane' },
    },
    spec: { containers: [{ name: 'kube-apiserver', image: 'registry.k8s.io/kube-apiserver:v1.31.2', env }] },
    status: { phase: 'Running' },
  });
  const envOf = (p: ReturnType<typeof apiserver>) =>
    (KEEPER.slim('pods', structuredClone(p)).spec as any).containers[0].env;
  it('keeps of NO_PROXY only the entries that can match a Service host, and never a proxy URL', () => {
    const env = envOf(
      apiserver([
        { name: 'HTTPS_PROXY', value: 'http://user:secret@proxy:3128' },
        { name: 'NO_PROXY', value: '127.0.0.1,10.0.0.0/8, .corp.example.com,.svc,istio-system.svc:443,*' },
        { name: 'no_proxy', value: 'localhost,cluster.local' },
      ]),
    );
    expect(env).toEqual([
      { name: 'HTTPS_PROXY', value: '(redacted)' },
      { name: 'NO_PROXY', value: '.svc,istio-system.svc:443,*' },
      { name: 'no_proxy', value: '' },
    ]);
  });
  it('judges a slimmed snapshot as the live cluster', () => {
    for (const noProxy of ['localhost,10.96.0.0/12,cluster.local', 'localhost,.svc']) {
      const o = apiserver([
        { name: 'HTTPS_PROXY', value: 'http://proxy:3128' },
        { name: 'NO_PROXY', value: noProxy },
      ]);
      const proxied = (x: object) =>
        findings(cluster('linkerd', [JSON.stringify(x, null, 2)])).filter(
          (f) => f.id === 'webhook-port-blocked' && f.message.includes('HTTPS_PROXY'),
        );
      const live = proxied(o);
      const slim = proxied(KEEPER.slim('pods', structuredClone(o)));
      expect(slim.map((f) => f.message)).toEqual(live.map((f) => f.message));
      expect(live.length).toBe(noProxy.includes('.svc') ? 0 : 1);
    }
  });
});
