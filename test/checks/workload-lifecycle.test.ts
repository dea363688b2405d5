import { parseQuantity } from '../../src/k8s/quantity.js';
import { describe, expect, it } from 'vitest';
import { Model } from '../../src/facts/model.js';
import {
  formatUnits,
  injectedPod,
  podDemand,
  proxyConfig,
  quantityUnits,
  type PodContainer,
} from '../../src/facts/resources.js';
import type { Scope } from '../../src/util/types.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { cluster, findings, ids, NOW } from '../helpers/fixtures.js';

const only = (namespace: string): Scope => ({ allNamespaces: false, namespace });
const model = (snap: Snapshot) =>
  new Model({ snapshot: snap, now: NOW, options: { certExpiryWarningDays: 60, mesh: 'auto' } });
const workload = (m: Model, kind: string, ns: string, name: string) =>
  m.workloads.find((w) => w.kind === kind && w.namespace === ns && w.name === name)!;

describe('resources: quantities', () => {
  it('parses Kubernetes quantities in base units', () => {
    expect(parseQuantity('100m')).toBeCloseTo(0.1);
    expect(parseQuantity('2')).toBe(2);
    expect(parseQuantity('0.5')).toBe(0.5);
    expect(parseQuantity('.5')).toBe(0.5);
    expect(parseQuantity('128Mi')).toBe(128 * 2 ** 20);
    expect(parseQuantity('1Gi')).toBe(2 ** 30);
    expect(parseQuantity('1G')).toBe(1e9);
    expect(parseQuantity('500k')).toBe(500_000);
    expect(parseQuantity('1e3')).toBe(1000);
    expect(parseQuantity('1E')).toBe(1e18);
    expect(parseQuantity('1E3')).toBe(1000);
    expect(parseQuantity(' 64Mi ')).toBe(64 * 2 ** 20);
    expect(parseQuantity(2)).toBe(2);
    for (const bad of ['', 'abc', '1.2.3', '10 Mi', '1mi', '1Gb', undefined, null])
      expect(parseQuantity(bad), String(bad)).toBeUndefined();
  });

  it('converts to millicores and bytes, rounding up as Kubernetes does', () => {
    expect(quantityUnits('cpu', '100m')).toBe(100);
    expect(quantityUnits('cpu', '0.1')).toBe(100);
    expect(quantityUnits('cpu', '2')).toBe(2000);
    expect(quantityUnits('cpu', '0.0001')).toBe(1);
    expect(quantityUnits('memory', '1e3')).toBe(1000);
    expect(quantityUnits('memory', '1.5Gi')).toBe(1.5 * 2 ** 30);
    expect(quantityUnits('memory', 'lots')).toBeUndefined();
  });

  it('formats units back to the shortest exact quantity', () => {
    expect(formatUnits('cpu', 100)).toBe('100m');
    expect(formatUnits('cpu', 2000)).toBe('2');
    expect(formatUnits('memory', 1152 * 2 ** 20)).toBe('1152Mi');
    expect(formatUnits('memory', 2 ** 30)).toBe('1Gi');
    expect(formatUnits('memory', 1e9)).toBe('1G');
    expect(formatUnits('memory', 1000)).toBe('1k');
    expect(formatUnits('memory', 1001)).toBe('1001');
    expect(formatUnits('memory', 0)).toBe('0');
  });

  it('counts a pod as the scheduler does: containers and sidecars, or the largest init container', () => {
    const c = (name: string, cpu: number, restartable = false): PodContainer => ({
      name,
      resources: { requests: { cpu }, limits: {} },
      restartable,
      proxy: false,
    });
    expect(
      podDemand({ containers: [c('app', 100), c('proxy', 100)], initContainers: [c('init', 50)] }).requests.cpu,
    ).toBe(200);
    expect(
      podDemand({ containers: [c('app', 100), c('proxy', 100)], initContainers: [c('migrate', 500)] }).requests.cpu,
    ).toBe(500);
    // A native sidecar runs beside the later init containers and the app.
    expect(
      podDemand({ containers: [c('app', 100)], initContainers: [c('proxy', 100, true), c('migrate', 300)] }).requests
        .cpu,
    ).toBe(400);
    expect(
      podDemand({ containers: [c('app', 100)], initContainers: [c('proxy', 100, true), c('migrate', 50)] }).requests
        .cpu,
    ).toBe(200);
  });
});

