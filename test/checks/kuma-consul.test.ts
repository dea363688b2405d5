/**
 * Kuma and Consul, added as profiles only: every check that applies to them fires on their
 * fixtures and stays silent on the near misses, alone and beside another mesh (Linkerd + Kuma,
 * Istio + Consul, Kuma + Consul), and `explain` walks their webhooks and injector rules.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { slim } from '../../src/mesh/keep.js';
import { overlayManifests } from '../../src/run/manifests.js';
import { runChecks } from '../../src/run/run.js';
import { runCli } from '../helpers/cli.js';
import { startApiServer } from '../apiserver/server.js';
import {
  FIXTURES,
  NOW,
  baseObjects,
  cluster,
  findings,
  fixtureObjects,
  ids,
  overlay,
  parseObjects,
  type Base,
} from '../helpers/fixtures.js';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { KIND_KEYS, kindOf } from '../../src/k8s/kinds.js';
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
  [
    'webhook-missing',
    'fires-kuma',
    ['webhook-missing MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration'],
  ],
  ['webhook-missing', 'fires-consul', ['webhook-missing MutatingWebhookConfiguration consul-connect-injector']],
  ['webhook-no-endpoints', 'fires-kuma-not-ready', ['webhook-no-endpoints Service kuma-system/kuma-control-plane']],
  [
    'webhook-no-endpoints',
    'fires-consul-service-missing',
    ['webhook-no-endpoints Service consul/consul-connect-injector'],
  ],
  [
    'webhook-ca-invalid',
    'fires-consul-empty',
    ['webhook-ca-invalid MutatingWebhookConfiguration consul-connect-injector'],
  ],
  ['webhook-cert-mismatch', 'fires-kuma', ['webhook-cert-mismatch Secret kuma-system/kuma-tls-cert']],
  ['injector-unavailable', 'fires-kuma-crashloop', ['injector-unavailable Deployment kuma-system/kuma-control-plane']],
  [
    'injector-unavailable',
    'fires-consul-scaled-zero',
    ['injector-unavailable Deployment consul/consul-connect-injector'],
  ],
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
  [
    'pod-security-blocks-init',
    'fires-kuma-predicted',
    ['pod-security-blocks-init Deployment orders/api', 'pod-security-blocks-init Job orders/reindex'],
  ],
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
  ['serviceaccount-missing', 'fires-consul-sa-token', ['serviceaccount-missing Deployment catalog/ledger']],
  ['serviceaccount-missing', 'ok-consul-projected-token', []],
];

/** The mesh a fixture is written for, and the meshes it must also hold beside. */
const basesOf = (file: string): Base[] =>
  file.includes('kuma') ? ['kuma', 'linkerd+kuma', 'kuma+consul'] : ['consul', 'istio+consul', 'kuma+consul'];

