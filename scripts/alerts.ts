#!/usr/bin/env -S npx tsx
/**
 * Generates the alert rules meshdoctor ships for `meshdoctor watch` from the check catalog
 * (src/checks/catalog.ts): deploy/prometheus-alerts.yml (a plain Prometheus rules file) and
 * deploy/prometheus-rules.yaml (the same groups as a PrometheusRule).
 *
 *   npx tsx scripts/alerts.ts [--docs-url BASE]     # rewrite both files
 *
 * The alerts by kind of problem (PodsUnmeshed, InjectorDown, ...) name their checks below; every
 * other check whose finding has severity error pages through MeshdoctorErrorFinding, generated
 * from the catalog, so a new error check cannot ship without an alert (test/prometheus/alerts.test.ts
 * fails when the shipped files differ from what this generates, and runs `promtool test rules`
 * with a firing series for every error-severity check).
 *
 * Each alert about a finding has `annotations.runbook_url`, the check's page (BASE/CHECK.md, the
 * form of MESHDOCTOR_DOCS_URL: docs/checks/README.md), and `runbook`, the command that prints the
 * same page wherever meshdoctor is installed (`meshdoctor checks CHECK`). BASE defaults to
 * MESHDOCTOR_DOCS_URL, else DOCS_BASE below: regenerate with --docs-url where you publish the pages.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECK_META } from '../src/checks/catalog.js';

/** Where the check pages are published, as in docs/checks/README.md (MESHDOCTOR_DOCS_URL). */
export const DOCS_BASE = 'https://git.example.com/you/meshdoctor/blob/main/docs/checks';

/**
 * The labels of meshdoctor_finding (src/watch/metrics.ts), every alert about a finding keeps them;
 * and `cluster`, the external label each cluster's Prometheus adds (docs/in-cluster.md "A fleet"):
 * in a central Prometheus (federation, remote write) a finding stays its cluster's. Where no
 * series has it, `by (cluster, ...)` changes nothing.
 */
const BY = 'cluster, namespace, kind, name, mesh, check, code';

interface FindingAlert {
  alert: string;
  comment?: string[];
  checks: string[];
  for?: string;
  severity: 'critical' | 'warning' | 'info';
  summary: string;
  description: string;
}

/** The alerts by kind of problem: their checks, the time a finding must stay, their words. */
export const FINDING_ALERTS: FindingAlert[] = [
  {
    alert: 'MeshdoctorPodsUnmeshed',
    comment: [
      'Pods running without the proxy their mesh should have injected (a broken injector with',
      'failurePolicy Ignore leaves new pods unmeshed silently).',
    ],
    checks: ['sidecar-missing', 'proxy-missing-beside-meshed', 'pod-predates-enablement', 'sidecarless-not-enrolled'],
    for: '1m',
    severity: 'warning',
    summary:
      '{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }} runs pods without the {{ $labels.mesh }} proxy ({{ $labels.check }})',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }} on {{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}. The fix: meshdoctor check -n {{ $labels.namespace }} (or the /findings endpoint).',
  },
  {
    alert: 'MeshdoctorPodsBlocked',
    comment: ["Pods the mesh's admission refuses or that cannot start with its proxy."],
    checks: [
      'webhook-denied',
      'pod-security-blocks-init',
      'quota-blocks-proxy',
      'serviceaccount-missing',
      'job-never-completes',
    ],
    for: '5m',
    severity: 'warning',
    summary:
      '{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: pods blocked by the {{ $labels.mesh }} mesh ({{ $labels.check }})',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }} on {{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}. The fix: meshdoctor check -n {{ $labels.namespace }}.',
  },
  {
    alert: 'MeshdoctorInjectionMisconfigured',
    checks: [
      'injection-marker-invalid',
      'webhook-excludes-namespace',
      'injector-config-excludes',
      'dataplane-mode-conflict',
      'webhook-missing',
    ],
    for: '15m',
    severity: 'warning',
    summary:
      '{{ $labels.mesh }} injection misconfigured: {{ $labels.check }} on {{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }}. The fix: meshdoctor check -A (or the /findings endpoint).',
  },
  {
    alert: 'MeshdoctorInjectorDown',
    comment: ['Every pod created meanwhile misses its proxy (failurePolicy Ignore) or is refused (Fail).'],
    checks: ['injector-unavailable', 'webhook-no-endpoints', 'injector-oomkilled'],
    for: '2m',
    severity: 'critical',
    summary:
      'The {{ $labels.mesh }} injector is down: {{ $labels.check }} on {{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }}: pods created now get no {{ $labels.mesh }} proxy, or are refused. The fix: meshdoctor check -A.',
  },
  {
    alert: 'MeshdoctorWebhookCallsFailing',
    comment: ['The API server could not call the injection webhook and refused pods (failurePolicy Fail).'],
    checks: ['webhook-call-failed'],
    for: '1m',
    severity: 'critical',
    summary:
      'The API server fails calling the {{ $labels.mesh }} injection webhook for {{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }} from FailedCreate events. The fix: meshdoctor check -n {{ $labels.namespace }}.',
  },
  {
    alert: 'MeshdoctorWebhookCertificateExpiring',
    checks: ['webhook-ca-expiring'],
    severity: 'warning',
    summary:
      'The {{ $labels.mesh }} injection webhook certificate expires soon ({{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }})',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }} (within --cert-expiry-warning days). The renewal: meshdoctor check -A.',
  },
  {
    alert: 'MeshdoctorWebhookCertificateBroken',
    checks: ['webhook-ca-expired', 'webhook-ca-invalid', 'webhook-cert-mismatch'],
    severity: 'critical',
    summary:
      'The {{ $labels.mesh }} injection webhook cannot be called over TLS: {{ $labels.check }} ({{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }})',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }}: the API server cannot call the injector. The fix: meshdoctor check -A.',
  },
  {
    alert: 'MeshdoctorIdentityCertificateExpiring',
    checks: ['identity-cert-expiring'],
    severity: 'warning',
    summary:
      'The {{ $labels.mesh }} identity certificate expires soon ({{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }})',
    description:
      'meshdoctor reports {{ $labels.code }} {{ $labels.check }}: proxies stop getting certificates when it expires. The rotation: meshdoctor check -A.',
  },
  {
    alert: 'MeshdoctorIdentityCertificateExpired',
    checks: ['identity-cert-expired'],
    severity: 'critical',
    summary:
      'The {{ $labels.mesh }} identity certificate has expired ({{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }})',
    description: 'meshdoctor reports {{ $labels.code }} {{ $labels.check }}. The rotation: meshdoctor check -A.',
  },
];

