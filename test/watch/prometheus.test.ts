/**
 * A real Prometheus (Debian's package) scraping `meshdoctor watch`, queried through its HTTP API:
 * an unmeshed pod's finding becomes a series and goes stale when the pod goes; hostile names are
 * stored as the printable values /metrics shows; every expression of the alert rules and the
 * Grafana dashboard is one this Prometheus evaluates. Watch runs in-process against the test API
 * server (which, unlike a real one, lets a pod be named with quotes, newlines and escapes).
 * Skipped, with a note, when prometheus is not installed (.ci/run installs it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { DEFAULT_LIMITS } from '../../src/util/limits.js';
import type { K8sObject } from '../../src/util/types.js';
import { clusterValue } from '../../src/watch/exposition.js';
import { runWatch } from '../../src/watch/index.js';
import { startApiServer, type ApiServer } from '../apiserver/server.js';
import { baseObjects, NOW } from '../helpers/fixtures.js';
import { PROMETHEUS, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { until } from '../helpers/until.js';

const ROOT = join(import.meta.dirname, '..', '..');
if (!PROMETHEUS)
  console.log('test/watch/prometheus.test.ts skipped: prometheus not installed (apt-get install prometheus)');

const pod = (name: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, creationTimestamp: '2026-11-20T10:00:00Z' },
  spec: { containers: [{ name: 'app', image: 'example/app:1' }] },
  status: { phase: 'Running' },
});
const HOSTILE = ['q"uote\\back', 'new\nline}', 'esc\u001b[2Jclear'];

describe.skipIf(!PROMETHEUS)('a real Prometheus scraping meshdoctor watch', () => {
  let srv: ApiServer;
  let prom: RunningPrometheus;
  const stop = new AbortController();
  let done: Promise<void>;

  beforeAll(async () => {
    srv = await startApiServer({ objects: [...baseObjects('linkerd'), ...HOSTILE.map(pod)] });
    let address = '';
    done = runWatch(
      {
        kubeconfig: await srv.writeKubeconfig(),
        allNamespaces: true,
        listen: '127.0.0.1:0',
        mesh: 'auto',
        certExpiryWarningDays: 60,
        limits: DEFAULT_LIMITS,
        maxSeries: 10_000,
        version: '0.0.0-test',
        timings: { quietMs: 20, maxDelayMs: 100 },
      },
      { stdout: () => {}, stderr: () => {}, signal: stop.signal, onListening: (a) => (address = a), now: () => NOW },
    );
    await until(() => address !== '', 10_000, 'watch listening');
    prom = await startPrometheus([address]);
  }, 90_000);

  afterAll(async () => {
    await prom?.stop();
    stop.abort();
    await done?.catch(() => {});
    await srv?.close();
  });

  it('stores an unmeshed pod’s finding with its labels, and marks it stale once the pod is gone', async () => {
    await until(async () => (await prom.query('meshdoctor_ready == 1')).length === 1, 60_000, 'ready scraped');
    srv.upsert(pod('loose'));
    await until(
      async () => (await prom.query('meshdoctor_finding{name="loose"}')).length === 1,
      30_000,
      'series stored',
    );
    const [s] = await prom.query('meshdoctor_finding{name="loose"}');
    expect(s!.metric).toMatchObject({
      __name__: 'meshdoctor_finding',
      check: 'sidecar-missing',
      code: 'MD1004',
      severity: 'error',
      mesh: 'linkerd',
      namespace: 'shop',
      kind: 'Pod',
    });
    srv.remove('Pod', 'shop', 'loose');
    await until(
      async () => (await prom.query('meshdoctor_finding{name="loose"}')).length === 0,
      30_000,
      'series stale',
    );
  }, 120_000);

  it('stores hostile names as the printable values /metrics shows, one series each', async () => {
    await until(
      async () => (await prom.query('count(meshdoctor_finding{namespace="shop",kind="Pod"})')).length === 1,
      60_000,
      'scraped',
    );
    const names = (await prom.query('meshdoctor_finding{namespace="shop",kind="Pod"}')).map((r) => r.metric.name);
    for (const n of HOSTILE) expect(names).toContain(clusterValue(n));
    expect(names.some((n) => /[\n\u001b]/.test(n!))).toBe(false);
    const up = await prom.query('up{job="meshdoctor"}');
    expect(up[0]!.value[1]).toBe('1');
  }, 120_000);

  it('evaluates every alert expression and every dashboard query', async () => {
    const alerts = YAML.parse(readFileSync(join(ROOT, 'deploy/prometheus-alerts.yml'), 'utf8'));
    const dash = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana-dashboard.json'), 'utf8'));
    const exprs: string[] = [
      ...alerts.groups.flatMap((g: any) => g.rules.map((r: any) => r.expr)),
      ...dash.panels.flatMap((p: any) =>
        p.targets.map((t: any) =>
          t.expr.replaceAll('$cluster', '.*').replaceAll('$job', '.*').replaceAll('$namespace', '.*'),
        ),
      ),
    ];
    for (const e of exprs) await expect(prom.query(e), e).resolves.toBeInstanceOf(Array);
    // The coverage query answers for shop once scraped.
    await until(
      async () =>
        (await prom.query(exprs.find((e) => e.includes('sum by (namespace)') && e.includes('meshed|unmeshed'))!))
          .length > 0,
      30_000,
      'coverage',
    );
  }, 120_000);
});
