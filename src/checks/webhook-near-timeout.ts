/**
 * webhook-near-timeout — the API server's latency histogram for a mesh injection webhook shows a
 * share of its calls taking more than half the webhook's timeoutSeconds: a timeout is about to
 * happen (under failurePolicy Ignore a pod without a proxy, under Fail a refused pod).
 *
 * Why: an injector that slows down (CPU throttled, a large namespace cache, a slow Kubernetes API
 * call of its own) fails only once it crosses timeoutSeconds; until then nothing says so but
 * apiserver_admission_webhook_admission_duration_seconds (buckets 0.005 to 25 s,
 * src/k8s/admission-metrics.ts).
 * When: GET /metrics was allowed, the webhook has at least MIN_CALLS calls, and at least
 * SLOW_SHARE of them took longer than the largest bucket bound at or under half its timeoutSeconds
 * (default 10 s: 2.5 s). The histogram is the answering API server instance's, since it started.
 * Known false positives: a slow spell long past (the histogram never forgets until the API server
 * restarts).
 * Fix: give the injector room (CPU requests, replicas), or a longer timeoutSeconds (at most 30).
 */
import { admissionMetrics, startedAt, webhookTimeout } from '../facts/apiserver.js';
import { injectorPodSelector, webhookTargets, WEBHOOK_TARGETS } from '../facts/controlplane.js';
import { latency } from '../k8s/admission-metrics.js';
import { meshTitle } from '../mesh/registry.js';
import { cmd, comment } from '../fix/steps.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'near-timeout-some-over':
    '{share} of the {calls} calls to {meshTitle} webhook {webhook} took longer than {slowerThan} s, half or more of its timeoutSeconds {timeoutSeconds}, and {overTimeout} took longer than the timeout itself: a timeout (failurePolicy {failurePolicy}) is close; counted by the API server instance that answered GET /metrics, since it started{startedAt}.',
  'near-timeout':
    '{share} of the {calls} calls to {meshTitle} webhook {webhook} took longer than {slowerThan} s, half or more of its timeoutSeconds {timeoutSeconds}: a timeout (failurePolicy {failurePolicy}) is close; counted by the API server instance that answered GET /metrics, since it started{startedAt}.',
});

/** Fewer calls than this say nothing about a share. */
const MIN_CALLS = 20;
/** The share of slow calls that fires. */
const SLOW_SHARE = 0.05;

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

export default defineCheck({
  ...meta('webhook-near-timeout'),
  facts: [WEBHOOK_TARGETS],
  messages: MESSAGES,
  *run(m) {
    const mm = admissionMetrics(m);
    if (!mm) return;
    for (const { mesh } of m.webhookMeshes) {
      for (const h of m.webhooksOf(mesh)) {
        const hist = latency(mm, h.name);
        if (!hist || hist.count < MIN_CALLS) continue;
        const timeout = webhookTimeout(h);
        // The largest bucket bound at or under half the timeout, and the one at or under the timeout.
        const under = (limit: number) => [...hist.buckets].reverse().find((b) => b.le <= limit);
        const half = under(timeout / 2);
        if (!half) continue;
        const slow = hist.count - half.count;
        const share = slow / hist.count;
        if (share < SLOW_SHARE) continue;
        const atTimeout = under(timeout);
        const over = atTimeout && atTimeout.le === timeout ? hist.count - atTimeout.count : undefined;
        const t = webhookTargets(m, mesh).find((b) => b.webhooks.some((x) => x.name === h.name));
        const said = {
          share: pct(share),
          calls: hist.count,
          meshTitle: meshTitle(mesh),
          webhook: h.name,
          slowerThan: half.le,
          timeoutSeconds: timeout,
          failurePolicy: h.failurePolicy,
          startedAt: startedAt(mm),
        };
        yield {
          mesh,
          ...(over
            ? say(MESSAGES, 'near-timeout-some-over', { ...said, overTimeout: over })
            : say(MESSAGES, 'near-timeout', said)),
          resource: { kind: 'MutatingWebhookConfiguration', name: h.configName },
          evidence: {
            metric: 'apiserver_admission_webhook_admission_duration_seconds',
            webhook: h.name,
            failurePolicy: h.failurePolicy,
            timeoutSeconds: timeout,
            calls: hist.count,
            slowerThanSeconds: half.le,
            slowCalls: slow,
            ...(over !== undefined ? { overTimeout: over } : {}),
            buckets: hist.buckets.map((b) => ({ le: Number.isFinite(b.le) ? b.le : '+Inf', count: b.count })),
            since: mm.startTime ?? null,
            scope: 'one API server instance, since it started',
          },
          fix: [
            ...(t ? [cmd`kubectl -n ${t.namespace} top pods -l ${injectorPodSelector(mesh, t.service)}`] : []),
            comment`give the injector CPU, requests and replicas, or raise timeoutSeconds of webhook ${h.name}, at most 30, in the values of its chart`,
          ],
        };
      }
    }
  },
});
