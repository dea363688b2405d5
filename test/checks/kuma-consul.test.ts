/**
 * Kuma and Consul, added as profiles only: every check that applies to them fires on their
 * fixtures and stays silent on the near misses, alone and beside another mesh (Linkerd + Kuma,
 * Istio + Consul, Kuma + Consul), and `explain` walks their webhooks and injector rules.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { slim } from '../../src/cluster/sanitize.js';
import { overlayManifests } from '../../src/manifests.js';
import { runChecks } from '../../src/run.js';
import { runCli } from '../helpers/cli.js';
import { startApiServer } from '../apiserver/server.js';
import { FIXTURES, NOW, baseObjects, cluster, findings, fixtureObjects, ids, overlay, parseObjects, type Base } from '../helpers/fixtures.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const F = (id: string, file: string) => `checks/${id}/${file}.yaml`;

/** [check, fixture, the findings of that check (id Kind ns/name)]. */
const CASES: [string, string, string[]][] = [
  ['namespace-not-enabled', 'fires-kuma', ['namespace-not-enabled Namespace shipping']],
  ['injection-marker-invalid', 'fires-kuma-namespace', ['injection-marker-invalid Namespace orders']],
  ['injection-marker-invalid', 'fires-kuma-workload', ['injection-marker-invalid Deployment orders/auditor']],
  ['injection-marker-invalid', 'ok-kuma', []],
  ['injection-marker-invalid', 'fires-consul-workload', ['injection-marker-invalid Deployment catalog/reports']],
  ['injection-marker-invalid', 'fires-consul-namespace', ['injection-marker-invalid Namespace catalog']],
  ['injection-marker-invalid', 'ok-consul', []],
  ['pod-opted-out', 'fires-kuma', ['pod-opted-out Deployment orders/auditor']],
  ['pod-opted-out', 'fires-consul-default-inject', ['pod-opted-out Deployment catalog/reports']],
  ['pod-opted-out', 'ok-consul', []],
  ['pod-predates-enablement', 'fires-kuma', ['pod-predates-enablement Deployment orders/legacy']],
  ['pod-predates-enablement', 'fires-consul', ['pod-predates-enablement StatefulSet catalog/importer']],
  ['sidecar-missing', 'fires-kuma', ['sidecar-missing Deployment orders/cart']],
  ['sidecar-missing', 'fires-consul', ['sidecar-missing Deployment catalog/cart']],
  ['webhook-missing', 'fires-kuma', ['webhook-missing MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration']],
  ['webhook-missing', 'fires-consul', ['webhook-missing MutatingWebhookConfiguration consul-connect-injector']],
  ['webhook-no-endpoints', 'fires-kuma-not-ready', ['webhook-no-endpoints Service kuma-system/kuma-control-plane']],
  ['webhook-no-endpoints', 'fires-consul-service-missing', ['webhook-no-endpoints Service consul/consul-connect-injector']],
  ['webhook-ca-invalid', 'fires-consul-empty', ['webhook-ca-invalid MutatingWebhookConfiguration consul-connect-injector']],
  ['webhook-cert-mismatch', 'fires-kuma', ['webhook-cert-mismatch Secret kuma-system/kuma-tls-cert']],
  ['injector-unavailable', 'fires-kuma-crashloop', ['injector-unavailable Deployment kuma-system/kuma-control-plane']],
  ['injector-unavailable', 'fires-consul-scaled-zero', ['injector-unavailable Deployment consul/consul-connect-injector']],
  ['injector-oomkilled', 'fires-consul', ['injector-oomkilled Deployment consul/consul-connect-injector']],
  ['quota-blocks-proxy', 'fires-kuma-must-specify', ['quota-blocks-proxy Deployment orders/web']],
  ['quota-blocks-proxy', 'fires-consul-must-specify', ['quota-blocks-proxy Deployment catalog/web']],
  ['job-never-completes', 'fires-kuma-hung', ['job-never-completes Job orders/reindex-now']],
  ['job-never-completes', 'ok-kuma-template', []],
  ['job-never-completes', 'fires-consul-hung', ['job-never-completes Job catalog/export']],
  ['job-never-completes', 'fires-consul-template', ['job-never-completes CronJob catalog/nightly']],
  ['webhook-call-failed', 'fires-kuma', ['webhook-call-failed Deployment orders/api']],
  ['webhook-call-failed', 'fires-consul', ['webhook-call-failed Deployment catalog/products']],
  ['webhook-excludes-namespace', 'fires-kuma', ['webhook-excludes-namespace Namespace shipping']],
  ['webhook-excludes-namespace', 'fires-consul', ['webhook-excludes-namespace Namespace monitoring']],
  ['serviceaccount-missing', 'fires-consul-token', ['serviceaccount-missing Deployment catalog/auditlog']],
  ['pod-security-blocks-init', 'fires-kuma-predicted', ['pod-security-blocks-init Deployment orders/api', 'pod-security-blocks-init Job orders/reindex']],
  ['pod-security-blocks-init', 'ok-kuma-cni', []],
  [
    'pod-security-blocks-init',
    'fires-consul-confirmed',
    ['pod-security-blocks-init Deployment catalog/products', 'pod-security-blocks-init Job catalog/sync-prices'],
  ],
  ['pod-security-blocks-init', 'ok-consul-cni', []],
  ['pod-security-blocks-init', 'ok-consul-transparent-proxy-off', []],
  ['webhook-denied', 'fires-kuma-invalid-label', ['webhook-denied Deployment orders/auditor']],
  ['webhook-denied', 'fires-consul-invalid-annotation', ['webhook-denied Deployment catalog/exporter']],
  ['webhook-denied', 'fires-consul-token', ['webhook-denied Deployment catalog/ledger']],
];

