import { dialledPort, parseAdmissionError } from '../../src/k8s/admission.js';
import { doubledMemory } from '../../src/k8s/health.js';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { injectionSkip } from '../../src/facts/controlplane.js';
import { Model } from '../../src/facts/model.js';
import { runChecks } from '../../src/run/run.js';
import type { K8sObject } from '../../src/util/types.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { NOW, cluster, findings, ids } from '../helpers/fixtures.js';

const F = (id: string, file: string) => `checks/${id}/${file}.yaml`;
const CONTROL_PLANE = [
  'webhook-missing',
  'webhook-no-endpoints',
  'injector-unavailable',
  'injector-oomkilled',
  'webhook-call-failed',
];

/** A 403 on a kind, as gather records it: absent from objects, named in unavailable. */
function forbid(snap: Snapshot, kind: keyof Snapshot['objects']): Snapshot {
  delete snap.objects[kind];
  snap.unavailable[kind] = 'forbidden (403): cannot list resource';
  return snap;
}

/** Set failurePolicy on every webhook of a mesh configuration in the snapshot. */
function setFailurePolicy(snap: Snapshot, config: string, policy: 'Ignore' | 'Fail'): Snapshot {
  for (const c of snap.objects.mutatingwebhookconfigurations ?? []) {
    if (c.metadata?.name === config) for (const h of c.webhooks as Record<string, unknown>[]) h.failurePolicy = policy;
  }
  return snap;
}

/** A live `-n <ns>` snapshot: namespaced kinds hold that namespace only (plus by-name reads). */
function liveNamespaceOnly(snap: Snapshot, ns: string): Snapshot {
  snap.scope = { allNamespaces: false, namespace: ns };
  for (const k of [
    'pods',
    'services',
    'endpoints',
    'endpointslices',
    'deployments',
    'replicasets',
    'events',
  ] as const) {
    snap.objects[k] = snap.objects[k]!.filter((o: K8sObject) => o.metadata?.namespace === ns);
  }
  return snap;
}

describe('healthy control planes', () => {
  it('are silent for both meshes, all namespaces and each -n', () => {
    for (const base of ['linkerd', 'istio', 'both'] as const) {
      expect(findings(cluster(base), CONTROL_PLANE)).toEqual([]);
      for (const ns of ['linkerd', 'istio-system', 'shop', 'store']) {
        expect(findings(cluster(base, [], { allNamespaces: false, namespace: ns }), CONTROL_PLANE)).toEqual([]);
      }
    }
  });
});

