/**
 * A fifth mesh made only of a data document and a small behaviour object (issue 32 item 4): a
 * made-up mesh, "MeshFive" (prefix meshfive.dev, webhook inject.meshfive.dev, proxy five-proxy,
 * a namespace label, a release table of two rows), is registered for this file alone beside the
 * four real meshes (names.ts and registry.ts replaced with vi.doMock over freshly loaded modules,
 * restored afterwards), built by profileFrom, and the generic checks must work for it: a healthy
 * install gives no finding, and each mistake gives the check that names it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MeshBehaviour, MeshData } from '../src/mesh/mesh-data.js';
import type { MeshName } from '../src/mesh/names.js';
import type { MeshProfile } from '../src/mesh/profile.js';
import { labelsOf } from '../src/util/objects.js';

const INJECT = 'meshfive.dev/inject';
const VALID = ['enabled', 'disabled'];

/** The made-up mesh, as data only. */
const FIVE_DATA: MeshData = {
  name: 'meshfive' as MeshName,
  title: 'MeshFive',
  containers: { proxy: 'five-proxy', init: ['five-init'], image: /(^|\/)five-proxy(:|@|$)/ },
  controlPlane: {
    namespace: 'meshfive-system',
    ownNamespaces: ['meshfive-system'],
    workloads: { key: 'app', values: ['five-injector'] },
    podLabels: { app: 'five-injector' },
    injector: { name: 'five-injector', container: 'injector', webhookPort: 8443 },
    webhooks: { config: 'meshfive-injector', names: ['inject.meshfive.dev'] },
    selfExclusion: [{ on: 'namespace', key: INJECT, value: 'disabled' }],
  },
  markers: {
    namespace: [{ field: 'labels', key: INJECT, enabling: ['enabled'] }],
    template: [{ field: 'labels', key: INJECT, inject: ['enabled'], skip: ['disabled'] }],
    strays: [{ field: 'annotations', key: INJECT, on: 'namespace' }],
    ask: { field: 'labels', key: INJECT, value: 'enabled' },
    optOut: { field: 'labels', key: INJECT, value: 'disabled' },
    enable: { field: 'labels', key: INJECT, value: 'enabled' },
  },
  proxy: {
    annotations: { 'requests.cpu': 'meshfive.dev/proxy-cpu', 'requests.memory': 'meshfive.dev/proxy-memory' },
    onNamespace: false,
    suggested: { 'requests.cpu': '10m', 'requests.memory': '32Mi', 'limits.cpu': '200m', 'limits.memory': '128Mi' },
  },
  jobs: { shutdown: /five-proxy-quit/, shutdownWords: ['five-proxy-quit'], alternatives: [] },
  install: { restartReloads: '' },
  versions: {
    kubernetes: [
      { release: '1.1', min: '1.28', max: '1.35', source: 'made up' },
      { release: '1.0', min: '1.26', max: '1.32', source: 'made up' },
    ],
    releases: {
      order: ['1.0', '1.1'],
      rows: [
        { from: '1.0', to: '1.0', source: 'made up' },
        { from: '1.1', to: '1.1', source: 'made up' },
      ],
      domains: ['meshfive.dev'],
      keys: [
        { key: INJECT, from: '1.0', does: 'injection' },
        { key: 'meshfive.dev/proxy-cpu', from: '1.0', does: 'proxy CPU request' },
        { key: 'meshfive.dev/proxy-memory', from: '1.0', does: 'proxy memory request' },
        { key: 'meshfive.dev/log-level', from: '1.1', does: 'proxy log level' },
      ],
      keySource: 'made up',
    },
  },
};

const read = (v: string | undefined) => (v === 'enabled' ? true : v === 'disabled' ? false : undefined);

/** What cannot be data: what a marker asks for and the injector's decision. */
const FIVE_BEHAVIOUR: MeshBehaviour = {
  intent: (i) => {
    const pod = read(labelsOf(i.template)[INJECT]);
    return pod ?? read(i.nsLabels[INJECT]) === true;
  },
  decide: (_m, i) => {
    const v = labelsOf(i.template)[INJECT];
    if (v !== undefined && !VALID.includes(v))
      return [{ kind: 'marker', rule: 'inject-label', ok: false, detail: `label ${INJECT}=${v} is not valid` }];
    const on = read(v) ?? read(i.nsLabels[INJECT]) === true;
    return [{ kind: 'marker', rule: 'inject-label', ok: on, detail: on ? 'enabled' : 'not enabled' }];
  },
};