/** The mesh a fixture is written for, and the meshes it must also hold beside. */
const basesOf = (file: string): Base[] => (file.includes('kuma') ? ['kuma', 'linkerd+kuma', 'kuma+consul'] : ['consul', 'istio+consul', 'kuma+consul']);

describe('Kuma and Consul through the unchanged checks', () => {
  for (const [id, file, expected] of CASES) {
    for (const base of basesOf(file)) {
      it(`${id}: ${file} over ${base}`, () => {
        expect(ids(findings(cluster(base, [F(id, file)]), [id]))).toEqual(expected);
      });
    }
  }

  it("Pod Security: Kuma's kuma-init and Consul's init container (NET_ADMIN only with transparent proxy), read from their own settings", () => {
    const [k] = findings(cluster('kuma', [F('pod-security-blocks-init', 'fires-kuma-predicted')]), ['pod-security-blocks-init']);
    expect(k?.message).toBe(
      'Namespace orders enforces Pod Security "baseline", which rejects Kuma\'s init container kuma-init (it adds NET_ADMIN, NET_RAW) without Kuma\'s CNI plugin, so the next injected pods of Deployment orders/api will be refused.',
    );
    expect(k?.evidence).toMatchObject({
      cniPlugin: { enabled: false, from: 'kuma-control-plane env KUMA_RUNTIME_KUBERNETES_INJECTOR_CNI_ENABLED=false' },
      cniDaemonSet: 'kuma-cni-node',
    });
    expect(k?.fix.join('\n')).toContain('--set cni.enabled=true');
    const [c, job] = findings(cluster('consul', [F('pod-security-blocks-init', 'fires-consul-confirmed')]), ['pod-security-blocks-init']);
    expect(c?.evidence).toMatchObject({
      capabilities: ['NET_ADMIN'],
      cniPlugin: { enabled: false, from: 'injector consul/consul-connect-injector flag -enable-cni=false' },
    });
    expect(job?.evidence.capabilitiesFrom).toBe('transparent proxy on: injector flag -default-enable-transparent-proxy=true');
    expect(c?.fix.join('\n')).toContain('--set connectInject.cni.enabled=true');
    // The pod template turning transparent proxy off keeps NET_ADMIN off its init container.
    const off = `apiVersion: batch/v1
kind: Job
metadata: {name: sync-prices, namespace: catalog, uid: job-catalog-sync, creationTimestamp: "2026-11-10T00:00:00Z"}
spec:
  template:
    metadata: {labels: {app: sync-prices}, annotations: {consul.hashicorp.com/connect-inject: "true", consul.hashicorp.com/transparent-proxy: "false"}}
    spec: {restartPolicy: Never, containers: [{name: sync, image: "example/products:4.2"}]}
`;
    expect(ids(findings(cluster('consul', [F('pod-security-blocks-init', 'fires-consul-confirmed'), off]), ['pod-security-blocks-init']))).toEqual([
      'pod-security-blocks-init Deployment catalog/products',
    ]);
  });

  it("an injector's denial is linked to the finding naming its cause (an invalid marker, a turned-off token), not said as a second cause", () => {
    const both = ['injection-marker-invalid', 'serviceaccount-missing', 'webhook-denied'];
    for (const [base, file, cause, reason] of [
      ['kuma', 'fires-kuma-invalid-label', 'injection-marker-invalid Deployment orders/auditor', 'annotation "kuma.io/sidecar-injection" has wrong value "on"'],
      [
        'consul',
        'fires-consul-invalid-annotation',
        'injection-marker-invalid Deployment catalog/exporter',
        'error checking if should inject: strconv.ParseBool: parsing "yes": invalid syntax',
      ],
      [
        'consul',
        'fires-consul-token',
        'serviceaccount-missing Deployment catalog/ledger',
        'error configuring injection init container: unable to find service account token volumeMount',
      ],
    ] as const) {
      const fs = findings(cluster(base, [F('webhook-denied', file)]), both);
      // The cause first, then the denial linked to it, whose fix says to fix the cause first.
      expect(ids(fs)).toEqual([cause, expect.stringMatching(/^webhook-denied /)]);
      const [c, d] = fs;
      expect(c!.causeKey).toBeDefined();
      expect(d!.causedBy).toBe(c!.causeKey);
      expect(d!.evidence.reason).toBe(reason);
      expect(d!.fix[0]).toMatch(new RegExp(`^# fix ${c!.code} ${c!.id} on `));
      expect(d!.fix.some((l) => l.includes('annotations}'))).toBe(false);
    }
    // Alone, the denial stands on its own with its usual fix.
    const [alone] = findings(cluster('kuma', [F('webhook-denied', 'fires-kuma-invalid-label')]), ['webhook-denied']);
    expect(alone!.causedBy).toBeUndefined();
  });

  it("serviceaccount-missing says Consul's injector denies pods without a token (ACLs), where Linkerd's skips them", () => {
    const [f] = findings(cluster('consul', [F('serviceaccount-missing', 'fires-consul-token')]), ['serviceaccount-missing']);
    expect(f!.severity).toBe('error');
    expect(f!.message).toBe(
      'Deployment catalog/auditlog sets automountServiceAccountToken: false and Consul runs with ACLs (the injected init container logs in with the token), so the injector denies its pods and none can be created.',
    );
  });

  it('Kuma injects hostNetwork pods (no hostNetwork rule), so host-network-pod stays silent for it', () => {
    const snap = cluster('kuma', [F('host-network-pod', 'ok-kuma')], { allNamespaces: false, namespace: 'orders' });
    expect(findings(snap, ['host-network-pod'])).toEqual([]);
  });

  it('an unparsable Consul value denies the pod, even one that reads as "off"', () => {
    const off = `apiVersion: apps/v1
kind: Deployment
metadata: {name: reports, namespace: catalog, uid: dep-reports-catalog}
spec:
  selector: {matchLabels: {app: reports}}
  template:
    metadata: {labels: {app: reports}, annotations: {consul.hashicorp.com/connect-inject: "no"}}
    spec: {containers: [{name: reports, image: example/reports:1}]}
`;
    const [f] = findings(cluster('consul', [off]), ['injection-marker-invalid']);
    expect(f?.message).toMatch(/denies its pods/);
    expect(f?.evidence).toMatchObject({ expected: 'pod template annotation consul.hashicorp.com/connect-inject=false', deniesAdmission: true });
  });

  it('Consul quota advice sets its annotations; Kuma, which has none, says where its resources are set', () => {
    const [c] = findings(cluster('consul', [F('quota-blocks-proxy', 'fires-consul-must-specify')]), ['quota-blocks-proxy']);
    expect(c?.fix.join('\n')).toContain('consul.hashicorp.com/sidecar-proxy-cpu-limit');
    const [k] = findings(cluster('kuma', [F('quota-blocks-proxy', 'fires-kuma-must-specify')]), ['quota-blocks-proxy']);
    expect(k?.fix.every((l) => l.startsWith('#'))).toBe(true);
    expect(k?.fix.join('\n')).toContain('dataPlane.sidecarContainer.resources');
  });

  it('with Linkerd beside Kuma, a namespace running Kuma is never told to add Linkerd', () => {
    const fs = findings(cluster('linkerd+kuma', [F('namespace-not-enabled', 'fires-kuma')]), ['namespace-not-enabled']);
    expect(fs.map((f) => f.mesh)).toEqual(['kuma']);
    expect(fs[0]?.fix[0]).toBe('kubectl label namespace shipping kuma.io/sidecar-injection=enabled --overwrite');
  });

  it('Consul has no namespace marker: a namespace of Consul pods mixed with plain ones is no finding, beside Istio too', () => {
    for (const base of ['consul', 'istio+consul'] as const) expect(findings(cluster(base))).toEqual([]);
  });
});

