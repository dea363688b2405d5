/**
 * Where webhook-stale fires, and its near misses (test/helpers/check-tester.ts); its evidence and
 * fix; webhook-no-endpoints leaves the leftovers to it.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings, ids } from '../helpers/fixtures.js';

const dir = 'checks/webhook-stale';

checkCases('webhook-stale', {
  fires: [
    {
      fixtures: 'fires-istio-old-revision-service-gone.yaml',
      findings: ['MutatingWebhookConfiguration istio-sidecar-injector-1-23'],
      said: [
        {
          id: 'left-behind-called',
          params: {
            config: 'istio-sidecar-injector-1-23',
            services: 'istio-system/istiod-1-23',
            shown: 'store/frontend',
          },
        },
      ],
    },
    {
      fixtures: 'fires-linkerd-namespace-gone.yaml',
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config-legacy'],
      said: [{ id: 'left-behind-called', params: { why: 'whose namespace no longer exists' } }],
    },
    {
      fixtures: 'fires-kuma-old-service.yaml',
      findings: ['MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration-old'],
    },
    ...(
      [
        [
          'fires-istio-1.5-injector-uninstalled.yaml',
          'istio-sidecar-injector',
          'istio-system/istio-sidecar-injector',
          'Istio',
        ],
        [
          'fires-linkerd-injector-uninstalled.yaml',
          'linkerd-proxy-injector-webhook-config',
          'linkerd/linkerd-proxy-injector',
          'Linkerd',
        ],
        [
          'fires-consul-injector-uninstalled.yaml',
          'consul-connect-injector',
          'consul/consul-connect-injector',
          'Consul',
        ],
      ] as const
    ).map(([fixtures, config, services, meshTitle]) => ({
      fixtures,
      findings: [`MutatingWebhookConfiguration ${config}`],
      said: [
        {
          id: 'left-behind-called',
          params: {
            config,
            services,
            why: `which no longer exists, and no ${meshTitle} injector Deployment is left in its namespace (uninstalled)`,
          },
        },
      ],
    })),
  ],
  silent: [
    { fixtures: 'ok-istio-lone-service-missing.yaml' },
    { fixtures: 'ok-linkerd-second-config-live.yaml' },
    { fixtures: 'ok-linkerd-service-gone-injector-runs.yaml' },
  ],
});

describe('webhook-stale: evidence, fix, and webhook-no-endpoints', () => {
  it('an uninstalled injector: the leftover is deleted or the mesh reinstalled; reported once; not when the Deployments were not read there', () => {
    const snap = cluster('linkerd', [`${dir}/fires-linkerd-injector-uninstalled.yaml`]);
    const all = ['webhook-stale', 'webhook-no-endpoints', 'injector-unavailable'];
    const [f, ...rest] = findings(snap, all);
    expect(rest).toEqual([]);
    expect(f!.id).toBe('webhook-stale');
    expect(f!.evidence).toMatchObject({ namespaceGone: false, injectorGone: true, liveConfigurations: [] });
    expect(f!.fix).toEqual([
      '# delete the leftover of an injector that is no longer installed, or reinstall the mesh if it should inject',
      'kubectl delete mutatingwebhookconfiguration linkerd-proxy-injector-webhook-config',
    ]);
    // The Deployments of the injector's namespace refused: not read is not gone (and that namespace's
    // Service standing is unknown too: nothing is said of it).
    const refused = { ...snap, unavailableIn: { deployments: { linkerd: 'forbidden' } } };
    expect(ids(findings(refused, all))).toEqual([]);
  });

  it('names the leftover and the live configuration, and deletes the leftover', () => {
    const [f] = findings(cluster('istio', [`${dir}/fires-istio-old-revision-service-gone.yaml`]), ['webhook-stale']);
    expect(f!.message).toBe(
      'MutatingWebhookConfiguration istio-sidecar-injector-1-23 of Istio is left behind: it calls Service istio-system/istiod-1-23, which no longer exists, while istio-sidecar-injector calls a live injector. It is called for the pods of 1 workload (store/frontend): failurePolicy Fail: pod creation is blocked.',
    );
    expect(f!.evidence).toMatchObject({
      services: ['istio-system/istiod-1-23'],
      namespaceGone: false,
      liveConfigurations: ['istio-sidecar-injector'],
    });
    expect(f!.fix).toEqual([
      '# delete the leftover, the live configuration stays and injects the pods',
      'kubectl delete mutatingwebhookconfiguration istio-sidecar-injector-1-23',
    ]);
  });

  it('a leftover is reported once: webhook-no-endpoints and injector-unavailable leave it, and still report a lone missing Service', () => {
    const all = ['webhook-stale', 'webhook-no-endpoints', 'injector-unavailable'];
    expect(ids(findings(cluster('linkerd', [`${dir}/fires-linkerd-namespace-gone.yaml`]), all))).toEqual([
      'webhook-stale MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config-legacy',
    ]);
    expect(ids(findings(cluster('istio', [`${dir}/fires-istio-old-revision-service-gone.yaml`]), all))).toEqual([
      'webhook-stale MutatingWebhookConfiguration istio-sidecar-injector-1-23',
    ]);
    // An uninstalled injector whose ConfigMap went too: the leftover, not the injector's configuration (no injector runs).
    expect(
      ids(
        findings(cluster('istio-1.5', [`${dir}/fires-istio-1.5-injector-uninstalled.yaml`]), [
          ...all,
          'injector-config-excludes',
        ]),
      ),
    ).toEqual(['webhook-stale MutatingWebhookConfiguration istio-sidecar-injector']);
    expect(ids(findings(cluster('istio', [`${dir}/ok-istio-lone-service-missing.yaml`]), all))).toEqual([
      'webhook-no-endpoints Service istio-system/istiod',
    ]);
  });
});
