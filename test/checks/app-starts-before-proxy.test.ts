/**
 * Where app-starts-before-proxy fires, and its near misses (test/helpers/check-tester.ts): an app that
 * failed in the first seconds of its proxy, in pods the mesh did not hold (read from each pod as
 * injected), with each mesh's hold setting; silent where the pod holds its app, the failure came
 * later, was an OOM kill, or the proxy itself restarted.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { guardFix } from '../../src/util/shell.js';

checkCases('app-starts-before-proxy', {
  fires: [
    { fixtures: 'fires-istio-not-held.yaml', findings: ['Deployment store/orders'] },
    { fixtures: 'fires-linkerd-await-disabled.yaml', findings: ['Deployment shop/basket'] },
    { fixtures: 'fires-kuma-no-wait.yaml', findings: ['Deployment orders/billing'] },
    { fixtures: 'fires-consul-ordinary-container.yaml', findings: ['Deployment catalog/quotes'] },
    { fixtures: 'fires-istio-1.6-has-none.yaml', findings: ['Deployment store/legacy'] },
    // The kubelet's probe events: the proxy's readiness still failing, the app killed by its probe (hashicorp/consul-k8s#1397).
    { fixtures: 'fires-consul-probe-killed.yaml', findings: ['Deployment catalog/checkout'] },
    { fixtures: 'fires-istio-probe-killed.yaml', findings: ['Deployment store/reviews'] },
    // Pods that never restart their containers (restartPolicy Never): the one failure is the current state (linkerd/linkerd2#8700).
    { fixtures: 'fires-istio-job-never-restarted.yaml', findings: ['Job store/migrate-v15'] },
    { fixtures: 'fires-kuma-cronjob-never-restarted.yaml', findings: ['CronJob orders/nightly-report'] },
  ],
  silent: [
    { fixtures: 'ok-istio-held-late-or-oom.yaml' },
    { fixtures: 'ok-native-or-proxy-restarted.yaml' },
    { fixtures: 'ok-consul-probe-killed-after-ready.yaml' },
    { fixtures: 'ok-never-restarted-late-or-completed.yaml' },
  ],
});

const F = (name: string) => `checks/app-starts-before-proxy/${name}.yaml`;
const one = (base: Parameters<typeof cluster>[0], name: string) => {
  const [f, ...rest] = findings(cluster(base, [F(name)]), ['app-starts-before-proxy']);
  expect(rest).toEqual([]);
  return f!;
};

describe('app-starts-before-proxy', () => {
  it('names the times from the pod, how the pod shows it was not held, and the mesh setting', () => {
    const i = one('istio', 'fires-istio-not-held');
    expect(i.message).toBe(
      '1 pod of Deployment store/orders: the app container orders failed (exit code 1) 3 s after its proxy istio-proxy started, before it could be ready, and restarted: Istio started the app without waiting for its proxy (istio-proxy is not the first container: holdApplicationUntilProxyStarts was off when the pod was injected). Istio holds the app until the proxy is ready with holdApplicationUntilProxyStarts (Istio 1.7 and later).',
    );
    expect(i.evidence).toMatchObject({
      failures: [{ failedAt: '2026-11-22T11:40:05.000Z', proxyStartedAt: '2026-11-22T11:40:02.000Z', seconds: 3 }],
    });
    expect(i.fix.join('\n')).toContain('"proxy.istio.io/config":"{\\"holdApplicationUntilProxyStarts\\": true}"');
    expect(i.fix.join('\n')).toContain('values.global.proxy.holdApplicationUntilProxyStarts=true');

    const l = one('linkerd', 'fires-linkerd-await-disabled');
    expect(l.messageId).toBe('app-starts-before-proxy/hold');
    expect(l.params).toMatchObject({
      how_failed: ' (exit code 2)',
      when: '1 s before its proxy linkerd-proxy had even started',
      how: expect.stringContaining('the pod says config.linkerd.io/proxy-await=disabled'),
    });
    expect(l.fix.join('\n')).toContain('"config.linkerd.io/proxy-await":"enabled"');

    const k = one('kuma', 'fires-kuma-no-wait');
    expect(k.params!.setting).toBe('kuma.io/wait-for-dataplane-ready (Kuma 2.4 and later, off by default)');
    expect(k.fix.join('\n')).toContain('"kuma.io/wait-for-dataplane-ready":"true"');

    const c = one('consul', 'fires-consul-ordinary-container');
    expect(c.message).toContain('consul-k8s gives it no postStart hook');
    expect(c.message).toContain('earlier releases have no setting that holds the app');
    expect(c.fix.join('\n')).toContain('"consul.hashicorp.com/enable-consul-dataplane-as-sidecar":"true"');
  });

  it('a pod that never restarts its containers: its app failed once, said so, with the restart policy in the evidence', () => {
    const f = one('istio', 'fires-istio-job-never-restarted');
    expect(f.message).toContain(
      'the app container migrate failed (exit code 1) 2 s after its proxy istio-proxy started, before it could be ready, and was not restarted (restartPolicy Never): Istio started the app',
    );
    expect(f.evidence).toMatchObject({ failures: [{ restarts: 0, restartPolicy: 'Never', seconds: 2 }] });
    const k = one('kuma', 'fires-kuma-cronjob-never-restarted');
    expect(k.params).toMatchObject({ container: 'report', how_failed: ' (exit code 2)' });
  });

  it('says when the release the proxy comes from has no hold setting', () => {
    const f = one('istio', 'fires-istio-1.6-has-none');
    expect(f.messageId).toBe('app-starts-before-proxy/upgrade-then-hold');
    expect(f.params).toMatchObject({
      older: '1.6.14',
      setting: 'holdApplicationUntilProxyStarts (Istio 1.7 and later)',
    });
    expect(f.evidence).toMatchObject({ proxyVersion: '1.6.14', settingSince: '1.7.0' });
  });

  it('every fix is made of safe lines', () => {
    for (const [base, name] of [
      ['istio', 'fires-istio-not-held'],
      ['linkerd', 'fires-linkerd-await-disabled'],
      ['kuma', 'fires-kuma-no-wait'],
      ['consul', 'fires-consul-ordinary-container'],
    ] as const) {
      const lines = one(base, name).fix;
      expect(lines.filter((l) => guardFix(l) !== l || l.includes('withheld'))).toEqual([]);
    }
  });
});

describe('app-starts-before-proxy: the kubelet probe events', () => {
  it('a kill by a failed probe while the proxy readiness still failed counts, past the first minute', () => {
    const f = one('consul', 'fires-consul-probe-killed');
    expect(f.message).toContain(
      'the app container checkout failed (killed for a failed probe) 60 s after its proxy consul-dataplane started, while the proxy was still not ready (its readiness probe failed until 2026-11-22T11:42:30.000Z)',
    );
    const i = one('istio', 'fires-istio-probe-killed');
    expect(i.params).toMatchObject({
      how_failed: ' (killed for a failed probe)',
      setting: expect.stringContaining('holdApplicationUntilProxyStarts'),
    });
  });
});
