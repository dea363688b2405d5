/**
 * Synthetic clusters for the benchmark: N pods spread over ~10-pod workloads, ~20 workloads per
 * namespace, both meshes' control planes (copied from the healthy test fixtures, so the webhooks,
 * caBundles and certificates are the real ones the checks know), and the object shapes of a real
 * API server (managedFields, projected token volumes, full pod status, endpoints per pod).
 *
 * Workloads: 78% Deployments (1% of them with 100-300 replicas), 10% StatefulSets, 5% CronJobs,
 * 5% Jobs, 2% DaemonSets. Shares (of app workloads): ~95% of namespaces enabled for a mesh (Linkerd 55%, Istio 45%);
 * in enabled namespaces ~77% meshed, ~10% unmeshed because their pods predate the enablement,
 * ~5% opted out, ~3% hostNetwork, and a few broken ones (missing service account, quota,
 * webhook call failures, Jobs hung on a non-native proxy). Events: about one per workload.
 * ConfigMaps and Secrets also exist in every app namespace (so a run that lists them shows up).
 *
 * Deterministic: the same { pods, seed } always gives the same objects.
 *
 *   tsx bench/generate.ts --pods 10000 [--seed 1] > cluster.json   (a meshdoctor snapshot)
 */
import { readFileSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { kindOf } from '../src/k8s/kinds.js';
import { namedObjects } from '../src/mesh/read-plan.js';
import { sanitizeSecret } from '../src/cluster/sanitize.js';
import type { K8sObject } from '../src/util/types.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { snapshotText } from '../src/cluster/snapshot-file.js';

export interface GenerateOptions {
  /** Total pods, control planes and kube-system included. */
  pods: number;
  seed?: number;
  podsPerWorkload?: number;
  workloadsPerNamespace?: number;
  /**
   * Real-size objects (7-10 KB a pod, as a real API server returns them): several containers with
   * env, envFrom, probes, volume mounts and security contexts; volumes; tolerations and affinity;
   * full managedFields (FieldsV1 of every field set, as the server records them); full status
   * (five conditions, container IDs and image digests, init container statuses). The cluster's
   * structure (namespaces, workloads, states, findings) is the same as without: the filler comes
   * from a second random stream.
   */
  realistic?: boolean;
}

type Mesh = 'linkerd' | 'istio';
type State = 'meshed' | 'predates' | 'optout' | 'hostnetwork' | 'sa-missing' | 'quota' | 'webhook-failed' | 'unmeshed';
type WKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'CronJob';
type Obj = Record<string, any>;

/** mulberry32: small, fast, good enough for synthetic data. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const ALNUM = 'bcdfghjklmnpqrstvwxz2456789';
  const id = (n: number) => Array.from({ length: n }, () => ALNUM[int(0, ALNUM.length - 1)]).join('');
  const hex = (n: number) => Array.from({ length: n }, () => int(0, 15).toString(16)).join('');
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  return { next, int, id, hex, pick };
}

const FIXTURES = fileURLToPath(new URL('../test/fixtures/healthy/', import.meta.url));
const T0 = Date.parse('2026-01-01T00:00:00Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const WORDS = [
  'cart',
  'checkout',
  'search',
  'auth',
  'billing',
  'catalog',
  'orders',
  'payments',
  'ledger',
  'profile',
  'reviews',
  'shipping',
  'inventory',
  'pricing',
  'gateway',
  'notify',
  'media',
  'reports',
  'session',
  'feed',
];
const TEAMS = ['core', 'growth', 'data', 'platform', 'risk', 'retail', 'ads', 'ml', 'infra', 'mobile'];

/** The control planes and kube-system of both healthy fixtures (deduplicated). */
function controlPlanes(): K8sObject[] {
  const seen = new Set<string>();
  const out: K8sObject[] = [];
  for (const f of ['linkerd.yaml', 'istio.yaml']) {
    const doc = parse(readFileSync(FIXTURES + f, 'utf8')) as { items: K8sObject[] };
    for (const o of doc.items) {
      const ns = o.metadata?.namespace;
      const keep =
        o.kind === 'MutatingWebhookConfiguration' ||
        (o.kind === 'Namespace'
          ? ['default', 'kube-system', 'kube-public', 'linkerd', 'istio-system'].includes(o.metadata!.name!)
          : ['linkerd', 'istio-system', 'kube-system'].includes(ns ?? ''));
      const key = `${o.kind}/${ns}/${o.metadata?.name}`;
      if (keep && !seen.has(key)) {
        seen.add(key);
        out.push(o);
      }
    }
  }
  return out;
}

const kubeApiAccess = (suffix: string) => ({
  name: `kube-api-access-${suffix}`,
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  },
});

/**
 * The FieldsV1 set of an object (what the API server records in managedFields): `f:<field>` for
 * each field, `k:{...}` for the entries of lists keyed by name, port or type, `.` for a map or
 * entry itself. Atomic lists (command, args) are one leaf.
 */
const ATOMIC = new Set(['containerStatuses', 'initContainerStatuses', 'command', 'args', 'tolerations']);
export function fieldsV1(v: unknown): Obj {
  const out: Obj = {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return out;
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (ATOMIC.has(k)) out[`f:${k}`] = {};
    else if (Array.isArray(x) && x.length && typeof x[0] === 'object' && x[0] !== null) {
      const list: Obj = {};
      for (const e of x as Obj[]) {
        const key =
          e.containerPort !== undefined
            ? { containerPort: e.containerPort, protocol: e.protocol ?? 'TCP' }
            : e.name !== undefined
              ? { name: e.name }
              : e.type !== undefined
                ? { type: e.type }
                : e.key !== undefined
                  ? { key: e.key }
                  : undefined;
        if (key) list[`k:${JSON.stringify(key)}`] = { '.': {}, ...fieldsV1(e) };
      }
      out[`f:${k}`] = Object.keys(list).length ? list : {};
    } else if (typeof x === 'object' && x !== null && !Array.isArray(x)) {
      out[`f:${k}`] = { '.': {}, ...fieldsV1(x) };
    } else out[`f:${k}`] = {};
  }
  return out;
}