describe('resources: the proxy as injected', () => {
  it('Istio: the injector values (JSON) by default, replaced completely by any resource annotation', () => {
    const m = model(cluster('istio', ['checks/quota-blocks-proxy/fires-istio-partial-annotation.yaml']));
    const ledger = proxyConfig(m, 'istio', workload(m, 'Deployment', 'payments', 'ledger'));
    expect(ledger.resources).toEqual({ requests: { cpu: 250 }, limits: {} });
    expect(ledger.native).toBe(true);
    const frontend = proxyConfig(m, 'istio', workload(m, 'Deployment', 'store', 'frontend'));
    expect(frontend.resources).toEqual({
      requests: { cpu: 100, memory: 128 * 2 ** 20 },
      limits: { cpu: 2000, memory: 2 ** 30 },
    });
    expect(frontend.source['limits.cpu']).toBe('istio-sidecar-injector values global.proxy.resources');
  });

  it('Istio: the chart defaults when the injector ConfigMap was not read', () => {
    const m = model(
      cluster('istio', [
        `
apiVersion: v1
kind: ConfigMap
metadata: {name: istio-sidecar-injector, namespace: istio-system, annotations: {meshdoctor.test/delete: "true"}}
`,
      ]),
    );
    const p = proxyConfig(m, 'istio', workload(m, 'Deployment', 'store', 'frontend'));
    expect(p.resources.limits).toEqual({ cpu: 2000, memory: 2 ** 30 });
    expect(p.source['requests.memory']).toBe('Istio default global.proxy.resources');
  });

  it('Linkerd: template annotation over namespace annotation over linkerd-config; requests default to limits', () => {
    const m = model(
      cluster('linkerd', [
        'checks/quota-blocks-proxy/ok-linkerd-config-values.yaml',
        'checks/quota-blocks-proxy/ok-linkerd-annotated.yaml',
      ]),
    );
    const api = workload(m, 'Deployment', 'ledger', 'api');
    const p = proxyConfig(m, 'linkerd', api);
    expect(p.resources).toEqual({
      requests: { cpu: 100, memory: 20 * 2 ** 20 },
      limits: { cpu: 1000, memory: 250 * 2 ** 20 },
    });
    expect(p.source).toEqual({
      'requests.cpu': 'linkerd-config proxy.resources.cpu.request',
      'requests.memory': 'linkerd-config proxy.resources.memory.request',
      'limits.cpu': 'namespace annotation config.linkerd.io/proxy-cpu-limit',
      'limits.memory': 'pod template annotation config.linkerd.io/proxy-memory-limit',
    });
    const healthy = model(cluster('linkerd'));
    const web = proxyConfig(healthy, 'linkerd', workload(healthy, 'Deployment', 'shop', 'web'));
    expect(web.resources).toMatchObject({ requests: { memory: 256 * 2 ** 20 }, limits: { memory: 256 * 2 ** 20 } });
    expect(web.resources.limits.cpu).toBeUndefined();
    expect(web.source['requests.memory']).toBe('defaulted to limits.memory');
    const pod = injectedPod(m, 'linkerd', api);
    expect(pod.containers.map((c) => c.name)).toEqual(['api', 'linkerd-proxy']);
    expect(pod.initContainers.map((c) => c.name)).toEqual(['linkerd-init']);
  });
});