const CA =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM4RENDQWRpZ0F3SUJBZ0lRYXg2T1J4anNGSFNNV0E2MTdIWTJTakFOQmdrcWhraUc5dzBCQVFzRkFEQVMKTVJBd0RnWURWUVFERXdkcmRXMWhMV05oTUI0WERUSTJNREV3TWpBd01EQXdNRm9YRFRNMU1USXpNVEF3TURBdwpNRm93RWpFUU1BNEdBMVVFQXhNSGEzVnRZUzFqWVRDQ0FTSXdEUVlKS29aSWh2Y05BUUVCQlFBRGdnRVBBRENDCkFRb0NnZ0VCQU5LaFR6S2JXL3J0NGdjZDZOTitRVTRiaFE5SGx6SHVlSHIzcWFjUlVwVi8reVRIcmNCZm5odGsKYVUrS1MzVCtka0ZEZTFCYU5ZRkJIZHlPRlErdTdWWUVYUVY1T3U3dE5RMHJPVERWV043UUJLbkI0cGdGS1V6RQp3WHBhNlVrT0pEbDB1SUNkTzl1ekw4VHhNb1RaYVhUV1hUVHFtMERKMkZocE9FSEtmZENjcnpMYWlNdnE2S2FrCkFxb0JXSFI2eXRFalFPUm9UbFJEVzZ0QVlsdXFRcXM1SFJNR2N1MjI1R2lhUGsvMUJaRUJXMjJJczduWm9DaEcKU3htMnJVSTRNZkphWmV6TWFWcHg1NWkzR3ZMc1JuMUg2LzN1OC9tVkpmWUE1TW1SdkMwWG1tb09LaHdGanlPQwovSmM2V1ZUVUNldGxMRVJZNWpuZUowMkg0WmxqY1Y4Q0F3RUFBYU5DTUVBd0R3WURWUjBUQVFIL0JBVXdBd0VCCi96QU9CZ05WSFE4QkFmOEVCQU1DQVFZd0hRWURWUjBPQkJZRUZHVlJ0NjB6N2ROaXovb1JnVEwyZjZtNGRTWmoKTUEwR0NTcUdTSWIzRFFFQkN3VUFBNElCQVFCTzlicWVSclhTUXNDZjlXMVJ5U05sZFBBaDlUNHY4UU9lNUx0WApYaldqRXYrcmVKajBQSnd3dC96QVVsRlBkU3k5MzNZemhKQVVXWGduc3B2dmNkQVhhbHhQYjMxNVc1N1NuWGNNCmRrb0hNNCsrVTQ0RWMwQ2dDLzl3ajRESmdEakJLTUpiY1haa1BGZVFCNGhQcXVsMTYvUEVDWXBEbm9JTlo3YloKem13dHBicHo2UXpQT2RicS8rNGxKeVlaQnQwN3Zaai9LNTA2MGdxcTk4U3d6WTFvdVNOa08yd1RncnNzRE5mdAoxQ0lYUmpJSVBJKzZuZ2NSK1B2ckkyRFJ0S1lBSVB5ckhWMkNWQzlFWjhPazAwVjUvS1lGdnBmbHZqVFZxM0F5CmoyUXBZaFErZGdMblpEWGVZY0taRWVyOGhaWGwycGtYRDFnNElRS1BRQzFVTnVjSwotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==';

/** A meshed pod of Deployment `app` in `ns`. */
const appPod = (ns: string, app: string, n: number, extra = '') => `
- apiVersion: v1
  kind: Pod
  metadata:
    name: ${app}-5d7f9c8b6-a1b${n}c
    namespace: ${ns}
    uid: pod-five-${ns}-${app}-${n}
    creationTimestamp: "2026-11-10T00:00:0${n}Z"
    labels: {app: ${app}, pod-template-hash: 5d7f9c8b6}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: ${app}-5d7f9c8b6, uid: rs-five-${ns}-${app}, controller: true}]
  spec:
    initContainers:
    - {name: five-init, image: "registry.example/meshfive/five-init:1.1.0"}
    containers:
    - {name: ${app}, image: "example/${app}:1.0"}
${extra || '    - {name: five-proxy, image: "registry.example/meshfive/five-proxy:1.1.0"}'}
  status:
    phase: Running
    conditions: [{type: Ready, status: "True"}]`;

