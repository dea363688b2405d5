/**
 * Where injection-marker-invalid fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/injection.test.ts, test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts, test/checks/namespace-only.test.ts, test/checks/marker-table.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('injection-marker-invalid', {
  fires: [
    {
      fixtures: 'fires-both-meshes.yaml',
      findings: ['Namespace dual', 'Namespace dual', 'Namespace mixedmarks', 'Deployment vault/ledger'],
    },
    { fixtures: 'fires-consul-namespace.yaml', findings: ['Namespace catalog'] },
    { fixtures: 'fires-consul-workload.yaml', findings: ['Deployment catalog/reports'] },
    { fixtures: 'fires-consul-misplaced.yaml', findings: ['CronJob batch/nightly'] },
    { fixtures: 'fires-istio-1-27-inject-values.yaml', findings: ['Deployment vals27/shouty'] },
    { fixtures: 'fires-istio-inject-values.yaml', findings: ['Deployment vals/shouty', 'Deployment vals/eager'] },
    { fixtures: 'fires-istio-ossm-2-inject-values.yaml', findings: ['Deployment bookinfo/reviews'] },
    {
      fixtures: 'fires-istio.yaml',
      findings: [
        'Namespace ns-annotated',
        'Namespace ns-both',
        'Deployment default/annotated',
        'Namespace ns-both-old',
        'Namespace ns-yes',
      ],
    },
    { fixtures: 'fires-istio-rev-under-namespace.yaml', findings: ['Deployment payments/ledger'] },
    {
      fixtures: 'fires-istio-misplaced.yaml',
      findings: ['Deployment plain/ownlabel', 'Deployment plain/ownrev', 'CronJob plain/nightly'],
    },
    { fixtures: 'fires-kuma-misplaced.yaml', findings: ['Deployment plain/ownlabel', 'CronJob plain/nightly'] },
    { fixtures: 'fires-kuma-namespace.yaml', findings: ['Namespace orders'] },
    { fixtures: 'fires-kuma-workload.yaml', findings: ['Deployment orders/auditor'] },
    { fixtures: 'fires-kuma-mesh-name-dot-namespace.yaml', findings: ['Namespace team-payments'] },
    { fixtures: 'fires-kuma-1.x-mesh-name-annotation.yaml', findings: ['Deployment eu-shop/basket'] },
    {
      fixtures: 'fires-linkerd-namespace.yaml',
      findings: ['Namespace ns-false', 'Namespace ns-label', 'Namespace ns-true', 'Namespace ns-legacy'],
    },
    {
      fixtures: 'fires-linkerd-workload.yaml',
      findings: [
        'Deployment legacy/invalid',
        'Deployment legacy/labelled',
        'Deployment legacy/ownmeta',
        'Deployment shop/redundant',
      ],
    },
    // An opt-out on the workload's own metadata, where no mesh reads it (issue 31 item 12).
    { fixtures: 'fires-linkerd-optout-on-deployment.yaml', findings: ['Deployment shop/web'] },
    { fixtures: 'fires-istio-optout-on-deployment.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-optout-on-deployment.yaml', findings: ['Deployment orders/api'] },
    // A workload of the mesh's own namespace that is not its control plane: examined like any other.
    { fixtures: 'fires-istio-addon-in-istio-system.yaml', findings: ['Deployment istio-system/grafana'] },
    // Who asks, who wins: the pod asks, the namespace has no label, and the release's webhooks select namespaces only (istio/istio#26600).
    { fixtures: 'fires-istio-1.5-pod-asks-namespace-not.yaml', findings: ['Deployment test-inject/test-inject'] },
  ],
  silent: [
    { fixtures: 'ok-consul.yaml' },
    { fixtures: 'ok-istio-1.5-namespace-opts-out.yaml' },
    { fixtures: 'ok-istio-rev-same.yaml' },
    { fixtures: 'ok-istio-valid-annotations.yaml' },
    { fixtures: 'ok-istio-inject-values.yaml' },
    { fixtures: 'ok-istio.yaml' },
    { fixtures: 'ok-istio-misplaced.yaml' },
    { fixtures: 'ok-kuma.yaml' },
    { fixtures: 'ok-kuma-misplaced.yaml' },
    { fixtures: 'ok-kuma-mesh-name.yaml' },
    { fixtures: 'ok-linkerd.yaml' },
    { fixtures: 'ok-linkerd-optout-on-template-too.yaml' },
    { fixtures: 'ok-istio-addon-in-istio-system.yaml' },
  ],
});

describe('an opt-out where the mesh never reads it', () => {
  it('says where it is, that the pods are injected all the same, and moves it onto the pod template', () => {
    const [f] = findings(cluster('istio', ['checks/injection-marker-invalid/fires-istio-optout-on-deployment.yaml']), [
      'injection-marker-invalid',
    ]);
    expect(f!.message).toBe(
      'Deployment store/frontend has label sidecar.istio.io/inject=false on its own metadata, but Istio reads it only from the pod template, so its pods are injected all the same.',
    );
    expect(f!.evidence).toMatchObject({
      marker: 'Deployment metadata label sidecar.istio.io/inject=false',
      expected: 'pod template label sidecar.istio.io/inject=false',
      optOut: true,
    });
    const fix = f!.fix.join('\n');
    expect(fix).toBe(
      [
        `kubectl patch deployment/frontend -n store --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"sidecar.istio.io/inject":"false"}}}}}'`,
        'kubectl label deployment/frontend -n store sidecar.istio.io/inject-',
      ].join('\n'),
    );
  });
});

describe("a pod template's istio.io/rev under a namespace's", () => {
  it('says the namespace wins and which revision the pods get', () => {
    const [f] = findings(cluster('istio', ['checks/injection-marker-invalid/fires-istio-rev-under-namespace.yaml']), [
      'injection-marker-invalid',
    ]);
    expect(f!.message).toBe(
      "Deployment payments/ledger asks for Istio revision canary with pod template label istio.io/rev=canary, but namespace payments's label istio.io/rev=default wins: its pods get revision default (webhook rev.namespace.sidecar-injector.istio.io).",
    );
    expect(f!.evidence).toMatchObject({ revision: 'default', namespaceMarker: 'label istio.io/rev=default' });
  });
});