/** The catch-all: every finding of severity error no alert above names. */
export const CATCH_ALL = 'MeshdoctorErrorFinding';
const CATCH_ALL_FOR = '5m';

/** The rules that are not about one check (the API server's own metric; meshdoctor itself), verbatim. */
const FAILING_OPEN = [
  '  - alert: MeshWebhookFailingOpen',
  "    # The API server's own count of calls to a mesh injection webhook that failed and were let",
  "    # through (failurePolicy Ignore): pods admitted without their proxy. Needs the API server's",
  '    # metrics scraped (apiserver_admission_webhook_fail_open_count, Kubernetes >= 1.24); the',
  "    # webhook names are the meshes' injection webhooks (Linkerd, Istio and its revisions, Kuma, Consul).",
  '    expr: sum by (cluster, name) (increase(apiserver_admission_webhook_fail_open_count{name=~"linkerd-proxy-injector\\\\.linkerd\\\\.io|.*sidecar-injector\\\\.istio\\\\.io|.*kuma-injector\\\\.kuma\\\\.io|.*-connect-injector\\\\.consul\\\\.hashicorp\\\\.com"}[10m])) > 0',
  '    labels: {severity: critical}',
  '    annotations:',
  "      summary: 'The API server is failing open on mesh webhook {{ $labels.name }}'",
  "      description: '{{ $value | humanize }} pod admissions in 10 minutes went through without calling webhook {{ $labels.name }}: those pods have no proxy.'",
  "      runbook: 'meshdoctor checks webhook-no-endpoints; meshdoctor checks sidecar-missing'",
];
const SELF = [
  '- name: meshdoctor-self',
  '  rules:',
  '  - alert: MeshdoctorNotEvaluating',
  '    # Evaluations happen on every change and at least every 5 minutes once ready.',
  '    expr: (time() - meshdoctor_last_evaluation_timestamp_seconds > 900) or (meshdoctor_ready == 0)',
  '    for: 10m',
  '    labels: {severity: warning}',
  '    annotations:',
  "      summary: 'meshdoctor watch on {{ $labels.instance }} has not evaluated the cluster for 15 minutes, or never became ready'",
  "      description: 'Its alerts above cannot fire. See its log and /readyz: kubectl -n meshdoctor logs deploy/meshdoctor-watch.'",
  '      runbook: \'kubectl -n meshdoctor logs deploy/meshdoctor-watch; meshdoctor checks (docs/in-cluster.md "meshdoctor watch")\'',
  '  - alert: MeshdoctorAbsent',
  '    expr: absent(meshdoctor_build_info)',
  '    for: 15m',
  '    labels: {severity: warning}',
  '    annotations:',
  "      summary: 'No meshdoctor watch is scraped: the mesh alerts cannot fire'",
  "      description: 'No meshdoctor_build_info series for 15 minutes. Is deploy/watch.yaml running and scraped (deploy/watch-servicemonitor.yaml)?'",
  '      runbook: \'kubectl -n meshdoctor get deploy,pods; meshdoctor checks (docs/in-cluster.md "meshdoctor watch")\'',
  '  - alert: MeshdoctorCannotRead',
  '    # A kind meshdoctor cannot read (RBAC) or whose watch keeps failing: checks that need it are',
  '    # skipped, or judge objects that may be out of date.',
  '    expr: max by (cluster, instance, kind) ((1 - meshdoctor_kind_readable) + meshdoctor_kind_stale) > 0',
  '    for: 15m',
  '    labels: {severity: warning}',
  '    annotations:',
  "      summary: 'meshdoctor watch cannot keep {{ $labels.kind }} in sync'",
  "      description: 'Checks reading {{ $labels.kind }} are skipped or stale; the reason is on /readyz and in the log (RBAC: deploy/rbac.yaml and deploy/watch.yaml).'",
  "      runbook: 'kubectl -n meshdoctor logs deploy/meshdoctor-watch; meshdoctor checks (docs/permissions.md)'",
  '  - alert: MeshdoctorReadFailing',
  '    # A kind that was read can no longer be (403 after a RoleBinding was removed, a bound crossed):',
  '    # the findings of the checks reading it are the last ones seen, kept and marked stale, not',
  '    # resolved; the alerts about them keep firing on old data, and new problems go unseen.',
  '    expr: max by (cluster, instance, kind) (meshdoctor_read_failing) == 1',
  '    for: 5m',
  '    labels: {severity: warning}',
  '    annotations:',
  "      summary: 'meshdoctor watch can no longer read {{ $labels.kind }}: findings about it are stale'",
  "      description: 'Reads of {{ $labels.kind }} fail (the reason is on /readyz and in the log): the findings of the checks reading it are the last ones seen, kept and marked stale in /findings, and new problems go unseen. Restore the RBAC of deploy/rbac.yaml and deploy/watch.yaml.'",
  "      runbook: 'kubectl -n meshdoctor logs deploy/meshdoctor-watch; meshdoctor checks (docs/permissions.md)'",
  '  - alert: MeshdoctorSeriesOverflow',
  '    expr: meshdoctor_series_overflow > 0',
  '    for: 30m',
  '    labels: {severity: info}',
  '    annotations:',
  "      summary: 'meshdoctor watch leaves {{ $value }} series of {{ $labels.metric }} out (--max-series)'",
  "      description: 'More open findings (or namespace states) than --max-series: the most severe are exported, the totals stay right (meshdoctor_findings).'",
  "      runbook: 'meshdoctor check -A; meshdoctor checks'",
];

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const selector = (ids: string[]) => (ids.length === 1 ? `check="${ids[0]}"` : `check=~"${ids.join('|')}"`);

