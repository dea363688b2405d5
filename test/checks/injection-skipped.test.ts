/**
 * Where injection-skipped fires, and its near misses (test/helpers/check-tester.ts); what it quotes and
 * how each release's reason is read, and that sidecar-missing leaves those pods to it.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings, ids } from '../helpers/fixtures.js';

checkCases('injection-skipped', {
  fires: [
    { fixtures: 'fires-linkerd-envoy.yaml', findings: ['Deployment shop/edge'] },
    { fixtures: 'fires-linkerd-several-reasons.yaml', findings: ['Job orders/import'] },
    { fixtures: 'fires-linkerd-token-mount.yaml', findings: ['Deployment shop/cart'] },
  ],
  silent: [
    { fixtures: 'ok-linkerd-not-asked.yaml' },
    { fixtures: 'ok-linkerd-pods-newer-than-event.yaml' },
    { fixtures: 'ok-linkerd-since-injected.yaml' },
  ],
});

const F = (name: string) => `checks/injection-skipped/${name}.yaml`;

describe('injection-skipped', () => {
  it("quotes the injector and reads Linkerd 2.11's automount reason as its token-mount rule", () => {
    const [f, ...rest] = findings(cluster('linkerd', [F('fires-linkerd-token-mount')]), ['injection-skipped']);
    expect(rest).toEqual([]);
    expect(f!.message).toBe(
      '2 pods of Deployment shop/cart run without a Linkerd proxy because its injector skipped them, saying: automountServiceAccountToken set to "false" (Linkerd 2.10 and 2.11 skip every pod whose containers have no ServiceAccount token mount, even when the pod template does not turn it off (ServiceAccount cart sets automountServiceAccountToken: false)).',
    );
    expect(f!.evidence).toMatchObject({
      injector: {
        event: 'InjectionSkipped',
        object: 'Deployment/cart',
        reasons: ['automountServiceAccountToken set to "false"'],
        count: 2,
      },
      readings: [{ serviceAccount: 'cart', serviceAccountAutomount: false, templateAutomount: null }],
    });
    expect(String((f!.evidence.readings as { source: string }[])[0]!.source)).toMatch(/stable-2\.11\.0 \(02064b02\)/);
    expect(f!.fix).toEqual([
      `kubectl patch deployment/cart -n shop --type=merge -p '{"spec":{"template":{"spec":{"automountServiceAccountToken":true}}}}'`,
      '# or upgrade Linkerd to 2.12 or later, which injects such pods with projected tokens',
      'kubectl logs -n linkerd deploy/linkerd-proxy-injector -c proxy-injector --tail=200',
    ]);
  });

  it('names the container an old release takes for a proxy, and splits the reasons as the injector joined them', () => {
    const [edge] = findings(cluster('linkerd', [F('fires-linkerd-envoy')]), ['injection-skipped']);
    expect(edge!.evidence.readings).toMatchObject([{ container: 'envoy (docker.io/envoyproxy/envoy-alpine:v1.12.2)' }]);
    expect(edge!.fix[0]).toBe('# upgrade Linkerd to stable-2.8.0 or later, or rename the container');
    const [job] = findings(cluster('linkerd', [F('fires-linkerd-several-reasons')]), ['injection-skipped']);
    expect((job!.evidence.injector as { reasons: string[] }).reasons).toEqual([
      'neither the namespace nor the pod have the annotation "linkerd.io/inject:enabled"',
      'automountServiceAccountToken set to "false", with Values.identity.serviceAccountTokenProjection set to "false"',
    ]);
    expect(job!.message).toContain('they were created before it was set');
  });

  it('outranks sidecar-missing: the pods the event stands for are not also called missing', () => {
    for (const f of ['fires-linkerd-token-mount', 'fires-linkerd-envoy', 'fires-linkerd-several-reasons'])
      expect(
        ids(findings(cluster('linkerd', [F(f)]), ['sidecar-missing', 'injection-skipped'])).every((x) =>
          x.startsWith('injection-skipped '),
        ),
      ).toBe(true);
    // Pods newer than the event are sidecar-missing's, with the skip as evidence.
    const [s] = findings(cluster('linkerd', [F('ok-linkerd-pods-newer-than-event')]), [
      'sidecar-missing',
      'injection-skipped',
    ]);
    expect(ids([s!])).toEqual(['sidecar-missing Deployment shop/cart']);
    expect(s!.evidence.injectionSkipped).toMatchObject({ reasons: ['hostNetwork is enabled'] });
  });
});