const explainJson = async (target: string, ns: string, ...snapshots: string[]) => {
  const r = await runCli(['explain', target, '-n', ns, ...snapshots.flatMap((s) => ['--snapshot', join(FIXTURES, 'healthy', s)]), '-o', 'json']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
};

describe('explain walks Kuma and Consul', () => {
  it('Kuma: the pods webhook selects a pod opting in inside a namespace labelled disabled; the pod label wins', async () => {
    const e = await explainJson('deployment/invoicer', 'billing', 'kuma.yaml');
    const k = e.meshes.find((m: any) => m.mesh === 'kuma');
    expect(k.namespaceMarker).toBe('label kuma.io/sidecar-injection=disabled');
    expect(k.webhooks.filter((h: any) => h.called).map((h: any) => h.webhook)).toEqual(['pods-kuma-injector.kuma.io']);
    expect(k.injector.map((s: any) => s.rule)).toEqual(['exception-labels', 'sidecar-exists', 'sidecar-injection-label', 'sidecar-uid']);
    expect(k.wouldInject).toBe(true);
  });

  it('Consul: the webhook is called for every pod; without the annotation -default-inject decides', async () => {
    const e = await explainJson('deployment/reports', 'catalog', 'consul.yaml', 'kuma.yaml');
    const c = e.meshes.find((m: any) => m.mesh === 'consul');
    expect(c.namespaceMarker).toBeNull();
    expect(c.webhooks.map((h: any) => [h.webhook, h.called])).toEqual([['consul-connect-injector.consul.hashicorp.com', true]]);
    expect(c.injector.at(-1)).toMatchObject({ rule: 'default-inject', ok: false });
    expect(c.wouldInject).toBe(false);
    expect(e.meshes.find((m: any) => m.mesh === 'kuma').wouldInject).toBe(false);
  });
});

describe('will-not-be-meshed (check -f --expect-meshed) advises each mesh its own way', () => {
  const CHECK = CHECKS.filter((c) => c.id === 'will-not-be-meshed');
  const newsvc = (ns: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: newsvc, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: newsvc}}
  template:
    metadata: {labels: {app: newsvc}}
    spec: {containers: [{name: newsvc, image: example/newsvc:1}]}
`;
  const run = (base: Base, yaml: string) => {
    const objects = parseObjects(yaml).map((obj, i) => ({ obj, source: { file: 'm.yaml', document: i + 1 } }));
    const r = runChecks(overlayManifests(cluster(base), { files: ['m.yaml'], objects }, 'default'), CHECK, {
      mesh: 'auto',
      certExpiryWarningDays: 60,
      now: NOW,
      expectMeshed: true,
    });
    expect(r.errors).toEqual([]);
    return r.findings;
  };

  it('Consul, which has no namespace marker: the pod template annotation', () => {
    const [f] = run('consul', newsvc('catalog'));
    expect(f?.fix).toEqual([
      '# in m.yaml (document 1), Deployment catalog/newsvc: under spec.template.metadata.annotations set consul.hashicorp.com/connect-inject: "true"',
    ]);
  });

  it('Kuma in a namespace labelled disabled on purpose: the pod label, not the namespace (beside Consul too)', () => {
    for (const base of ['kuma', 'kuma+consul'] as const) {
      const [f] = run(base, newsvc('billing'));
      expect(f?.mesh).toBe('kuma');
      expect(f?.fix).toEqual([
        '# in m.yaml (document 1), Deployment billing/newsvc: under spec.template.metadata.labels set kuma.io/sidecar-injection: "enabled"',
      ]);
    }
  });
});

describe('injector errors deny the pod, and explain says so', () => {
  it('Kuma rejects an app container running as its sidecar UID 5678; a snapshot keeps runAsUser', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-kuma-uid-'));
    const file = join(dir, 'uid.yaml');
    writeFileSync(
      file,
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: envoyish, namespace: orders, uid: dep-envoyish}
spec:
  selector: {matchLabels: {app: envoyish}}
  template:
    metadata: {labels: {app: envoyish}}
    spec: {containers: [{name: app, image: example/app:1, securityContext: {runAsUser: 5678}}]}
`,
    );
    const r = await runCli([
      'explain',
      'deployment/envoyish',
      '-n',
      'orders',
      '--snapshot',
      join(FIXTURES, 'healthy', 'kuma.yaml'),
      '--snapshot',
      file,
      '-o',
      'json',
    ]);
    const k = JSON.parse(r.stdout).meshes.find((m: any) => m.mesh === 'kuma');
    expect(k.injector.at(-1)).toMatchObject({ rule: 'sidecar-uid', ok: false, denies: true });
    expect(k.verdict).toMatch(/^the kuma injector would deny the pod: container app runs as UID 5678/);
    const [dep] = parseObjects(readFileSync(file, 'utf8'));
    expect(JSON.stringify(slim('deployments', dep!))).toContain('"securityContext":{"runAsUser":5678}');
  });
});