/** Which alert a finding of this check and severity fires (the same rules as the expressions below). */
export function alertFor(check: string, severity: string): string | undefined {
  const named = FINDING_ALERTS.find((a) => a.checks.includes(check));
  if (named) return named.alert;
  return severity === 'error' ? CATCH_ALL : undefined;
}

/** The rules file's groups, as YAML lines at indent 0 (`groups:` first). */
function groupLines(docsBase: string): string[] {
  const known = new Set<string>(CHECK_META.map((c) => c.id));
  for (const a of FINDING_ALERTS)
    for (const id of a.checks) if (!known.has(id)) throw new Error(`${a.alert}: unknown check ${id}`);
  const named = FINDING_ALERTS.flatMap((a) => a.checks);
  const url = `${docsBase.replace(/\/+$/, '')}/{{ $labels.check }}.md`;
  const out = ['groups:', '- name: meshdoctor', '  rules:'];
  const rule = (a: FindingAlert, expr: string) => {
    out.push(`  - alert: ${a.alert}`);
    for (const c of a.comment ?? []) out.push(`    # ${c}`);
    out.push(`    expr: ${expr}`);
    if (a.for) out.push(`    for: ${a.for}`);
    out.push(
      `    labels: {severity: ${a.severity}}`,
      '    annotations:',
      `      summary: ${q(a.summary)}`,
      `      description: ${q(a.description)}`,
      `      runbook: 'meshdoctor checks {{ $labels.check }}'`,
      `      runbook_url: ${q(url)}`,
    );
  };
  for (const a of FINDING_ALERTS.slice(0, 5))
    rule(a, `max by (${BY}) (meshdoctor_finding{${selector(a.checks)}}) == 1`);
  // Generated from the catalog: the error-severity checks no alert above names (listed, so that
  // the file says which), and any other finding of severity error (a warning check's error finding).
  const rest = CHECK_META.filter((c) => c.severity === 'error' && !named.includes(c.id)).map((c) => c.id);
  rule(
    {
      alert: CATCH_ALL,
      comment: [
        'Generated from the check catalog (scripts/alerts.ts): every finding of severity error that',
        'no other alert names pages, so no error check ships without an alert. The error checks it',
        `covers today: ${rest.join(', ')}.`,
      ].flatMap((l) => wrapComment(l)),
      checks: rest,
      for: CATCH_ALL_FOR,
      severity: 'critical',
      summary:
        '{{ $labels.mesh }}: {{ $labels.check }} on {{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }} (meshdoctor error {{ $labels.code }})',
      description:
        'meshdoctor reports {{ $labels.code }} {{ $labels.check }} (severity error) on {{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}. The fix: meshdoctor check -n {{ $labels.namespace }} (or the /findings endpoint).',
    },
    `max by (${BY}) (meshdoctor_finding{severity="error",check!~"${named.join('|')}"}) == 1`,
  );
  out.push(...FAILING_OPEN);
  for (const a of FINDING_ALERTS.slice(5)) rule(a, `max by (${BY}) (meshdoctor_finding{${selector(a.checks)}}) == 1`);
  out.push(...SELF);
  return out;
}

