/**
 * `meshdoctor watch` end to end in-process (src/watch/index.ts runWatch) against the test API
 * server: /findings is `check`'s JSON report, an unmeshed pod's finding appears in /metrics and
 * as one NDJSON "opened" line, and goes (a "resolved" line) when the pod does; hostile names stay
 * one escaped series that promtool reads; a flood of objects is capped (series) and counted;
 * readiness, health, a stale kind, bad --listen.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/util/limits.js';
import type { K8sObject } from '../../src/util/types.js';
import { clusterValue } from '../../src/watch/exposition.js';
import { runWatch, type WatchOptions } from '../../src/watch/index.js';
import { startApiServer, type ApiServer, type ApiServerOptions, type Fault } from '../apiserver/server.js';
import {
  SERVER_DOC,
  baseObjects,
  fixtureMetricsText,
  fixtureObjects,
  fixtureServer,
  overlay,
} from '../helpers/fixtures.js';
import { httpGet, PROMTOOL, promtool } from '../helpers/prometheus.js';
import { until } from '../helpers/until.js';
import { checkReport, servedReport } from '../helpers/cli.js';

const barePod = (name: string, namespace = 'shop'): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace,
    uid: `uid-${name}`,
    creationTimestamp: '2026-11-20T10:00:00Z',
    labels: { app: 'loose' },
  },
  spec: { containers: [{ name: 'app', image: 'example/loose:1' }] },
  status: { phase: 'Running' },
});

interface Running {
  srv: ApiServer;
  url: string;
  out: string[];
  err: string[];
  stop(): Promise<void>;
  done: Promise<void>;
}

let running: Running | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(
  objects: K8sObject[],
  opts: Partial<WatchOptions> = {},
  faults: Fault[] = [],
  server: ApiServerOptions = {},
): Promise<Running> {
  // The options object itself: a test may change what GET /metrics answers while the watch runs.
  const srv = await startApiServer(Object.assign(server, { objects, faults }));
  const kubeconfig = await srv.writeKubeconfig();
  const out: string[] = [];
  const err: string[] = [];
  const stopper = new AbortController();
  let url = '';
  const done = runWatch(
    {
      kubeconfig,
      allNamespaces: true,
      listen: '127.0.0.1:0',
      mesh: 'auto',
      certExpiryWarningDays: 60,
      limits: { ...DEFAULT_LIMITS, requestTimeoutMs: 5000 },
      maxSeries: 10_000,
      version: '0.0.0-test',
      timings: { quietMs: 20, maxDelayMs: 100, minFullGapMs: 50, lazyFullMs: 200 },
      ...opts,
    },
    {
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
      signal: stopper.signal,
      onListening: (a) => (url = `http://${a}`),
      // The clock, as check's (the time of its read): the reports compared are made at the same time.
    },
  );
  done.catch(() => {});
  await until(() => url !== '' || err.length > 0, 10_000, 'listening');
  running = {
    srv,
    url,
    out,
    err,
    done,
    async stop() {
      stopper.abort();
      await done.catch(() => {});
      await srv.close();
    },
  };
  return running;
}

const metrics = async (r: Running) => (await httpGet(`${r.url}/metrics`)).body;
const findingLines = (text: string) => text.split('\n').filter((l) => l.startsWith('meshdoctor_finding{'));

describe('meshdoctor watch (in-process, test API server)', () => {
  it('--no-secrets: no Secret is requested (listed, got or watched); /findings says they were declined, coverage complete', async () => {
    const r = await start(baseObjects('linkerd'), { secrets: false });
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    const report = JSON.parse((await httpGet(`${r.url}/findings`)).body);
    expect(report.coverage.complete).toBe(true);
    expect(report.coverage.unavailable).toEqual([
      expect.objectContaining({
        kind: 'secrets',
        checks: ['component-cert-not-reloaded', 'webhook-cert-mismatch'],
        declined: true,
      }),
    ]);
    expect(r.srv.requests.filter((q) => q.path.includes('/secrets'))).toEqual([]);
    expect(r.srv.requests.some((q) => q.path.includes('/configmaps/'))).toBe(true);
    expect(await metrics(r)).toMatch(/^meshdoctor_coverage_complete 1$/m);
  });

  it('serves check -o json on /findings, and follows an unmeshed pod in and out of /metrics and stdout', async () => {
    const r = await start(baseObjects('linkerd'));
    expect((await httpGet(`${r.url}/healthz`)).status).toBe(200);
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    // The same report `meshdoctor check` makes of the same cluster (its own read path: the server reads too).
    const expected = await checkReport(['-A', '--kubeconfig', await r.srv.writeKubeconfig()]);
    const served = servedReport((await httpGet(`${r.url}/findings`)).body);
    expect(served).toEqual(expected);
    expect(served.coverage.complete).toBe(true);
    expect(r.out).toEqual(expected.findings.map(() => expect.stringMatching(/^\{"time":".*","event":"opened"/)));
    const before = r.out.length;

    r.srv.upsert(barePod('loose'));
    await until(
      async () => findingLines(await metrics(r)).some((l) => l.includes('name="loose"')),
      10_000,
      'finding in /metrics',
    );
    const line = findingLines(await metrics(r)).find((l) => l.includes('name="loose"'))!;
    expect(line).toMatch(
      /^meshdoctor_finding\{code="MD\d{4}",check="[a-z-]+",severity="(error|warning|info)",mesh="linkerd",namespace="shop",kind="Pod",name="loose"\} 1$/,
    );
    await until(() => r.out.length > before, 5000, 'NDJSON line');
    const opened = r.out.slice(before).map((l) => JSON.parse(l));
    expect(opened.every((o) => o.event === 'opened' && o.resource.name === 'loose')).toBe(true);
    expect(r.out.slice(before).every((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1)).toBe(true);

    const n = r.out.length;
    r.srv.remove('Pod', 'shop', 'loose');
    await until(
      async () => !findingLines(await metrics(r)).some((l) => l.includes('name="loose"')),
      10_000,
      'finding gone',
    );
    await until(() => r.out.length > n, 5000, 'resolved line');
    expect(r.out.slice(n).map((l) => JSON.parse(l).event)).toEqual(opened.map(() => 'resolved'));
    // The log is on stderr only: stdout holds NDJSON lines and nothing else.
    expect(r.out.every((l) => l.startsWith('{"time":'))).toBe(true);
    expect(r.err.join('')).toMatch(/meshdoctor: ready: \d+ objects of \d+ kinds read/);
  });

  it("-n: watches that namespace and the control planes only, and serves check -n's report", async () => {
    const r = await start(baseObjects('linkerd'), { allNamespaces: false, namespace: 'shop' });
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    // check -n shop's report (its kube-apiserver pods read by label, as watch -n reads them).
    const expected = await checkReport(['-n', 'shop', '--kubeconfig', await r.srv.writeKubeconfig()]);
    const served = servedReport((await httpGet(`${r.url}/findings`)).body);
    expect(served).toEqual(expected);
    const watched = new Set(
      r.srv.requests.filter((q) => q.query.watch === '1' && q.path.endsWith('/pods')).map((q) => q.path),
    );
    expect([...watched].sort()).toEqual(['/api/v1/namespaces/linkerd/pods', '/api/v1/namespaces/shop/pods']);
    // A change elsewhere is not seen; one in shop is.
    r.srv.upsert(barePod('elsewhere', 'legacy'));
    r.srv.upsert(barePod('here'));
    await until(async () => (await metrics(r)).includes('name="here"'), 10_000, 'shop pod');
    expect(await metrics(r)).not.toContain('name="elsewhere"');
  });

  it('-n with a namespace that does not exist: one line, like check', async () => {
    const srv = await startApiServer({ objects: baseObjects('linkerd') });
    const io = { stdout: () => {}, stderr: () => {}, signal: new AbortController().signal };
    const opts: WatchOptions = {
      kubeconfig: await srv.writeKubeconfig(),
      allNamespaces: false,
      namespace: 'nope',
      listen: '127.0.0.1:0',
      mesh: 'auto',
      certExpiryWarningDays: 60,
      limits: DEFAULT_LIMITS,
      maxSeries: 10,
      version: 'x',
    };
    await expect(runWatch(opts, io)).rejects.toThrow(/^namespace "nope" not found$/);
    await srv.close();
  });

  it('hostile names: one escaped series each, read back by promtool; the log and NDJSON stay one line each', async () => {
    const names = ['q"uote', 'back\\slash', 'new\nline', 'esc\u001b[31mred', 'nul\u0000', 'sep\u2028'];
    const r = await start([...baseObjects('linkerd'), ...names.map((n) => barePod(n))]);
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    const text = await metrics(r);
    for (const n of names)
      expect(text).toContain(`name="${clusterValue(n).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
    expect(text).not.toMatch(/[\u0000\u001b\u2028]/);
    if (PROMTOOL) {
      const p = await promtool(['check', 'metrics'], text);
      expect(p.out).toBe('');
      expect(p.code).toBe(0);
    }
    for (const l of r.out) {
      expect(l.indexOf('\n')).toBe(l.length - 1);
      expect(l).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u2028]/);
    }
  });

  it('--max-series caps meshdoctor_finding and counts the rest; a flood of events ends in the right count', async () => {
    const r = await start(baseObjects('linkerd'), { maxSeries: 5 });
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    for (let i = 0; i < 200; i++) r.srv.upsert(barePod(`flood-${i}`, i % 2 ? 'shop' : 'default'));
    const value = (text: string, series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1]);
    await until(async () => value(await metrics(r), 'meshdoctor_objects{kind="pods"}') >= 200, 10_000, 'all pods');
    // The 100 pods in shop (enabled) are findings; the 100 in default (not enabled) are not.
    await until(
      async () => value(await metrics(r), 'meshdoctor_series_overflow{metric="meshdoctor_finding"}') >= 95,
      10_000,
      'overflow',
    );
    const text = await metrics(r);
    expect(findingLines(text)).toHaveLength(5);
    const total = ['error', 'warning', 'info'].reduce(
      (n, s) => n + Number(new RegExp(`^meshdoctor_findings\\{severity="${s}"\\} (\\d+)$`, 'm').exec(text)![1]),
      0,
    );
    expect(Number(/^meshdoctor_series_overflow\{metric="meshdoctor_finding"\} (\d+)$/m.exec(text)![1])).toBe(total - 5);
  });

  it('a kind whose watch fails is served stale (objects kept) and said so; /readyz stays 200 and names it', async () => {
    const r = await start(baseObjects('linkerd'));
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    r.srv.faults.push({ match: (q) => q.path === '/api/v1/pods', status: 503 });
    r.srv.endWatches();
    await until(async () => /^meshdoctor_kind_stale\{kind="pods"\} 1$/m.test(await metrics(r)), 10_000, 'stale');
    const ready = await httpGet(`${r.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatch(/^ok\nstale: pods: HTTP 503: /);
    expect(await metrics(r)).toMatch(/^meshdoctor_kind_readable\{kind="pods"\} 1$/m);
    expect(r.err.join('')).toMatch(/meshdoctor: pods: HTTP 503: .*\(retrying in \d+s\)/);
  });

  it('a kind that turns unreadable after the first sync (403: a RoleBinding removed) is not "all fixed": findings kept, stale, never resolved', async () => {
    const r = await start([...baseObjects('linkerd'), barePod('loose')]);
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    await until(async () => (await metrics(r)).includes('name="loose"'), 10_000, 'finding');
    const key = (f: any) => `${f.code} ${f.resource.kind} ${f.resource.namespace ?? ''}/${f.resource.name}`;
    const before = JSON.parse((await httpGet(`${r.url}/findings`)).body);
    const seriesBefore = findingLines(await metrics(r)).sort();
    expect(before.findings.length).toBeGreaterThan(0);
    const forbidden = { match: (q: any) => q.path === '/api/v1/pods', status: 403 };
    r.srv.faults.push(forbidden);
    r.srv.endWatches();
    await until(async () => /^meshdoctor_read_failing\{kind="pods"\} 1$/m.test(await metrics(r)), 20_000, 'failing');
    // An evaluation under the failing read (a change elsewhere asks for one).
    r.srv.upsert({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'poke' } });
    await until(
      async () => JSON.parse((await httpGet(`${r.url}/findings`)).body).coverage.complete === false,
      10_000,
      'evaluated',
    );
    const text = await metrics(r);
    expect(findingLines(text).sort()).toEqual(seriesBefore);
    expect(text).toMatch(/^meshdoctor_coverage_complete 0$/m);
    expect(Number(/^meshdoctor_findings_stale (\d+)$/m.exec(text)![1])).toBeGreaterThan(0);
    const during = JSON.parse((await httpGet(`${r.url}/findings`)).body);
    expect(during.findings.map(key).sort()).toEqual(before.findings.map(key).sort());
    const loose = during.findings.find((f: any) => f.resource.name === 'loose');
    expect(loose.stale).toMatch(
      /^not examined now, the last finding seen is kept: could not read again pods: forbidden/,
    );
    expect(during.coverage.unavailable.map((u: any) => u.kind)).toContain('pods');
    expect(r.out.map((l) => JSON.parse(l).event)).not.toContain('resolved');
    const ready = await httpGet(`${r.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(/^read failing: pods: forbidden/m);
    // Readable again: the stale marks go, nothing was resolved meanwhile.
    r.srv.faults.splice(r.srv.faults.indexOf(forbidden), 1);
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 30_000, 'ready again');
    await until(async () => /^meshdoctor_findings_stale 0$/m.test(await metrics(r)), 10_000, 'fresh');
    const after = JSON.parse((await httpGet(`${r.url}/findings`)).body);
    expect(after.findings.map(key).sort()).toEqual(before.findings.map(key).sort());
    expect(after.findings.some((f: any) => f.stale)).toBe(false);
    expect(r.out.map((l) => JSON.parse(l).event)).not.toContain('resolved');
  }, 60_000);

  it('a kind refused from the start is unavailable, not failing, however early /readyz and /metrics are asked', async () => {
    const r = await start(baseObjects('linkerd'), {}, [
      { match: (q) => q.path.includes('/secrets'), status: 403, delayMs: 400 },
      { match: (q) => q.path === '/api/v1/pods', delayMs: 800, times: 1 },
    ]);
    expect((await httpGet(`${r.url}/readyz`)).status).toBe(503);
    await metrics(r);
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    expect((await httpGet(`${r.url}/readyz`)).body).toMatch(/^unavailable: secrets: forbidden/m);
    expect(await metrics(r)).toMatch(/^meshdoctor_read_failing\{kind="secrets"\} 0$/m);
  });

  it('answers only GET/HEAD on its paths; not ready: 503 on /readyz and /findings', async () => {
    const r = await start(baseObjects('linkerd'), {}, [
      { match: (q) => q.path === '/api/v1/pods', delayMs: 1500, times: 1 },
    ]);
    const notReady = await httpGet(`${r.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatch(/^not ready: reading the cluster \(\d+ of \d+ kinds read\)/);
    expect((await httpGet(`${r.url}/findings`)).status).toBe(503);
    expect(await metrics(r)).toMatch(/^meshdoctor_ready 0$/m);
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    expect(await metrics(r)).toMatch(/^meshdoctor_ready 1$/m);
    const post = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${r.url}/metrics`, { method: 'POST' }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    expect(post).toBe(405);
    expect((await httpGet(`${r.url}/nope`)).status).toBe(404);
  });

  it('--no-findings-endpoint: /findings is not served (404), metrics and probes are', async () => {
    const r = await start(baseObjects('linkerd'), { findingsEndpoint: false });
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    expect((await httpGet(`${r.url}/findings`)).status).toBe(404);
    expect((await httpGet(`${r.url}/`)).body).not.toContain('/findings');
    expect(await metrics(r)).toMatch(/^meshdoctor_ready 1$/m);
    expect(r.err.join('')).toMatch(/serving \/metrics, \/healthz, \/readyz on http/);
  });

  it('a bad --listen and an address in use are one line each, before anything is read', async () => {
    const srv = await startApiServer({ objects: [] });
    const kubeconfig = await srv.writeKubeconfig();
    const opts = (listen: string): WatchOptions => ({
      kubeconfig,
      allNamespaces: true,
      listen,
      mesh: 'auto',
      certExpiryWarningDays: 60,
      limits: DEFAULT_LIMITS,
      maxSeries: 10,
      version: 'x',
    });
    const io = { stdout: () => {}, stderr: () => {}, signal: new AbortController().signal };
    await expect(runWatch(opts('nonsense'), io)).rejects.toThrow(/--listen must be HOST:PORT/);
    await expect(runWatch(opts('127.0.0.1:99999'), io)).rejects.toThrow(/--listen must be/);
    const r = await start([]);
    await expect(runWatch(opts(r.url.replace('http://', '')), io)).rejects.toThrow(
      /cannot listen on 127\.0\.0\.1:\d+ \(--listen\): EADDRINUSE/,
    );
    await srv.close();
  });
});

describe('meshdoctor watch reads the API server itself as check does (issue 32)', () => {
  const FAIL_OPEN = 'checks/webhook-failing-open/fires-linkerd.yaml';
  const all = overlay(baseObjects('linkerd'), fixtureObjects(FAIL_OPEN));
  const objects = all.filter((o) => o.kind !== SERVER_DOC);
  const info = fixtureServer(all.find((o) => o.kind === SERVER_DOC)!)!;
  const version = info.version?.state === 'read' ? info.version.value : null;

  it('/metrics with fail-open series and /version: the findings of check -A and -n, webhook-failing-open among them', async () => {
    for (const scope of [['-A'], ['-n', 'shop']]) {
      const r = await start(objects, scope[0] === '-n' ? { allNamespaces: false, namespace: 'shop' } : {}, [], {
        version,
        metrics: fixtureMetricsText(all)!,
      });
      await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
      // /version and /metrics read once each at the start, nothing else of the server itself.
      expect(r.srv.requests.filter((q) => q.path === '/version').length).toBe(1);
      expect(r.srv.requests.filter((q) => q.path === '/metrics').length).toBe(1);
      const expected = await checkReport([...scope, '--kubeconfig', await r.srv.writeKubeconfig()]);
      const served = servedReport((await httpGet(`${r.url}/findings`)).body);
      expect(served, scope.join(' ')).toEqual(expected);
      expect(served.findings.map((f: any) => f.id)).toContain('webhook-failing-open');
      expect(served.coverage.complete).toBe(true);
      expect(findingLines(await metrics(r)).find((l) => l.includes('check="webhook-failing-open"'))).toMatch(
        /name="linkerd-proxy-injector-webhook-config"\} 1$/,
      );
      await r.stop();
      running = undefined;
    }
  });

  it('/metrics read again on full evaluations (at most every serverRefreshMs): a webhook failing open later is found', async () => {
    const server: ApiServerOptions = { version };
    const r = await start(
      objects,
      {
        serverRefreshMs: 100,
        timings: { quietMs: 20, maxDelayMs: 100, minFullGapMs: 50, lazyFullMs: 200, periodicFullMs: 300 },
      },
      [],
      server,
    );
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    expect(findingLines(await metrics(r)).some((l) => l.includes('check="webhook-failing-open"'))).toBe(false);
    server.metrics = fixtureMetricsText(all)!; // the test server answers each GET /metrics from its options
    await until(
      async () => findingLines(await metrics(r)).some((l) => l.includes('check="webhook-failing-open"')),
      10_000,
      'fail-open finding',
    );
    const n = r.srv.requests.filter((q) => q.path === '/metrics').length;
    await new Promise((res) => setTimeout(res, 600));
    // Bounded: a few reads a second at this test's 100 ms, never one per evaluation beyond that.
    expect(r.srv.requests.filter((q) => q.path === '/metrics').length - n).toBeLessThanOrEqual(8);
    expect(r.srv.requests.filter((q) => q.path === '/version').length).toBe(1);
    expect(r.out.some((l) => JSON.parse(l).id === 'webhook-failing-open' && JSON.parse(l).event === 'opened')).toBe(
      true,
    );
  });

  it('a server read not done yet is never complete: /findings and /metrics say "not read yet"', async () => {
    const r = await start(
      objects,
      { limits: { ...DEFAULT_LIMITS, requestTimeoutMs: 20_000, deadlineMs: 1500 } },
      [{ match: (q) => q.path === '/metrics', delayMs: Infinity }],
      { version },
    );
    await until(async () => (await httpGet(`${r.url}/readyz`)).status === 200, 15_000, 'ready');
    const served = JSON.parse((await httpGet(`${r.url}/findings`)).body);
    expect(served.coverage.complete).toBe(false);
    expect(served.coverage.unavailable).toContainEqual({ kind: 'GET /metrics', reason: 'not read yet', checks: [] });
    expect(await metrics(r)).toMatch(/^meshdoctor_coverage_complete 0$/m);
  });
});
