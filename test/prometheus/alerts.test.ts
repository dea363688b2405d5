/**
 * What deploy/ ships for `meshdoctor watch`: the alert rules (promtool check rules and promtool
 * test rules, the PrometheusRule equal to the plain file, a runbook line on every alert, only
 * metrics meshdoctor exports), the Grafana dashboard (valid, only exported metrics), and the
 * Deployment (one replica, opted out of every mesh meshdoctor knows, non-root, read-only, probes
 * on the right paths) with RBAC that grants `watch` wherever deploy/rbac.yaml grants reads.
 * The promtool parts skip with a note when Debian's prometheus package is not installed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { KINDS } from '../../src/k8s/kinds.js';
import { templateOptOut } from '../../src/facts/markers.js';
import { MESH_NAMES } from '../../src/mesh/names.js';
import { watchedKinds } from '../../src/watch/index.js';
import { cluster, parseObjects } from '../helpers/fixtures.js';
import { makeModel } from '../../src/run/run.js';
import { PROMTOOL, promtool } from '../helpers/prometheus.js';
import { CATCH_ALL, DOCS_BASE, FINDING_ALERTS, alertFiles, alertFor } from '../../scripts/alerts.js';
import { CHECK_META } from '../../src/checks/catalog.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const plain = YAML.parse(read('deploy/prometheus-alerts.yml'));
const operator = YAML.parse(read('deploy/prometheus-rules.yaml'));
const rules: any[] = plain.groups.flatMap((g: any) => g.rules);
const metricsDoc = read('docs/metrics.md');
/** Metric names documented in docs/metrics.md's tables (`| \`name\` |`). */
const documentedNames = new Set([...metricsDoc.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]!));
const documented = {
  has: (n: string) => documentedNames.has(n) || documentedNames.has(n.replace(/_(bucket|sum|count)$/, '')),
};
/** Metric names an expression uses (identifiers followed by `{`, `[`, `)` or a space, not functions or keywords). */
const metricsOf = (expr: string) =>
  [...expr.replace(/"[^"]*"/g, '""').matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)]
    .map((m) => m[1]!)
    .filter((n) => n.includes('_') && !['histogram_quantile', 'label_values'].includes(n));

if (!PROMTOOL)
  console.log(
    'test/prometheus/alerts.test.ts: promtool tests skipped: promtool not installed (apt-get install prometheus)',
  );

describe('alert rules', () => {
  it.skipIf(!PROMTOOL)('promtool check rules: valid', async () => {
    const r = await promtool(['check', 'rules', join(ROOT, 'deploy/prometheus-alerts.yml')]);
    expect(r.out).toMatch(/SUCCESS: \d+ rules found/);
    expect(r.code).toBe(0);
  });

  it.skipIf(!PROMTOOL)(
    'promtool test rules: each alert fires on its series, with its labels and annotations, and not before its `for`',
    async () => {
      const r = await promtool(['test', 'rules', join(ROOT, 'test/prometheus/alerts-test.yml')]);
      expect(r.out).toMatch(/SUCCESS/);
      expect(r.code).toBe(0);
      // Every alert is exercised by the unit tests.
      const tested = new Set(
        [...read('test/prometheus/alerts-test.yml').matchAll(/alertname: (\w+)/g)].map((m) => m[1]),
      );
      expect(rules.map((x) => x.alert).filter((a) => !tested.has(a))).toEqual([]);
    },
  );

  it('the shipped files are what scripts/alerts.ts generates from the check catalog (npx tsx scripts/alerts.ts)', () => {
    const files = alertFiles(DOCS_BASE);
    expect(read('deploy/prometheus-alerts.yml'), 'regenerate: npx tsx scripts/alerts.ts').toBe(files.plain);
    expect(read('deploy/prometheus-rules.yaml'), 'regenerate: npx tsx scripts/alerts.ts').toBe(files.operator);
  });

  it('every error-severity check of the catalog has an alert; every alert about a finding links its check page', () => {
    for (const c of CHECK_META.filter((x) => x.severity === 'error'))
      expect(alertFor(c.id, c.severity), c.id).toBeDefined();
    for (const r of rules.filter((x) => x.expr.includes('meshdoctor_finding{')))
      expect(r.annotations.runbook_url, r.alert).toBe(`${DOCS_BASE}/{{ $labels.check }}.md`);
    const catchAll = rules.find((x) => x.alert === CATCH_ALL);
    expect(catchAll.expr).toContain('meshdoctor_finding{severity="error",check!~"');
  });

  it.skipIf(!PROMTOOL)(
    'promtool test rules: a finding of every check of the catalog fires exactly its alert (every error check one), with its runbook_url',
    async () => {
      const alerts = [...FINDING_ALERTS.map((a) => a.alert), CATCH_ALL];
      const ruleOf = new Map(rules.map((x) => [x.alert, x]));
      const labels = (c: { id: string; code: string }, severity: string) => ({
        code: c.code,
        check: c.id,
        severity,
        mesh: 'istio',
        namespace: 'shop',
        kind: 'Deployment',
        name: 'cart',
      });
      const render = (t: string, l: Record<string, string>) =>
        t.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, k: string) => l[k] ?? '');
      const cases = CHECK_META.flatMap((c) => {
        // Its catalog severity, and error (a warning check's finding may be an error: the catch-all takes it).
        return [...new Set([c.severity, 'error'])].map((severity) => {
          const l = labels(c, severity);
          const series = `meshdoctor_finding{${Object.entries(l)
            .map(([k, v]) => `${k}="${v}"`)
            .join(',')},job="meshdoctor",instance="i"}`;
          const expected = alertFor(c.id, severity);
          if (severity === 'error') expect(expected, c.id).toBeDefined();
          return {
            interval: '1m',
            input_series: [{ series, values: '1x60' }],
            alert_rule_test: alerts.map((a) => {
              const r = ruleOf.get(a);
              const exp =
                a === expected
                  ? [
                      {
                        exp_labels: { ...l, severity: r.labels.severity },
                        exp_annotations: Object.fromEntries(
                          Object.entries(r.annotations as Record<string, string>).map(([k, v]) => [k, render(v, l)]),
                        ),
                      },
                    ]
                  : [];
              return { eval_time: '45m', alertname: a, exp_alerts: exp };
            }),
          };
        });
      });
      const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-alerts-'));
      const file = join(dir, 'every-check.yml');
      writeFileSync(
        file,
        YAML.stringify({
          rule_files: [join(ROOT, 'deploy/prometheus-alerts.yml')],
          evaluation_interval: '1m',
          tests: cases,
        }),
      );
      const r = await promtool(['test', 'rules', file]);
      expect(r.out).toMatch(/SUCCESS/);
      expect(r.code).toBe(0);
    },
  );

  it('the PrometheusRule holds exactly the plain file groups', () => {
    expect(operator.kind).toBe('PrometheusRule');
    expect(operator.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(operator.spec.groups).toEqual(plain.groups);
  });

  it('every alert has a runbook line; the ones about findings point to `meshdoctor checks <check>`', () => {
    for (const r of rules) {
      expect(r.annotations.runbook, r.alert).toMatch(/meshdoctor checks/);
      expect(r.annotations.summary, r.alert).toBeTruthy();
      if (r.expr.includes('meshdoctor_finding{'))
        expect(r.annotations.runbook, r.alert).toBe('meshdoctor checks {{ $labels.check }}');
    }
  });

  it('the check ids the rules name exist, and they use only metrics docs/metrics.md documents (or the API server exports)', async () => {
    const { CHECK_META } = await import('../../src/checks/catalog.js');
    const ids = new Set(CHECK_META.map((c) => c.id));
    for (const r of rules) {
      for (const m of r.expr.matchAll(/check=~?"([^"]+)"/g))
        for (const id of m[1].split('|')) expect(ids.has(id), `${r.alert}: ${id}`).toBe(true);
      for (const name of metricsOf(r.expr))
        expect(documented.has(name) || name.startsWith('apiserver_'), `${r.alert}: ${name}`).toBe(true);
    }
  });
});