const deployment = (ns: string, app: string, templateLabels = '') => `
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ${app}, namespace: ${ns}, uid: dep-five-${ns}-${app}, generation: 1}
  spec:
    replicas: 1
    selector: {matchLabels: {app: ${app}}}
    template:
      metadata: {labels: {app: ${app}${templateLabels}}}
      spec: {containers: [{name: ${app}, image: "example/${app}:1.0"}]}
  status: {replicas: 1, readyReplicas: 1, availableReplicas: 1}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: ${app}-5d7f9c8b6
    namespace: ${ns}
    uid: rs-five-${ns}-${app}
    labels: {app: ${app}, pod-template-hash: 5d7f9c8b6}
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: ${app}, uid: dep-five-${ns}-${app}, controller: true}]
  spec: {replicas: 1}`;

const namespace = (name: string, labels = '') => `
- apiVersion: v1
  kind: Namespace
  metadata: {name: ${name}, uid: ns-five-${name}, creationTimestamp: "2025-06-01T00:00:00Z", labels: {kubernetes.io/metadata.name: ${name}${labels}}}`;

/** The injector Service's Endpoints and EndpointSlice: its pod ready at `ip`, or (no ip) no endpoint at all. */
const endpoints = (ip?: string) => {
  const pod = '{kind: Pod, name: five-injector-6b9d8c7f4-q2w3e, namespace: meshfive-system}';
  const ports = '[{name: https-webhook, port: 8443, protocol: TCP}]';
  return `
- apiVersion: v1
  kind: Endpoints
  metadata: {name: five-injector, namespace: meshfive-system, uid: ep-five-injector}
  subsets: ${ip ? `[{addresses: [{ip: ${ip}, targetRef: ${pod}}], ports: ${ports}}]` : '[]'}
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata: {name: five-injector-x7k2p, namespace: meshfive-system, uid: eps-five-injector, labels: {kubernetes.io/service-name: five-injector}}
  addressType: IPv4
  endpoints: ${ip ? `[{addresses: [${ip}], conditions: {ready: true, serving: true, terminating: false}, targetRef: ${pod}}]` : '[]'}
  ports: ${ip ? ports : '[]'}`;
};

/** The injector's Deployment, with `available` of its 1 replica available. */
const injectorDeployment = (available: 0 | 1) => `
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: five-injector, namespace: meshfive-system, uid: dep-five-injector, generation: 1}
  spec:
    replicas: 1
    selector: {matchLabels: {app: five-injector}}
    template:
      metadata: {labels: {app: five-injector}}
      spec:
        containers:
        - name: injector
          image: registry.example/meshfive/five-injector:1.1.0
          ports: [{containerPort: 8443, name: https-webhook, protocol: TCP}]
  status: {replicas: 1, readyReplicas: ${available}, availableReplicas: ${available}, updatedReplicas: 1, observedGeneration: 1}`;

/** The injector's pod, ready or not. */
const injectorPod = (ready: boolean) => `
- apiVersion: v1
  kind: Pod
  metadata:
    name: five-injector-6b9d8c7f4-q2w3e
    namespace: meshfive-system
    uid: pod-five-injector
    creationTimestamp: "2026-01-02T00:01:00Z"
    labels: {app: five-injector, pod-template-hash: 6b9d8c7f4}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: five-injector-6b9d8c7f4, uid: rs-five-injector, controller: true}]
  spec:
    containers: [{name: injector, image: "registry.example/meshfive/five-injector:1.1.0", ports: [{containerPort: 8443, name: https-webhook, protocol: TCP}]}]
  status:
    phase: Running
    conditions: [{type: Ready, status: "${ready ? 'True' : 'False'}"}]
    containerStatuses: [{name: injector, ready: ${ready}, restartCount: 0, state: {running: {startedAt: "2026-01-02T00:01:10Z"}}}]`;

