/**
 * Watches at fleet scale, on Prometheus (docs/in-cluster.md "A fleet"): two `meshdoctor watch`
 * processes (bin/meshdoctor.js of dist/: `npm run build` first), each against its own REAL
 * kube-apiserver (../shared/k8s/apiserver.sh), and one real Prometheus (Debian's package) scraping
 * both, each target with its `cluster` label as each cluster's Prometheus adds it as an external
 * label before federation or remote write. A query by cluster shows the broken one (east: a
 * Deployment without its proxy) and not the healthy one; the shipped alert rule keeps the label.
 * Skipped, with a note, when prometheus or ../shared/k8s is absent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { EAST, WEST } from './helpers/fleet.js';
import { APISERVER_SH_FOUND, startKubeApiServer, type KubeApiServer } from './helpers/kube-apiserver.js';
import { PROMETHEUS, freePort, startPrometheus, type RunningPrometheus } from './helpers/prometheus.js';
import { until } from './helpers/until.js';

const ROOT = join(import.meta.dirname, '..');
const skip = !PROMETHEUS || !APISERVER_SH_FOUND;
if (skip)
  console.log(
    `test/fleet-prometheus.test.ts skipped: ${!PROMETHEUS ? 'prometheus not installed (apt-get install prometheus)' : '../shared/k8s/apiserver.sh not found'}`,
  );

describe.skipIf(skip)('a fleet of watches federated by one real Prometheus, by cluster', () => {
  let east: KubeApiServer;
  let west: KubeApiServer;
  let prom: RunningPrometheus;
  const watches: ChildProcess[] = [];
  const logs: string[] = [];

  async function watch(k: KubeApiServer): Promise<string> {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin/meshdoctor.js'), 'watch', '-A', '--kubeconfig', k.kubeconfig, '--listen', `127.0.0.1:${port}`],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH } },
    );
    child.stderr!.on('data', (d) => logs.push(String(d)));
    watches.push(child);
    return `127.0.0.1:${port}`;
  }

  beforeAll(async () => {
    [east, west] = await Promise.all([startKubeApiServer(), startKubeApiServer()]);
    await Promise.all([east.admin.createAll(EAST), west.admin.createAll(WEST)]);
    const targets = [await watch(east), await watch(west)];
    prom = await startPrometheus(targets, [{ cluster: 'east' }, { cluster: 'west' }]);
  }, 240_000);

  afterAll(async () => {
    for (const w of watches) w.kill('SIGTERM');
    await prom?.stop();
    await Promise.all([east?.stop(), west?.stop()]);
  }, 120_000);

  it('a query by cluster shows the broken cluster, and only it', async () => {
    await until(
      async () => (await prom.query('meshdoctor_ready == 1')).length === 2,
      90_000,
      `both watches ready and scraped (${logs.join('').slice(-500)})`,
    );
    const q = 'count by (cluster) (meshdoctor_finding{check="sidecar-missing",severity="error"})';
    await until(async () => (await prom.query(q)).length > 0, 30_000, 'findings scraped');
    const byCluster = await prom.query(q);
    expect(byCluster.map((r) => r.metric.cluster)).toEqual(['east']);
    const ready = (await prom.query('meshdoctor_ready')).map((r) => r.metric.cluster).sort();
    expect(ready).toEqual(['east', 'west']);
    // The shipped alert keeps the cluster: the page names which cluster is broken.
    const alerts = YAML.parse(readFileSync(join(ROOT, 'deploy/prometheus-alerts.yml'), 'utf8'));
    const rules = alerts.groups.flatMap((g: any) => g.rules).filter((r: any) => r.alert);
    const unmeshed = rules.find((r: any) => /meshdoctor_finding\{[^}]*sidecar-missing/.test(r.expr));
    expect(unmeshed, 'an alert on sidecar-missing').toBeDefined();
    const firing = await prom.query(unmeshed.expr);
    expect(firing.length).toBeGreaterThan(0);
    expect(new Set(firing.map((r) => r.metric.cluster))).toEqual(new Set(['east']));
    // The dashboard's cluster variable finds both.
    const dash = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana-dashboard.json'), 'utf8'));
    const v = dash.templating.list.find((x: any) => x.name === 'cluster');
    expect(v.query).toBe('label_values(meshdoctor_build_info, cluster)');
    const info = (await prom.query('meshdoctor_build_info')).map((r) => r.metric.cluster).sort();
    expect(info).toEqual(['east', 'west']);
  }, 180_000);
});
