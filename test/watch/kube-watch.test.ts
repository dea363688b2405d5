/**
 * `meshdoctor watch` against a REAL kube-apiserver (v1.32 + etcd, ../shared/k8s/apiserver.sh),
 * as the ServiceAccount of deploy/watch.yaml with deploy/rbac.yaml's and deploy/watch.yaml's RBAC
 * (so those grant everything watch needs: lists, watches, the named objects watched by
 * fieldSelector under resourceNames):
 * - ready, /findings equal to what `meshdoctor check` reports of the same cluster (its own read
 *   path, /version and /metrics included), coverage complete;
 * - with admission webhook series on /metrics (a front adds them: webhook admission is off in this
 *   server), the same as check -A and check -n, webhook-failing-open among the findings and series;
 * - an unmeshed pod created in an enabled namespace: its meshdoctor_finding series appears (and
 *   an NDJSON "opened" line); deleted: it goes ("resolved");
 * - a named ConfigMap changed: its watch sees it;
 * - the API server stopped: the kinds are stale (objects kept, /readyz and /metrics say so), it
 *   keeps serving; restarted: every watch is expired (410, a fresh watch cache) and lists again;
 * - its list access revoked and the server restarted: the kinds are unavailable, coverage
 *   incomplete, still serving.
 * Skipped, with a note, when ../shared/k8s/apiserver.sh is absent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixUp } from '../../bench/kube.js';
import { DEFAULT_LIMITS } from '../../src/util/limits.js';
import { runWatch, type WatchOptions } from '../../src/watch/index.js';
import { checkReport, servedReport } from '../helpers/cli.js';
import { baseObjects, parseObjects } from '../helpers/fixtures.js';
import { startMetricsFront } from '../helpers/metrics-front.js';
import {
  APISERVER_SH,
  APISERVER_SH_FOUND,
  startKubeApiServer,
  writeTokenKubeconfig,
  type KubeApiServer,
} from '../helpers/kube-apiserver.js';
import { restartKubeApiServer } from '../helpers/kube-restart.js';
import { httpGet } from '../helpers/prometheus.js';
import { until } from '../helpers/until.js';
import { meshRbacWithSecrets } from '../helpers/mesh-rbac.js';

const ROOT = join(import.meta.dirname, '..', '..');
if (!APISERVER_SH_FOUND)
  console.log(`test/watch/kube-watch.test.ts skipped: ../shared/k8s/apiserver.sh not found (no ${APISERVER_SH})`);

/**
 * deploy/rbac.yaml, the RBAC of deploy/watch.yaml (its Deployment and Service left out: no
 * controller runs here) and deploy/mesh-rbac/linkerd.yaml (get and watch by name on Linkerd's
 * named objects, so they are watched by name, not re-read periodically).
 */
const RBAC = [
  ...parseObjects(readFileSync(join(ROOT, 'deploy/rbac.yaml'), 'utf8')),
  ...parseObjects(readFileSync(join(ROOT, 'deploy/watch.yaml'), 'utf8')).filter(
    (o) => !['Deployment', 'Service'].includes(o.kind!),
  ),
  ...meshRbacWithSecrets('linkerd'),
];

const unmeshedPod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', labels: { app: name } },
  // shop has a ResourceQuota: its pods must say their requests and limits.
  spec: {
    containers: [
      {
        name: 'app',
        image: 'example/app:1',
        resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '16Mi' } },
      },
    ],
  },
});

/** runWatch as deploy/watch.yaml runs it, with short evaluation timings. */
function startWatch(
  kubeconfig: string,
  scope: Pick<WatchOptions, 'allNamespaces' | 'namespace'>,
  signal: AbortSignal,
  onListening: (address: string) => void,
  out: string[] = [],
  err: string[] = [],
): Promise<void> {
  return runWatch(
    {
      kubeconfig,
      ...scope,
      listen: '127.0.0.1:0',
      mesh: 'auto',
      certExpiryWarningDays: 60,
      limits: { ...DEFAULT_LIMITS, requestTimeoutMs: 10_000 },
      maxSeries: 10_000,
      version: '0.0.0-test',
      timings: { quietMs: 50, maxDelayMs: 200, minFullGapMs: 200, lazyFullMs: 1000 },
    },
    // The clock, as check's: the reports compared are made at the same time.
    { stdout: (s) => out.push(s), stderr: (s) => err.push(s), signal, onListening },
  );
}

