/**
 * Where webhook-failing-open fires, and its near misses (test/helpers/check-tester.ts); the
 * /metrics reader of src/k8s/admission-metrics.ts; the message, evidence and fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import {
  MAX_SERIES,
  MetricsReader,
  failOpenCount,
  latency,
  metricsFromJson,
  rejections,
} from '../../src/k8s/admission-metrics.js';
import { CHECKS } from '../../src/checks/index.js';
import { coverageOf } from '../../src/run/coverage.js';

checkCases('webhook-failing-open', {
  fires: [
    {
      fixtures: 'fires-linkerd.yaml',
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config'],
      said: [{ id: 'failed-open', params: { calls: '14 calls', webhooks: 'linkerd-proxy-injector.linkerd.io' } }],
    },
    {
      fixtures: 'fires-istio-ignore.yaml',
      findings: ['MutatingWebhookConfiguration istio-sidecar-injector'],
      said: [{ id: 'failed-open', params: { calls: '6 calls', meshTitle: 'Istio' } }],
    },
    // Pods of the mesh without a proxy now (sidecar-missing's fixture): an error, and the message counts them.
    {
      fixtures: ['fires-linkerd.yaml', 'checks/sidecar-missing/fires-linkerd.yaml'],
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config'],
      said: [{ id: 'failed-open-pods-without-proxy', params: { calls: '14 calls', pods: /^\d+ pods?$/ } }],
    },
  ],
  silent: [{ fixtures: 'ok-linkerd-near-misses.yaml' }, { fixtures: 'ok-istio-before-1-24.yaml' }],
});

const read = (text: string, keep?: (n: string) => boolean) => {
  const r = new MetricsReader(keep);
  for (const l of text.split('\n')) r.line(l);
  return r.result();
};

describe('the admission metrics (src/k8s/admission-metrics.ts)', () => {
  it('keeps the admit series of the webhooks asked for, with their labels; escapes undone; other families and labels dropped', () => {
    const m = read(
      [
        '# TYPE apiserver_admission_webhook_fail_open_count counter',
        'apiserver_admission_webhook_fail_open_count{name="a.x",type="admit",extra="dropped"} 3',
        'apiserver_admission_webhook_fail_open_count{name="b.x",type="admit"} 4',
        'apiserver_admission_webhook_fail_open_count{name="a.x",type="validating"} 5',
        'apiserver_request_total{verb="GET"} 9',
        'apiserver_admission_webhook_rejection_count{error_type="no_error",name="a.x",operation="CREATE",rejection_code="403",type="admit"} 2',
        'apiserver_admission_webhook_rejection_count{error_type="no_error",name="a\\"q",type="admit"} 1',
        'process_start_time_seconds 1763700000',
      ].join('\n'),
      (n) => n !== 'b.x',
    );
    expect(m.families).toEqual(['apiserver_admission_webhook_fail_open_count']);
    expect(m.startTime).toBe('2025-11-21T04:40:00.000Z');
    expect(m.samples.map((s) => [s.name, s.labels.name, s.value])).toEqual([
      ['apiserver_admission_webhook_fail_open_count', 'a.x', 3],
      ['apiserver_admission_webhook_rejection_count', 'a.x', 2],
      ['apiserver_admission_webhook_rejection_count', 'a"q', 1],
    ]);
    expect(m.samples[0]!.labels).toEqual({ name: 'a.x', type: 'admit' });
    expect(failOpenCount(m, 'a.x')).toBe(3);
    expect(rejections(m, 'a.x')).toEqual([{ errorType: 'no_error', count: 2, codes: ['403'] }]);
  });

  it('no TYPE line for the fail-open family (before 1.24): unknown, not zero', () => {
    expect(
      failOpenCount(read('apiserver_admission_webhook_rejection_count{name="a",type="admit"} 1'), 'a'),
    ).toBeUndefined();
    expect(failOpenCount(read('# TYPE apiserver_admission_webhook_fail_open_count counter'), 'a')).toBe(0);
  });

  it('histograms: buckets summed over operations, cumulative by bound', () => {
    const b = (op: string, le: string, v: number) =>
      `apiserver_admission_webhook_admission_duration_seconds_bucket{name="a",operation="${op}",rejected="false",type="admit",le="${le}"} ${v}`;
    const m = read(
      [b('CREATE', '1', 3), b('UPDATE', '1', 1), b('CREATE', '+Inf', 5), b('UPDATE', '+Inf', 2)].join('\n'),
    );
    expect(latency(m, 'a')).toEqual({
      buckets: [
        { le: 1, count: 4 },
        { le: Infinity, count: 7 },
      ],
      count: 7,
    });
  });

  it('bounded: at most MAX_SERIES series, and a saved snapshot is read as untrusted input', () => {
    const lines = Array.from(
      { length: MAX_SERIES + 5 },
      (_, i) => `apiserver_admission_webhook_fail_open_count{name="w${i}",type="admit"} 1`,
    );
    const m = read(lines.join('\n'));
    expect(m.samples.length).toBe(MAX_SERIES);
    expect(m.truncated).toBe(true);
    const back = metricsFromJson({
      families: ['apiserver_admission_webhook_fail_open_count', 'evil'],
      samples: [
        { name: 'apiserver_admission_webhook_fail_open_count', labels: { name: 'a', type: 'admit', x: 'y' }, value: 2 },
        { name: 'other_metric', labels: { name: 'a', type: 'admit' }, value: 2 },
        { name: 'apiserver_admission_webhook_fail_open_count', labels: { name: 'a', type: 'admit' }, value: 'NaN' },
      ],
    });
    expect(back).toEqual({
      families: ['apiserver_admission_webhook_fail_open_count'],
      samples: [
        { name: 'apiserver_admission_webhook_fail_open_count', labels: { name: 'a', type: 'admit' }, value: 2 },
      ],
    });
  });
});

describe('webhook-failing-open: message, evidence, fix', () => {
  it('counts, says the count is one instance since it started, and the fix reads the counter again', () => {
    const [f] = findings(cluster('linkerd', ['checks/webhook-failing-open/fires-linkerd.yaml']), [
      'webhook-failing-open',
    ]);
    expect(f!.messageId).toBe('webhook-failing-open/failed-open');
    expect(f!.params).toEqual({
      calls: '14 calls',
      webhooks: 'linkerd-proxy-injector.linkerd.io',
      meshTitle: 'Linkerd',
      startedAt: expect.stringMatching(/^ at 2025-11-21T04:/),
    });
    // The rendered text, once.
    expect(f!.message).toContain(
      'The API server let 14 calls to webhook linkerd-proxy-injector.linkerd.io fail open (failurePolicy Ignore)',
    );
    expect(f!.message).toContain(
      'counted by the API server instance that answered GET /metrics, since it started at 2025-11-21T04:',
    );
    expect(f!.evidence).toMatchObject({
      metric: 'apiserver_admission_webhook_fail_open_count',
      webhooks: [{ name: 'linkerd-proxy-injector.linkerd.io', failOpen: 14, calls: 134 }],
    });
    expect(f!.severity).toBe('warning'); // no pod of the mesh runs without a proxy now
    // The fix as data: the counter read again, by the first webhook's exact series.
    expect(f!.fixData).toContainEqual({
      kind: 'command',
      pipeline: [
        ['kubectl', 'get', '--raw', '/metrics'],
        ['grep', 'apiserver_admission_webhook_fail_open_count{name="linkerd-proxy-injector.linkerd.io"'],
      ],
    });
    expect(f!.fix).toContain(
      `kubectl get --raw /metrics | grep 'apiserver_admission_webhook_fail_open_count{name="linkerd-proxy-injector.linkerd.io"'`,
    );
  });
});

describe('webhook-failing-open: pods of the mesh without a proxy now', () => {
  it('an error, the pods counted in the message', () => {
    const [f] = findings(
      cluster('linkerd', [
        'checks/webhook-failing-open/fires-linkerd.yaml',
        'checks/sidecar-missing/fires-linkerd.yaml',
      ]),
      ['webhook-failing-open'],
    );
    expect(f!.messageId).toBe('webhook-failing-open/failed-open-pods-without-proxy');
    expect(f!.severity).toBe('error');
    expect(f!.params?.pods).toBe(`${f!.evidence.podsWithoutProxy} pods`);
  });
});

describe('coverage of the reads of the API server itself', () => {
  const only = CHECKS.filter((c) => c.id === 'webhook-failing-open');
  it('refused: named with the reason, the run still complete; absent from a file: said so; read: nothing', () => {
    const snap = cluster('linkerd');
    snap.server = { metrics: { state: 'refused', reason: 'forbidden: User "x" cannot get path "/metrics"' } };
    expect(coverageOf(snap, only, [])).toEqual({
      complete: true,
      unavailable: [{ kind: 'GET /metrics', reason: 'forbidden: User "x" cannot get path "/metrics"', checks: [] }],
      rbac: [], // offline: no RBAC to print
    });
    delete snap.server;
    expect(coverageOf(snap, only, []).unavailable).toEqual([
      { kind: 'GET /metrics', reason: 'not in the snapshot (meshdoctor snapshot saves it)', checks: [] },
    ]);
    snap.server = { metrics: { state: 'read', value: { families: [], samples: [] } } };
    expect(coverageOf(snap, only, [])).toEqual({ complete: true, unavailable: [], rbac: [] });
  });
});
