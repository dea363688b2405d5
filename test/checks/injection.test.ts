import { describe, expect, it } from 'vitest';
import { fieldSetAt } from '../../src/k8s/managed-fields.js';
import { enabledSince } from '../../src/facts/missing-proxy.js';
import { cluster, findings, ids } from '../helpers/fixtures.js';

const F = (check: string, file: string) => `checks/${check}/${file}`;
const INJECTION = [
  'injection-marker-invalid',
  'webhook-excludes-namespace',
  'pod-predates-enablement',
  'sidecar-missing',
];
const byResource = (fs: ReturnType<typeof findings>, name: string) => fs.find((f) => f.resource.name === name)!;

describe('managed-fields', () => {
  const ns = {
    metadata: {
      managedFields: [
        { manager: 'a', time: '2026-01-01T00:00:00Z', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {} } } } },
        {
          manager: 'b',
          time: '2026-02-01T00:00:00Z',
          fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {}, 'f:y': {} } } },
        },
        { manager: 'c', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:z': {} } } } },
      ],
    },
  };
  const path = (key: string) => ['f:metadata', 'f:labels', `f:${key}`];

  it('dates a field by the latest manager owning it', () => {
    expect(fieldSetAt(ns, path('x'))?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(fieldSetAt(ns, path('y'))?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
  });

  it('is undefined without managedFields, for unowned fields, and for owners without a time', () => {
    expect(fieldSetAt({ metadata: {} }, path('x'))).toBeUndefined();
    expect(fieldSetAt(ns, path('w'))).toBeUndefined();
    expect(fieldSetAt(ns, path('z'))).toBeUndefined();
  });

  it('takes the earliest marker, and none when one is undated', () => {
    const a = { on: 'a', text: 'a', setAt: new Date('2026-03-01T00:00:00Z') };
    const b = { on: 'b', text: 'b', setAt: new Date('2026-01-01T00:00:00Z') };
    expect(enabledSince([a, b])?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(enabledSince([a, { on: 'c', text: 'c' }])).toBeUndefined();
    expect(enabledSince([])).toBeUndefined();
  });
});

describe('pod-predates-enablement', () => {
  const run = (snap: ReturnType<typeof cluster>) => findings(snap, ['pod-predates-enablement']);

  it('fires for Linkerd pods created before the namespace annotation, dated by managedFields', () => {
    const fs = run(cluster('linkerd', [F('pod-predates-enablement', 'fires-linkerd.yaml')]));
    // worker's pod was created after the annotation: not this check's cause.
    expect(ids(fs)).toEqual(['pod-predates-enablement Deployment orders/api']);
    expect(fs[0]!.severity).toBe('error');
    expect(fs[0]!.affectedPods).toBe(2);
    expect(fs[0]!.evidence).toEqual({
      marker: 'annotation linkerd.io/inject=enabled',
      markerOn: 'Namespace orders',
      markerSetAt: '2026-03-01T09:00:00.000Z',
      pods: [
        { name: 'api-7d9f8c6b5-aaaaa', creationTimestamp: '2026-02-01T00:00:00Z' },
        { name: 'api-7d9f8c6b5-bbbbb', creationTimestamp: '2026-02-02T00:00:00Z' },
      ],
    });
    expect(fs[0]!.fix).toEqual(['kubectl rollout restart deployment/api -n orders']);
  });

  it('fires for Istio pods created before the istio-injection label', () => {
    const fs = run(cluster('istio', [F('pod-predates-enablement', 'fires-istio.yaml')]));
    expect(ids(fs)).toEqual(['pod-predates-enablement Deployment catalog/books']);
    expect(fs[0]!.evidence.marker).toBe('label istio-injection=enabled');
    expect(fs[0]!.evidence.markerSetAt).toBe('2026-05-01T12:00:00.000Z');
    expect(fs[0]!.fix).toEqual(['kubectl rollout restart deployment/books -n catalog']);
  });

  it('dates a pod template opt-in (and a running pod annotated in place) by the workload', () => {
    const fs = run(cluster('linkerd', [F('pod-predates-enablement', 'fires-linkerd-template.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'pod-predates-enablement Pod legacy/debug',
      'pod-predates-enablement StatefulSet legacy/cache',
    ]);
    const cache = byResource(fs, 'cache');
    expect(cache.evidence.markerOn).toBe('StatefulSet legacy/cache pod template');
    expect(cache.evidence.markerSetAt).toBe('2026-06-01T00:00:00.000Z');
    expect(cache.fix).toEqual(['kubectl rollout restart statefulset/cache -n legacy']);
    expect(byResource(fs, 'debug').fix).toEqual([
      'kubectl get pod debug -n legacy -o yaml > debug.yaml',
      'kubectl replace --force -f debug.yaml',
    ]);
  });

  it('stays silent when the marker cannot be dated (no managedFields) and on healthy clusters', () => {
    expect(
      run(
        cluster('linkerd', [
          F('pod-predates-enablement', 'fires-linkerd.yaml'),
          F('pod-predates-enablement', 'ok-linkerd-no-managed-fields.yaml'),
        ]),
      ),
    ).toEqual([]);
    expect(run(cluster('both'))).toEqual([]);
  });
});

describe('sidecar-missing', () => {
  const run = (snap: ReturnType<typeof cluster>, extra: string[] = []) => findings(snap, ['sidecar-missing', ...extra]);

  it('fires for Linkerd pods created after the marker without a proxy', () => {
    const fs = run(cluster('linkerd', [F('sidecar-missing', 'fires-linkerd.yaml')]));
    expect(ids(fs)).toEqual(['sidecar-missing Deployment shop/cart']);
    const f = fs[0]!;
    expect(f.affectedPods).toBe(2);
    expect(f.evidence.pods).toEqual([
      { name: 'cart-6f7d8c9b5-aaaaa', creationTimestamp: '2026-11-20T10:00:00Z' },
      { name: 'cart-6f7d8c9b5-bbbbb', creationTimestamp: '2026-11-20T10:00:01Z' },
    ]);
    expect(f.evidence.markers).toEqual([
      { on: 'Namespace shop', marker: 'annotation linkerd.io/inject=enabled', setAt: '2026-01-05T10:02:00.000Z' },
    ]);
    expect(f.evidence.webhook).toEqual({
      name: 'linkerd-proxy-injector.linkerd.io',
      configuration: 'linkerd-proxy-injector-webhook-config',
      failurePolicy: 'Ignore',
      service: 'linkerd/linkerd-proxy-injector',
    });
    expect(f.fix).toEqual([
      'kubectl get events -n shop --sort-by=.lastTimestamp | grep cart',
      'kubectl logs -n linkerd deploy/linkerd-proxy-injector -c proxy-injector',
      'kubectl rollout restart deployment/cart -n shop',
    ]);
    // Alone, the link to a broken webhook is dropped by the ranker.
    expect(f.causedBy).toBeUndefined();
  });

  it('links to a broken webhook found in the same run, which ranks first', () => {
    const snap = cluster('linkerd', [
      F('sidecar-missing', 'fires-linkerd.yaml'),
      `
apiVersion: v1
kind: Service
metadata: {name: linkerd-proxy-injector, namespace: linkerd, annotations: {meshdoctor.test/delete: "true"}}
`,
    ]);
    const fs = run(snap, ['webhook-no-endpoints']);
    expect(fs.map((f) => f.id)).toEqual(['webhook-no-endpoints', 'sidecar-missing']);
    expect(fs[1]!.causedBy).toBe('webhook-broken:linkerd');
  });

  it('fires for Istio, also when the marker time is unknown', () => {
    const fs = run(cluster('istio', [F('sidecar-missing', 'fires-istio.yaml')]));
    expect(ids(fs).sort()).toEqual(['sidecar-missing Deployment store/search', 'sidecar-missing Pod payments/teller']);
    const search = byResource(fs, 'search');
    expect((search.evidence.webhook as { name: string }).name).toBe('namespace.sidecar-injector.istio.io');
    expect(search.fix).toContain('kubectl logs -n istio-system deploy/istiod -c discovery');
    const teller = byResource(fs, 'teller');
    expect(teller.evidence.markers).toEqual([
      { on: 'Namespace payments', marker: 'label istio.io/rev=default', setAt: null },
    ]);
    expect(teller.messageId).toBe('sidecar-missing/unknown-time');
  });

  it('takes over from pod-predates-enablement when the marker cannot be dated', () => {
    const fs = findings(
      cluster('linkerd', [
        F('pod-predates-enablement', 'fires-linkerd.yaml'),
        F('pod-predates-enablement', 'ok-linkerd-no-managed-fields.yaml'),
      ]),
      INJECTION,
    );
    expect(ids(fs).sort()).toEqual([
      'sidecar-missing Deployment orders/api',
      'sidecar-missing Deployment orders/worker',
    ]);
  });

  it('stays silent for finished, host-network, opted-out, native-sidecar, other-mesh, unenabled and control-plane pods', () => {
    expect(run(cluster('linkerd', [F('sidecar-missing', 'ok-linkerd.yaml')]))).toEqual([]);
    expect(run(cluster('istio', [F('sidecar-missing', 'ok-istio.yaml')]))).toEqual([]);
    expect(
      run(cluster('both', [F('sidecar-missing', 'ok-linkerd.yaml'), F('sidecar-missing', 'ok-istio.yaml')])),
    ).toEqual([]);
  });
});

describe('injection-marker-invalid', () => {
  const run = (snap: ReturnType<typeof cluster>) => findings(snap, ['injection-marker-invalid']);

  it('fires for Linkerd namespace markers that do nothing', () => {
    const fs = run(cluster('linkerd', [F('injection-marker-invalid', 'fires-linkerd-namespace.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'injection-marker-invalid Namespace ns-false',
      'injection-marker-invalid Namespace ns-label',
      'injection-marker-invalid Namespace ns-legacy',
      'injection-marker-invalid Namespace ns-true',
    ]);
    const t = byResource(fs, 'ns-true');
    expect(t.evidence).toMatchObject({
      marker: 'annotation linkerd.io/inject=true',
      expected: 'annotation linkerd.io/inject=enabled',
    });
    expect(t.fix).toEqual([
      'kubectl annotate namespace ns-true linkerd.io/inject=enabled --overwrite',
      'kubectl rollout restart deployment/app -n ns-true',
    ]);
    const off = byResource(fs, 'ns-false');
    expect(off.evidence.blockedWorkloads).toEqual(['Deployment/optin']);
    expect(off.fix).toEqual([
      'kubectl annotate namespace ns-false linkerd.io/inject=disabled --overwrite',
      'kubectl rollout restart deployment/optin -n ns-false',
    ]);
    expect(byResource(fs, 'ns-label').fix).toEqual([
      'kubectl annotate namespace ns-label linkerd.io/inject=enabled --overwrite',
      'kubectl label namespace ns-label linkerd.io/inject-',
      'kubectl rollout restart deployment/app -n ns-label',
    ]);
    expect(byResource(fs, 'ns-legacy').fix[1]).toBe('kubectl label namespace ns-legacy linkerd.io/auto-inject-');
  });

  it('fires for Linkerd workload markers that do nothing, fixing the pod template', () => {
    const fs = run(cluster('linkerd', [F('injection-marker-invalid', 'fires-linkerd-workload.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'injection-marker-invalid Deployment legacy/invalid',
      'injection-marker-invalid Deployment legacy/labelled',
      'injection-marker-invalid Deployment legacy/ownmeta',
      'injection-marker-invalid Deployment shop/redundant',
    ]);
    const setEnabled = `kubectl patch deployment/%s -n legacy --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"linkerd.io/inject":"enabled"}}}}}'`;
    expect(byResource(fs, 'invalid').fix).toEqual([setEnabled.replace('%s', 'invalid')]);
    expect(byResource(fs, 'labelled').fix).toEqual([
      setEnabled.replace('%s', 'labelled'),
      `kubectl patch deployment/labelled -n legacy --type=json -p '[{"op":"remove","path":"/spec/template/metadata/labels/linkerd.io~1inject"}]'`,
    ]);
    expect(byResource(fs, 'ownmeta').fix).toEqual([
      setEnabled.replace('%s', 'ownmeta'),
      'kubectl annotate deployment/ownmeta -n legacy linkerd.io/inject-',
    ]);
    // shop is enabled: the invalid template value only needs to go.
    expect(byResource(fs, 'redundant').fix).toEqual([
      `kubectl patch deployment/redundant -n shop --type=json -p '[{"op":"remove","path":"/spec/template/metadata/annotations/linkerd.io~1inject"}]'`,
    ]);
  });

  it('fires for Istio markers that do nothing', () => {
    const fs = run(cluster('istio', [F('injection-marker-invalid', 'fires-istio.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'injection-marker-invalid Deployment default/annotated',
      'injection-marker-invalid Namespace ns-annotated',
      'injection-marker-invalid Namespace ns-both',
      'injection-marker-invalid Namespace ns-both-old',
      'injection-marker-invalid Namespace ns-yes',
    ]);
    expect(byResource(fs, 'ns-annotated').fix.slice(0, 2)).toEqual([
      'kubectl label namespace ns-annotated istio-injection=enabled --overwrite',
      'kubectl annotate namespace ns-annotated istio-injection-',
    ]);
    expect(byResource(fs, 'ns-yes').fix).toEqual([
      'kubectl label namespace ns-yes istio-injection=enabled --overwrite',
    ]);
    const both = byResource(fs, 'ns-both');
    expect(both.evidence).toMatchObject({
      ignoredRevision: 'canary',
      servedRevisions: ['canary', 'default'],
      revisionServed: true,
    });
    expect(both.fix).toEqual([
      'kubectl label namespace ns-both istio-injection-',
      'kubectl rollout restart deployment/app -n ns-both',
    ]);
    expect(byResource(fs, 'ns-both-old').fix).toEqual(['kubectl label namespace ns-both-old istio.io/rev-']);
    expect(byResource(fs, 'annotated').fix).toEqual([
      `kubectl patch deployment/annotated -n default --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"sidecar.istio.io/inject":"true"}}}}}'`,
    ]);
  });

  it('stays silent for deliberate "off" values, stray markers beside working ones, and meshes not installed', () => {
    expect(run(cluster('linkerd', [F('injection-marker-invalid', 'ok-linkerd.yaml')]))).toEqual([]);
    expect(run(cluster('istio', [F('injection-marker-invalid', 'ok-istio.yaml')]))).toEqual([]);
    const istioMarkers = `
apiVersion: v1
kind: Namespace
metadata: {name: ns-yes, labels: {kubernetes.io/metadata.name: ns-yes, istio-injection: "true"}, annotations: {istio.io/rev: canary}}
`;
    expect(run(cluster('linkerd', [istioMarkers]))).toEqual([]);
    expect(run(cluster('istio', [F('injection-marker-invalid', 'fires-linkerd-namespace.yaml')]))).toEqual([]);
  });
});

describe('webhook-excludes-namespace', () => {
  const run = (snap: ReturnType<typeof cluster>) => findings(snap, ['webhook-excludes-namespace']);

  it('fires per namespace for Linkerd: a removable label, and a namespace excluded by name', () => {
    const fs = run(cluster('linkerd', [F('webhook-excludes-namespace', 'fires-linkerd.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'webhook-excludes-namespace Namespace batch',
      'webhook-excludes-namespace Namespace cert-manager',
    ]);
    const batch = byResource(fs, 'batch');
    expect(batch.affectedPods).toBe(2);
    expect(batch.evidence.workloads).toEqual(['Deployment/etl', 'Deployment/loader']);
    expect(batch.evidence.webhooks).toEqual([
      {
        name: 'linkerd-proxy-injector.linkerd.io',
        configuration: 'linkerd-proxy-injector-webhook-config',
        failedTerms: ['config.linkerd.io/admission-webhooks notin (disabled)'],
      },
    ]);
    expect(batch.fix).toEqual([
      'kubectl label namespace batch config.linkerd.io/admission-webhooks-',
      // One restart naming both Deployments (never every Deployment of the namespace).
      'kubectl rollout restart deployment/etl deployment/loader -n batch',
    ]);
    const cm = byResource(fs, 'cert-manager');
    expect(cm.messageId).toBe('webhook-excludes-namespace/no-webhook-can-select');
    expect(cm.params).toMatchObject({ namespace: 'cert-manager', meshTitle: 'Linkerd' });
    expect(cm.fix).toEqual([]);
  });

  it('fires per workload when a custom objectSelector leaves the pod template out', () => {
    const fs = run(cluster('linkerd', [F('webhook-excludes-namespace', 'fires-linkerd-object-selector.yaml')]));
    expect(ids(fs)).toEqual(['webhook-excludes-namespace Deployment shop/gateway']);
    expect(fs[0]!.evidence.webhooks).toEqual([
      {
        name: 'linkerd-proxy-injector.linkerd.io',
        configuration: 'linkerd-proxy-injector-webhook-config',
        failedTerms: ['!example.com/no-mesh'],
      },
    ]);
    expect(fs[0]!.fix).toEqual([
      `kubectl patch deployment/gateway -n shop --type=json -p '[{"op":"remove","path":"/spec/template/metadata/labels/example.com~1no-mesh"}]'`,
    ]);
  });

  it('fires for Istio: an unserved revision (a choice of the installed ones, or installing it) and a namespace the injector ignores', () => {
    const fs = run(cluster('istio', [F('webhook-excludes-namespace', 'fires-istio.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'webhook-excludes-namespace Namespace canary',
      'webhook-excludes-namespace Namespace local-path-storage',
    ]);
    const canary = byResource(fs, 'canary');
    expect(canary.messageId).toBe('webhook-excludes-namespace/revision-unserved');
    expect(canary.params).toMatchObject({ namespace: 'canary', revision: 'canary' });
    expect(canary.message).toContain('no installed webhook serves its revision canary');
    expect(canary.evidence).toMatchObject({ requestedRevision: 'canary', servedRevisions: ['default'] });
    expect((canary.evidence.webhooks as { failedTerms: string[] }[]).map((h) => h.failedTerms)).toContainEqual([
      'istio.io/rev in (default)',
    ]);
    expect(canary.evidence).toMatchObject({ installedRevisions: ['default'], installedTags: {} });
    expect(canary.fix).toEqual([
      '# canary is neither an installed revision nor a tag: choose one below. Pasted as it is, this block runs nothing',
      '# to use the installed revision default: kubectl label namespace canary istio.io/rev=default --overwrite',
      '# to use the installed revision default: kubectl rollout restart deployment/api -n canary',
      '# to install revision canary with istioctl: istioctl install -y --set revision=canary -f YOUR-ISTIOOPERATOR.yaml',
      '# to install revision canary with Helm: helm install istiod-canary istio/istiod -n istio-system --set revision=canary',
      '# to restore tag canary for an installed revision: istioctl tag set canary --revision default',
    ]);
    const lps = byResource(fs, 'local-path-storage');
    expect(lps.evidence.injector).toBe('Istio never injects in local-path-storage');
    expect(lps.fix).toEqual([]);
  });

  it('stays silent for opt-outs, namespaces not asking, and the control plane', () => {
    expect(run(cluster('istio', [F('webhook-excludes-namespace', 'ok-istio.yaml')]))).toEqual([]);
    expect(run(cluster('linkerd', [F('webhook-excludes-namespace', 'ok-linkerd.yaml')]))).toEqual([]);
    // The linkerd namespace carries admission-webhooks=disabled on purpose.
    expect(run(cluster('linkerd', [], { allNamespaces: false, namespace: 'linkerd' }))).toEqual([]);
  });
});

describe('one cause, one finding (marker-invalid > excludes-namespace > predates > sidecar-missing)', () => {
  const all = (snap: ReturnType<typeof cluster>) => ids(findings(snap, INJECTION)).sort();

  it('istio-injection=disabled beside istio.io/rev is a deliberate opt-out: no webhook finding, no marker error', () => {
    const snap = cluster('istio', [F('webhook-excludes-namespace', 'ok-istio-disabled-beside-rev.yaml')]);
    expect(findings(snap)).toEqual([]);
  });

  it('pods predating the marker are not also reported as missing their sidecar', () => {
    const snap = cluster('linkerd', [F('pod-predates-enablement', 'fires-linkerd.yaml')]);
    expect(all(snap)).toEqual([
      'pod-predates-enablement Deployment orders/api',
      'sidecar-missing Deployment orders/worker',
    ]);
  });

  it('an invalid marker silences predates/sidecar-missing for the same namespace', () => {
    // ns-both: istio-injection=enabled injects (default revision), so app's unmeshed pod would
    // otherwise be sidecar-missing; the ignored revision is the finding.
    const snap = cluster('istio', [F('injection-marker-invalid', 'fires-istio.yaml')]);
    expect(all(snap)).toEqual([
      'injection-marker-invalid Deployment default/annotated',
      'injection-marker-invalid Namespace ns-annotated',
      'injection-marker-invalid Namespace ns-both',
      'injection-marker-invalid Namespace ns-both-old',
      'injection-marker-invalid Namespace ns-yes',
    ]);
  });
});