describe('Grafana dashboard', () => {
  const dash = JSON.parse(read('deploy/grafana-dashboard.json'));
  const exprs: string[] = dash.panels.flatMap((p: any) => p.targets.map((t: any) => t.expr));
  it('panels for coverage per namespace, findings by severity and evaluation time, over documented metrics only', () => {
    const titles = dash.panels.map((p: any) => p.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Mesh coverage per namespace',
        'Open findings by severity',
        'Evaluation time (p50, p99)',
      ]),
    );
    expect(exprs.length).toBeGreaterThan(10);
    for (const e of exprs) for (const name of metricsOf(e)) expect(documented.has(name), `${e}: ${name}`).toBe(true);
    expect(new Set(dash.panels.map((p: any) => p.id)).size).toBe(dash.panels.length);
  });
});

describe('deploy/watch.yaml', () => {
  const docs = parseObjects(read('deploy/watch.yaml')) as any[];
  const rbac = parseObjects(read('deploy/rbac.yaml')) as any[];
  const cron = parseObjects(read('deploy/cronjob.yaml')) as any[];
  const find = (kind: string, name?: string) =>
    docs.find((d) => d.kind === kind && (!name || d.metadata.name === name));
  const deploy = find('Deployment');
  const pod = deploy.spec.template;
  const container = pod.spec.containers[0];

  it('one replica (Recreate), the image and user of the CronJob, non-root, read-only, no privilege', () => {
    expect(deploy.spec.replicas).toBe(1);
    expect(deploy.spec.strategy.type).toBe('Recreate');
    const cronContainer = cron.find((d) => d.kind === 'CronJob').spec.jobTemplate.spec.template.spec.containers[0];
    expect(container.image).toBe(cronContainer.image);
    // Probes and scrapes by pod IP send Host = POD_IP:9090: the Host check must be widened in a pod.
    expect(container.args).toEqual(['watch', '-A', '--listen', ':9090', '--accept-hosts=.*', '--no-secrets']);
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources.limits.memory).toBeDefined();
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
  });

  it('a NetworkPolicy lets only the monitoring namespace reach the metrics port (/findings is not for every pod)', () => {
    const np = find('NetworkPolicy');
    expect(np.metadata.namespace).toBe(deploy.metadata.namespace);
    expect(np.spec.podSelector.matchLabels).toEqual(deploy.spec.selector.matchLabels);
    expect(np.spec.policyTypes).toEqual(['Ingress']);
    expect(np.spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
        ports: [{ port: 9090, protocol: 'TCP' }],
      },
    ]);
  });

  it('opted out of every mesh meshdoctor knows (as each mesh reads its opt-out)', () => {
    // No injector installed: today's markers (the installed release's where one is read).
    const model = makeModel(cluster('none'), { mesh: 'auto', certExpiryWarningDays: 30 });
    for (const mesh of MESH_NAMES) expect(templateOptOut(model, mesh, pod), mesh).toBeTruthy();
    expect(pod.metadata.labels['istio.io/dataplane-mode']).toBe('none');
  });

  it('probes /healthz and /readyz, and the Service and scrape annotations name the metrics port', () => {
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: 9090, protocol: 'TCP' }]);
    const svc = find('Service');
    expect(svc.spec.selector).toEqual(deploy.spec.selector.matchLabels);
    expect(svc.spec.ports[0]).toMatchObject({ name: 'metrics', port: 9090, targetPort: 'metrics' });
    expect(pod.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9090',
      'prometheus.io/path': '/metrics',
    });
    const sm = parseObjects(read('deploy/watch-servicemonitor.yaml'))[0] as any;
    expect(sm.spec.selector.matchLabels).toEqual(svc.metadata.labels);
    expect(sm.spec.endpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
  });

  it("runs as the CronJob's ServiceAccount with its bindings, and adds `watch` on every kind it lists, nothing else", () => {
    // The Namespace, ServiceAccount and reader binding are deploy/cronjob.yaml's own objects.
    for (const kind of ['Namespace', 'ServiceAccount'])
      expect(find(kind), kind).toEqual(cron.find((d) => d.kind === kind));
    expect(find('ClusterRoleBinding', 'meshdoctor')).toEqual(cron.find((d) => d.kind === 'ClusterRoleBinding'));
    expect(pod.spec.serviceAccountName).toBe(find('ServiceAccount').metadata.name);
    expect(rbac.some((r) => r.kind === 'ClusterRole' && r.metadata.name === 'meshdoctor-reader')).toBe(true);
    const binding = find('ClusterRoleBinding', 'meshdoctor-watcher');
    expect(binding.roleRef.name).toBe('meshdoctor-watcher');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'meshdoctor', namespace: 'meshdoctor' }]);
    const watcher = find('ClusterRole', 'meshdoctor-watcher');
    const { listed, named } = watchedKinds();
    for (const k of listed) {
      expect(
        watcher.rules.some(
          (r: any) => r.apiGroups.includes(KINDS[k].group) && r.resources.includes(KINDS[k].plural) && !r.resourceNames,
        ),
        k,
      ).toBe(true);
    }
    // Only watch; and nothing on the objects read by name (a watch returns whole objects: it reads them).
    expect(watcher.rules.every((r: any) => r.verbs.length === 1 && r.verbs[0] === 'watch')).toBe(true);
    for (const k of named)
      expect(
        watcher.rules.some((r: any) => r.resources.includes(KINDS[k].plural)),
        k,
      ).toBe(false);
  });
});