describe('serviceaccount-missing', () => {
  const run = (snap: Snapshot) => findings(snap, ['serviceaccount-missing']);
  const dir = 'checks/serviceaccount-missing/';

  it('fires for a Linkerd workload whose ServiceAccount does not exist, with the FailedCreate event', () => {
    const fs = run(cluster('linkerd', [`${dir}fires-linkerd.yaml`]));
    expect(ids(fs)).toEqual(['serviceaccount-missing Deployment shop/orders']);
    expect(fs[0]!.severity).toBe('error');
    expect(fs[0]!.mesh).toBe('linkerd');
    expect(fs[0]!.affectedPods).toBe(3);
    expect(fs[0]!.evidence).toMatchObject({
      serviceAccount: 'orders',
      field: 'spec.serviceAccountName',
      exists: false,
    });
    expect((fs[0]!.evidence.failedCreate as { count: number }[])[0]!.count).toBe(14);
    expect(fs[0]!.fix).toEqual(['kubectl create serviceaccount orders -n shop']);
  });

  it('reads the deprecated spec.serviceAccount (Istio workload, no events)', () => {
    const fs = run(cluster('istio', [`${dir}fires-istio.yaml`]));
    expect(ids(fs)).toEqual(['serviceaccount-missing StatefulSet store/cache']);
    expect(fs[0]!.mesh).toBe('istio');
    expect(fs[0]!.evidence).toMatchObject({ serviceAccount: 'cache-sa', field: 'spec.serviceAccount' });
    expect(fs[0]!.evidence.failedCreate).toBeUndefined();
    expect(fs[0]!.fix).toEqual(['kubectl create serviceaccount cache-sa -n store']);
  });

  it('reports a missing "default" ServiceAccount only when a FailedCreate event confirms it', () => {
    const fs = run(cluster('linkerd', [`${dir}fires-default-with-event.yaml`]));
    expect(ids(fs)).toEqual(['serviceaccount-missing Deployment legacy/billing']);
    expect(fs[0]!.evidence.field).toBe('(none: default)');
    expect(fs[0]!.fix).toEqual(['kubectl create serviceaccount default -n legacy']);
    expect(run(cluster('linkerd', [`${dir}ok-default-missing-no-event.yaml`]))).toEqual([]);
  });

  it('warns when Linkerd without projected tokens skips pods whose token is off (template or ServiceAccount)', () => {
    const fs = run(cluster('linkerd', [`${dir}fires-linkerd-token.yaml`]));
    expect(ids(fs)).toEqual([
      'serviceaccount-missing Deployment shop/audit',
      'serviceaccount-missing Deployment shop/exporter',
    ]);
    expect(fs.map((f) => f.severity)).toEqual(['warning', 'warning']);
    expect(fs[0]!.evidence.automountServiceAccountToken).toEqual({ podTemplate: false });
    expect(fs[0]!.fix).toEqual([
      `kubectl patch deployment/audit -n shop --type=merge -p '{"spec":{"template":{"spec":{"automountServiceAccountToken":true}}}}'`,
    ]);
    expect(fs[1]!.evidence.automountServiceAccountToken).toEqual({ serviceAccount: false, podTemplate: 'unset' });
    expect(fs[1]!.fix[1]).toBe(
      `kubectl patch serviceaccount batch -n shop --type=merge -p '{"automountServiceAccountToken":true}'`,
    );
  });

  it('stays silent with projected tokens, for Istio, and when no mesh is installed', () => {
    expect(run(cluster('linkerd', [`${dir}ok-token-off-projected.yaml`]))).toEqual([]);
    expect(run(cluster('istio', [`${dir}ok-istio-token-off.yaml`]))).toEqual([]);
    expect(run(cluster('none', [`${dir}fires-linkerd.yaml`]))).toEqual([]);
  });
});

