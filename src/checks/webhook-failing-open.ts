/**
 * webhook-failing-open — the API server's own metrics count calls to a mesh injection webhook that
 * failed and were let through: failurePolicy Ignore admitted those pods without calling the
 * injector, so they have no proxy.
 *
 * Why: the direct proof of silent non-injection. Under failurePolicy Ignore (Linkerd's default) a
 * call that times out, is refused or fails TLS leaves no event and no error: the API server logs
 * "Failed calling webhook, failing open" and counts apiserver_admission_webhook_fail_open_count
 * (src/k8s/admission-metrics.ts: since Kubernetes 1.24; mutating/dispatcher.go at v0.33.0).
 * When: GET /metrics was allowed, and the counter of a mesh's injection webhook is above zero.
 * The count is the API server instance's that answered, since it started (an HA control plane
 * has one per instance; the message says so): a failure from days ago still counts, so the
 * severity is error only while pods of the mesh run without a proxy, warning otherwise. Silent
 * when /metrics could not be read (coverage says why, with the RBAC rule) or the server predates
 * the metric.
 * Known false positives: none for the count itself; a webhook renamed since keeps its old name's count.
 * Fix: find why calls fail (the injector's pods and logs; webhook-no-endpoints, webhook-cert-mismatch
 * and webhook-port-blocked name the usual causes), then re-create the pods created meanwhile.
 */
import { admissionMetrics, startedAt } from '../facts/apiserver.js';
import {
  injectorPodSelector,
  podsMissingProxy,
  webhookTargets,
  PODS_MISSING_PROXY,
  WEBHOOK_TARGETS,
} from '../facts/controlplane.js';
import { callCount, failOpenCount } from '../k8s/admission-metrics.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { cmd, comment } from '../fix/steps.js';
import { groupBy, plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'failed-open-pods-without-proxy':
    'The API server let {calls} to webhook {webhooks} fail open (failurePolicy Ignore): the pods admitted then got no {meshTitle} proxy ({pods} of the mesh run without one now); counted by the API server instance that answered GET /metrics, since it started{startedAt}.',
  'failed-open':
    'The API server let {calls} to webhook {webhooks} fail open (failurePolicy Ignore): the pods admitted then got no {meshTitle} proxy; counted by the API server instance that answered GET /metrics, since it started{startedAt}.',
});

export default defineCheck({
  ...meta('webhook-failing-open'),
  facts: [PODS_MISSING_PROXY, WEBHOOK_TARGETS],
  messages: MESSAGES,
  *run(m) {
    const mm = admissionMetrics(m);
    if (!mm) return; // not read: coverage says why
    for (const { mesh } of m.webhookMeshes) {
      const counted = m
        .webhooksOf(mesh)
        .map((h) => ({ h, failOpen: failOpenCount(mm, h.name) ?? 0, calls: callCount(mm, h.name) }))
        .filter((x) => x.failOpen > 0);
      for (const [configName, hooks] of groupBy(counted, (x) => x.h.configName)) {
        const total = hooks.reduce((n, x) => n + x.failOpen, 0);
        const missing = podsMissingProxy(m, mesh);
        const t = webhookTargets(m, mesh).find((b) => b.webhooks.some((h) => h.configName === configName));
        const said = {
          calls: plural(total, 'call'),
          webhooks: hooks.map((x) => x.h.name).join(', '),
          meshTitle: meshTitle(mesh),
          startedAt: startedAt(mm),
        };
        yield {
          mesh,
          severity: missing > 0 ? 'error' : 'warning',
          ...(missing > 0
            ? say(MESSAGES, 'failed-open-pods-without-proxy', { ...said, pods: plural(missing, 'pod') })
            : say(MESSAGES, 'failed-open', said)),
          resource: { kind: 'MutatingWebhookConfiguration', name: configName },
          affectedPods: missing,
          causeKey: { kind: 'webhook-broken', mesh },
          evidence: {
            metric: 'apiserver_admission_webhook_fail_open_count',
            webhooks: hooks.map((x) => ({
              name: x.h.name,
              failurePolicy: x.h.failurePolicy,
              failOpen: x.failOpen,
              calls: x.calls ?? null,
            })),
            since: mm.startTime ?? null,
            scope: 'one API server instance, since it started',
            podsWithoutProxy: missing,
          },
          fix: [
            comment`the counter grows while calls fail: read it again to see whether they still do`,
            cmd`kubectl get --raw /metrics | grep ${`apiserver_admission_webhook_fail_open_count{name="${hooks[0]!.h.name}"`}`,
            ...(t
              ? [
                  cmd`kubectl -n ${t.namespace} get pods -l ${injectorPodSelector(mesh, t.service)} -o wide`,
                  cmd`kubectl -n ${t.namespace} logs ${`deploy/${t.injector.name}`} -c ${profileOf(mesh).controlPlane.injector.container} --tail=100`,
                ]
              : []),
            comment`then re-create the pods created while the calls failed: sidecar-missing names those without a proxy`,
          ],
        };
      }
    }
  },
});
