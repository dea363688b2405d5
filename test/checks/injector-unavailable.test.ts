/**
 * Where injector-unavailable fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/control-plane.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings, FIXTURES } from '../helpers/fixtures.js';

checkCases('injector-unavailable', {
  fires: [
    { fixtures: 'fires-consul-scaled-zero.yaml', findings: ['Deployment consul/consul-connect-injector'] },
    { fixtures: 'fires-istio-imagepull.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-istio-scaled-zero.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-kuma-crashloop.yaml', findings: ['Deployment kuma-system/kuma-control-plane'] },
    { fixtures: 'fires-linkerd-crashloop.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    // The Deployment is gone: reported on the Service its webhook calls, never on a Deployment that does not exist.
    { fixtures: 'fires-linkerd-missing.yaml', findings: ['Service linkerd/linkerd-proxy-injector'] },
    { fixtures: 'warn-linkerd-degraded.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-istio-token-request-unserved.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-linkerd-unschedulable-taint.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    // No pod at all: the ReplicaSet's FailedCreate (Pod Security) is quoted (issue 31, gen10cp).
    {
      fixtures: 'fires-istio-no-pods-failedcreate-psa.yaml',
      findings: ['Deployment istio-system/istiod'],
      said: [
        {
          id: 'unavailable',
          params: {
            detail:
              /no pods; its controller cannot create its pods: FailedCreate .*violates PodSecurity "restricted:latest"/,
          },
        },
      ],
    },
  ],
  // istiod out of the cluster (a Service without selector): no Deployment is expected, none is named.
  silent: [{ fixtures: 'ok-linkerd-rollout.yaml' }, { fixtures: 'ok-istio-external.yaml' }],
});

describe('injector-unavailable: why the injector pod does not run, where the cluster says it (issue 31, round 10)', () => {
  const dir = 'checks/injector-unavailable';
  const one = (base: 'istio' | 'linkerd', overlay: string) =>
    findings(cluster(base, [overlay.includes('\n') ? overlay : `${dir}/${overlay}`]), ['injector-unavailable'])[0]!;
  const file = (f: string) => readFileSync(join(FIXTURES, dir, f), 'utf8');

  it('a projected token the API server does not issue: the kubelet says so, and what it means (Istio)', () => {
    const f = one('istio', 'fires-istio-token-request-unserved.yaml');
    expect(f.message).toContain(
      'pod istiod-7f8c9d6b5-t0k3n: ContainerCreating; the API server does not serve the TokenRequest API',
    );
    expect(f.message).toContain('projected ServiceAccount token volume istio-token');
    expect(f.evidence.warnings).toEqual([
      expect.objectContaining({ reason: 'FailedMount', on: 'Pod/istiod-7f8c9d6b5-t0k3n' }),
    ]);
  });

  it('near miss: another volume the kubelet cannot mount is quoted, with no word of TokenRequest', () => {
    const f = one(
      'istio',
      file('fires-istio-token-request-unserved.yaml').replace(
        'failed to fetch token: the server could not find the requested resource',
        'configmap "istio-ca-root-cert" not found',
      ),
    );
    expect(f.message).toContain('the kubelet cannot mount its volume istio-token');
    expect(f.message).not.toContain('TokenRequest');
  });

  it('a pod the scheduler cannot place: its message, not only Pending (Linkerd, a taint)', () => {
    const f = one('linkerd', 'fires-linkerd-unschedulable-taint.yaml');
    expect(f.message).toContain(
      'not scheduled, the scheduler says: 0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: batch}',
    );
  });

  it('near miss: a pod created a minute ago and not placed yet is not explained by the scheduler', () => {
    const f = one(
      'linkerd',
      file('fires-linkerd-unschedulable-taint.yaml').replace(
        'creationTimestamp: "2026-11-22T10:00:00Z"',
        'creationTimestamp: "2026-11-22T11:59:00Z"',
      ),
    );
    expect(f.message).not.toContain('scheduler says');
  });
});