describe.skipIf(!APISERVER_SH_FOUND)('meshdoctor watch on a real kube-apiserver', () => {
  let kube: KubeApiServer;
  let kubeconfig: string;
  let url = '';
  const out: string[] = [];
  const err: string[] = [];
  const stop = new AbortController();
  let done: Promise<void>;
  const metrics = async () => (await httpGet(`${url}/metrics`)).body;
  const value = (text: string, series: string) =>
    Number(new RegExp(`^${series.replace(/[{}()|.*+?^$[\]\\]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

  beforeAll(async () => {
    kube = await startKubeApiServer();
    await kube.admin.createAll([...fixUp(baseObjects('linkerd')), ...RBAC]);
    const token = await kube.admin.token('meshdoctor', 'meshdoctor');
    kubeconfig = writeTokenKubeconfig(join(kube.dir, 'watch.kubeconfig'), {
      server: kube.server,
      caPem: kube.caPem,
      token,
      user: 'meshdoctor',
    });
    done = startWatch(kubeconfig, { allNamespaces: true }, stop.signal, (a) => (url = `http://${a}`), out, err);
    done.catch(() => {});
    await until(async () => url !== '' && (await httpGet(`${url}/readyz`)).status === 200, 60_000, 'watch ready');
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await done?.catch(() => {});
    await kube?.stop();
  }, 60_000);

  it('is ready with every kind readable under the deploy/ RBAC, and serves what check computes', async () => {
    const served = servedReport((await httpGet(`${url}/findings`)).body);
    expect(served.coverage).toMatchObject({ complete: true, unavailable: [] });
    expect(served).toEqual(await checkReport(['-A', '--kubeconfig', kubeconfig]));
    expect(value(await metrics(), 'meshdoctor_coverage_complete')).toBe(1);
  }, 60_000);

  it("webhook series on /metrics: watch -A and -n serve check's report, webhook-failing-open in /findings and /metrics", async () => {
    // Linkerd's injector failed 14 calls, let through by failurePolicy Ignore (test/fixtures/checks/webhook-failing-open/fires-linkerd.yaml).
    const front = await startMetricsFront(
      kube,
      () =>
        '# TYPE apiserver_admission_webhook_fail_open_count counter\n' +
        'apiserver_admission_webhook_fail_open_count{name="linkerd-proxy-injector.linkerd.io",type="admit"} 14\n',
    );
    const fronted = writeTokenKubeconfig(join(kube.dir, 'front.kubeconfig'), {
      server: front.server,
      caPem: front.caPem,
      token: await kube.admin.token('meshdoctor', 'meshdoctor'),
      user: 'meshdoctor',
    });
    try {
      for (const scope of [{ allNamespaces: true }, { allNamespaces: false, namespace: 'shop' }]) {
        const stopper = new AbortController();
        let at = '';
        const watching = startWatch(fronted, scope, stopper.signal, (a) => (at = `http://${a}`));
        try {
          await until(async () => at !== '' && (await httpGet(`${at}/readyz`)).status === 200, 60_000, 'ready');
          const served = servedReport((await httpGet(`${at}/findings`)).body);
          const args = scope.namespace ? ['-n', scope.namespace] : ['-A'];
          expect(served, args.join(' ')).toEqual(await checkReport([...args, '--kubeconfig', fronted]));
          expect(served.findings.map((f: { id: string }) => f.id)).toContain('webhook-failing-open');
          expect(served.coverage.complete).toBe(true);
          const series = (await httpGet(`${at}/metrics`)).body
            .split('\n')
            .find((l) => l.startsWith('meshdoctor_finding{') && l.includes('check="webhook-failing-open"'));
          expect(series).toMatch(
            /kind="MutatingWebhookConfiguration",name="linkerd-proxy-injector-webhook-config"\} 1$/,
          );
        } finally {
          stopper.abort();
          await watching.catch(() => {});
        }
      }
    } finally {
      await front.close();
    }
  }, 120_000);

  it('an unmeshed pod in an enabled namespace: its series and an "opened" line; deleted: gone and "resolved"', async () => {
    const before = out.length;
    await kube.admin.create(unmeshedPod('loose'));
    await until(async () => (await metrics()).includes('name="loose"'), 20_000, 'series');
    expect((await metrics()).split('\n').find((l) => l.includes('name="loose"'))).toMatch(
      /^meshdoctor_finding\{code="MD1004",check="sidecar-missing",severity="error",mesh="linkerd",namespace="shop",kind="Pod",name="loose"\} 1$/,
    );
    await until(() => out.length > before, 10_000, 'opened line');
    expect(JSON.parse(out[before]!)).toMatchObject({
      event: 'opened',
      id: 'sidecar-missing',
      resource: { kind: 'Pod', namespace: 'shop', name: 'loose' },
    });
    const n = out.length;
    await kube.admin.ok('DELETE', '/api/v1/namespaces/shop/pods/loose');
    await until(async () => !(await metrics()).includes('name="loose"'), 20_000, 'series gone');
    await until(() => out.length > n, 10_000, 'resolved line');
    expect(JSON.parse(out[n]!)).toMatchObject({ event: 'resolved', resource: { name: 'loose' } });
  }, 60_000);

  it('a named ConfigMap is watched by name under a resourceNames Role: its change arrives as a watch event', async () => {
    expect(err.join('')).not.toMatch(/its watch is forbidden/);
    const events = value(await metrics(), 'meshdoctor_watch_events_total{kind="configmaps"}');
    await kube.admin.ok(
      'PATCH',
      '/api/v1/namespaces/linkerd/configmaps/linkerd-config',
      { metadata: { annotations: { touched: 'yes' } } },
      'application/merge-patch+json',
    );
    await until(
      async () => value(await metrics(), 'meshdoctor_watch_events_total{kind="configmaps"}') > events,
      20_000,
      'configmap event',
    );
  }, 60_000);

  it('the API server down: stale, still serving; back: every watch expired (410) and listed again', async () => {
    const relists = value(await metrics(), 'meshdoctor_relists_total{kind="pods"}');
    await restartKubeApiServer(kube, async () => {
      await until(async () => value(await metrics(), 'meshdoctor_kind_stale{kind="pods"}') === 1, 60_000, 'pods stale');
      const ready = await httpGet(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatch(/\nstale: pods: /);
      expect((await httpGet(`${url}/healthz`)).status).toBe(200);
      expect(value(await metrics(), 'meshdoctor_kind_readable{kind="pods"}')).toBe(1); // its objects are kept
    });
    await until(
      async () => value(await metrics(), 'meshdoctor_relists_total{kind="pods"}') > relists,
      90_000,
      'pods listed again',
    );
    await until(async () => value(await metrics(), 'meshdoctor_kind_stale{kind="pods"}') === 0, 60_000, 'pods fresh');
    expect(err.join('')).toMatch(
      /\nmeshdoctor: [a-z]+: expired: too old resource version: \d+ \(\d+\): reading it again\n/,
    );
    // Still in sync after the relist.
    await kube.admin.create(unmeshedPod('after-restart'));
    await until(async () => (await metrics()).includes('name="after-restart"'), 20_000, 'series after restart');
  }, 180_000);

  it('its list access revoked, the server restarted: the kinds fail, it says so and is not ready, still serving', async () => {
    await kube.admin.ok('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/meshdoctor');
    await restartKubeApiServer(kube);
    await until(
      async () => value(await metrics(), 'meshdoctor_kind_readable{kind="pods"}') === 0,
      90_000,
      'pods unavailable',
    );
    await until(
      async () => value(await metrics(), 'meshdoctor_coverage_complete') === 0,
      30_000,
      'coverage incomplete',
    );
    // Read once and refused now: not news that its findings are fixed (issue 36 class 0). Not ready,
    // the read counted as failing, the last findings of its checks kept (marked stale).
    const ready = await httpGet(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(/\nread failing: pods: forbidden: .*cannot list resource "pods"/);
    expect(value(await metrics(), 'meshdoctor_read_failing{kind="pods"}')).toBe(1);
    // /findings is the last evaluation's: it follows within the evaluation throttle.
    await until(
      async () =>
        JSON.parse((await httpGet(`${url}/findings`)).body).coverage.unavailable.some(
          (u: { kind: string }) => u.kind === 'pods',
        ),
      30_000,
      'report',
    );
    expect(value(await metrics(), 'meshdoctor_objects{kind="pods"}')).toBe(0);
  }, 180_000);
});