const LOG_SHIPPER = 'log-shipper';

/** A real-size app container: the slim one plus what real charts set. */
function realContainer(c: Obj): Obj {
  return {
    ...c,
    env: [
      ...(c.env ?? []),
      { name: 'PORT', value: '8080' },
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.observability.svc.cluster.local:4317' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    ],
    ports: [...(c.ports ?? []), { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
    livenessProbe: {
      httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
      initialDelaySeconds: 15,
      timeoutSeconds: 2,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    },
    readinessProbe: { httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' }, periodSeconds: 5 },
    volumeMounts: [
      { name: 'config', mountPath: '/etc/app', readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };
}

/** A log shipper beside the app (a second container, as many real workloads run). */
const logShipper = (): Obj => ({
  name: LOG_SHIPPER,
  image: 'cr.fluentbit.io/fluent/fluent-bit:3.1.9',
  imagePullPolicy: 'IfNotPresent',
  args: ['--config=/fluent-bit/etc/fluent-bit.conf', '--storage_path=/tmp/flb'],
  env: [
    { name: 'FLUENT_ELASTICSEARCH_HOST', value: 'logs.observability.svc.cluster.local' },
    { name: 'FLUENT_ELASTICSEARCH_PORT', value: '9200' },
  ],
  resources: { requests: { cpu: '20m', memory: '32Mi' }, limits: { memory: '128Mi' } },
  volumeMounts: [
    { name: 'tmp', mountPath: '/tmp' },
    { name: 'fluent-bit-config', mountPath: '/fluent-bit/etc', readOnly: true },
  ],
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
});

export function generateCluster(opts: GenerateOptions): K8sObject[] {
  const r = prng(opts.seed ?? 1);
  const real = opts.realistic === true;
  /** The real-size filler's own random stream: the cluster's structure does not depend on it. */
  const f = prng((opts.seed ?? 1) + 7919);
  const ppw = opts.podsPerWorkload ?? 10;
  const wpn = opts.workloadsPerNamespace ?? 20;
  const objects: K8sObject[] = controlPlanes();
  let uidSeq = 0;
  const uid = () => `${r.hex(8)}-${r.hex(4)}-4${r.hex(3)}-a${r.hex(3)}-${(++uidSeq).toString(16).padStart(12, '0')}`;
  let ipSeq = 0;
  const ip = () => {
    const n = ++ipSeq;
    return `10.${64 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;
  };
  let podCount = objects.filter((o) => o.kind === 'Pod').length;
  const nodes = Math.max(3, Math.ceil(opts.pods / 50));
  const node = () => `ip-10-0-${r.int(0, nodes - 1)}.ec2.internal`;
  /** Objects are built loosely typed (real ones carry more fields than K8sObject names). */
  const push = (o: Obj) => objects.push(o as K8sObject);

  const nsObj = (
    name: string,
    created: number,
    marker?: { kind: 'annotation' | 'label'; key: string; value: string; at: number },
    extraLabels: Record<string, string> = {},
  ): Obj => {
    const labels: Record<string, string> = { 'kubernetes.io/metadata.name': name, ...extraLabels };
    const annotations: Record<string, string> = {};
    const managedFields: unknown[] = [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: iso(created),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': {
            'f:labels': {
              '.': {},
              'f:kubernetes.io/metadata.name': {},
              ...Object.fromEntries(Object.keys(extraLabels).map((k) => [`f:${k}`, {}])),
            },
          },
        },
      },
    ];
    if (marker) {
      (marker.kind === 'label' ? labels : annotations)[marker.key] = marker.value;
      const field = marker.kind === 'label' ? 'f:labels' : 'f:annotations';
      managedFields.push({
        manager: `kubectl-${marker.kind === 'label' ? 'label' : 'annotate'}`,
        operation: 'Update',
        apiVersion: 'v1',
        time: iso(marker.at),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { [field]: { ...(marker.kind === 'annotation' ? { '.': {} } : {}), [`f:${marker.key}`]: {} } },
        },
      });
    }
    return {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        uid: uid(),
        resourceVersion: String(r.int(1000, 9_999_999)),
        creationTimestamp: iso(created),
        labels,
        ...(marker?.kind === 'annotation' ? { annotations } : {}),
        managedFields,
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
  };

  // kube-proxy on every node: hostNetwork pods in kube-system (this one instead of a fixture's: one object per name).
  const kp = objects.findIndex(
    (o) => o.kind === 'DaemonSet' && o.metadata?.namespace === 'kube-system' && o.metadata?.name === 'kube-proxy',
  );
  if (kp >= 0) objects.splice(kp, 1);
  const kpUid = uid();
  push({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'kube-proxy',
      namespace: 'kube-system',
      uid: kpUid,
      generation: 1,
      creationTimestamp: iso(T0 - 200 * DAY),
      labels: { 'k8s-app': 'kube-proxy' },
    },
    spec: {
      selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
      template: {
        metadata: { labels: { 'k8s-app': 'kube-proxy' } },
        spec: {
          hostNetwork: true,
          priorityClassName: 'system-node-critical',
          serviceAccountName: 'kube-proxy',
          containers: [
            {
              name: 'kube-proxy',
              image: 'registry.k8s.io/kube-proxy:v1.30.0',
              command: ['kube-proxy', '--config=/var/lib/kube-proxy/config.conf'],
            },
          ],
        },
      },
    },
    status: {
      currentNumberScheduled: nodes,
      desiredNumberScheduled: nodes,
      numberAvailable: nodes,
      numberReady: nodes,
      updatedNumberScheduled: nodes,
      observedGeneration: 1,
    },
  });
  for (let i = 0; i < nodes && podCount < opts.pods; i++, podCount++) {
    const nodeName = `ip-10-0-${i}.ec2.internal`;
    push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `kube-proxy-${r.id(5)}`,
        generateName: 'kube-proxy-',
        namespace: 'kube-system',
        uid: uid(),
        creationTimestamp: iso(T0 - 200 * DAY),
        labels: { 'k8s-app': 'kube-proxy', 'controller-revision-hash': '7c8b9f6d5', 'pod-template-generation': '1' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'kube-proxy',
            uid: kpUid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        hostNetwork: true,
        nodeName,
        serviceAccountName: 'kube-proxy',
        priorityClassName: 'system-node-critical',
        containers: [
          {
            name: 'kube-proxy',
            image: 'registry.k8s.io/kube-proxy:v1.30.0',
            command: ['kube-proxy', '--config=/var/lib/kube-proxy/config.conf'],
          },
        ],
      },
      status: {
        phase: 'Running',
        hostIP: `10.0.${i >> 8}.${i & 255}`,
        podIP: `10.0.${i >> 8}.${i & 255}`,
        containerStatuses: [
          {
            name: 'kube-proxy',
            ready: true,
            restartCount: 0,
            started: true,
            state: { running: { startedAt: iso(T0 - 200 * DAY + 60_000) } },
          },
        ],
      },
    });
  }

  // --- app namespaces and workloads ---------------------------------------------------------
  interface Ns {
    name: string;
    created: number;
    mesh?: Mesh;
    enabledAt: number;
    quota: boolean;
  }
  let ns: Ns | undefined;
  let nsIndex = 0;
  let inNs = 0;
  const newNamespace = (): Ns => {
    const name = `${r.pick(TEAMS)}-${r.pick(WORDS)}-${nsIndex++}`;
    const created = T0 + r.int(0, 120) * DAY + r.int(0, 86_000) * 1000;
    const enabledAt = created + r.int(2, 60) * DAY;
    const x = r.next();
    const mesh: Mesh | undefined = x < 0.05 ? undefined : x < 0.575 ? 'linkerd' : 'istio';
    const marker =
      mesh === 'linkerd'
        ? { kind: 'annotation' as const, key: 'linkerd.io/inject', value: 'enabled', at: enabledAt }
        : mesh === 'istio'
          ? r.next() < 0.67
            ? { kind: 'label' as const, key: 'istio-injection', value: 'enabled', at: enabledAt }
            : { kind: 'label' as const, key: 'istio.io/rev', value: 'default', at: enabledAt }
          : undefined;
    push(nsObj(name, created, marker, { team: name.split('-')[0]!, environment: 'production' }));
    const n: Ns = { name, created, mesh, enabledAt, quota: r.next() < 0.3 };
    push({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default', namespace: name, uid: uid(), creationTimestamp: iso(created) },
    });
    push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'kube-root-ca.crt',
        namespace: name,
        uid: uid(),
        creationTimestamp: iso(created),
        annotations: {
          'kubernetes.io/description':
            'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
        },
      },
      data: { 'ca.crt': `-----BEGIN CERTIFICATE-----\n${r.hex(1200)}\n-----END CERTIFICATE-----\n` },
    });
    push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-app-credentials`, namespace: name, uid: uid(), creationTimestamp: iso(created) },
      type: 'Opaque',
      data: { password: Buffer.from(r.hex(32)).toString('base64'), username: Buffer.from('app').toString('base64') },
    });
    if (n.quota) {
      // Object-count quotas: they do not require resources on every container (so injected proxies pass).
      const used = String(r.int(20, 200));
      const hard = { pods: '1000', 'count/services': '200', 'count/secrets': '500' };
      push({
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: `${name}-quota`, namespace: name, uid: uid(), creationTimestamp: iso(created) },
        spec: { hard },
        status: { hard, used: { pods: used, 'count/services': '12', 'count/secrets': '30' } },
      });
    }
    return n;
  };

  const appContainer = (name: string, image: string, sa: string) => ({
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    env: [{ name: 'SERVICE_ACCOUNT', value: sa }],
    resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
  });

  const linkerdProxy = (podName: string, nsName: string) => ({
    name: 'linkerd-proxy',
    image: 'cr.l5d.io/linkerd/proxy:stable-2.14.10',
    imagePullPolicy: 'IfNotPresent',
    env: [
      { name: 'LINKERD2_PROXY_DESTINATION_SVC_ADDR', value: 'linkerd-dst-headless.linkerd.svc.cluster.local.:8086' },
      {
        name: 'LINKERD2_PROXY_DESTINATION_CONTEXT',
        value: `{"ns":"${nsName}", "nodeName":"$(_pod_nodeName)", "pod":"${podName}"}`,
      },
    ],
    ports: [{ name: 'linkerd-proxy', containerPort: 4143, protocol: 'TCP' }],
  });
  const istioProxy = () => ({
    name: 'istio-proxy',
    image: 'docker.io/istio/proxyv2:1.24.2',
    args: ['proxy', 'sidecar', '--domain', '$(POD_NAMESPACE).svc.cluster.local', '--proxyLogLevel=warning'],
    env: [{ name: 'CA_ADDR', value: 'istiod.istio-system.svc:15012' }],
    ports: [{ name: 'http-envoy-prom', containerPort: 15090, protocol: 'TCP' }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '2', memory: '1Gi' } },
  });

  interface PodArgs {
    ns: Ns;
    name: string;
    generateName: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    owner: { apiVersion: string; kind: string; name: string; uid: string };
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: Record<string, any>;
    };
    created: number;
    injected?: Mesh;
    phase: 'Running' | 'Succeeded' | 'Pending';
    /** A Job pod whose app exited while a non-native proxy runs on. */
    hung?: boolean;
  }
  const pod = (a: PodArgs): Obj => {
    const spec = structuredClone(a.template.spec);
    const labels = { ...a.labels };
    const annotations = { ...a.annotations };
    const suffix = r.id(5);
    spec.volumes = [...(spec.volumes ?? []), kubeApiAccess(suffix)];
    const tokenMount = {
      name: `kube-api-access-${suffix}`,
      mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
      readOnly: true,
    };
    for (const c of spec.containers) c.volumeMounts = real ? [...(c.volumeMounts ?? []), tokenMount] : [tokenMount];
    const hostNetwork = spec.hostNetwork === true;
    const podIP = hostNetwork ? `10.0.${r.int(0, 255)}.${r.int(0, 255)}` : ip();
    if (a.injected === 'linkerd') {
      Object.assign(annotations, {
        'linkerd.io/created-by': 'linkerd/proxy-injector stable-2.14.10',
        'linkerd.io/proxy-version': 'stable-2.14.10',
        'linkerd.io/trust-root-sha256': 'f1b1c4b1d6b8a0f4d1b3a0e0c9f8d7e6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0',
      });
      Object.assign(labels, {
        'linkerd.io/control-plane-ns': 'linkerd',
        'linkerd.io/proxy-deployment': a.owner.name,
        'linkerd.io/workload-ns': a.ns.name,
      });
      spec.initContainers = [
        {
          name: 'linkerd-init',
          image: 'cr.l5d.io/linkerd/proxy-init:v2.2.3',
          args: ['--incoming-proxy-port', '4143', '--outgoing-proxy-port', '4140', '--proxy-uid', '2102'],
          securityContext: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
        },
      ];
      spec.containers = [linkerdProxy(a.name, a.ns.name), ...spec.containers];
      spec.volumes.push({ name: 'linkerd-identity-end-entity', emptyDir: { medium: 'Memory' } });
    } else if (a.injected === 'istio') {
      Object.assign(annotations, {
        'sidecar.istio.io/status':
          '{"initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":["istio-envoy","istio-data","istio-token"],"imagePullSecrets":null,"revision":"default"}',
        'kubectl.kubernetes.io/default-container': spec.containers[0].name,
      });
      Object.assign(labels, {
        'security.istio.io/tlsMode': 'istio',
        'service.istio.io/canonical-name': a.owner.name,
        'service.istio.io/canonical-revision': 'latest',
      });
      spec.initContainers = [
        {
          name: 'istio-init',
          image: 'docker.io/istio/proxyv2:1.24.2',
          args: ['istio-iptables', '-p', '15001', '-z', '15006', '-u', '1337', '-m', 'REDIRECT', '-i', '*', '-b', '*'],
        },
      ];
      spec.containers = [...spec.containers, istioProxy()];
      for (const v of ['istio-envoy', 'istio-data']) spec.volumes.push({ name: v, emptyDir: {} });
    }
    const start = a.created + r.int(1, 30) * 1000;
    const statuses = (spec.containers as { name: string; image: string }[]).map((c) => {
      const terminated = (a.phase === 'Succeeded' || a.hung) && !c.name.endsWith('-proxy');
      return {
        name: c.name,
        image: c.image,
        ready: a.phase === 'Running' && !terminated,
        restartCount: c.name === LOG_SHIPPER ? 0 : r.next() < 0.1 ? r.int(1, 5) : 0, // the real-size filler container draws nothing: the same cluster either way
        state:
          a.phase === 'Pending'
            ? { waiting: { reason: 'ContainerCreating' } }
            : terminated
              ? {
                  terminated: {
                    exitCode: 0,
                    reason: 'Completed',
                    startedAt: iso(start),
                    finishedAt: iso(start + 120_000),
                  },
                }
              : { running: { startedAt: iso(start) } },
      };
    });
    const cond = (type: string, status = 'True') => ({ type, status, lastTransitionTime: iso(start) });
    const ready = a.phase === 'Running' && !a.hung ? 'True' : 'False';
    if (real) return realPod(a, spec, labels, annotations, statuses, start, podIP, ready);
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: a.name,
        generateName: a.generateName,
        namespace: a.ns.name,
        uid: uid(),
        resourceVersion: String(r.int(100_000, 99_999_999)),
        creationTimestamp: iso(a.created),
        labels,
        ...(Object.keys(annotations).length ? { annotations } : {}),
        ownerReferences: [{ ...a.owner, controller: true, blockOwnerDeletion: true }],
        managedFields: [
          {
            manager: 'kube-controller-manager',
            operation: 'Update',
            apiVersion: 'v1',
            time: iso(a.created),
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': { 'f:generateName': {}, 'f:labels': {}, 'f:ownerReferences': {} },
              'f:spec': { 'f:containers': {} },
            },
          },
          {
            manager: 'kubelet',
            operation: 'Update',
            apiVersion: 'v1',
            time: iso(start),
            fieldsType: 'FieldsV1',
            subresource: 'status',
            fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:phase': {} } },
          },
        ],
      },
      spec: {
        ...spec,
        restartPolicy: spec.restartPolicy ?? 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        serviceAccount: spec.serviceAccountName ?? 'default',
        serviceAccountName: spec.serviceAccountName ?? 'default',
        nodeName: node(),
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
      status: {
        phase: a.phase,
        conditions: [cond('Ready', ready), cond('PodScheduled')],
        hostIP: `10.0.${r.int(0, 255)}.${r.int(0, 255)}`,
        podIP,
        startTime: iso(start),
        containerStatuses: statuses,
        qosClass: 'Burstable',
      },
    };
  };

  /** The real-size pod: full spec defaults, managedFields of every field set, full status. */
  const realPod = (
    a: PodArgs,
    spec: Obj,
    labels: Obj,
    annotations: Obj,
    statuses: Obj[],
    start: number,
    podIP: string,
    ready: string,
  ): Obj => {
    const nodeName = node();
    const hostIP = `10.0.${r.int(0, 255)}.${r.int(0, 255)}`;
    const metadata: Obj = {
      name: a.name,
      generateName: a.generateName,
      namespace: a.ns.name,
      uid: uid(),
      resourceVersion: String(r.int(100_000, 99_999_999)),
      creationTimestamp: iso(a.created),
      labels,
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ownerReferences: [{ ...a.owner, controller: true, blockOwnerDeletion: true }],
    };
    const podSpec: Obj = {
      ...spec,
      restartPolicy: spec.restartPolicy ?? 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccount: spec.serviceAccountName ?? 'default',
      serviceAccountName: spec.serviceAccountName ?? 'default',
      nodeName,
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    };
    for (const c of [...(podSpec.initContainers ?? []), ...podSpec.containers]) c.imagePullPolicy ??= 'IfNotPresent';
    const digest = () => `sha256:${f.hex(64)}`;
    const cstatus = (st: Obj): Obj => ({
      ...st,
      imageID: `${st.image.split(':')[0]}@${digest()}`,
      containerID: `containerd://${f.hex(64)}`,
      started: st.state.running !== undefined,
      lastState: {},
    });
    const ts = (t: string, status = 'True') => ({
      type: t,
      status,
      lastProbeTime: null,
      lastTransitionTime: iso(start),
    });
    const status: Obj = {
      phase: a.phase,
      conditions: [ts('Initialized'), ts('Ready', ready), ts('ContainersReady', ready), ts('PodScheduled')],
      hostIP,
      hostIPs: [{ ip: hostIP }],
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: iso(start),
      containerStatuses: statuses.map(cstatus),
      qosClass: 'Burstable',
    };
    const {
      name: _n,
      namespace: _ns,
      uid: _u,
      resourceVersion: _rv,
      creationTimestamp: _ct,
      ...setByController
    } = metadata;
    metadata.managedFields = [
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        apiVersion: 'v1',
        time: iso(a.created),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': fieldsV1(setByController), 'f:spec': fieldsV1({ ...podSpec, nodeName: undefined }) },
      },
      {
        manager: 'kubelet',
        operation: 'Update',
        apiVersion: 'v1',
        time: iso(start),
        fieldsType: 'FieldsV1',
        subresource: 'status',
        fieldsV1: { 'f:status': fieldsV1(status) },
      },
    ];
    return { apiVersion: 'v1', kind: 'Pod', metadata, spec: podSpec, status };
  };

  const event = (
    ns: string,
    involved: { apiVersion: string; kind: string; name: string; uid: string },
    type: string,
    reason: string,
    message: string,
    component: string,
    at: number,
    count = 1,
  ): Obj => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${involved.name}.${r.hex(16)}`,
      namespace: ns,
      uid: uid(),
      resourceVersion: String(r.int(100_000, 99_999_999)),
      creationTimestamp: iso(at),
    },
    involvedObject: { ...involved, namespace: ns, resourceVersion: String(r.int(1000, 9_999_999)) },
    reason,
    message,
    source: { component },
    firstTimestamp: iso(at),
    lastTimestamp: iso(at + (count - 1) * 60_000),
    count,
    type,
    eventTime: null,
    reportingComponent: component,
    reportingInstance: '',
  });

  const WORKLOAD_KINDS: [number, WKind][] = [
    [0.78, 'Deployment'],
    [0.88, 'StatefulSet'],
    [0.93, 'CronJob'],
    [0.98, 'Job'],
    [1, 'DaemonSet'],
  ];
  let wIndex = 0;
  while (podCount < opts.pods) {
    if (!ns || inNs >= wpn) {
      ns = newNamespace();
      inNs = 0;
    }
    inNs++;
    const n = ns;
    const x = r.next();
    const kind = WORKLOAD_KINDS.find(([p]) => x < p)![1];
    const y = r.next();
    const state: State = !n.mesh
      ? 'unmeshed'
      : y < 0.77
        ? 'meshed'
        : y < 0.87
          ? 'predates'
          : y < 0.92
            ? 'optout'
            : y < 0.95
              ? 'hostnetwork'
              : y < 0.97
                ? 'sa-missing'
                : y < 0.98
                  ? n.quota
                    ? 'quota'
                    : 'meshed'
                  : 'webhook-failed';
    const name = `${r.pick(WORDS)}-${r.pick(['api', 'worker', 'web', 'consumer', 'sync', 'cache', 'cron'])}-${wIndex++}`;
    // Pods start within an hour of their workload: a 'predates' workload's pods all precede the enablement.
    const created =
      state === 'predates'
        ? Math.max(n.created + 3600_000, n.enabledAt - r.int(1, 20) * DAY)
        : n.enabledAt + r.int(1, 100) * DAY;
    const wUid = uid();
    const hasSa = r.next() < 0.5;
    const sa = state === 'sa-missing' ? `${name}-sa` : hasSa ? name : undefined;
    if (hasSa && state !== 'sa-missing')
      push({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name, namespace: n.name, uid: uid(), creationTimestamp: iso(created) },
      });
    const tLabels: Record<string, string> = { app: name, version: `v${r.int(1, 9)}` };
    const tAnnotations: Record<string, string> = { 'kubectl.kubernetes.io/restartedAt': iso(created) };
    if (state === 'optout') {
      if (n.mesh === 'linkerd') tAnnotations['linkerd.io/inject'] = 'disabled';
      else tLabels['sidecar.istio.io/inject'] = 'false';
    }
    const isJob = kind === 'Job' || kind === 'CronJob';
    if (isJob && n.mesh === 'linkerd' && r.next() < 0.5)
      tAnnotations['config.beta.linkerd.io/proxy-enable-native-sidecar'] = 'true';
    if (isJob && n.mesh === 'istio' && r.next() < 0.5) tAnnotations['sidecar.istio.io/nativeSidecar'] = 'true';
    const image = `registry.example.com/${n.name.split('-')[0]}/${name.replace(/-\d+$/, '')}:${r.int(1, 30)}.${r.int(0, 20)}.${r.int(0, 9)}`;
    const template = {
      metadata: { labels: tLabels, annotations: tAnnotations },
      spec: {
        ...(sa ? { serviceAccountName: sa } : {}),
        ...(state === 'hostnetwork' ? { hostNetwork: true } : {}),
        ...(isJob ? { restartPolicy: 'OnFailure' } : {}),
        containers: [appContainer(name.replace(/-\d+$/, ''), image, sa ?? 'default')] as Obj[],
      } as Obj,
    };
    if (real) {
      const app = name.replace(/-\d+$/, '');
      const ts = template.spec;
      const shipper = !isJob && f.next() < 0.1; // a log shipper beside the app in some workloads
      ts.containers = [realContainer(ts.containers[0]!), ...(shipper ? [logShipper()] : [])];
      ts.volumes = [
        { name: 'config', configMap: { name: `${app}-config`, defaultMode: 420 } },
        { name: 'tmp', emptyDir: { sizeLimit: '256Mi' } },
        ...(shipper ? [{ name: 'fluent-bit-config', configMap: { name: 'fluent-bit-config', defaultMode: 420 } }] : []),
      ];
      ts.terminationGracePeriodSeconds = 30;
      ts.securityContext = { fsGroup: 10001, runAsNonRoot: true };
      Object.assign(template.metadata.labels, { 'app.kubernetes.io/name': app });
    }
    const injected: Mesh | undefined = state === 'meshed' ? n.mesh : undefined;
    const noPods = state === 'sa-missing' || state === 'quota' || state === 'webhook-failed';
    const left = opts.pods - podCount;
    // About 1% of Deployments are large (100-300 replicas), so per-workload work that grows faster than its pods shows.
    const large = kind === 'Deployment' && r.next() < 0.01;
    const replicas = Math.min(
      left,
      kind === 'DaemonSet' ? r.int(3, 12) : large ? r.int(100, 300) : r.int(2, 2 * ppw - 4),
    );
    const selector = { matchLabels: { app: name } };
    const meta = (k: string) => ({
      name,
      namespace: n.name,
      uid: wUid,
      generation: r.int(1, 12),
      resourceVersion: String(r.int(100_000, 99_999_999)),
      creationTimestamp: iso(created),
      labels: { app: name, 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: {
        'meta.helm.sh/release-name': name,
        'meta.helm.sh/release-namespace': n.name,
        ...(k === 'Deployment' ? { 'deployment.kubernetes.io/revision': '3' } : {}),
      },
      managedFields: [
        {
          manager: 'helm',
          operation: 'Update',
          apiVersion: k === 'Job' || k === 'CronJob' ? 'batch/v1' : 'apps/v1',
          time: iso(created),
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:annotations': {}, 'f:labels': {} }, 'f:spec': { 'f:template': {} } },
        },
      ],
    });
    const ref = (apiVersion: string, k: string, nm: string, u: string) => ({ apiVersion, kind: k, name: nm, uid: u });
    const podsOf = (
      owner: ReturnType<typeof ref>,
      names: string[],
      generateName: string,
      extraLabels: Record<string, string>,
      phase: PodArgs['phase'],
      hung = false,
    ) => {
      for (const pn of names) {
        push(
          pod({
            ns: n,
            name: pn,
            generateName,
            labels: { ...tLabels, ...extraLabels },
            annotations: tAnnotations,
            owner,
            template,
            created: created + r.int(0, 3600) * 1000,
            injected,
            phase,
            hung,
          }),
        );
        podCount++;
      }
    };
    const failure = (owner: ReturnType<typeof ref>) => {
      const msg =
        state === 'sa-missing'
          ? `Error creating: pods "${owner.name}-" is forbidden: error looking up service account ${n.name}/${sa}: serviceaccount "${sa}" not found`
          : state === 'quota'
            ? `Error creating: pods "${owner.name}-${r.id(5)}" is forbidden: exceeded quota: ${n.name}-quota, requested: pods=1, used: pods=1000, limited: pods=1000`
            : n.mesh === 'linkerd'
              ? `Error creating: Internal error occurred: failed calling webhook "linkerd-proxy-injector.linkerd.io": failed to call webhook: Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=10s": context deadline exceeded`
              : `Error creating: Internal error occurred: failed calling webhook "namespace.sidecar-injector.istio.io": failed to call webhook: Post "https://istiod.istio-system.svc:443/inject?timeout=10s": context deadline exceeded`;
      push(
        event(
          n.name,
          owner,
          'Warning',
          'FailedCreate',
          msg,
          owner.kind === 'Job' ? 'job-controller' : 'replicaset-controller',
          created + 60_000,
          r.int(5, 40),
        ),
      );
    };
    const service = (podNames: string[]) => {
      // The workload's pods are the objects pushed last (taken before the Service is pushed).
      const addrs = (podNames.length ? objects.slice(-podNames.length) : []).map((p) => ({
        ip: (p.status as any).podIP as string,
        nodeName: (p.spec as any).nodeName as string,
        targetRef: { kind: 'Pod', name: p.metadata!.name!, namespace: n.name, uid: p.metadata!.uid! },
      }));
      push({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace: n.name, uid: uid(), creationTimestamp: iso(created), labels: { app: name } },
        spec: {
          type: 'ClusterIP',
          clusterIP: `172.20.${r.int(0, 255)}.${r.int(1, 254)}`,
          clusterIPs: [],
          internalTrafficPolicy: 'Cluster',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          selector: { app: name },
          ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }],
          sessionAffinity: 'None',
        },
        status: { loadBalancer: {} },
      });
      push({
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name, namespace: n.name, uid: uid(), creationTimestamp: iso(created), labels: { app: name } },
        subsets: addrs.length ? [{ addresses: addrs, ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }] : [],
      });
      push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${name}-${r.id(5)}`,
          namespace: n.name,
          uid: uid(),
          creationTimestamp: iso(created),
          labels: {
            'kubernetes.io/service-name': name,
            'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
          },
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Service', name, uid: uid(), controller: true, blockOwnerDeletion: true },
          ],
        },
        addressType: 'IPv4',
        endpoints: addrs.map((a) => ({
          addresses: [a.ip],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: a.nodeName,
          targetRef: a.targetRef,
        })),
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      });
    };

    if (kind === 'Deployment') {
      push({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta(kind),
        spec: {
          replicas,
          selector,
          template,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
          revisionHistoryLimit: 10,
          progressDeadlineSeconds: 600,
        },
        status: {
          replicas: noPods ? 0 : replicas,
          readyReplicas: noPods ? 0 : replicas,
          availableReplicas: noPods ? 0 : replicas,
          updatedReplicas: noPods ? 0 : replicas,
          observedGeneration: 1,
          conditions: [
            {
              type: 'Available',
              status: noPods ? 'False' : 'True',
              reason: noPods ? 'MinimumReplicasUnavailable' : 'MinimumReplicasAvailable',
              lastUpdateTime: iso(created),
              lastTransitionTime: iso(created),
            },
          ],
        },
      });
      const hash = r.id(9);
      for (const old of r.next() < 0.5 ? [r.id(9)] : []) {
        push({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: `${name}-${old}`,
            namespace: n.name,
            uid: uid(),
            creationTimestamp: iso(created - DAY),
            labels: { app: name, 'pod-template-hash': old },
            annotations: { 'deployment.kubernetes.io/revision': '2' },
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name,
                uid: wUid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec: { replicas: 0, selector: { matchLabels: { app: name, 'pod-template-hash': old } }, template },
          status: { replicas: 0, observedGeneration: 2 },
        });
      }
      const rsUid = uid();
      const rs = ref('apps/v1', 'ReplicaSet', `${name}-${hash}`, rsUid);
      push({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: rs.name,
          namespace: n.name,
          uid: rsUid,
          creationTimestamp: iso(created),
          labels: { app: name, 'pod-template-hash': hash },
          annotations: {
            'deployment.kubernetes.io/desired-replicas': String(replicas),
            'deployment.kubernetes.io/revision': '3',
          },
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'Deployment', name, uid: wUid, controller: true, blockOwnerDeletion: true },
          ],
        },
        spec: { replicas, selector: { matchLabels: { app: name, 'pod-template-hash': hash } }, template },
        status: {
          replicas: noPods ? 0 : replicas,
          readyReplicas: noPods ? 0 : replicas,
          availableReplicas: noPods ? 0 : replicas,
          observedGeneration: 1,
        },
      });
      const names = noPods ? [] : Array.from({ length: replicas }, () => `${rs.name}-${r.id(5)}`);
      podsOf(rs, names, `${rs.name}-`, { 'pod-template-hash': hash }, 'Running');
      service(names);
      if (noPods) failure(rs);
      else
        push(
          event(
            n.name,
            ref('apps/v1', 'Deployment', name, wUid),
            'Normal',
            'ScalingReplicaSet',
            `Scaled up replica set ${rs.name} to ${replicas}`,
            'deployment-controller',
            created,
          ),
        );
    } else if (kind === 'StatefulSet' || kind === 'DaemonSet') {
      push({
        apiVersion: 'apps/v1',
        kind,
        metadata: meta(kind),
        spec: {
          ...(kind === 'StatefulSet' ? { replicas, serviceName: name, podManagementPolicy: 'OrderedReady' } : {}),
          selector,
          template,
          updateStrategy: { type: 'RollingUpdate' },
          revisionHistoryLimit: 10,
        },
        status:
          kind === 'StatefulSet'
            ? {
                replicas: noPods ? 0 : replicas,
                readyReplicas: noPods ? 0 : replicas,
                availableReplicas: noPods ? 0 : replicas,
                currentRevision: `${name}-${r.id(10)}`,
                observedGeneration: 1,
              }
            : {
                desiredNumberScheduled: replicas,
                currentNumberScheduled: noPods ? 0 : replicas,
                numberReady: noPods ? 0 : replicas,
                numberAvailable: noPods ? 0 : replicas,
                observedGeneration: 1,
              },
      });
      const owner = ref('apps/v1', kind, name, wUid);
      const names = noPods
        ? []
        : Array.from({ length: replicas }, (_, i) => (kind === 'StatefulSet' ? `${name}-${i}` : `${name}-${r.id(5)}`));
      podsOf(owner, names, `${name}-`, { 'controller-revision-hash': `${name}-${r.id(10)}` }, 'Running');
      if (kind === 'StatefulSet') service(names);
      if (noPods) failure(owner);
      else
        push(
          event(
            n.name,
            owner,
            'Normal',
            'SuccessfulCreate',
            `create Pod ${names[0]} in ${kind} ${name} successful`,
            `${kind.toLowerCase()}-controller`,
            created,
          ),
        );
    } else {
      // Jobs: one pod each. A CronJob keeps its last 1-3 Jobs.
      const native =
        tAnnotations['config.beta.linkerd.io/proxy-enable-native-sidecar'] ??
        tAnnotations['sidecar.istio.io/nativeSidecar'];
      const hung = state === 'meshed' && !native && r.next() < 0.5;
      let owner = ref('batch/v1', 'Job', name, wUid);
      if (kind === 'CronJob') {
        push({
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: meta(kind),
          spec: {
            schedule: `${r.int(0, 59)} * * * *`,
            concurrencyPolicy: 'Forbid',
            successfulJobsHistoryLimit: 3,
            failedJobsHistoryLimit: 1,
            suspend: false,
            jobTemplate: { spec: { backoffLimit: 6, template } },
          },
          status: { lastScheduleTime: iso(created + 3600_000), lastSuccessfulTime: iso(created + 3600_000) },
        });
        owner = ref('batch/v1', 'CronJob', name, wUid);
      }
      const jobs = kind === 'CronJob' ? Math.min(left, r.int(1, 3)) : 1;
      for (let j = 0; j < jobs; j++) {
        const jobName = kind === 'CronJob' ? `${name}-${29_000_000 + r.int(0, 999_999)}` : name;
        const jUid = kind === 'CronJob' ? uid() : wUid;
        const running = hung && j === jobs - 1;
        const done = !noPods && !running;
        push({
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: {
            ...meta('Job'),
            name: jobName,
            uid: jUid,
            labels: { app: name, 'batch.kubernetes.io/job-name': jobName },
            ...(kind === 'CronJob'
              ? { ownerReferences: [{ ...owner, controller: true, blockOwnerDeletion: true }] }
              : {}),
          },
          spec: {
            parallelism: 1,
            completions: 1,
            backoffLimit: 6,
            completionMode: 'NonIndexed',
            suspend: false,
            selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': jUid } },
            template,
          },
          status: done
            ? {
                succeeded: 1,
                startTime: iso(created),
                completionTime: iso(created + 180_000),
                conditions: [
                  {
                    type: 'Complete',
                    status: 'True',
                    lastProbeTime: iso(created + 180_000),
                    lastTransitionTime: iso(created + 180_000),
                  },
                ],
              }
            : { active: noPods ? 0 : 1, startTime: iso(created) },
        });
        const jobRef = ref('batch/v1', 'Job', jobName, jUid);
        if (noPods) failure(jobRef);
        else
          podsOf(
            jobRef,
            [`${jobName}-${r.id(5)}`],
            `${jobName}-`,
            {
              'batch.kubernetes.io/controller-uid': jUid,
              'batch.kubernetes.io/job-name': jobName,
              'job-name': jobName,
            },
            running ? 'Running' : 'Succeeded',
            running,
          );
      }
      if (!noPods)
        push(
          event(
            n.name,
            owner,
            'Normal',
            kind === 'CronJob' ? 'SawCompletedJob' : 'Completed',
            kind === 'CronJob' ? `Saw completed job: ${name}, status: Complete` : 'Job completed',
            kind === 'CronJob' ? 'cronjob-controller' : 'job-controller',
            created + 180_000,
          ),
        );
    }
  }
  return objects;
}

/** The time the snapshot says it was read (the checks' "now" offline). */
export const READ_AT = '2026-11-22T12:00:00Z';

/**
 * A meshdoctor snapshot of the objects, as `meshdoctor snapshot -A` would write it: every kind,
 * but ConfigMaps and Secrets only those named in the mesh namespaces, Secrets sanitized.
 */
export function toSnapshot(objects: K8sObject[]) {
  const byKey: Record<string, K8sObject[]> = {};
  const ns = objects.filter((o) => o.kind === 'Namespace');
  const mwc = objects.filter((o) => o.kind === 'MutatingWebhookConfiguration');
  const named = new Set(namedObjects(ns, mwc).map((r) => `${r.key}/${r.namespace}/${r.name}`));
  for (const o of objects) {
    const info = kindOf(o.kind)!;
    if (info.byName && !named.has(`${info.key}/${o.metadata?.namespace}/${o.metadata?.name}`)) continue;
    (byKey[info.key] ??= []).push(info.key === 'secrets' ? sanitizeSecret(o) : o);
  }
  return {
    kind: 'MeshdoctorSnapshot',
    apiVersion: 'meshdoctor.io/v1',
    source: { type: 'live', context: 'bench', server: 'https://bench.invalid', readAt: READ_AT },
    scope: { allNamespaces: true },
    objects: byKey,
    unavailable: {},
  };
}

/** Write a snapshot as JSON, one object at a time (a 100k-pod cluster is larger than a V8 string may be). */
export function writeSnapshot(snap: ReturnType<typeof toSnapshot>, fd: number): number {
  let bytes = 0;
  const out = (s: string) => {
    const buf = Buffer.from(s);
    for (let off = 0; off < buf.length;) {
      try {
        off += writeSync(fd, buf, off);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e; // stdout may be a non-blocking pipe
      }
    }
    bytes += buf.length;
  };
  // The layout `meshdoctor snapshot` writes (one object per line: read back as a stream).
  for (const chunk of snapshotText(snap as unknown as Snapshot)) out(chunk);
  return bytes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name: string, def: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : def;
  };
  writeSnapshot(toSnapshot(generateCluster({ pods: arg('pods', 1000), seed: arg('seed', 1) })), 1);
}