/** A healthy MeshFive install: its control plane, and namespace shop enabled with one meshed Deployment. */
const HEALTHY = `apiVersion: v1
kind: List
items:
${namespace('default')}
${namespace('kube-system')}
${namespace('meshfive-system', `, ${INJECT}: disabled`)}
${namespace('shop', `, ${INJECT}: enabled`)}
- apiVersion: admissionregistration.k8s.io/v1
  kind: MutatingWebhookConfiguration
  metadata: {name: meshfive-injector, uid: mwc-five}
  webhooks:
  - name: inject.meshfive.dev
    admissionReviewVersions: [v1]
    clientConfig: {service: {name: five-injector, namespace: meshfive-system, path: /inject}, caBundle: ${CA}}
    failurePolicy: Fail
    namespaceSelector: {matchLabels: {${INJECT}: enabled}}
    rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
    sideEffects: None
- apiVersion: v1
  kind: Service
  metadata: {name: five-injector, namespace: meshfive-system, uid: svc-five-injector}
  spec:
    type: ClusterIP
    clusterIP: 10.96.50.50
    selector: {app: five-injector}
    ports: [{name: https-webhook, port: 443, protocol: TCP, targetPort: 8443}]
${injectorDeployment(1)}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: five-injector-6b9d8c7f4
    namespace: meshfive-system
    uid: rs-five-injector
    labels: {app: five-injector, pod-template-hash: 6b9d8c7f4}
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: five-injector, uid: dep-five-injector, controller: true}]
  spec: {replicas: 1}
${injectorPod(true)}
${endpoints('10.244.5.5')}
- apiVersion: v1
  kind: ServiceAccount
  metadata: {name: default, namespace: shop, uid: sa-five-shop-default}
${deployment('shop', 'web')}
${appPod('shop', 'web', 1)}
`;

type Helpers = typeof import('./helpers/fixtures.js');
let h: Helpers;
let profile: MeshProfile;

const NAMES = '../src/mesh/names.js';
const REGISTRY = '../src/mesh/registry.js';

beforeAll(async () => {
  // This file's modules alone see the fifth mesh: fresh copies of src/ (the worker shares its modules, isolate: false).
  vi.resetModules();
  vi.doMock(NAMES, async (original) => {
    const real = await original<typeof import('../src/mesh/names.js')>();
    return { ...real, MESH_NAMES: [...real.MESH_NAMES, 'meshfive'] };
  });
  vi.doMock(REGISTRY, async () => {
    const { profileFrom } = await import('../src/mesh/profile-from.js');
    const list: MeshProfile[] = [
      (await import('../src/mesh/linkerd/index.js')).linkerd,
      (await import('../src/mesh/istio/index.js')).istio,
      (await import('../src/mesh/kuma/index.js')).kuma,
      (await import('../src/mesh/consul/index.js')).consul,
      profileFrom(FIVE_DATA, FIVE_BEHAVIOUR),
    ];
    const of = (mesh: MeshName) => list.find((p) => p.name === mesh)!;
    const meshTitle = (mesh: MeshName) => of(mesh).title;
    return {
      profileOf: of,
      PROFILE_LIST: list,
      meshTitle,
      meshList: (meshes: readonly MeshName[]) => {
        const t = meshes.map(meshTitle);
        return t.length > 2 ? `${t.slice(0, -1).join(', ')} and ${t[t.length - 1]}` : t.join(' and ');
      },
      webhookMesh: (hook: { name: string; configName: string; serviceName?: string }) =>
        list.find((p) => p.controlPlane.webhooks.owns(hook))?.name,
    };
  });
  h = await import('./helpers/fixtures.js');
  profile = (await import('../src/mesh/registry.js')).profileOf('meshfive' as MeshName);
});

afterAll(() => {
  vi.doUnmock(NAMES);
  vi.doUnmock(REGISTRY);
  vi.resetModules();
});

/** The findings over the healthy install with `overlay` (YAML items) laid over it, as "id Kind ns/name". */
function findings(overlay = '') {
  const objects = h.parseObjects(HEALTHY);
  const extra = overlay ? h.parseObjects(`apiVersion: v1\nkind: List\nitems:\n${overlay}`) : [];
  return h.findings(h.snapshotFrom(h.overlay(objects, extra)));
}
const run = (overlay = ''): string[] => h.ids(findings(overlay)).sort();

