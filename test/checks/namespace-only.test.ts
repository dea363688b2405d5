/**
 * Namespace-only permissions (issue 13): an app team's namespaced Role (deploy/rbac.yaml, the second
 * ClusterRole) cannot read Namespaces or MutatingWebhookConfigurations. The checks that can answer
 * from the namespace alone do, honestly: proxy-missing-beside-meshed (new), pod-opted-out,
 * injection-marker-invalid (workload markers), webhook-call-failed, serviceaccount-missing,
 * quota-blocks-proxy (meshed workloads, FailedCreate) and job-never-completes (hung Jobs). A
 * healthy cluster stays silent in that mode too.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { KINDS, KIND_KEYS } from '../../src/k8s/kinds.js';
import { runChecks } from '../../src/run/run.js';
import type { Finding } from '../../src/run/result.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { NOW, cluster, findings, ids, type Base } from '../helpers/fixtures.js';

const F = (check: string, file: string) => `checks/${check}/${file}`;
const FORBIDDEN = (k: string) => `forbidden: User "alice" cannot list resource "${k}" at the cluster scope`;

/**
 * What a namespaced Role shows: the cluster-scoped kinds forbidden (absent from objects, named in
 * unavailable) and, with a namespace, only that namespace's objects and scope -n.
 */
function namespaceOnly(snap: Snapshot, ns?: string, keep: string[] = []): Snapshot {
  const objects: Snapshot['objects'] = {};
  const unavailable: Snapshot['unavailable'] = {};
  for (const k of KIND_KEYS) {
    const list = snap.objects[k];
    if (!list) continue;
    if (!KINDS[k].namespaced && !keep.includes(k)) unavailable[k] = FORBIDDEN(k);
    else objects[k] = ns && KINDS[k].namespaced ? list.filter((o) => o.metadata?.namespace === ns) : list;
  }
  return { ...snap, scope: ns ? { allNamespaces: false, namespace: ns } : snap.scope, objects, unavailable };
}

const view = (base: Base, files: string[], ns?: string, keep?: string[]) =>
  namespaceOnly(cluster(base, files), ns, keep);
const only = (fs: Finding[], id: string) => fs.filter((f) => f.id === id);
const ID = 'proxy-missing-beside-meshed';
const DIR = `checks/${ID}/`;

