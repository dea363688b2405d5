/**
 * Where sidecar-missing fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/injection.test.ts, test/checks/outage.test.ts, test/checks/istio-injector.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('sidecar-missing', {
  fires: [
    // Created after the injector's Secret got a certificate the injector, reading it only at start, started before (gen9time).
    {
      fixtures: 'fires-linkerd-stable-2.10-injector-2.9.0-served-older-cert.yaml',
      findings: ['Deployment emojivoto/web'],
      said: [
        {
          id: 'stale-cert',
          params: { secret: 'linkerd/linkerd-proxy-injector-k8s-tls', release: 'Linkerd stable-2.9.0' },
        },
      ],
    },
    // Its near miss: a release that reloads the file: the renewal is not the cause claimed.
    {
      fixtures: 'fires-linkerd-stable-2.10-injector-2.9.3-renewed-cert-not-blamed.yaml',
      findings: ['Deployment shop/orders'],
      said: [{ id: 'after-marker', params: { webhook: 'linkerd-proxy-injector.linkerd.io' } }],
    },
    // OpenShift Service Mesh 2.x: a member namespace, the policy disabled, the pod asks explicitly (issue 31.8).
    { fixtures: 'fires-istio-ossm-2-member-namespace-pod-asks.yaml', findings: ['Deployment bookinfo/reviews'] },
    {
      fixtures: 'fires-consul.yaml',
      findings: ['Deployment catalog/cart'],
      said: [{ id: 'unknown-time', params: { pods: '1 pod', meshTitle: 'Consul' } }],
    },
    {
      fixtures: 'fires-istio.yaml',
      findings: ['Pod payments/teller', 'Deployment store/search'],
      said: [
        { id: 'after-marker', params: { markers: 'Namespace store got label istio-injection=enabled' } },
        { id: 'unknown-time', params: { workload: 'Pod payments/teller' } },
      ],
    },
    {
      fixtures: 'fires-kuma.yaml',
      findings: ['Deployment orders/cart'],
      said: [{ id: 'after-marker', params: { webhook: 'namespace-kuma-injector.kuma.io' } }],
    },
    {
      fixtures: 'fires-linkerd-during-outage.yaml',
      findings: ['Deployment shop/cart'],
      said: [{ id: 'during-injector-outage-reason', params: { to: '2026-11-20T10:04:00.000Z', reason: 'OOMKilled' } }],
    },
    {
      fixtures: 'fires-linkerd.yaml',
      findings: ['Deployment shop/cart'],
      said: [{ id: 'after-marker', params: { pods: '2 pods', were: 'were', have: 'have', them: 'them' } }],
    },
    {
      fixtures: 'fires-linkerd-before-ready.yaml',
      findings: ['Deployment shop/cart'],
      said: [{ id: 'before-injector-ready', params: { deployment: 'linkerd/linkerd-proxy-injector' } }],
    },
    {
      fixtures: 'fires-linkerd-injector-replaced.yaml',
      findings: ['Deployment shop/orders'],
      said: [{ id: 'during-injector-outage-reason', params: { from: '2026-11-21T07:58:30.000Z' } }],
    },
    {
      fixtures: 'fires-linkerd-injector-rollout.yaml',
      findings: ['Deployment shop/orders'],
      said: ['after-marker'],
    },
    // Pods older than the webhook configuration that injects them now (facts/timeline.ts, before-webhook).
    {
      fixtures: 'fires-linkerd-before-webhook.yaml',
      findings: ['Deployment shop/cart'],
      said: [
        {
          id: 'before-webhook',
          params: {
            pods: '2 pods',
            created: '2026-11-20T09:58:10.000Z to 2026-11-20T09:58:11.000Z',
            configuration: 'linkerd-proxy-injector-webhook-config',
            createdAt: '2026-11-20T10:02:00.000Z',
          },
        },
      ],
    },
    {
      fixtures: 'fires-kuma-before-webhook.yaml',
      findings: ['Deployment orders/cart'],
      said: [{ id: 'before-webhook', params: { configuration: 'kuma-admission-mutating-webhook-configuration' } }],
    },
    {
      fixtures: 'fires-consul-before-webhook.yaml',
      findings: ['Deployment catalog/cart'],
      said: [{ id: 'before-webhook', params: { configuration: 'consul-connect-injector', meshTitle: 'Consul' } }],
    },
    // A marker value Istio 1.27+ ignores while the namespace's policy injects: the missing proxy is still reported.
    {
      fixtures: 'fires-istio-1-27-ignored-value.yaml',
      findings: ['Deployment yes27/eager'],
      said: [{ id: 'unknown-time', params: { meshTitle: 'Istio' } }],
    },
  ],
  silent: [
    { fixtures: 'ok-istio.yaml' },
    { fixtures: 'ok-linkerd.yaml' },
    { fixtures: 'ok-second-injector-replica.yaml' },
    { fixtures: 'ok-istio-1-27-ignored-value-injected.yaml' },
    { fixtures: 'ok-istio-ignored-value-before-1-27.yaml' },
    // A webhook configuration re-created after pods that have their proxies: nothing is missing.
    { fixtures: 'ok-linkerd-webhook-recreated-pods-injected.yaml' },
    { fixtures: 'ok-istio-tag-recreated-pods-injected.yaml' },
  ],
});

describe('sidecar-missing: a replaced injector replica dates the window (linkerd/linkerd2#13702)', () => {
  const finding = (name: string) =>
    findings(cluster('linkerd', [`checks/sidecar-missing/${name}.yaml`]), ['sidecar-missing'])[0]!;
  it('a replica re-created long after its ReplicaSet: the pods created around it were admitted while it was down', () => {
    const f = finding('fires-linkerd-injector-replaced');
    expect(f.messageId).toBe('sidecar-missing/during-injector-outage-reason');
    // The reason as the injector's status gave it, quoted.
    expect(f.params).toMatchObject({
      from: '2026-11-21T07:58:30.000Z',
      to: '2026-11-21T08:01:40.000Z',
      reason: 'replica linkerd-proxy-injector-6d8f9c7b5-x2k4p re-created at 2026-11-21T08:00:30.000Z',
    });
    expect(f.message).toContain(
      'while the Linkerd injector was down (2026-11-21T07:58:30.000Z to 2026-11-21T08:01:40.000Z, replica linkerd-proxy-injector-6d8f9c7b5-x2k4p re-created at 2026-11-21T08:00:30.000Z)',
    );
  });
  it('a rollout (its ReplicaSet as young as the pod): the old replicas served, no window is claimed', () => {
    const f = finding('fires-linkerd-injector-rollout');
    expect(f.messageId).toBe('sidecar-missing/after-marker');
    expect(f.params?.markers).toBe('Namespace shop got annotation linkerd.io/inject=enabled');
  });
});

describe('sidecar-missing beside injection-marker-invalid: a value Istio ignores while its policy injects', () => {
  const F = 'checks/sidecar-missing/fires-istio-1-27-ignored-value.yaml';
  it('reports both: the ignored value, and the pod without the proxy', () => {
    const fs = findings(cluster('istio', [F])).filter((f) => f.resource.namespace === 'yes27');
    expect(fs.map((f) => `${f.id} ${f.resource.kind}/${f.resource.name}`).sort()).toEqual([
      'injection-marker-invalid Deployment/eager',
      'sidecar-missing Deployment/eager',
    ]);
    const invalid = fs.find((f) => f.id === 'injection-marker-invalid')!;
    expect(invalid.message).toContain('a value Istio 1.27 and later ignore');
    const missing = fs.find((f) => f.id === 'sidecar-missing')!;
    expect(missing.messageId).toBe('sidecar-missing/unknown-time');
    expect(missing.params).toMatchObject({ meshTitle: 'Istio', webhook: 'namespace.sidecar-injector.istio.io' });
    expect(missing.evidence.pods).toEqual([expect.objectContaining({ name: 'eager-1' })]);
  });

  it('the pods predating the marker are pod-predates-enablement, beside it too', () => {
    const dated = `apiVersion: v1
kind: Namespace
metadata:
  name: yes27
  labels: {kubernetes.io/metadata.name: yes27, istio-injection: enabled}
  managedFields:
  - {manager: kubectl, operation: Update, time: "2026-11-21T00:00:00Z", fieldsType: FieldsV1, fieldsV1: {f:metadata: {f:labels: {f:istio-injection: {}}}}}
`;
    const ids = findings(cluster('istio', [F, dated]))
      .filter((f) => f.resource.namespace === 'yes27')
      .map((f) => f.id)
      .sort();
    expect(ids).toEqual(['injection-marker-invalid', 'pod-predates-enablement']);
  });
});

describe('sidecar-missing: pods created before the injector was first ready', () => {
  const F = 'checks/sidecar-missing/fires-linkerd-before-ready.yaml';
  it('says so, with the window from the pods creation to the injector readiness (failurePolicy Ignore)', () => {
    const [f] = findings(cluster('linkerd', [F]), ['sidecar-missing']);
    expect(f!.messageId).toBe('sidecar-missing/before-injector-ready');
    expect(f!.params).toMatchObject({
      pods: '2 pods',
      created: '2026-11-20T10:00:40.000Z to 2026-11-20T10:01:10.000Z',
      deployment: 'linkerd/linkerd-proxy-injector',
      installedAt: '2026-11-20T10:00:00.000Z',
      readyAt: '2026-11-20T10:01:30.000Z',
    });
    // The rendered text, whole.
    expect(f!.message).toBe(
      '2 pods of Deployment shop/cart were created at 2026-11-20T10:00:40.000Z to 2026-11-20T10:01:10.000Z, before the Linkerd injector was first ready (Deployment linkerd/linkerd-proxy-injector created 2026-11-20T10:00:00.000Z, ready 2026-11-20T10:01:30.000Z), and failurePolicy Ignore let them through but have no Linkerd proxy, although webhook linkerd-proxy-injector.linkerd.io should have injected them.',
    );
    expect(f!.evidence.createdBeforeInjectorReady).toEqual({
      deployment: 'linkerd/linkerd-proxy-injector',
      installedAt: '2026-11-20T10:00:00.000Z',
      readyAt: '2026-11-20T10:01:30.000Z',
    });
  });

  const injector = (restarts: number, podCreated: string) => `apiVersion: v1
kind: Pod
metadata:
  name: linkerd-proxy-injector-6d8f9c7b5-x2k4p
  namespace: linkerd
  uid: pod-injector
  creationTimestamp: "${podCreated}"
  labels: {linkerd.io/control-plane-component: proxy-injector, linkerd.io/control-plane-ns: linkerd, pod-template-hash: 6d8f9c7b5}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: linkerd-proxy-injector-6d8f9c7b5, uid: rs-injector, controller: true}]
spec: {containers: [{name: proxy-injector, image: "cr.l5d.io/linkerd/controller:stable-2.14.10"}]}
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-11-20T10:01:30Z"}]
  containerStatuses: [{name: proxy-injector, ready: true, restartCount: ${restarts}, state: {running: {startedAt: "2026-11-20T10:01:10Z"}}}]
`;
  it('claims nothing when the first readiness is unknown: the injector restarted, or its pod came from a later rollout', () => {
    for (const y of [injector(1, '2026-11-20T10:00:05Z'), injector(0, '2026-11-20T10:30:00Z')]) {
      const [f] = findings(cluster('linkerd', [F, y]), ['sidecar-missing']);
      expect(f!.messageId).not.toBe('sidecar-missing/before-injector-ready');
      expect(f!.evidence.createdBeforeInjectorReady).toBeUndefined();
    }
  });
});

describe('sidecar-missing: pods created before the webhook configuration that injects them now', () => {
  const F = 'checks/sidecar-missing/fires-linkerd-before-webhook.yaml';
  it('says when each was created, with the configuration in the evidence and the order of the install in the fix', () => {
    const [f] = findings(cluster('linkerd', [F]), ['sidecar-missing']);
    expect(f!.message).toBe(
      '2 pods of Deployment shop/cart were created at 2026-11-20T09:58:10.000Z to 2026-11-20T09:58:11.000Z, before MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config was created (2026-11-20T10:02:00.000Z): its webhook linkerd-proxy-injector.linkerd.io, which injects such a pod now, did not exist when they were admitted, so have no Linkerd proxy.',
    );
    expect(f!.evidence.createdBeforeWebhook).toEqual({
      configuration: 'linkerd-proxy-injector-webhook-config',
      createdAt: '2026-11-20T10:02:00.000Z',
    });
    expect(JSON.stringify(f!.fix)).toContain('in an earlier sync wave or with a dependsOn');
  });
  const config = (at: string) =>
    `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: linkerd-proxy-injector-webhook-config, uid: mwc-linkerd, creationTimestamp: "${at}"}
webhooks:
- name: linkerd-proxy-injector.linkerd.io
  admissionReviewVersions: [v1]
  clientConfig: {service: {name: linkerd-proxy-injector, namespace: linkerd, path: /, port: 443}}
  failurePolicy: Ignore
  namespaceSelector: {matchExpressions: [{key: config.linkerd.io/admission-webhooks, operator: NotIn, values: [disabled]}]}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: "*"}]
  sideEffects: None
`;
  it('claims nothing when one pod is as old as the configuration (same second) or younger, or its time is unknown', () => {
    for (const at of ['2026-11-20T09:58:11Z', '2026-11-20T09:58:10.5Z', '2026-11-20T09:58:10Z', 'not a time']) {
      const [f] = findings(cluster('linkerd', [F, config(at)]), ['sidecar-missing']);
      expect(f!.messageId, at).not.toBe('sidecar-missing/before-webhook');
      expect(f!.evidence.createdBeforeWebhook, at).toBeUndefined();
    }
  });
});

describe('sidecar-missing: the injector windows of facts/timeline.ts, from every status that dates them', () => {
  const F = 'checks/sidecar-missing/fires-linkerd-during-outage.yaml';
  // istio/istio#3716 and #48321: the injector's only replica not ready (rescheduled, scaled to 0) while pods were created.
  const notReady = `apiVersion: v1
kind: Pod
metadata:
  name: linkerd-proxy-injector-6d8f9c7b5-x2k4p
  namespace: linkerd
  uid: pod-injector
  creationTimestamp: "2026-01-02T00:01:00Z"
  labels: {linkerd.io/control-plane-component: proxy-injector, linkerd.io/control-plane-ns: linkerd, pod-template-hash: 6d8f9c7b5}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: linkerd-proxy-injector-6d8f9c7b5, uid: rs-injector, controller: true}]
spec:
  containers:
  - {name: proxy-injector, image: cr.l5d.io/linkerd/controller:stable-2.14.10}
  - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy:stable-2.14.10}
status:
  phase: Running
  conditions: [{type: Ready, status: "False", lastTransitionTime: "2026-11-20T09:59:30Z"}]
  containerStatuses:
  - {name: proxy-injector, ready: false, restartCount: 0, state: {running: {startedAt: "2026-01-02T00:01:10Z"}}}
  - {name: linkerd-proxy, ready: true, restartCount: 0, state: {running: {startedAt: "2026-01-02T00:01:05Z"}}}
`;
  it('a running injector that is not ready: down since its Ready condition turned False', () => {
    const [f] = findings(cluster('linkerd', [F, notReady]), ['sidecar-missing']);
    expect(f!.messageId).toBe('sidecar-missing/during-injector-outage');
    expect(f!.params).toEqual(expect.objectContaining({ from: '2026-11-20T09:59:30.000Z', to: 'now' }));
    expect(f!.params).not.toHaveProperty('reason'); // its status gave none: no reason is made up
    expect(f!.message).toContain('were created while the Linkerd injector was down (2026-11-20T09:59:30.000Z to now)');
    expect(f!.evidence.injectorOutages).toEqual([{ from: '2026-11-20T09:59:30.000Z', to: null }]);
    expect(f!.fixData).toContainEqual({
      kind: 'note',
      text: expect.stringContaining('run the injector with 2 or more replicas and a PodDisruptionBudget'),
    });
  });

  const scaledToZero = `apiVersion: v1
kind: Pod
metadata:
  name: linkerd-proxy-injector-6d8f9c7b5-x2k4p
  namespace: linkerd
  annotations: {meshdoctor.test/delete: "true"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: linkerd-proxy-injector, namespace: linkerd, uid: dep-injector, generation: 2, creationTimestamp: "2026-01-02T00:00:00Z", labels: {linkerd.io/control-plane-component: proxy-injector}}
spec:
  replicas: 0
  selector: {matchLabels: {linkerd.io/control-plane-component: proxy-injector}}
  template:
    metadata:
      labels: {linkerd.io/control-plane-component: proxy-injector, linkerd.io/control-plane-ns: linkerd}
      annotations: {linkerd.io/inject: disabled}
    spec:
      serviceAccountName: linkerd-proxy-injector
      containers: [{name: proxy-injector, image: "cr.l5d.io/linkerd/controller:stable-2.14.10"}]
status:
  replicas: 0
  observedGeneration: 2
  conditions: [{type: Available, status: "False", reason: MinimumReplicasUnavailable, lastTransitionTime: "2026-11-20T09:58:00Z"}]
`;
  it('no injector pod left: its Deployment Available=False dates the outage', () => {
    const [f] = findings(cluster('linkerd', [F, scaledToZero]), ['sidecar-missing']);
    expect(f!.messageId).toBe('sidecar-missing/during-injector-outage-reason');
    expect(f!.params).toMatchObject({
      from: '2026-11-20T09:58:00.000Z',
      to: 'now',
      reason: 'MinimumReplicasUnavailable',
    });
  });

  it('a pod created outside every window is not placed in one (the marker decides the wording)', () => {
    const late = notReady.replace('2026-11-20T09:59:30Z', '2026-11-21T09:00:00Z');
    const [f] = findings(cluster('linkerd', [F, late]), ['sidecar-missing']);
    expect(f!.messageId).toBe('sidecar-missing/after-marker');
    expect(f!.evidence.injectorOutages).toEqual([{ from: '2026-11-21T09:00:00.000Z', to: null }]);
  });
});