/** Comment text cut at 96 columns (the file's width), at spaces. */
function wrapComment(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > 96) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

const PLAIN_HEAD = [
  "# Alerts on meshdoctor watch's metrics (docs/metrics.md), as a plain Prometheus rules file",
  '# (prometheus.yml: rule_files: [prometheus-alerts.yml]). deploy/prometheus-rules.yaml holds the',
  '# same groups as a PrometheusRule for the Prometheus Operator. GENERATED by scripts/alerts.ts from',
  '# the check catalog: edit that script, not this file; test/prometheus/alerts.test.ts fails when',
  '# they differ, and runs `promtool check rules` and `promtool test rules` on them.',
  '#',
  "# Every alert about a finding carries the finding's check, namespace, kind and name, its check's",
  '# page (runbook_url) and a runbook line: `meshdoctor checks CHECK` prints the same page (what it',
  '# means, its known false positives, the fix). `meshdoctor check -n NAMESPACE` (or /findings)',
  '# gives the exact fix. Every finding of severity error alerts (MeshdoctorErrorFinding catches',
  '# the checks no other alert names).',
];

const OPERATOR_HEAD = [
  '# The alerts of deploy/prometheus-alerts.yml (the same groups, GENERATED by scripts/alerts.ts from',
  '# the check catalog) as a PrometheusRule for the Prometheus Operator. Your Prometheus may select',
  '# rules by a label (kube-prometheus-stack: `release: <name>`): add it under metadata.labels.',
  '#   kubectl apply -f deploy/watch-servicemonitor.yaml -f deploy/prometheus-rules.yaml',
  "# Every alert's runbook annotation names the check: `meshdoctor checks CHECK` prints its documentation.",
  'apiVersion: monitoring.coreos.com/v1',
  'kind: PrometheusRule',
  'metadata:',
  '  name: meshdoctor',
  '  namespace: meshdoctor',
  '  labels: {app.kubernetes.io/name: meshdoctor-watch}',
  'spec:',
];

/** The two files' text, from the catalog. */
export function alertFiles(docsBase: string = DOCS_BASE): { plain: string; operator: string } {
  const groups = groupLines(docsBase);
  return {
    plain: [...PLAIN_HEAD, ...groups].join('\n') + '\n',
    operator: [...OPERATOR_HEAD, ...groups.map((l) => `  ${l}`)].join('\n') + '\n',
  };
}

/** The docs base the shipped files use: --docs-url, else MESHDOCTOR_DOCS_URL, else DOCS_BASE. */
export const shippedDocsBase = (env: NodeJS.ProcessEnv = process.env, argv: string[] = []): string => {
  const i = argv.indexOf('--docs-url');
  return (i >= 0 ? argv[i + 1] : undefined) || env.MESHDOCTOR_DOCS_URL || DOCS_BASE;
};

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const root = join(import.meta.dirname, '..');
  const files = alertFiles(shippedDocsBase(process.env, process.argv.slice(2)));
  writeFileSync(join(root, 'deploy/prometheus-alerts.yml'), files.plain);
  writeFileSync(join(root, 'deploy/prometheus-rules.yaml'), files.operator);
  console.log('wrote deploy/prometheus-alerts.yml and deploy/prometheus-rules.yaml');
}