describe("'proxy-missing-beside-meshed'", () => {
  it('fires for a workload with meshed and unmeshed pods, with both sets, their times and what was not examined', () => {
    const fs = findings(view('linkerd', [`${DIR}fires-linkerd-mixed.yaml`], 'shop'));
    expect(ids(fs)).toEqual([`${ID} Deployment shop/cart`]);
    const f = fs[0]!;
    expect(f).toMatchObject({ code: 'MD2012', severity: 'error', mesh: 'linkerd', affectedPods: 1 });
    expect(f.message).toBe(
      '1 of 3 active pods of Deployment shop/cart has no Linkerd proxy while 2 others have one, so it was created when injection did not happen; ' +
        'Namespace shop (its injection marker) and the MutatingWebhookConfigurations could not be read, so why injection did not happen is not known.',
    );
    expect(f.evidence).toEqual({
      unmeshedPods: [
        { name: 'cart-6f7d8c9b5-ccccc', creationTimestamp: '2026-11-21T03:12:00Z', createdBeforeFirstMeshedPod: false },
      ],
      meshedPods: [
        { name: 'cart-6f7d8c9b5-aaaaa', creationTimestamp: '2026-11-01T08:00:00Z' },
        { name: 'cart-6f7d8c9b5-bbbbb', creationTimestamp: '2026-11-01T08:00:01Z' },
      ],
      namespaceMarker: 'not read',
      notExamined: [
        { kind: 'namespaces', reason: FORBIDDEN('namespaces') },
        { kind: 'mutatingwebhookconfigurations', reason: FORBIDDEN('mutatingwebhookconfigurations') },
      ],
    });
    // The owner's events (the Deployment's and its ReplicaSet's), then a restart of that workload only.
    expect(f.fix).toEqual([
      'kubectl get events -n shop --field-selector involvedObject.name=cart',
      'kubectl get events -n shop --field-selector involvedObject.name=cart-6f7d8c9b5',
      'kubectl rollout restart deployment/cart -n shop',
    ]);
  });

  it('fires for an unmeshed workload in a namespace whose other workloads were injected without asking (warning)', () => {
    const fs = findings(view('istio', [`${DIR}fires-istio-namespace.yaml`], 'store'));
    expect(ids(fs)).toEqual([`${ID} Deployment store/checkout`]);
    const f = fs[0]!;
    expect(f).toMatchObject({ severity: 'warning', mesh: 'istio', affectedPods: 1 });
    expect(f.message).toContain(
      'while 1 other workload in namespace store was injected without its pod template asking',
    );
    expect(f.evidence.meshedSiblings).toEqual([
      {
        workload: 'Deployment/frontend',
        pods: [
          { name: 'frontend-6c8d9f7b5-k8s9d', creationTimestamp: '2026-11-10T00:00:00Z' },
          { name: 'frontend-6c8d9f7b5-p2q7r', creationTimestamp: '2026-11-10T00:00:01Z' },
        ],
      },
    ]);
    expect(f.evidence.unmeshedPods).toEqual([
      {
        name: 'checkout-7b8c9d6f5-xk2lp',
        creationTimestamp: '2026-11-20T10:00:00Z',
        createdBeforeFirstMeshedPod: false,
      },
    ]);
    expect(f.fix.at(-1)).toBe('kubectl rollout restart deployment/checkout -n store');
  });

  it('fires the same across all namespaces (-A) when the cluster-scoped kinds are forbidden', () => {
    expect(
      ids(only(findings(view('both', [`${DIR}fires-linkerd-mixed.yaml`, `${DIR}fires-istio-namespace.yaml`])), ID)),
    ).toEqual([`${ID} Deployment shop/cart`, `${ID} Deployment store/checkout`]);
  });

  it('stays silent when Namespaces and webhook configurations are both read (sidecar-missing decides)', () => {
    for (const [base, file] of [
      ['linkerd', 'fires-linkerd-mixed.yaml'],
      ['istio', 'fires-istio-namespace.yaml'],
    ] as const) {
      expect(only(findings(cluster(base, [DIR + file])), ID)).toEqual([]);
      expect(
        only(
          findings(
            cluster(base, [DIR + file], { allNamespaces: false, namespace: base === 'linkerd' ? 'shop' : 'store' }),
          ),
          ID,
        ),
      ).toEqual([]);
    }
  });

  it('runs with one of the two kinds read, and then follows a Namespace that was read', () => {
    // Namespaces read (shop asks for Linkerd), webhooks forbidden: still fires.
    expect(ids(findings(view('linkerd', [`${DIR}fires-linkerd-mixed.yaml`], 'shop', ['namespaces']), [ID]))).toEqual([
      `${ID} Deployment shop/cart`,
    ]);
    // A Namespace that was read and does not ask: new pods would not be injected, nothing failed.
    const off = `apiVersion: v1
kind: Namespace
metadata: {name: shop, uid: ns-shop, labels: {kubernetes.io/metadata.name: shop}}
`;
    expect(findings(view('linkerd', [`${DIR}fires-linkerd-mixed.yaml`, off], 'shop', ['namespaces']), [ID])).toEqual(
      [],
    );
  });

  it('near misses: opted out, hostNetwork, finished Job, all meshed, invalid marker, a rollout under way', () => {
    const fs = findings(view('linkerd', [`${DIR}ok-linkerd-near-misses.yaml`], 'shop'));
    expect(only(fs, ID)).toEqual([]);
    // The opt-out and the invalid marker are reported by their own checks, from the same view.
    expect(ids(fs)).toEqual([
      'injection-marker-invalid Deployment shop/invalid',
      'pod-opted-out Deployment shop/search',
    ]);
  });

  it('near misses: Istio opt-out label, ambient pod, a rollout to a template that asks', () => {
    expect(only(findings(view('istio', [`${DIR}ok-istio-near-misses.yaml`], 'store')), ID)).toEqual([]);
  });

  it('near misses: kube-system, a Linkerd extension namespace, istio-system', () => {
    const snap = view('both', [`${DIR}ok-system-namespaces.yaml`]);
    expect(only(findings(snap), ID)).toEqual([]);
    for (const ns of ['kube-system', 'linkerd-viz', 'istio-system'])
      expect(only(findings(namespaceOnly(cluster('both', [`${DIR}ok-system-namespaces.yaml`]), ns)), ID), ns).toEqual(
        [],
      );
  });

  it('--mesh leaves the other mesh out', () => {
    const snap = view('both', [`${DIR}fires-linkerd-mixed.yaml`]);
    expect(findings(snap, [ID], { mesh: 'istio' })).toEqual([]);
    expect(ids(findings(snap, [ID], { mesh: 'linkerd' }))).toEqual([`${ID} Deployment shop/cart`]);
  });
});

