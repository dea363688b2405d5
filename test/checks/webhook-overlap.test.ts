/**
 * Where webhook-overlap fires, and its near misses (test/helpers/check-tester.ts); which
 * configuration the finding says to delete, and why.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

const dir = 'checks/webhook-overlap';

checkCases('webhook-overlap', {
  fires: [
    {
      fixtures: 'fires-istio-old-revision.yaml',
      findings: ['MutatingWebhookConfiguration istio-sidecar-injector-1-23'],
    },
    {
      fixtures: 'fires-linkerd-duplicate.yaml',
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config-2'],
    },
    {
      fixtures: 'fires-kuma-old-chart.yaml',
      findings: ['MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration-old'],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-revision-own-namespaces.yaml' },
    { fixtures: 'ok-linkerd-second-selects-nothing.yaml' },
    // A leftover whose Service is gone is webhook-stale's, not an overlap.
    { fixtures: 'checks/webhook-stale/fires-istio-old-revision-service-gone.yaml', base: 'istio' },
    // Two meshes' configurations on the same pods are not one mesh's overlap.
    { base: 'both' },
  ],
});

describe('webhook-overlap: which one to delete', () => {
  it('Istio: the last called wins; the configuration whose injector injects the older proxy goes', () => {
    const [f] = findings(cluster('istio', [`${dir}/fires-istio-old-revision.yaml`]), ['webhook-overlap']);
    expect(f!.messageId).toBe('webhook-overlap/delete-one');
    expect(f!.params).toMatchObject({
      second: 'istio-sidecar-injector-1-23',
      keeps: "istio-sidecar-injector-1-23's injection wins (called last, it injects again)",
    });
    expect(f!.evidence).toMatchObject({
      configurations: ['istio-sidecar-injector', 'istio-sidecar-injector-1-23'],
      injectionKept: 'istio-sidecar-injector-1-23',
      remove: 'istio-sidecar-injector-1-23',
      why: 'its injector injects the older proxy (1.23.3, the other 1.24.2)',
      workloads: ['Deployment store/frontend'],
      injectors: {
        'istio-sidecar-injector': 'istio-system/istiod',
        'istio-sidecar-injector-1-23': 'istio-system/istiod-1-23',
      },
    });
    expect(f!.fix).toContain('kubectl delete mutatingwebhookconfiguration istio-sidecar-injector-1-23');
  });

  it('Linkerd: the first injection is kept; a duplicate of the same injector is the one to delete', () => {
    const [f] = findings(cluster('linkerd', [`${dir}/fires-linkerd-duplicate.yaml`]), ['webhook-overlap']);
    expect(f!.messageId).toBe('webhook-overlap/delete-one');
    expect(f!.params!.keeps).toMatch(/^linkerd-proxy-injector-webhook-config's injection is kept \(called first/);
    expect(f!.params!.remove).toBe('linkerd-proxy-injector-webhook-config-2');
    expect(f!.evidence).toMatchObject({
      remove: 'linkerd-proxy-injector-webhook-config-2',
      why: expect.stringContaining('a duplicate'),
    });
  });
});