describe('Kuma and Consul live, through the test API server', () => {
  it('the same findings live as offline, every request a GET that deploy/rbac.yaml allows', async () => {
    const objects = overlay(
      baseObjects('kuma+consul'),
      fixtureObjects(F('pod-opted-out', 'fires-kuma')),
      fixtureObjects(F('injection-marker-invalid', 'fires-consul-workload')),
    );
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-kuma-consul-live-'));
    const file = join(dir, 'cluster.json');
    writeFileSync(file, JSON.stringify({ kind: 'List', items: objects }));
    const server = await startApiServer({ objects, maxPageSize: 7 });
    try {
      const kubeconfig = await server.writeKubeconfig(dir, { namespace: 'orders' });
      const comparable = (stdout: string) => {
        const r = JSON.parse(stdout);
        return { meshes: r.meshes, findings: r.findings, skipped: r.skipped };
      };
      for (const scope of [['-A'], ['-n', 'orders'], ['-n', 'catalog']]) {
        const live = await runCli(['check', ...scope, '--kubeconfig', kubeconfig, '-o', 'json']);
        expect(live.stderr).toBe('');
        const offline = await runCli(['check', ...scope, '--snapshot', file, '-o', 'json']);
        expect(comparable(live.stdout), scope.join(' ')).toEqual(comparable(offline.stdout));
      }
      const all = JSON.parse((await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout);
      expect(all.meshes).toEqual(['kuma', 'consul']);
      expect(all.findings.map((f: any) => `${f.id} ${f.resource.namespace}/${f.resource.name}`).sort()).toEqual([
        'injection-marker-invalid catalog/reports',
        'pod-opted-out orders/auditor',
      ]);
      // The Secrets read by name are the two meshes' serving certificates, which the reader role may get.
      const role = parseObjects(readFileSync(join(import.meta.dirname, '..', '..', 'deploy/rbac.yaml'), 'utf8')).find(
        (o) => o.metadata?.name === 'meshdoctor-reader',
      ) as any;
      const secretNames = role.rules.find((r: any) => r.resources.includes('secrets')).resourceNames as string[];
      const gets = server.requests.filter((q) => /\/secrets\/[^/]+$/.test(q.path)).map((q) => q.path.split('/').pop()!);
      expect(new Set(gets)).toEqual(new Set(['kuma-tls-cert', 'consul-connect-inject-webhook-cert']));
      for (const g of gets) expect(secretNames).toContain(g);
      expect(server.requests.every((q) => q.method === 'GET')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('Consul with connectInject.default=true', () => {
  it('a namespace its webhook selector leaves out is left out on purpose: no webhook-excludes-namespace, no opt-out finding', () => {
    const excluded = `apiVersion: v1
kind: Namespace
metadata: {name: monitoring, uid: ns-monitoring, labels: {kubernetes.io/metadata.name: monitoring, openshift.io/cluster-monitoring: "true"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: scraper, namespace: monitoring, uid: dep-scraper}
spec:
  selector: {matchLabels: {app: scraper}}
  template:
    metadata: {labels: {app: scraper}, annotations: {consul.hashicorp.com/connect-inject: "false"}}
    spec: {containers: [{name: scraper, image: example/scraper:1}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: scraper-1
  namespace: monitoring
  uid: pod-scraper-1
  labels: {app: scraper}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: scraper, uid: dep-scraper, controller: true}]
spec: {containers: [{name: scraper, image: example/scraper:1}]}
status: {phase: Running}
`;
    const snap = cluster('consul', [F('pod-opted-out', 'fires-consul-default-inject'), excluded]);
    const fs = ids(findings(snap, ['webhook-excludes-namespace', 'pod-opted-out', 'namespace-not-enabled', 'sidecar-missing']));
    expect(fs).toEqual(['pod-opted-out Deployment catalog/reports']);
  });
});