describe('Kuma and Consul through the unchanged checks', () => {
  for (const [id, file, expected] of CASES) {
    for (const base of basesOf(file)) {
      it(`${id}: ${file} over ${base}`, () => {
        expect(ids(findings(cluster(base, [F(id, file)]), [id]))).toEqual(expected);
      });
    }
  }

  it("Pod Security: Kuma's kuma-init and Consul's init container (NET_ADMIN only with transparent proxy), read from their own settings", () => {
    const [k] = findings(cluster('kuma', [F('pod-security-blocks-init', 'fires-kuma-predicted')]), [
      'pod-security-blocks-init',
    ]);
    expect(k?.message).toBe(
      'Namespace orders enforces Pod Security "baseline", which rejects Kuma\'s init container kuma-init (it adds NET_ADMIN, NET_RAW) without Kuma\'s CNI plugin, so the next injected pods of Deployment orders/api will be refused.',
    );
    expect(k?.evidence).toMatchObject({
      cniPlugin: { enabled: false, from: 'kuma-control-plane env KUMA_RUNTIME_KUBERNETES_INJECTOR_CNI_ENABLED=false' },
      cniDaemonSet: 'kuma-cni-node',
    });
    expect(k?.fix.join('\n')).toContain('--set cni.enabled=true');
    const [c, job] = findings(cluster('consul', [F('pod-security-blocks-init', 'fires-consul-confirmed')]), [
      'pod-security-blocks-init',
    ]);
    expect(c?.evidence).toMatchObject({
      capabilities: ['NET_ADMIN'],
      cniPlugin: { enabled: false, from: 'injector consul/consul-connect-injector flag -enable-cni=false' },
    });
    expect(job?.evidence.capabilitiesFrom).toBe(
      'transparent proxy on: injector flag -default-enable-transparent-proxy=true',
    );
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
    expect(
      ids(
        findings(cluster('consul', [F('pod-security-blocks-init', 'fires-consul-confirmed'), off]), [
          'pod-security-blocks-init',
        ]),
      ),
    ).toEqual(['pod-security-blocks-init Deployment catalog/products']);
  });

  it("an injector's denial is linked to the finding naming its cause (an invalid marker, a turned-off token), not said as a second cause", () => {
    const both = ['injection-marker-invalid', 'serviceaccount-missing', 'webhook-denied'];
    for (const [base, file, cause, reason] of [
      [
        'kuma',
        'fires-kuma-invalid-label',
        'injection-marker-invalid Deployment orders/auditor',
        'annotation "kuma.io/sidecar-injection" has wrong value "on"',
      ],
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
    const [f] = findings(cluster('consul', [F('serviceaccount-missing', 'fires-consul-token')]), [
      'serviceaccount-missing',
    ]);
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
    expect(f?.evidence).toMatchObject({
      expected: 'pod template annotation consul.hashicorp.com/connect-inject=false',
      deniesAdmission: true,
    });
  });

  it('Consul quota advice sets its annotations; Kuma, which has none, says where its resources are set', () => {
    const [c] = findings(cluster('consul', [F('quota-blocks-proxy', 'fires-consul-must-specify')]), [
      'quota-blocks-proxy',
    ]);
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
  const r = await runCli([
    'explain',
    target,
    '-n',
    ns,
    ...snapshots.flatMap((s) => ['--snapshot', join(FIXTURES, 'healthy', s)]),
    '-o',
    'json',
  ]);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
};

describe('explain walks Kuma and Consul', () => {
  it('Kuma: the pods webhook selects a pod opting in inside a namespace labelled disabled; the pod label wins', async () => {
    const e = await explainJson('deployment/invoicer', 'billing', 'kuma.yaml');
    const k = e.meshes.find((m: any) => m.mesh === 'kuma');
    expect(k.namespaceMarker).toBe('label kuma.io/sidecar-injection=disabled');
    expect(k.webhooks.filter((h: any) => h.called).map((h: any) => h.webhook)).toEqual(['pods-kuma-injector.kuma.io']);
    expect(k.injector.map((s: any) => s.rule)).toEqual([
      'exception-labels',
      'sidecar-exists',
      'sidecar-injection-label',
      'sidecar-uid',
    ]);
    expect(k.wouldInject).toBe(true);
  });

  it('Consul: the webhook is called for every pod; without the annotation -default-inject decides', async () => {
    const e = await explainJson('deployment/reports', 'catalog', 'consul.yaml', 'kuma.yaml');
    const c = e.meshes.find((m: any) => m.mesh === 'consul');
    expect(c.namespaceMarker).toBeNull();
    expect(c.webhooks.map((h: any) => [h.webhook, h.called])).toEqual([
      ['consul-connect-injector.consul.hashicorp.com', true],
    ]);
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
      "# in m.yaml, document 1, Deployment catalog/newsvc: under spec.template.metadata.annotations set consul.hashicorp.com/connect-inject: 'true'",
    ]);
  });

  it('Kuma in a namespace labelled disabled on purpose: the pod label, not the namespace (beside Consul too)', () => {
    for (const base of ['kuma', 'kuma+consul'] as const) {
      const [f] = run(base, newsvc('billing'));
      expect(f?.mesh).toBe('kuma');
      expect(f?.fix).toEqual([
        "# in m.yaml, document 1, Deployment billing/newsvc: under spec.template.metadata.labels set kuma.io/sidecar-injection: 'enabled'",
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
    // The dump as docs/snapshot.md has it: one file per kind, so it says what it read (the cluster has no ConfigMaps).
    const file = join(dir, 'dump');
    mkdirSync(file);
    for (const k of KIND_KEYS)
      writeFileSync(
        join(file, `${k}.json`),
        JSON.stringify({ kind: 'List', items: objects.filter((o) => kindOf(o.kind)?.key === k) }),
      );
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
      // The Secrets read by name are the two meshes' serving certificates, each in its mesh's
      // namespace, where that mesh's opt-in Role (deploy/mesh-rbac/secrets/) may get it.
      const granted = ['kuma', 'consul'].flatMap((mesh) => {
        const role = parseObjects(
          readFileSync(join(import.meta.dirname, '..', '..', `deploy/mesh-rbac/secrets/${mesh}.yaml`), 'utf8'),
        ).find((o) => o.kind === 'Role') as any;
        return role.rules
          .filter((r: any) => r.resources.includes('secrets'))
          .flatMap((r: any) => r.resourceNames.map((n: string) => `${role.metadata.namespace}/${n}`));
      });
      const gets = server.requests
        .filter((q) => /\/secrets\/[^/]+$/.test(q.path))
        .map((q) =>
          q.path
            .split('/')
            .slice(-3)
            .filter((_, i) => i !== 1)
            .join('/'),
        );
      expect(new Set(gets)).toEqual(
        new Set(['kuma-system/kuma-tls-cert', 'consul/consul-connect-inject-webhook-cert']),
      );
      for (const g of gets) expect(granted).toContain(g);
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
    const fs = ids(
      findings(snap, ['webhook-excludes-namespace', 'pod-opted-out', 'namespace-not-enabled', 'sidecar-missing']),
    );
    expect(fs).toEqual(['pod-opted-out Deployment catalog/reports']);
  });
});

/** Consul's healthy injector Deployment with its command line edited (its flags are its settings). */
const consulInjectorWith = (edit: (command: string) => string) => {
  const d = structuredClone(
    baseObjects('consul').find((o) => o.kind === 'Deployment' && o.metadata?.name === 'consul-connect-injector')!,
  ) as any;
  const c = d.spec.template.spec.containers.find((x: any) => x.name === 'sidecar-injector');
  c.command = c.command.map((x: string) => edit(x));
  return d;
};
const yamlOf = (...objs: unknown[]) => objs.map((o) => JSON.stringify(o)).join('\n---\n') + '\n';

describe("the reviewer's Kuma and Consul repros (kumahq/kuma v2.14.3, hashicorp/consul-k8s a507b1d)", () => {
  it('a mesh with no namespace marker is never "removed" with an empty command: its workloads opt out, or its deny list (comment)', () => {
    // mesh_webhook.go shouldInject: -default-inject=true injects every pod without the annotation; no code reads a Namespace marker.
    const on = consulInjectorWith((x) => x.replace('-default-inject=false', '-default-inject=true'));
    const fs = findings(cluster('linkerd+consul', [yamlOf(on)]), ['injection-marker-invalid']).filter(
      (f) => f.resource.kind === 'Namespace' && f.resource.name === 'shop',
    );
    expect(fs).toHaveLength(1);
    const fix = fs[0]!.fix ?? [];
    expect(fix.some((l) => /^kubectl (annotate|label) namespace \S+\s*$/.test(l))).toBe(false);
    expect(fix).toContain(
      `kubectl patch deployment/web -n shop --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"consul.hashicorp.com/connect-inject":"false"}}}}}'`,
    );
    expect(fix.filter((l) => l.includes('k8sDenyNamespaces')).every((l) => l.startsWith('#'))).toBe(true);
    expect(fs[0]!.message).not.toMatch(/removes the Consul marker/);
  });
});

describe('one mesh per workload when the namespace asks one mesh and the pod template another', () => {
  const asksConsul = `apiVersion: apps/v1
kind: Deployment
metadata: {name: b1, namespace: shop, uid: dep-b1}
spec:
  selector: {matchLabels: {app: b1}}
  template:
    metadata: {labels: {app: b1}, annotations: {consul.hashicorp.com/connect-inject: "true"}}
    spec: {containers: [{name: b1, image: example/b1:1}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: b1-1
  namespace: shop
  uid: pod-b1-1
  labels: {app: b1}
  annotations: {consul.hashicorp.com/connect-inject: "true"}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: b1, uid: dep-b1, controller: true}]
spec: {containers: [{name: b1, image: example/b1:1}]}
status: {phase: Running}
`;
  it("one finding choosing the template's mesh, opting the template out of the other; no restart into two proxies", () => {
    // Linkerd's namespace annotation linkerd.io/inject=enabled (healthy linkerd base, namespace shop) and Consul's pod annotation both inject.
    const fs = findings(cluster('linkerd+consul', [asksConsul]));
    const mine = fs.filter((f) => f.resource.name === 'b1');
    expect(ids(mine)).toEqual(['injection-marker-invalid Deployment shop/b1']);
    expect(mine[0]!.evidence.meshChoice).toMatchObject({ mesh: 'consul' });
    expect(mine[0]!.fix).toEqual([
      `kubectl patch deployment/b1 -n shop --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"linkerd.io/inject":"disabled"}}}}}'`,
    ]);
    expect(fs.some((f) => f.resource.name === 'b1' && (f.fix ?? []).some((l) => l.includes('rollout restart')))).toBe(
      false,
    );
  });
});

describe('Kuma >= 2.11: a pod asking in a namespace without the label', () => {
  // kumahq/kuma v2.14.3 cp-webhooks-and-secrets.yaml: the pods webhook selects namespaces where kuma.io/sidecar-injection exists.
  const ns = (workloads: string) => `apiVersion: v1
kind: Namespace
metadata: {name: plain, uid: ns-plain, labels: {kubernetes.io/metadata.name: plain}}
---
${workloads}
apiVersion: apps/v1
kind: Deployment
metadata: {name: other, namespace: plain, uid: dep-other}
spec:
  selector: {matchLabels: {app: other}}
  template:
    metadata: {labels: {app: other}}
    spec: {containers: [{name: other, image: example/other:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other-1, namespace: plain, uid: pod-other-1, labels: {app: other}, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: other, uid: dep-other, controller: true}]}
spec: {containers: [{name: other, image: example/other:1}]}
status: {phase: Running}
`;
  const asking = (meta: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: asks, namespace: plain, uid: dep-asks}
spec:
  selector: {matchLabels: {app: asks}}
  template:
    metadata: ${meta}
    spec: {containers: [{name: asks, image: example/asks:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: asks-1, namespace: plain, uid: pod-asks-1, labels: {app: asks}, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: asks, uid: dep-asks, controller: true}]}
spec: {containers: [{name: asks, image: example/asks:1}]}
status: {phase: Running}
---
`;
  it('webhook-excludes-namespace labels the namespace disabled (the pod label wins), never enabled (which meshes every workload)', () => {
    const fs = findings(cluster('kuma', [ns(asking('{labels: {app: asks, kuma.io/sidecar-injection: enabled}}'))]), [
      'webhook-excludes-namespace',
    ]);
    expect(ids(fs)).toEqual(['webhook-excludes-namespace Namespace plain']);
    expect(fs[0]!.fix).toEqual([
      'kubectl label namespace plain kuma.io/sidecar-injection=disabled --overwrite',
      'kubectl rollout restart deployment/asks -n plain',
    ]);
  });
  it('the annotation moved to the label also labels the namespace disabled, first', () => {
    const fs = findings(
      cluster('kuma', [ns(asking('{labels: {app: asks}, annotations: {kuma.io/sidecar-injection: enabled}}'))]),
      ['injection-marker-invalid'],
    );
    expect(ids(fs)).toEqual(['injection-marker-invalid Deployment plain/asks']);
    expect(fs[0]!.fix![0]).toBe('kubectl label namespace plain kuma.io/sidecar-injection=disabled --overwrite');
    expect(fs[0]!.fix!.some((l) => l.includes('sidecar-injection=enabled'))).toBe(false);
  });
});

/** A namespace with one Deployment (pod template annotations `ann`) and its unmeshed pod. */
const appIn = (ns: string, name: string, ann: Record<string, string> = {}, spec = '') => `apiVersion: v1
kind: Namespace
metadata: {name: ${ns}, uid: ns-${ns}, labels: {kubernetes.io/metadata.name: ${ns}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}, uid: dep-${name}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}, annotations: ${JSON.stringify(ann)}}
    spec: {${spec}containers: [{name: ${name}, image: example/${name}:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}-1, namespace: ${ns}, uid: pod-${name}-1, labels: {app: ${name}}, annotations: ${JSON.stringify(ann)}, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: ${name}, uid: dep-${name}, controller: true}]}
spec: {${spec}containers: [{name: ${name}, image: example/${name}:1}]}
status: {phase: Running}
`;

describe("Consul's namespace lists (mesh_webhook.go shouldInject, a507b1d: read before the annotation)", () => {
  const lists = consulInjectorWith((x) =>
    x.replace('-allow-k8s-namespace="*"', '-allow-k8s-namespace="catalog" \\\n  -deny-k8s-namespace="legacy"'),
  );
  const snap = () =>
    cluster('consul', [
      yamlOf(lists),
      appIn('other', 'o1', { 'consul.hashicorp.com/connect-inject': 'true' }),
      appIn('legacy', 'l1', { 'consul.hashicorp.com/connect-inject': 'true' }),
      appIn('other2', 'o3', { 'consul.hashicorp.com/connect-inject': 'yes' }),
      appIn('legacy2', 'l3', { 'consul.hashicorp.com/connect-inject': 'no' }),
    ]);
  it('refuse a workload annotated "true": injector-config-excludes, the Helm values as comments', () => {
    const fs = findings(snap(), ['injector-config-excludes']);
    expect(ids(fs)).toEqual([
      'injector-config-excludes Deployment legacy/l1',
      'injector-config-excludes Deployment other/o1',
    ]);
    const l1 = fs.find((f) => f.resource.name === 'l1')!;
    expect(l1.evidence).toMatchObject({
      rule: 'deny-k8s-namespace',
      flag: '-deny-k8s-namespace',
      denyK8sNamespaces: ['legacy'],
    });
    expect(l1.fix).toEqual([
      expect.stringMatching(/^# remove legacy from the Helm value connectInject\.k8sDenyNamespaces/),
    ]);
    expect(fs.find((f) => f.resource.name === 'o1')!.fix).toEqual([
      expect.stringMatching(/^# add other to the Helm value connectInject\.k8sAllowNamespaces/),
    ]);
  });
  it('an unparsable value where the lists refuse the namespace is no denial (ParseBool is never reached)', () => {
    const fs = findings(snap(), ['injection-marker-invalid']);
    expect(ids(fs)).toEqual(['injection-marker-invalid Deployment other2/o3']);
    expect(fs[0]!.evidence.deniesAdmission).toBe(false);
    expect(fs[0]!.message).not.toMatch(/denies/);
  });
});

describe('Consul 0.x namespace lists: the injector Deployment is <fullname>-connect-injector-webhook-deployment up to 0.39', () => {
  // consul-helm v0.31.0 templates/connect-inject-deployment.yaml; consul-k8s v0.25.0 connect-inject/handler.go
  // shouldInject reads -deny-k8s-namespace and -allow-k8s-namespace before the annotation, as today.
  const d = structuredClone(
    baseObjects('consul-0.x').find(
      (o) => o.kind === 'Deployment' && o.metadata?.name === 'consul-connect-injector-webhook-deployment',
    )!,
  ) as any;
  const c = d.spec.template.spec.containers.find((x: any) => x.name === 'sidecar-injector');
  c.command = c.command.map((x: string) => x.replace('-allow-k8s-namespace="*"', '-allow-k8s-namespace="catalog"'));
  it('are read from that Deployment: a workload of another namespace is refused by the list', () => {
    const fs = findings(
      cluster('consul-0.x', [yamlOf(d), appIn('other', 'o1', { 'consul.hashicorp.com/connect-inject': 'true' })]),
      ['injector-config-excludes'],
    );
    expect(ids(fs)).toEqual(['injector-config-excludes Deployment other/o1']);
    expect(fs[0]!.evidence).toMatchObject({ flag: '-allow-k8s-namespace', allowK8sNamespaces: ['catalog'] });
  });
  it('near miss: the base lists every namespace', () => {
    const fs = findings(
      cluster('consul-0.x', [appIn('other', 'o1', { 'consul.hashicorp.com/connect-inject': 'true' })]),
      ['injector-config-excludes'],
    );
    expect(fs).toEqual([]);
  });
});

describe('Consul with ACLs reads the ServiceAccount (mesh_webhook.go findServiceAccountVolumeMount, a507b1d)', () => {
  it('a ServiceAccount turning the token off denies the pod: serviceaccount-missing alone, no sidecar-missing restart', () => {
    const fs = findings(cluster('consul', [F('serviceaccount-missing', 'fires-consul-sa-token')])).filter(
      (f) => f.resource.name === 'ledger',
    );
    expect(ids(fs)).toEqual(['serviceaccount-missing Deployment catalog/ledger']);
  });
  it('explain: a denying injector is never "new pods get no proxy"', async () => {
    const fixture = join(FIXTURES, F('serviceaccount-missing', 'fires-consul-sa-token'));
    const r = await runCli([
      'explain',
      'deployment/ledger',
      '-n',
      'catalog',
      '--snapshot',
      join(FIXTURES, 'healthy', 'consul.yaml'),
      '--snapshot',
      fixture,
      '-o',
      'json',
    ]);
    const out = JSON.parse(r.stdout);
    expect(out.meshes.find((x: any) => x.mesh === 'consul').injector.at(-1)).toMatchObject({
      rule: 'service-account-token',
      ok: false,
      denies: true,
    });
    expect(out.onRestart).toMatch(/deny/);
    expect(out.onRestart).not.toMatch(/no proxy/);
  });
});

describe('Helm lines keep the installed chart and release (kuma v2.14.3 _helpers.tpl kuma.labels; consul-k8s a507b1d global.imageK8S)', () => {
  const labelled = (labels: Record<string, string>) => {
    const d = structuredClone(
      baseObjects('kuma').find((o) => o.kind === 'Deployment' && o.metadata?.name === 'kuma-control-plane')!,
    ) as any;
    d.metadata.labels = { ...d.metadata.labels, ...labels };
    return d;
  };
  const helmLines = (snapOverlays: string[]) =>
    findings(cluster('kuma', [F('quota-blocks-proxy', 'fires-kuma-must-specify'), ...snapOverlays]), [
      'quota-blocks-proxy',
    ])
      .flatMap((f) => f.fix ?? [])
      .filter((l) => l.includes('helm upgrade'));
  it('Kuma: --version and the release from the control plane labels; unknown, a comment with placeholders', () => {
    expect(helmLines([])).toEqual([
      expect.stringMatching(
        /^# Helm, .*: helm upgrade RELEASE kuma\/kuma -n kuma-system --version CHART-VERSION --reuse-values/,
      ),
    ]);
    const lines = helmLines([
      yamlOf(labelled({ 'helm.sh/chart': 'kuma-2.14.3', 'app.kubernetes.io/instance': 'mesh-cp' })),
    ]);
    expect(lines).toEqual([
      expect.stringContaining('helm upgrade mesh-cp kuma/kuma -n kuma-system --version 2.14.3 --reuse-values'),
    ]);
  });
  it('Consul: the release label and the consul-k8s-control-plane image tag', () => {
    const oom = findings(cluster('consul', [F('injector-oomkilled', 'fires-consul')]), ['injector-oomkilled']);
    expect(oom.flatMap((f) => f.fix ?? []).filter((l) => l.startsWith('helm upgrade'))).toEqual([
      expect.stringMatching(
        /^helm upgrade consul hashicorp\/consul -n consul --version 2\.0\.3 --reuse-values --set connectInject\.resources\.limits\.memory=/,
      ),
    ]);
  });
});

describe('job-never-completes for Consul', () => {
  it('below consul-k8s 1.9.0 (and its backports) the native-sidecar annotation is not advised', () => {
    const old = consulInjectorWith((x) => x);
    old.spec.template.spec.containers[0].image = 'hashicorp/consul-k8s-control-plane:1.6.2';
    const fix = (extra: string[]) =>
      findings(cluster('consul', [F('job-never-completes', 'fires-consul-template'), ...extra]), [
        'job-never-completes',
      ])[0]!.fix!;
    expect(fix([]).some((l) => l.includes('enable-consul-dataplane-as-sidecar":"true"'))).toBe(true);
    const f = fix([yamlOf(old)]);
    expect(f.some((l) => !l.startsWith('#'))).toBe(false);
    expect(f[0]).toMatch(
      /^# consul-k8s 1\.6\.2 does not know the annotation consul\.hashicorp\.com\/enable-consul-dataplane-as-sidecar/,
    );
  });
});