describe('quota-blocks-proxy', () => {
  const run = (snap: Snapshot) => findings(snap, ['quota-blocks-proxy']);
  const dir = 'checks/quota-blocks-proxy/';

  it('fires when the quota needs limits the Linkerd proxy does not set, with annotations that set requests and limits', () => {
    const fs = run(cluster('linkerd', [`${dir}fires-linkerd-must-specify.yaml`], only('ledger')));
    expect(ids(fs)).toEqual(['quota-blocks-proxy Deployment ledger/api']);
    const f = fs[0]!;
    expect(f.affectedPods).toBe(2);
    expect(f.message).toContain('ResourceQuota compute requires limits.cpu, limits.memory');
    expect(f.evidence.missing).toEqual({
      'limits.cpu': ['linkerd-init', 'linkerd-proxy'],
      'limits.memory': ['linkerd-init', 'linkerd-proxy'],
    });
    expect((f.evidence.failedCreate as { message: string }[])[0]!.message).toContain('must specify limits.cpu');
    expect(f.fix[0]).toBe(
      `kubectl patch deployment/api -n ledger --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"config.linkerd.io/proxy-cpu-request":"100m","config.linkerd.io/proxy-memory-request":"20Mi","config.linkerd.io/proxy-cpu-limit":"1","config.linkerd.io/proxy-memory-limit":"250Mi"}}}}}'`,
    );
    // Requests set too (a missing one defaults to the limit: a whole CPU per pod); the pod fits the room left.
    expect(f.evidence).toMatchObject({
      used: { 'limits.cpu': '0', 'limits.memory': '0' },
      demand: { pod: { 'limits.cpu': '1500m', 'limits.memory': '762Mi' } },
      exceeded: [],
    });
  });

  it('fires when one more pod fits without the Istio proxy but not with it, with the quota that fits it', () => {
    const fs = run(cluster('istio', [`${dir}fires-istio-exceeded.yaml`]));
    expect(ids(fs)).toEqual(['quota-blocks-proxy Deployment catalog/search']);
    const f = fs[0]!;
    expect(f.affectedPods).toBe(1);
    expect(f.message).toBe(
      'One more pod of Deployment catalog/search does not fit ResourceQuota catalog-quota with its istio-proxy: requests.memory needs 384Mi (128Mi for the proxy) but 256Mi is left.',
    );
    expect(f.evidence).toMatchObject({
      quota: 'catalog-quota',
      remaining: { 'requests.cpu': '1400m', 'requests.memory': '256Mi', pods: '8' },
      demand: {
        pod: { 'requests.memory': '384Mi', 'requests.cpu': '300m' },
        proxy: { 'requests.memory': '128Mi', 'requests.cpu': '100m' },
      },
      exceeded: ['requests.memory'],
    });
    expect(f.fix).toEqual([
      `kubectl patch resourcequota catalog-quota -n catalog --type=merge -p '{"spec":{"hard":{"requests.memory":"1152Mi"}}}'`,
    ]);
  });

  it('knows that one Istio resource annotation drops the global defaults, and restores them in the fix', () => {
    const fs = run(cluster('istio', [`${dir}fires-istio-partial-annotation.yaml`]));
    expect(ids(fs)).toEqual(['quota-blocks-proxy Deployment payments/ledger']);
    expect(fs[0]!.evidence.missing).toEqual({ 'limits.memory': ['istio-init', 'istio-proxy'] });
    expect(fs[0]!.fix).toEqual([
      `kubectl patch deployment/ledger -n payments --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"sidecar.istio.io/proxyCPU":"250m","sidecar.istio.io/proxyMemory":"128Mi","sidecar.istio.io/proxyCPULimit":"2","sidecar.istio.io/proxyMemoryLimit":"1Gi"}}}}}'`,
    ]);
    expect(run(cluster('istio', [`${dir}ok-istio-defaults.yaml`]))).toEqual([]);
  });

  it('judges the shop quota of the healthy Linkerd cluster: the proxy needs a cpu request there', () => {
    const web = (annotations: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: dep-web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {${annotations}}}
    spec:
      serviceAccountName: web
      containers: [{name: web, image: example/web:2.3, resources: {requests: {cpu: 200m, memory: 256Mi}, limits: {memory: 512Mi}}}]
`;
    const fs = run(cluster('linkerd', [web('config.linkerd.io/proxy-memory-limit: 256Mi')], only('shop')));
    expect(ids(fs)).toEqual(['quota-blocks-proxy Deployment shop/web']);
    expect(fs[0]!.evidence.missing).toEqual({ 'requests.cpu': ['linkerd-init', 'linkerd-proxy'] });
    expect(fs[0]!.fix[0]).toContain('"config.linkerd.io/proxy-cpu-request":"100m"');
    expect(
      run(
        cluster(
          'linkerd',
          [web('config.linkerd.io/proxy-memory-limit: 256Mi, config.linkerd.io/proxy-cpu-request: 100m')],
          only('shop'),
        ),
      ),
    ).toEqual([]);
  });

  it('stays silent for near misses', () => {
    expect(run(cluster('linkerd', [`${dir}ok-linkerd-annotated.yaml`], only('ledger')))).toEqual([]);
    expect(run(cluster('linkerd', [`${dir}ok-linkerd-config-values.yaml`], only('ledger')))).toEqual([]);
    expect(run(cluster('linkerd', [`${dir}ok-app-unset.yaml`], only('ledger')))).toEqual([]);
    expect(run(cluster('linkerd', [`${dir}ok-app-unset.yaml`], only('legacy')))).toEqual([]);
    expect(run(cluster('istio', [`${dir}ok-istio-room.yaml`]))).toEqual([]);
    expect(run(cluster('istio', [`${dir}ok-istio-exhausted.yaml`]))).toEqual([]);
  });
});

describe('job-never-completes', () => {
  const run = (snap: Snapshot, now = NOW) => findings(snap, ['job-never-completes'], { now });
  const dir = 'checks/job-never-completes/';

  it('fires for a running Linkerd Job whose app exited hours ago, with the proxy still running', () => {
    const fs = run(cluster('linkerd', [`${dir}fires-linkerd-hung.yaml`]));
    expect(ids(fs)).toEqual(['job-never-completes Job shop/migrate']);
    const f = fs[0]!;
    expect(f.severity).toBe('error');
    expect(f.message).toBe(
      'Job shop/migrate never completes: its app exited 3h0m ago but linkerd-proxy is not a native sidecar and keeps the pod running.',
    );
    expect(f.evidence.pods).toEqual([
      {
        pod: 'migrate-9xk2p',
        containers: [
          { name: 'linkerd-proxy', state: 'running', startedAt: '2026-11-22T08:55:05Z' },
          {
            name: 'migrate',
            state: 'terminated',
            exitCode: 0,
            reason: 'Completed',
            finishedAt: '2026-11-22T09:00:00Z',
          },
        ],
        appExitedAt: '2026-11-22T09:00:00.000Z',
        sinceAppExit: '3h0m',
      },
    ]);
    expect(f.fix.slice(0, 2)).toEqual([
      '# the app has exited, and linkerd-proxy has no shell to stop it from',
      'kubectl delete job migrate -n shop',
    ]);
    // stable-2.14 has no native sidecar (the alpha annotation came with 2.15: src/mesh/linkerd/ending.ts): not offered.
    expect(f.fix[2]).toBe(
      '# Linkerd before 2.15 cannot inject linkerd-proxy as a native sidecar: upgrade Linkerd first, or use one of the ways below',
    );
  });

  it('waits a minute after the app exits before calling a Job hung (until then: the template warning)', () => {
    const fs = run(cluster('linkerd', [`${dir}fires-linkerd-hung.yaml`]), new Date('2026-11-22T09:00:30Z'));
    expect(ids(fs)).toEqual(['job-never-completes Job shop/migrate']);
    expect(fs[0]!.severity).toBe('warning');
    expect(run(cluster('linkerd', [`${dir}ok-linkerd-just-exited.yaml`]))).toEqual([]);
  });

  it('reports a hung Istio CronJob run on its Job, fixing the CronJob and releasing the pod', () => {
    const fs = run(cluster('istio', [`${dir}fires-istio-cronjob-hung.yaml`]));
    expect(ids(fs)).toEqual(['job-never-completes Job store/sync-29381160']);
    expect(fs[0]!.evidence.cronJob).toBe('sync');
    expect(fs[0]!.fix).toEqual([
      `kubectl patch cronjob/sync -n store --type=merge -p '{"spec":{"jobTemplate":{"spec":{"template":{"metadata":{"annotations":{"sidecar.istio.io/nativeSidecar":"true"}}}}}}}'`,
      'kubectl exec sync-29381160-h2j4k -n store -c istio-proxy -- pilot-agent request POST quitquitquit',
    ]);
  });

  it('warns about Job and CronJob templates that will be meshed without a way to end the proxy', () => {
    const fs = run(cluster('both', [`${dir}fires-templates.yaml`]));
    expect(ids(fs)).toEqual(['job-never-completes CronJob shop/cleanup', 'job-never-completes Job store/reindex']);
    expect(fs.map((f) => [f.mesh, f.severity])).toEqual([
      ['linkerd', 'warning'],
      ['istio', 'warning'],
    ]);
    // The linkerd base runs stable-2.14: no native sidecar to switch on (the Istio CronJob above is patched).
    expect(fs[0]!.fix).toEqual([
      '# Linkerd before 2.15 cannot inject linkerd-proxy as a native sidecar: upgrade Linkerd first, or use one of the ways below',
      '# or: wrap the command of the app in linkerd-await --shutdown -- with config.linkerd.io/proxy-admin-shutdown: enabled on the pod template',
      '# or: opt the pod template out with the annotation linkerd.io/inject: disabled',
    ]);
    // reindex is still running: never re-created mid-run (kubectl replace --force deletes its pods), only its next run.
    expect(fs[1]!.fix[0]).toMatch(
      /^# Job store\/reindex is still running: .*set annotations sidecar\.istio\.io\/nativeSidecar: 'true'/,
    );
    expect(fs[1]!.fix.some((l) => l.startsWith('kubectl replace --force'))).toBe(false);
    expect(fs[1]!.evidence.nativeSidecar).toBe('no native-sidecar setting found');
  });

  it('stays silent with native sidecars, a shutdown call, an opt-out, a finished Job, or no injection', () => {
    expect(run(cluster('both', [`${dir}ok-templates.yaml`]))).toEqual([]);
    expect(run(cluster('linkerd', [`${dir}ok-native-config.yaml`]))).toEqual([]);
  });
});

describe('host-network-pod', () => {
  const run = (snap: Snapshot) => findings(snap, ['host-network-pod']);
  const dir = 'checks/host-network-pod/';

  it('explains with -n that a hostNetwork workload in an enabled namespace is never injected', () => {
    const shop = run(cluster('both', [`${dir}fires.yaml`], only('shop')));
    expect(ids(shop)).toEqual(['host-network-pod DaemonSet shop/node-agent']);
    expect(shop[0]!).toMatchObject({ severity: 'info', mesh: 'linkerd', affectedPods: 1, fix: [] });
    expect(shop[0]!.message).toContain('(by design)');
    const store = run(cluster('both', [`${dir}fires.yaml`], only('store')));
    expect(ids(store)).toEqual(['host-network-pod DaemonSet store/log-shipper']);
    expect(store[0]!.evidence.namespaceMarker).toBe('label istio-injection=enabled');
  });

  it('reports with -A what -n reports; silent in namespaces enabled for no mesh, for opt-outs and for kube-system', () => {
    expect(ids(run(cluster('both', [`${dir}fires.yaml`])))).toEqual([
      'host-network-pod DaemonSet shop/node-agent',
      'host-network-pod DaemonSet store/log-shipper',
    ]);
    expect(run(cluster('linkerd', [`${dir}ok.yaml`], only('legacy')))).toEqual([]);
    expect(run(cluster('linkerd', [`${dir}ok.yaml`], only('shop')))).toEqual([]);
    expect(run(cluster('linkerd', [], only('kube-system')))).toEqual([]);
  });
});
