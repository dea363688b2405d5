/**
 * webhook-ca-expiring — a certificate in a mesh injection webhook's caBundle expires within
 * --cert-expiry-warning days (default 60).
 *
 * Why: the day it expires, injection stops for every new pod (see webhook-ca-expired); Linkerd's
 * Helm-generated webhook certificates live 365 days and are only renewed by an upgrade.
 * When: a warning per webhook configuration, listing the webhooks sharing the bundle and each
 * expiring certificate with its days left. Certificates already expired or not yet valid are left
 * to webhook-ca-expired and webhook-ca-invalid.
 * Known false positives: a certificate left in the bundle after a rotation that nothing chains
 * to any more (harmless, but worth removing).
 * Fix: re-issue the webhook certificates before the date (cert-manager, `linkerd upgrade`, or an
 * istiod restart), then restart the injector.
 */
import { certEvidence, expiring } from '../k8s/x509.js';
import { bundleFinding, byConfig, webhookBundles } from '../facts/webhook-certs.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  expiring:
    'The caBundle of {config} holds a certificate ({certificate}) that expires on {notAfter}, within {days} days; injection stops for new pods when it does.',
});

export default defineCheck({
  ...meta('webhook-ca-expiring'),
  messages: MESSAGES,
  *run(m) {
    const days = m.options.certExpiryWarningDays;
    for (const install of m.webhookMeshes) {
      for (const groups of byConfig(webhookBundles(install.webhooks))) {
        const hit = groups.filter((g) => g.parsed.certs.some((c) => expiring(c, m.now, days)));
        if (hit.length === 0) continue;
        const certs = [
          ...new Map(
            hit
              .flatMap((g) => g.parsed.certs)
              .filter((c) => expiring(c, m.now, days))
              .map((c) => [c.fingerprint256, c]),
          ).values(),
        ];
        certs.sort((a, b) => a.notAfter.getTime() - b.notAfter.getTime());
        const base = bundleFinding(hit, false, m);
        const first = certs[0]!;
        yield {
          ...base,
          ...say(MESSAGES, 'expiring', {
            config: base.resource.name,
            certificate: first.label,
            notAfter: first.notAfter.toISOString(),
            days,
          }),
          evidence: { ...base.evidence, warningDays: days, certificates: certs.map((c) => certEvidence(c, m.now)) },
          affectedPods: 0, // mesh-wide: every pod created after the date, not a countable set
        };
      }
    }
  },
});