describe('existing checks in namespace-only mode', () => {
  it('sidecar-missing/fires-linkerd.yaml: skipped, but the namespace alone still shows the missing proxy', () => {
    const snap = view('linkerd', [F('sidecar-missing', 'fires-linkerd.yaml')], 'shop');
    const r = runChecks(snap, CHECKS, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
    expect(r.skipped.map((s) => s.check)).toContain('sidecar-missing');
    expect(ids(r.findings)).toEqual([`${ID} Deployment shop/cart`]);
  });

  it('sidecar-missing/fires-istio.yaml: the same for Istio', () => {
    expect(ids(findings(view('istio', [F('sidecar-missing', 'fires-istio.yaml')], 'store')))).not.toEqual([]);
  });

  it('pod-opted-out: the namespace counts as enabled when its other workloads were injected without asking', () => {
    const fs = findings(view('linkerd', [F('pod-opted-out', 'fires-linkerd.yaml')], 'shop'));
    expect(ids(fs)).toEqual(['pod-opted-out Deployment shop/cart']);
    expect(fs[0]!.message).toBe(
      'Deployment shop/cart opts out of injection with pod template annotation linkerd.io/inject=disabled, although 2 other workloads in namespace shop were injected without their pod template asking, so the namespace asks for injection (Namespace shop could not be read).',
    );
    expect(fs[0]!.evidence).toMatchObject({
      namespaceMarker: null,
      meshedSiblings: ['Deployment/web', 'StatefulSet/db'],
    });
    expect(fs[0]!.fix).toEqual(
      findings(cluster('linkerd', [F('pod-opted-out', 'fires-linkerd.yaml')]), ['pod-opted-out'])[0]!.fix,
    );
    expect(ids(findings(view('istio', [F('pod-opted-out', 'fires-istio.yaml')], 'store')))).toEqual([
      'pod-opted-out Deployment store/search',
    ]);
  });

  it('pod-opted-out: silent where no workload shows the namespace meshed', () => {
    expect(findings(view('linkerd', [F('pod-opted-out', 'ok-not-enabled-namespace.yaml')], 'legacy'))).toEqual([]);
    expect(findings(view('linkerd', [F('pod-opted-out', 'ok-not-enabled-namespace.yaml')]))).toEqual([]);
  });

  it('injection-marker-invalid: an invalid linkerd.io/inject value on a template, not the markers that depend on the namespace', () => {
    const fs = findings(view('linkerd', [F('injection-marker-invalid', 'fires-linkerd-workload.yaml')], 'legacy'));
    // labelled (a label) and ownmeta (the Deployment's own metadata) do nothing only if the namespace does not enable Linkerd: unknown here.
    expect(ids(fs)).toEqual(['injection-marker-invalid Deployment legacy/invalid']);
    expect(fs[0]!.fix).toEqual(
      findings(cluster('linkerd', [F('injection-marker-invalid', 'fires-linkerd-workload.yaml')]), [
        'injection-marker-invalid',
      ]).find((f) => f.resource.name === 'invalid')!.fix,
    );
    // Namespace markers need the Namespace.
    expect(
      findings(view('linkerd', [F('injection-marker-invalid', 'fires-linkerd-namespace.yaml')]), [
        'injection-marker-invalid',
      ]),
    ).toEqual([]);
    expect(
      findings(view('istio', [F('injection-marker-invalid', 'fires-istio.yaml')]), ['injection-marker-invalid']),
    ).toEqual([]);
  });

  it('injection-marker-invalid: with the Namespace read but not the webhooks, an Istio value no webhook selects', () => {
    const ns = `apiVersion: v1
kind: Namespace
metadata: {name: store, uid: ns-store, labels: {kubernetes.io/metadata.name: store, istio-injection: "true"}}
`;
    const fs = findings(view('istio', [ns], undefined, ['namespaces']), ['injection-marker-invalid']);
    expect(ids(fs)).toEqual(['injection-marker-invalid Namespace store']);
    expect(fs[0]!.fix).toEqual(['kubectl label namespace store istio-injection=enabled --overwrite']);
  });

  it('webhook-call-failed: the FailedCreate events are enough, even with no pod showing the mesh', () => {
    const full = findings(cluster('istio', [F('webhook-call-failed', 'fires-istio.yaml')]), ['webhook-call-failed']);
    const fs = findings(view('istio', [F('webhook-call-failed', 'fires-istio.yaml')], 'store'), [
      'webhook-call-failed',
    ]);
    expect(ids(fs)).toEqual(ids(full.filter((f) => f.resource.namespace === 'store')));
    // Istio's failurePolicy Fail blocked every pod: none is left to show Istio is installed.
    const snap = view('istio', [F('webhook-call-failed', 'fires-istio.yaml')], 'store');
    snap.objects.pods = [];
    expect(ids(findings(snap, ['webhook-call-failed']))).toEqual(['webhook-call-failed Deployment store/frontend']);
    // ...unless --mesh leaves Istio out.
    expect(findings(snap, ['webhook-call-failed'], { mesh: 'linkerd' })).toEqual([]);
  });

  it('serviceaccount-missing: a template naming a missing ServiceAccount, the mesh known from meshed pods', () => {
    const fs = findings(view('linkerd', [F('serviceaccount-missing', 'fires-linkerd.yaml')], 'shop'), [
      'serviceaccount-missing',
    ]);
    expect(ids(fs)).toEqual(['serviceaccount-missing Deployment shop/orders']);
    // Without a meshed pod or --mesh, no mesh can be named.
    const bare = view('linkerd', [F('serviceaccount-missing', 'fires-linkerd.yaml')], 'shop');
    bare.objects.pods = [];
    bare.objects.deployments = bare.objects.deployments!.filter((d) => d.metadata?.name === 'orders');
    expect(findings(bare, ['serviceaccount-missing'])).toEqual([]);
    expect(ids(findings(bare, ['serviceaccount-missing'], { mesh: 'linkerd' }))).toEqual([
      'serviceaccount-missing Deployment shop/orders',
    ]);
    // The token case needs the webhooks: silent.
    expect(
      findings(view('linkerd', [F('serviceaccount-missing', 'fires-linkerd-token.yaml')]), [
        'serviceaccount-missing',
      ]).map((f) => f.severity),
    ).not.toContain('warning');
  });

  it('quota-blocks-proxy: a FailedCreate naming the proxy containers is the API server saying so', () => {
    const fs = findings(view('linkerd', [F('quota-blocks-proxy', 'fires-linkerd-must-specify.yaml')], 'ledger'), [
      'quota-blocks-proxy',
    ]);
    expect(ids(fs)).toEqual(['quota-blocks-proxy Deployment ledger/api']);
    expect(fs[0]!.evidence.missing).toEqual({
      'limits.cpu': ['linkerd-init', 'linkerd-proxy'],
      'limits.memory': ['linkerd-init', 'linkerd-proxy'],
    });
    const full = findings(cluster('linkerd', [F('quota-blocks-proxy', 'fires-linkerd-must-specify.yaml')]), [
      'quota-blocks-proxy',
    ]);
    expect(fs[0]!.fix).toEqual(full[0]!.fix);
  });

  const meshedLedger = (proxyResources: string) => `apiVersion: v1
kind: ResourceQuota
metadata: {name: mem, namespace: shop, uid: quota-mem}
spec: {hard: {limits.memory: 8Gi}}
status: {hard: {limits.memory: 8Gi}, used: {limits.memory: 1Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ledger, namespace: shop, uid: dep-ledger}
spec:
  replicas: 1
  selector: {matchLabels: {app: ledger}}
  template:
    metadata: {labels: {app: ledger}}
    spec: {containers: [{name: ledger, image: example/ledger:1, resources: {limits: {memory: 256Mi}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: ledger-6c7d8e9f5-aaaaa
  namespace: shop
  uid: pod-ledger
  creationTimestamp: "2026-11-01T00:00:00Z"
  labels: {app: ledger, pod-template-hash: 6c7d8e9f5}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: ledger-6c7d8e9f5, uid: rs-ledger, controller: true}]
spec:
  initContainers: [{name: linkerd-init, image: "cr.l5d.io/linkerd/proxy-init:v2.2.3", resources: ${proxyResources}}]
  containers:
  - {name: linkerd-proxy, image: "cr.l5d.io/linkerd/proxy:stable-2.14.10", resources: ${proxyResources}}
  - {name: ledger, image: example/ledger:1, resources: {limits: {memory: 256Mi}}}
status: {phase: Running}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: ledger-6c7d8e9f5
  namespace: shop
  uid: rs-ledger
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: ledger, uid: dep-ledger, controller: true}]
`;

  it('quota-blocks-proxy: a meshed workload is judged with the proxy its pods were given', () => {
    const fs = findings(view('linkerd', [meshedLedger('{requests: {cpu: 100m, memory: 20Mi}}')], 'shop'), [
      'quota-blocks-proxy',
    ]);
    expect(ids(fs)).toEqual(['quota-blocks-proxy Deployment shop/ledger']);
    expect(fs[0]!.evidence.missing).toEqual({ 'limits.memory': ['linkerd-init', 'linkerd-proxy'] });
    expect(fs[0]!.evidence.proxy).toMatchObject({
      source: { 'requests.cpu': 'pod ledger-6c7d8e9f5-aaaaa (as injected)' },
    });
    // The limit came from somewhere we cannot read (the namespace's annotations): the pod shows it.
    expect(
      findings(
        view('linkerd', [meshedLedger('{requests: {cpu: 100m, memory: 20Mi}, limits: {memory: 250Mi}}')], 'shop'),
        ['quota-blocks-proxy'],
      ),
    ).toEqual([]);
    // A workload whose pods show no mesh and no event names one: unknown, silent.
    expect(findings(view('linkerd', [F('quota-blocks-proxy', 'ok-app-unset.yaml')]), ['quota-blocks-proxy'])).toEqual(
      [],
    );
  });

  it('job-never-completes: a hung meshed Job shows in its pods alone; the template warning needs the webhooks', () => {
    expect(
      ids(
        findings(view('linkerd', [F('job-never-completes', 'fires-linkerd-hung.yaml')], 'shop'), [
          'job-never-completes',
        ]),
      ),
    ).toEqual(['job-never-completes Job shop/migrate']);
    expect(
      ids(
        findings(view('istio', [F('job-never-completes', 'fires-istio-cronjob-hung.yaml')]), ['job-never-completes']),
      ),
    ).not.toEqual([]);
    expect(
      findings(view('linkerd', [F('job-never-completes', 'ok-linkerd-just-exited.yaml')]), ['job-never-completes']),
    ).toEqual([]);
    expect(findings(view('both', [F('job-never-completes', 'fires-templates.yaml')]), ['job-never-completes'])).toEqual(
      [],
    );
  });
});

describe('healthy clusters stay silent in namespace-only mode', () => {
  for (const base of ['linkerd', 'istio', 'both'] as const) {
    it(`${base}, all namespaces`, () => expect(findings(namespaceOnly(cluster(base)))).toEqual([]));
    for (const ns of ['default', 'kube-system', 'linkerd', 'istio-system', 'shop', 'store', 'payments', 'legacy']) {
      it(`${base}, -n ${ns}`, () => expect(findings(namespaceOnly(cluster(base), ns))).toEqual([]));
    }
  }
  it('the golden cluster: every namespace-only finding is one the full view reports too', () => {
    const key = (f: Finding) => `${f.id} ${f.resource.kind}/${f.resource.namespace ?? ''}/${f.resource.name}`;
    const full = new Set(findings(cluster('none', ['golden-cluster.yaml'])).map(key));
    const partial = findings(namespaceOnly(cluster('none', ['golden-cluster.yaml']))).map(key);
    expect(partial.length).toBeGreaterThan(0);
    for (const k of partial) expect(full.has(k), k).toBe(true);
  });
});
