/**
 * The API server as the cluster shows it: the instances whose flags are readable (kube-apiserver
 * pods of kube-system, k3s server nodes), its version, its admission metrics, and the FailedCreate
 * events that name a webhook's calls failing. Shared by the checks about the path to the injector.
 */
import { defineFact } from '../k8s/fact.js';
import { APISERVER_NAMESPACE, apiserverInstances, type ApiserverInstance } from '../k8s/apiserver.js';
import { parseAdmissionError, type WebhookFailureCause } from '../k8s/admission.js';
import { eventInfo } from '../k8s/events.js';
import type { AdmissionMetrics } from '../k8s/admission-metrics.js';
import type { ServerVersion } from '../k8s/server.js';
import type { Model } from './model.js';
import type { MeshWebhook } from '../mesh/webhooks.js';
import { arr, isObj, str } from '../util/objects.js';

export const APISERVERS = defineFact({
  id: 'apiservers',
  inputs: ['nodes', 'pods'],
  // Only kube-system's pods can be one (isApiserverPod): through the namespace index, not every pod.
  compute: (m: Model): ApiserverInstance[] =>
    apiserverInstances(m.inNamespace('pods', APISERVER_NAMESPACE), m.list('nodes')),
});

/** The API servers whose flags the cluster shows (reads pods and nodes). */
export const apiservers = (m: Model): ApiserverInstance[] => m.fact(APISERVERS);

/** The server's version: what GET /version said, else the image tag of its pods (undefined: neither). */
export function serverVersion(m: Model, instances: ApiserverInstance[]): ServerVersion | undefined {
  const v = m.serverRead('version');
  if (v?.state === 'read') return v.value;
  return instances.find((i) => i.imageVersion)?.imageVersion;
}

/** The admission metrics read, or undefined (not read, refused: coverage says so). */
export function admissionMetrics(m: Model): AdmissionMetrics | undefined {
  const p = m.serverRead('metrics');
  return p?.state === 'read' ? p.value : undefined;
}

/**
 * When the API server instance that answered GET /metrics started, for a message that says its
 * count is that instance's since then ("...since it started{startedAt}"): ` at TIME`, or nothing
 * where it did not say.
 */
export const startedAt = (mm: AdmissionMetrics): string => (mm.startTime ? ` at ${mm.startTime}` : '');

export const WEBHOOK_CALL_FAILURES = defineFact({
  id: 'webhook-call-failures',
  inputs: ['events'],
  compute: (m: Model): Map<string, { count: number; causes: Set<WebhookFailureCause>; message: string }> => {
    const out = new Map<string, { count: number; causes: Set<WebhookFailureCause>; message: string }>();
    for (const e of m.list('events')) {
      // Only the scope's events: a live -n run reads no other namespace's, an offline run must count as it does.
      if (!m.inScope(str(e.metadata?.namespace) ?? '')) continue;
      if (e.reason !== 'FailedCreate') continue; // before eventInfo, which parses dates
      const ev = eventInfo(e);
      // The one parser of the API server's admission errors (src/k8s/admission.ts).
      const call = parseAdmissionError(ev.message);
      if (call?.kind !== 'call') continue;
      const hook = call.webhook;
      const f = out.get(hook) ?? { count: 0, causes: new Set<WebhookFailureCause>(), message: ev.message };
      f.count += ev.count;
      f.causes.add(call.cause);
      out.set(hook, f);
    }
    return out;
  },
});

/** FailedCreate events in which the API server failed to call a webhook, by webhook name (reads events). */
export function webhookCallFailures(
  m: Model,
): Map<string, { count: number; causes: Set<WebhookFailureCause>; message: string }> {
  return m.fact(WEBHOOK_CALL_FAILURES);
}

/**
 * A webhook's timeoutSeconds: as configured, else the API's default of 10 (1 to 30 allowed;
 * kubernetes/api@82c0029eaa2f5bdbfbbbce9305349a893e6c86dc (v0.33.0) admissionregistration/v1/types.go
 * MutatingWebhook.TimeoutSeconds, #L1045-L1051).
 */
export function webhookTimeout(h: MeshWebhook): number {
  const entry = arr(h.config.webhooks).find((w) => isObj(w) && w.name === h.name);
  const t = isObj(entry) ? entry.timeoutSeconds : undefined;
  return typeof t === 'number' && t >= 1 && t <= 30 ? t : 10;
}
