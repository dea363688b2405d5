import { describe, expect, it } from 'vitest';
import { cluster, findings, ids } from '../helpers/fixtures.js';

describe('namespace-not-enabled', () => {
  const run = (snap: ReturnType<typeof cluster>) => findings(snap, ['namespace-not-enabled']);

  it('fires for the namespace asked about with -n when it has unmeshed workloads', () => {
    const fs = run(cluster('linkerd', [], { allNamespaces: false, namespace: 'legacy' }));
    expect(ids(fs)).toEqual(['namespace-not-enabled Namespace legacy']);
    expect(fs[0]!.severity).toBe('warning');
    expect(fs[0]!.fix).toEqual([
      'kubectl annotate namespace legacy linkerd.io/inject=enabled --overwrite',
      'kubectl rollout restart deployment/billing -n legacy',
    ]);
    expect(fs[0]!.evidence.unmeshedWorkloads).toEqual(['Deployment/billing']);
  });

  it('stays silent with -A about plain unmeshed namespaces and kube-system', () => {
    expect(run(cluster('linkerd'))).toEqual([]);
    expect(run(cluster('istio'))).toEqual([]);
    expect(run(cluster('linkerd', [], { allNamespaces: false, namespace: 'kube-system' }))).toEqual([]);
  });

  it('fires with -A when a namespace mixes meshed and unmeshed workloads', () => {
    const fs = run(cluster('linkerd', ['checks/namespace-not-enabled/mixed-linkerd.yaml']));
    expect(ids(fs)).toEqual(['namespace-not-enabled Namespace orders']);
    expect(fs[0]!.evidence.meshedWorkloads).toEqual(['Deployment/checkout']);
    expect(fs[0]!.evidence.unmeshedWorkloads).toEqual(['Deployment/invoices']);
    expect(fs[0]!.affectedPods).toBe(1);
  });

  it('suggests the Istio label an installed webhook actually serves', () => {
    const fs = run(
      cluster(
        'istio',
        [
          `
apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: default, uid: pod-debug}
spec: {containers: [{name: sh, image: busybox}]}
status: {phase: Running}
`,
        ],
        { allNamespaces: false, namespace: 'default' },
      ),
    );
    expect(ids(fs)).toEqual(['namespace-not-enabled Namespace default']);
    expect(fs[0]!.fix[0]).toBe('kubectl label namespace default istio-injection=enabled --overwrite');
  });

  it('is silent when the namespace has a marker of any kind (left to other checks)', () => {
    const fs = run(
      cluster(
        'linkerd',
        [
          `
apiVersion: v1
kind: Namespace
metadata: {name: legacy, labels: {kubernetes.io/metadata.name: legacy}, annotations: {linkerd.io/inject: "true"}}
`,
        ],
        { allNamespaces: false, namespace: 'legacy' },
      ),
    );
    expect(fs).toEqual([]);
  });
});

describe('pod-opted-out', () => {
  const run = (snap: ReturnType<typeof cluster>) => findings(snap, ['pod-opted-out']);

  it('fires for a Linkerd template opt-out in an enabled namespace, fixing the template', () => {
    const fs = run(cluster('linkerd', ['checks/pod-opted-out/fires-linkerd.yaml']));
    expect(ids(fs)).toEqual(['pod-opted-out Deployment shop/cart']);
    expect(fs[0]!.affectedPods).toBe(1);
    expect(fs[0]!.fix).toEqual([
      `kubectl patch deployment/cart -n shop --type=json -p '[{"op":"remove","path":"/spec/template/metadata/annotations/linkerd.io~1inject"}]'`,
    ]);
  });

  it('fires for an Istio label opt-out (the label wins over the annotation)', () => {
    const fs = run(cluster('istio', ['checks/pod-opted-out/fires-istio.yaml']));
    expect(ids(fs)).toEqual(['pod-opted-out Deployment store/search']);
    expect(fs[0]!.evidence.optOut).toEqual({ from: 'label', key: 'sidecar.istio.io/inject', value: 'false' });
    expect(fs[0]!.fix[0]).toContain('/spec/template/metadata/labels/sidecar.istio.io~1inject');
  });

  it('stays silent for near misses', () => {
    expect(run(cluster('linkerd', ['checks/pod-opted-out/ok-not-enabled-namespace.yaml']))).toEqual([]);
    expect(run(cluster('istio', ['checks/pod-opted-out/ok-istio-annotation-overridden.yaml']))).toEqual([]);
  });
});