describe('webhook-missing', () => {
  const run = (snap: Snapshot, mesh?: 'linkerd' | 'istio') =>
    findings(snap, ['webhook-missing'], { ...(mesh ? { mesh } : {}) });

  it('fires when Linkerd runs without its webhook configuration', () => {
    const fs = run(cluster('linkerd', [F('webhook-missing', 'fires-linkerd')]));
    expect(ids(fs)).toEqual(['webhook-missing MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config']);
    expect(fs[0]!.causeKey).toBe('webhook-broken:linkerd');
    expect(fs[0]!.evidence).toMatchObject({ injectorDeployments: ['linkerd/linkerd-proxy-injector'], meshedPods: 5 });
    // Alternatives by install method are comments: pasting the block runs only the verification.
    expect(fs[0]!.fix).toEqual([
      '# re-render the control plane the way it was installed: run the one line for your install method',
      "# linkerd CLI: 'linkerd upgrade | kubectl apply -f -'",
      '# Helm: helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n linkerd --reuse-values',
      'kubectl get mutatingwebhookconfigurations linkerd-proxy-injector-webhook-config',
    ]);
  });

  it('fires when istiod runs without istio-sidecar-injector', () => {
    const fs = run(cluster('istio', [F('webhook-missing', 'fires-istio')]));
    expect(ids(fs)).toEqual(['webhook-missing MutatingWebhookConfiguration istio-sidecar-injector']);
    expect(fs[0]!.message).toContain('Istio is installed (Deployment istio-system/istiod');
    expect(fs[0]!.fix[1]).toBe(
      '# istioctl, with the profile and values you installed with: istioctl install -y -f YOUR-ISTIOOPERATOR.yaml',
    );
    // Pinned to the release istiod runs (pilot:1.24.2 in the base cluster): without --version Helm would upgrade it.
    expect(fs[0]!.fix[2]).toBe(
      '# Helm: helm upgrade istiod istio/istiod -n istio-system --version 1.24.2 --reuse-values',
    );
  });

  it('is skipped, never "missing", when the webhook configurations cannot be read (403)', () => {
    const snap = forbid(cluster('linkerd', [F('webhook-missing', 'fires-linkerd')]), 'mutatingwebhookconfigurations');
    const check = CHECKS.find((c) => c.id === 'webhook-missing')!;
    const r = runChecks(snap, [check], { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
    expect(r.findings).toEqual([]);
    expect(r.skipped).toEqual([{ check: 'webhook-missing', reason: 'cannot read mutatingwebhookconfigurations' }]);
    expect(r.coverage).toEqual({
      complete: false,
      unavailable: [
        {
          kind: 'mutatingwebhookconfigurations',
          reason: 'forbidden (403): cannot list resource',
          checks: ['webhook-missing'],
        },
      ],
      rbac: [],
    });
  });

  it('stays silent for a mesh that is only asked for (--mesh) or only the other mesh is missing', () => {
    expect(run(cluster('istio'), 'linkerd')).toEqual([]);
    expect(ids(run(cluster('both', [F('webhook-missing', 'fires-istio')])))).toEqual([
      'webhook-missing MutatingWebhookConfiguration istio-sidecar-injector',
    ]);
  });
});

describe('webhook-no-endpoints', () => {
  const run = (snap: Snapshot) => findings(snap, ['webhook-no-endpoints']);

  it('fires for Linkerd when the injector endpoint is not ready (EndpointSlices, named targetPort, Ignore)', () => {
    const fs = run(cluster('linkerd', [F('webhook-no-endpoints', 'fires-linkerd-not-ready')]));
    expect(ids(fs)).toEqual(['webhook-no-endpoints Service linkerd/linkerd-proxy-injector']);
    expect(fs[0]!.message).toBe(
      'Webhook linkerd-proxy-injector.linkerd.io calls Service linkerd/linkerd-proxy-injector port 443, which has no ready endpoint for targetPort proxy-injector (1 not ready); failurePolicy Ignore: pods are created silently without a proxy.',
    );
    expect(fs[0]!.evidence).toMatchObject({
      problem: 'no-ready-endpoints',
      port: 443,
      targetPort: 'proxy-injector',
      containerPort: 8443,
      selectedPods: ['linkerd-proxy-injector-6d8f9c7b5-x2k4p'],
      endpointsFrom: 'EndpointSlice',
      ready: [],
      notReady: [{ ip: '10.244.0.12', pod: 'linkerd-proxy-injector-6d8f9c7b5-x2k4p' }],
      webhooks: [
        {
          name: 'linkerd-proxy-injector.linkerd.io',
          configuration: 'linkerd-proxy-injector-webhook-config',
          failurePolicy: 'Ignore',
        },
      ],
    });
    expect(fs[0]!.causeKey).toBe('webhook-broken:linkerd');
    expect(fs[0]!.causedBy).toBeUndefined(); // the injector is up here: the ranker drops the link (kept in the chain test)
    expect(fs[0]!.fix).toEqual([
      'kubectl -n linkerd rollout status deploy/linkerd-proxy-injector',
      'kubectl -n linkerd describe pods -l linkerd.io/control-plane-component=proxy-injector',
      'kubectl -n linkerd get endpointslices -l kubernetes.io/service-name=linkerd-proxy-injector -o wide',
    ]);
  });

  it('says pod creation is blocked when the Linkerd webhook Fails (HA)', () => {
    const snap = setFailurePolicy(
      cluster('linkerd', [F('webhook-no-endpoints', 'fires-linkerd-not-ready')]),
      'linkerd-proxy-injector-webhook-config',
      'Fail',
    );
    expect(run(snap)[0]!.message).toMatch(/failurePolicy Fail: pod creation is blocked\.$/);
  });

  it('falls back to the Endpoints object when no slices exist or none were read', () => {
    const fs = run(cluster('istio', [F('webhook-no-endpoints', 'fires-istio-endpoints-only')]));
    expect(ids(fs)).toEqual(['webhook-no-endpoints Service istio-system/istiod']);
    expect(fs[0]!.evidence).toMatchObject({
      endpointsFrom: 'Endpoints',
      targetPort: 15017,
      containerPort: 15017,
      ready: [],
      notReady: [],
    });
    expect(fs[0]!.evidence.webhooks).toHaveLength(4);
    expect(fs[0]!.message).toContain('failurePolicy Fail: pod creation is blocked');
    // Not read at all (403 on endpointslices): the ready Endpoints object decides, silently.
    expect(run(forbid(cluster('linkerd'), 'endpointslices'))).toEqual([]);
    expect(
      ids(run(forbid(cluster('linkerd', [F('webhook-no-endpoints', 'fires-linkerd-not-ready')]), 'endpointslices'))),
    ).toEqual(['webhook-no-endpoints Service linkerd/linkerd-proxy-injector']);
  });

  it('fires when the Service is missing or lacks the port the webhook calls', () => {
    const missing = run(cluster('linkerd', [F('webhook-no-endpoints', 'fires-linkerd-service-missing')]));
    expect(ids(missing)).toEqual(['webhook-no-endpoints Service linkerd/linkerd-proxy-injector']);
    expect(missing[0]!.evidence.problem).toBe('service-missing');
    expect(missing[0]!.fix[0]).toBe('kubectl -n linkerd get service linkerd-proxy-injector -o yaml');
    const port = run(cluster('istio', [F('webhook-no-endpoints', 'fires-istio-port-missing')]));
    expect(port[0]!.evidence).toMatchObject({ problem: 'port-missing', port: 443, targetPort: null });
    expect(port[0]!.message).toContain('which has no port 443');
  });

  it('names a targetPort that no injector pod declares', () => {
    const fs = run(cluster('linkerd', [F('webhook-no-endpoints', 'fires-linkerd-targetport-unresolved')]));
    expect(fs[0]!.evidence).toMatchObject({
      problem: 'target-port-unresolved',
      targetPort: 'injector-https',
      containerPort: null,
    });
  });

  it('stays silent for Endpoints only, EndpointSlices only and a numeric targetPort', () => {
    expect(run(cluster('linkerd', [F('webhook-no-endpoints', 'ok-linkerd-endpoints-only')]))).toEqual([]);
    expect(run(cluster('linkerd', [F('webhook-no-endpoints', 'ok-linkerd-numeric-targetport')]))).toEqual([]);
    expect(run(cluster('istio', [F('webhook-no-endpoints', 'ok-istio-slices-only')]))).toEqual([]);
    expect(
      run(
        forbid(
          forbid(cluster('istio', [F('webhook-no-endpoints', 'fires-istio-endpoints-only')]), 'endpoints'),
          'endpointslices',
        ),
      ),
    ).toEqual([]);
  });

  it('stays silent when a live -n run did not read the control-plane namespace', () => {
    const snap = liveNamespaceOnly(
      cluster('linkerd', [F('webhook-no-endpoints', 'fires-linkerd-service-missing')]),
      'shop',
    );
    expect(run(snap)).toEqual([]);
    expect(
      findings(
        liveNamespaceOnly(cluster('linkerd', [F('injector-oomkilled', 'fires-linkerd-chain')]), 'shop'),
        CONTROL_PLANE,
      ),
    ).toEqual([]);
  });
});

describe('injector-unavailable', () => {
  const run = (snap: Snapshot) => findings(snap, ['injector-unavailable']);

  it('fires for a crash-looping Linkerd injector with per-pod evidence', () => {
    const fs = run(cluster('linkerd', [F('injector-unavailable', 'fires-linkerd-crashloop')]));
    expect(ids(fs)).toEqual(['injector-unavailable Deployment linkerd/linkerd-proxy-injector']);
    expect(fs[0]!.severity).toBe('error');
    expect(fs[0]!.message).toBe(
      'Injector Deployment linkerd/linkerd-proxy-injector has 0 of 1 replicas available (pod linkerd-proxy-injector-6d8f9c7b5-x2k4p: CrashLoopBackOff; its container proxy-injector keeps exiting with code 1 (Error): its previous log says why); failurePolicy Ignore: pods are created silently without a proxy.',
    );
    expect(fs[0]!.evidence.pods).toEqual([
      {
        name: 'linkerd-proxy-injector-6d8f9c7b5-x2k4p',
        phase: 'Running',
        ready: false,
        restarts: 14,
        waiting: 'CrashLoopBackOff',
        lastTermination: {
          container: 'proxy-injector',
          reason: 'Error',
          exitCode: 1,
          finishedAt: '2026-11-22T11:50:00Z',
        },
      },
    ]);
    expect(fs[0]!.causeKey).toBe('injector-down:linkerd');
    expect(fs[0]!.fix).toEqual([
      'kubectl -n linkerd describe deploy/linkerd-proxy-injector',
      'kubectl -n linkerd logs deploy/linkerd-proxy-injector -c proxy-injector --previous',
      'kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector',
    ]);
  });

  it('fires for istiod that cannot pull its image (the Deployment the Service selects)', () => {
    const fs = run(cluster('istio', [F('injector-unavailable', 'fires-istio-imagepull')]));
    expect(ids(fs)).toEqual(['injector-unavailable Deployment istio-system/istiod']);
    expect(fs[0]!.message).toContain(
      '(pod istiod-7f8c9d6b5-m4n5b: ImagePullBackOff); failurePolicy Fail: pod creation is blocked.',
    );
    expect(fs[0]!.fix[1]).toBe('kubectl -n istio-system logs deploy/istiod -c discovery --previous');
  });

  it('fires when the Deployment is gone but its webhook is registered', () => {
    const fs = run(cluster('linkerd', [F('injector-unavailable', 'fires-linkerd-missing')]));
    expect(ids(fs)).toEqual(['injector-unavailable Service linkerd/linkerd-proxy-injector']);
    expect(fs[0]!.message).toContain(
      'Service linkerd/linkerd-proxy-injector, which webhook linkerd-proxy-injector.linkerd.io calls, selects no pod and no Deployment',
    );
    expect(fs[0]!.evidence.deploymentFound).toBe(false);
  });

  it('fires when istiod is scaled to 0 while its webhooks call it', () => {
    const fs = run(cluster('istio', [F('injector-unavailable', 'fires-istio-scaled-zero')]));
    expect(fs[0]!.message).toContain('is scaled to 0 replicas');
    expect(fs[0]!.fix).toEqual(['kubectl -n istio-system scale deploy/istiod --replicas=1']);
  });

  it('warns without claiming the injector is down when one of two pods crash-loops', () => {
    const fs = run(cluster('linkerd', [F('injector-unavailable', 'warn-linkerd-degraded')]));
    expect(fs).toHaveLength(1);
    expect(fs[0]!.severity).toBe('warning');
    expect(fs[0]!.causeKey).toBeUndefined();
    expect(fs[0]!.message).toContain('has 1 of 2 pods unable to run');
  });

  it('stays silent during a rollout and when the deployments cannot be read', () => {
    expect(run(cluster('linkerd', [F('injector-unavailable', 'ok-linkerd-rollout')]))).toEqual([]);
    expect(
      run(forbid(cluster('linkerd', [F('injector-unavailable', 'fires-linkerd-crashloop')]), 'deployments')),
    ).toEqual([]);
  });
});

describe('injector-oomkilled', () => {
  const run = (snap: Snapshot) => findings(snap, ['injector-oomkilled']);

  it('fires for an OOMKilled Linkerd injector and doubles its limit', () => {
    const fs = run(cluster('linkerd', [F('injector-oomkilled', 'fires-linkerd-chain')]));
    expect(ids(fs)).toEqual(['injector-oomkilled Deployment linkerd/linkerd-proxy-injector']);
    expect(fs[0]!.severity).toBe('error');
    expect(fs[0]!.evidence.oomKilled).toEqual([
      {
        pod: 'linkerd-proxy-injector-6d8f9c7b5-x2k4p',
        container: 'proxy-injector',
        restarts: 9,
        finishedAt: '2026-11-22T11:40:00Z',
        memoryLimit: '250Mi',
        memoryRequest: '50Mi',
      },
    ]);
    expect(fs[0]!.fix).toEqual([
      'kubectl -n linkerd set resources deploy/linkerd-proxy-injector -c proxy-injector --limits=memory=500Mi',
      '# durable, if installed with Helm',
      'helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n linkerd --reuse-values --set proxyInjectorResources.memory.limit=500Mi',
    ]);
  });

  it('fires for istiod (container discovery) with the pilot Helm value', () => {
    const fs = run(cluster('istio', [F('injector-oomkilled', 'fires-istio')]));
    expect(ids(fs)).toEqual(['injector-oomkilled Deployment istio-system/istiod']);
    expect(fs[0]!.fix[0]).toBe(
      'kubectl -n istio-system set resources deploy/istiod -c discovery --limits=memory=4096Mi',
    );
    expect(fs[0]!.fix.slice(1)).toEqual([
      '# durable, if installed with Helm, pinned to the installed 1.24.2',
      'helm upgrade istiod istio/istiod -n istio-system --version 1.24.2 --reuse-values --set pilot.resources.limits.memory=4096Mi',
      '# durable, if installed with istioctl, from your own IstioOperator and values, else istioctl installs its defaults: istioctl install -f YOUR-ISTIOOPERATOR.yaml --set values.pilot.resources.limits.memory=4096Mi',
    ]);
    // An hour ago: still an error. Three days ago and Ready since: a warning.
    expect(fs[0]!.severity).toBe('error');
    expect(
      findings(cluster('istio', [F('injector-oomkilled', 'fires-istio')]), ['injector-oomkilled'], {
        now: new Date('2026-11-25T12:00:00Z'),
      })[0]!.severity,
    ).toBe('warning');
  });

  it('stays silent for an ordinary error exit', () => {
    expect(run(cluster('linkerd', [F('injector-oomkilled', 'ok-linkerd-error-exit')]))).toEqual([]);
  });

  it('doubles memory quantities to whole Mi', () => {
    expect(doubledMemory('250Mi')).toBe('500Mi');
    expect(doubledMemory('1.5Gi')).toBe('3072Mi');
    expect(doubledMemory('512M')).toBe('977Mi');
    expect(doubledMemory('268435456')).toBe('512Mi');
    expect(doubledMemory('lots')).toBeUndefined();
  });
});

describe('the injector-OOM chain, ranked over all checks', () => {
  it('puts the OOM first, then the down injector, then the webhook without endpoints', () => {
    const fs = findings(cluster('linkerd', [F('injector-oomkilled', 'fires-linkerd-chain')]));
    const chain = fs.filter((f) => [...CONTROL_PLANE, 'sidecar-missing'].includes(f.id));
    const expected = [
      'injector-oomkilled Deployment linkerd/linkerd-proxy-injector',
      'injector-unavailable Deployment linkerd/linkerd-proxy-injector',
      'webhook-no-endpoints Service linkerd/linkerd-proxy-injector',
    ];
    const hasSidecarMissing = CHECKS.some((c) => c.id === 'sidecar-missing');
    if (hasSidecarMissing) expected.push('sidecar-missing Deployment shop/cart');
    expect(ids(chain)).toEqual(expected);
    expect(chain.map((f) => f.causedBy)).toEqual([
      undefined,
      'injector-oom:linkerd',
      'injector-down:linkerd',
      ...(hasSidecarMissing ? ['webhook-broken:linkerd'] : []),
    ]);
    // The blast radius: the two shop/cart pods admitted without a proxy.
    expect(chain[0]!.affectedPods).toBe(2);
  });
});

describe('webhook-call-failed', () => {
  const run = (snap: Snapshot) => findings(snap, ['webhook-call-failed']);

  it('resolves FailedCreate events on ReplicaSets to the Deployment and Jobs to themselves', () => {
    const [job, frontend] = run(cluster('istio', [F('webhook-call-failed', 'fires-istio')]));
    // Equal blast radius (one missing pod each): namespace order.
    expect(ids([job!, frontend!])).toEqual([
      'webhook-call-failed Job payments/backfill',
      'webhook-call-failed Deployment store/frontend',
    ]);
    const fs = [frontend!, job!];
    expect(fs[0]!.evidence).toEqual({
      webhook: 'namespace.sidecar-injector.istio.io',
      failurePolicy: 'Fail',
      cause: 'no-endpoints',
      url: 'https://istiod.istio-system.svc:443/inject?timeout=10s',
      transportError: 'no endpoints available for service "istiod"',
      count: 15,
      lastTimestamp: '2026-11-22T11:55:00Z',
      objects: ['ReplicaSet/frontend-6c8d9f7b5', 'ReplicaSet/frontend-7d9f8c6b4'],
      message:
        'Error creating: Internal error occurred: failed calling webhook "namespace.sidecar-injector.istio.io": failed to call webhook: Post "https://istiod.istio-system.svc:443/inject?timeout=10s": no endpoints available for service "istiod"',
    });
    expect(fs[0]!.message).toBe(
      'Deployment store/frontend cannot create pods: the API server failed calling webhook namespace.sidecar-injector.istio.io because its Service has no endpoints.',
    );
    expect(fs[0]!.causedBy).toBeUndefined(); // no webhook-broken finding in this run: the link is dropped
    expect(fs[0]!.affectedPods).toBe(1);
    expect(fs[0]!.fix).toEqual([
      'kubectl -n istio-system rollout status deploy/istiod',
      'kubectl -n istio-system describe pods -l app=istiod,istio.io/rev=default',
    ]);
    expect(fs[1]!.evidence.cause).toBe('timeout');
    // The port the API server dials is istiod's container port (the Service's targetPort), not the URL's 443.
    expect(fs[1]!.evidence).toMatchObject({ portToOpen: 15017, portFrom: 'the Service targetPort' });
    expect(fs[1]!.evidence.provider).toBeUndefined();
    expect(fs[1]!.fix.slice(0, 2)).toEqual([
      '# a NetworkPolicy in istio-system must admit the API server to TCP port 15017 of the injector pods',
      'kubectl -n istio-system get networkpolicy',
    ]);
  });

  it('names the GKE firewall rule and the port on a GKE cluster (istio/istio#20890)', () => {
    const [f] = run(cluster('istio', [F('webhook-call-failed', 'fires-istio-gke-timeout')]));
    expect(f!.message).toContain(
      "because the call timed out (TCP port 15017 of the injector's pods must be reachable from the API server)",
    );
    expect(f!.evidence).toMatchObject({ cause: 'timeout', portToOpen: 15017, provider: 'gke' });
    expect(f!.fix.slice(0, 4)).toEqual([
      '# a NetworkPolicy in istio-system must admit the API server to TCP port 15017 of the injector pods',
      'kubectl -n istio-system get networkpolicy',
      '# GKE private cluster: the control plane reaches the nodes only on TCP 443 and 10250 unless a firewall rule opens 15017. Fill in the network of the cluster, its control-plane range, masterIpv4CidrBlock, and the node tag',
      'gcloud compute firewall-rules create allow-apiserver-to-istiod-from-control-plane --network NETWORK --direction INGRESS --allow tcp:15017 --source-ranges MASTER_IPV4_CIDR --target-tags NODE_TAG',
    ]);
  });

  it('gives the fix webhook-port-blocked gives for the same closed port: one provider fact, one firewall rule', () => {
    const fs = findings(cluster('istio', [F('webhook-call-failed', 'fires-istio-gke-timeout')]), [
      'webhook-call-failed',
      'webhook-port-blocked',
    ]);
    const called = fs.find((f) => f.id === 'webhook-call-failed')!;
    const blocked = fs.find((f) => f.id === 'webhook-port-blocked')!;
    expect(called.evidence.provider).toBe('gke');
    expect(blocked.evidence.provider).toBe('gke');
    const firewall = (fix: string[]) => fix.filter((l) => /gcloud|GKE/.test(l));
    expect(firewall(called.fix)).toHaveLength(2);
    expect(firewall(called.fix)).toEqual(firewall(blocked.fix));
  });

  it("names the AWS security group rule and Kuma's admission port on EKS (kumahq/kuma#6841)", () => {
    const [f] = run(cluster('kuma', [F('webhook-call-failed', 'fires-kuma-eks-timeout')]));
    expect(f!.evidence).toMatchObject({ cause: 'timeout', portToOpen: 5443, provider: 'aws' });
    expect(f!.fix).toContain(
      '# AWS: the security group of the nodes must admit TCP 5443 from the cluster security group, that of the network interfaces of the control plane. Fill in both group ids',
    );
  });

  it('takes the port the API server dialled when the Service was not read, never the Service port', () => {
    expect(
      dialledPort('Post "https://istiod.istio-system.svc:443/inject": dial tcp 10.228.0.5:15017: i/o timeout'),
    ).toBe(15017);
    expect(dialledPort('dial tcp [fd00:10:244::5]:8443: connect: connection refused')).toBe(8443);
    expect(dialledPort('context deadline exceeded')).toBeUndefined();
    const snap = forbid(cluster('istio', [F('webhook-call-failed', 'fires-istio-gke-timeout')]), 'services');
    const [f] = run(snap);
    expect(f!.evidence).toMatchObject({ portToOpen: 15017, portFrom: 'the address the API server dialled' });
  });

  it('links to the broken webhook when one is found', () => {
    const fs = findings(
      cluster('istio', [
        F('webhook-call-failed', 'fires-istio'),
        F('webhook-no-endpoints', 'fires-istio-endpoints-only'),
      ]),
      ['webhook-no-endpoints', 'webhook-call-failed'],
    );
    expect(ids(fs)[0]).toBe('webhook-no-endpoints Service istio-system/istiod');
    expect(fs.slice(1).map((f) => f.causedBy)).toEqual(['webhook-broken:istio', 'webhook-broken:istio']);
  });

  it("resolves a CronJob's Job to the CronJob and classifies a certificate failure", () => {
    const fs = run(cluster('linkerd', [F('webhook-call-failed', 'fires-linkerd-cronjob')]));
    expect(ids(fs)).toEqual(['webhook-call-failed CronJob shop/report']);
    expect(fs[0]!.evidence).toMatchObject({
      cause: 'certificate',
      failurePolicy: 'Ignore',
      count: 6,
      objects: ['Job/report-29380100'],
    });
    expect(fs[0]!.fix[0]).toBe(
      `kubectl get mutatingwebhookconfiguration linkerd-proxy-injector-webhook-config -o jsonpath='{.webhooks[?(@.name=="linkerd-proxy-injector.linkerd.io")].clientConfig.caBundle}' | base64 -d | openssl x509 -noout -subject -enddate`,
    );
  });

  it('classifies the API server error text', () => {
    const cases: [string, string][] = [
      ['no endpoints available for service "linkerd-proxy-injector"', 'no-endpoints'],
      ['x509: certificate has expired or is not yet valid', 'certificate'],
      ['tls: failed to verify certificate: x509: certificate signed by unknown authority', 'certificate'],
      ['context deadline exceeded', 'timeout'],
      ['dial tcp 10.96.10.10:443: connect: connection refused', 'connection-refused'],
      ['service "istiod" not found', 'service-not-found'],
      ['the server could not find the requested resource', 'other'],
    ];
    for (const [msg, cause] of cases)
      expect(parseAdmissionError(`failed calling webhook "x": ${msg}`), msg).toMatchObject({ kind: 'call', cause });
  });

  it('stays silent for recovered owners, other webhooks, quota errors and out-of-scope namespaces', () => {
    expect(run(cluster('istio', [F('webhook-call-failed', 'ok-istio')]))).toEqual([]);
    expect(
      run(cluster('istio', [F('webhook-call-failed', 'fires-istio')], { allNamespaces: false, namespace: 'default' })),
    ).toEqual([]);
    expect(
      findings(cluster('istio', [F('webhook-call-failed', 'fires-istio')]), ['webhook-call-failed'], {
        mesh: 'linkerd',
      }),
    ).toEqual([]);
  });

  it('keeps InjectionSkipped out of the findings and exposes the latest skip reasons per workload', () => {
    const snap = cluster('linkerd', [F('webhook-call-failed', 'ok-linkerd-injection-skipped')]);
    expect(findings(snap, CONTROL_PLANE)).toEqual([]);
    const m = new Model({ snapshot: snap, now: NOW, options: { mesh: 'auto', certExpiryWarningDays: 60 } });
    const billing = m.workloads.find((w) => w.name === 'billing')!;
    expect(injectionSkip(m, 'linkerd', billing)).toEqual({
      reasons: [
        'neither the namespace nor the pod have the annotation "linkerd.io/inject:enabled"',
        'automountServiceAccountToken set to "false"',
      ],
      count: 3,
      lastTimestamp: '2026-11-22T09:00:00Z',
      object: 'Deployment/billing',
    });
    expect(
      injectionSkip(
        m,
        'linkerd',
        m.workloads.find((w) => w.name === 'web')!,
      ),
    ).toBeUndefined();
  });
});
