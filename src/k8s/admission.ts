/** What the API server's admission errors say. */

export type WebhookFailureCause = 'no-endpoints' | 'certificate' | 'timeout' | 'connection-refused' | 'service-not-found' | 'other';

/** Why the API server could not call a webhook, from its error text (order matters). */
export function webhookFailureCause(message: string): WebhookFailureCause {
  if (/no endpoints available for service/i.test(message)) return 'no-endpoints';
  if (/x509|certificate signed by unknown authority|certificate has expired|not yet valid|tls: /i.test(message)) return 'certificate';
  if (/context deadline exceeded|timeout|timed out/i.test(message)) return 'timeout';
  if (/connection refused/i.test(message)) return 'connection-refused';
  if (/service "[^"]*" not found/i.test(message)) return 'service-not-found';
  return 'other';
}

/**
 * The port the API server dialled, from a webhook call error (`dial tcp 10.228.0.5:15017: i/o timeout`): the
 * endpoint's targetPort, not the Service port of the URL (istio/istio#20890, #30139). Undefined when the text has none.
 */
export function dialledPort(message: string): number | undefined {
  const m = /dial tcp (?:\[[0-9a-fA-F:.]+\]|[0-9.]+):(\d{1,5}):/.exec(message);
  const port = m ? Number(m[1]) : NaN;
  return port > 0 && port < 65536 ? port : undefined;
}

/** What a webhook's failurePolicy does when the injector cannot be reached. */
export function failureEffect(policies: Iterable<'Ignore' | 'Fail'>): string {
  const set = new Set(policies);
  const parts: string[] = [];
  if (set.has('Ignore')) parts.push('failurePolicy Ignore: pods are created silently without a proxy');
  if (set.has('Fail')) parts.push('failurePolicy Fail: pod creation is blocked');
  return parts.join('; ');
}