describe('a fifth mesh made of a data document and a behaviour object', () => {
  it('is registered as a profile built by profileFrom', () => {
    expect(profile.title).toBe('MeshFive');
    expect(profile.controlPlane.webhooks.owns({ name: 'inject.meshfive.dev', configName: 'meshfive-injector' })).toBe(
      true,
    );
    expect(profile.markers.enableMarker('shop', [])?.command).toBe(
      `kubectl label namespace shop ${INJECT}=enabled --overwrite`,
    );
  });

  it('a healthy install gives no finding', () => {
    expect(run()).toEqual([]);
  });

  it('a namespace without its marker: namespace-not-enabled', () => {
    // -A: a namespace that mixes meshed and unmeshed workloads (checkout was meshed while the namespace was enabled).
    const all = findings(
      [
        namespace('cart'),
        deployment('cart', 'basket'),
        appPod('cart', 'basket', 2, ' '),
        deployment('cart', 'checkout'),
        appPod('cart', 'checkout', 3),
      ].join('\n'),
    );
    expect(h.ids(all)).toEqual(['namespace-not-enabled Namespace cart']);
    // The fix sets MeshFive's own namespace label, from its data document.
    expect(JSON.stringify(all[0]!.fix)).toContain(`${INJECT}=enabled`);
  });

  it('a pod without its proxy in an enabled namespace: sidecar-missing', () => {
    const fs = findings(appPod('shop', 'web', 1, ' '));
    expect(h.ids(fs)).toEqual(['sidecar-missing Deployment shop/web']);
    // Its message names the mesh by the title of its data document.
    expect(fs[0]!.params).toMatchObject({ meshTitle: 'MeshFive', webhook: 'inject.meshfive.dev' });
  });

  it('its webhook with no ready injector: the injector and webhook checks', () => {
    const f = run([injectorPod(false), endpoints(), injectorDeployment(0)].join('\n'));
    expect(f).toEqual([
      'injector-unavailable Deployment meshfive-system/five-injector',
      'webhook-no-endpoints Service meshfive-system/five-injector',
    ]);
  });

  it('a misspelled key under its prefix: mesh-key-unknown', () => {
    const f = run(deployment('shop', 'web', ', meshfive.dev/log-levle: debug'));
    expect(f).toEqual(['mesh-key-unknown Deployment shop/web']);
  });

  it('a marker value its injector does not take: injection-marker-invalid', () => {
    const f = run(deployment('shop', 'web', `, ${INJECT}: "yes"`));
    expect(f).toEqual(['injection-marker-invalid Deployment shop/web']);
  });

  it('a pod template opting out in an enabled namespace: pod-opted-out, not sidecar-missing', () => {
    const f = run(`${deployment('shop', 'web', `, ${INJECT}: disabled`)}\n${appPod('shop', 'web', 1, ' ')}`);
    expect(f).toEqual(['pod-opted-out Deployment shop/web']);
  });

  it('a node older than its release supports: kubernetes-version-unsupported', () => {
    const f = run(`- apiVersion: v1
  kind: Node
  metadata: {name: pool-a-1, uid: node-five-pool-a-1, labels: {kubernetes.io/hostname: pool-a-1}}
  status: {nodeInfo: {kubeletVersion: v1.24.3}}`);
    expect(f).toEqual(['kubernetes-version-unsupported Deployment meshfive-system/five-injector']);
  });

  it('the data documents (the fifth mesh and the real meshes built from data) hold no functions', async () => {
    const docs = {
      meshfive: FIVE_DATA,
      linkerd: (await import('../src/mesh/linkerd/data.js')).LINKERD_DATA,
      kuma: (await import('../src/mesh/kuma/data.js')).KUMA_DATA,
      consul: (await import('../src/mesh/consul/data.js')).CONSUL_DATA,
      istio: (await import('../src/mesh/istio/data.js')).ISTIO_DATA,
    };
    const functions = (v: unknown, path: string, depth = 0): string[] =>
      typeof v === 'function'
        ? [path]
        : v && typeof v === 'object' && depth < 12
          ? Object.entries(v).flatMap(([k, x]) => functions(x, `${path}.${k}`, depth + 1))
          : [];
    expect(Object.entries(docs).flatMap(([name, d]) => functions(d, name))).toEqual([]);
  });
});
