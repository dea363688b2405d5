/**
 * webhook-rejecting — the API server's own metrics count pod admissions rejected at a mesh
 * injection webhook: calls that could not be made under failurePolicy Fail (the pod is refused),
 * or the injector answering "denied".
 *
 * Why: a refused pod leaves a FailedCreate event on its controller, but events expire after an
 * hour; apiserver_admission_webhook_rejection_count keeps counting since the API server started,
 * split by error_type: calling_webhook_error (the call failed, failurePolicy Fail),
 * apiserver_internal_error, no_error (the webhook denied the request; failurePolicy does not
 * apply) (src/k8s/admission-metrics.ts; mutating/dispatcher.go at v0.33.0).
 * When: GET /metrics was allowed and the counter of a mesh's injection webhook is above zero. The
 * count is the answering API server instance's, since it started: a rejection from days ago still
 * counts (a warning, not an error: webhook-call-failed and webhook-denied report the current ones
 * from events). Silent when /metrics could not be read (coverage says why).
 * Known false positives: rejections of operations other than pod creation, when a mesh's webhook
 * is registered for them.
 * Fix: the cause follows the error type: the injector unreachable (its pods, its Service, its
 * certificate, the network path) or what it denies (its logs, webhook-denied's events).
 */
import { admissionMetrics, startedAt } from '../facts/apiserver.js';
import { webhookTargets, WEBHOOK_TARGETS } from '../facts/controlplane.js';
import { rejections } from '../k8s/admission-metrics.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { cmd, comment } from '../fix/steps.js';
import { groupBy, plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const WHAT: Record<string, string> = {
  calling_webhook_error: 'could not be made (failurePolicy Fail refused the pod)',
  apiserver_internal_error: 'failed inside the API server',
  no_error: 'were denied by the injector',
};

const MESSAGES = messages({
  rejected:
    'The API server rejected {admissions} at {meshTitle} webhook {webhooks}: {byErrorType}; counted by the API server instance that answered GET /metrics, since it started{startedAt}.',
});

export default defineCheck({
  ...meta('webhook-rejecting'),
  facts: [WEBHOOK_TARGETS],
  messages: MESSAGES,
  *run(m) {
    const mm = admissionMetrics(m);
    if (!mm) return;
    for (const { mesh } of m.webhookMeshes) {
      const counted = m
        .webhooksOf(mesh)
        .map((h) => ({ h, by: rejections(mm, h.name) }))
        .filter((x) => x.by.length > 0);
      for (const [configName, hooks] of groupBy(counted, (x) => x.h.configName)) {
        const byType = new Map<string, number>();
        for (const x of hooks) for (const r of x.by) byType.set(r.errorType, (byType.get(r.errorType) ?? 0) + r.count);
        const total = [...byType.values()].reduce((a, b) => a + b, 0);
        const parts = [...byType.entries()].map(([t, n]) => `${n} ${WHAT[t] ?? `ended in ${t}`}`);
        const t = webhookTargets(m, mesh).find((b) => b.webhooks.some((h) => h.configName === configName));
        yield {
          mesh,
          ...say(MESSAGES, 'rejected', {
            admissions: plural(total, 'admission'),
            meshTitle: meshTitle(mesh),
            webhooks: hooks.map((x) => x.h.name).join(', '),
            byErrorType: parts.join(', '),
            startedAt: startedAt(mm),
          }),
          resource: { kind: 'MutatingWebhookConfiguration', name: configName },
          evidence: {
            metric: 'apiserver_admission_webhook_rejection_count',
            webhooks: hooks.map((x) => ({ name: x.h.name, failurePolicy: x.h.failurePolicy, rejections: x.by })),
            since: mm.startTime ?? null,
            scope: 'one API server instance, since it started',
          },
          fix: [
            comment`calling_webhook_error: the injector could not be reached. no_error: it denied the pods, and its reason is in the FailedCreate events of their controllers`,
            cmd`kubectl get events -A --field-selector reason=FailedCreate`,
            ...(t
              ? [
                  cmd`kubectl -n ${t.namespace} logs ${`deploy/${t.injector.name}`} -c ${profileOf(mesh).controlPlane.injector.container} --tail=100`,
                ]
              : []),
          ],
        };
      }
    }
  },
});
