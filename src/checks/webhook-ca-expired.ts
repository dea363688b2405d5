/**
 * webhook-ca-expired — a mesh injection webhook's caBundle holds an expired certificate.
 *
 * Why: the API server verifies the injector's serving certificate against the caBundle. When no
 * certificate in it is valid any more, every call fails the TLS handshake: with failurePolicy
 * Ignore (Linkerd's default) pods silently start without a proxy, with Fail (Istio) pod creation
 * is rejected ("x509: certificate has expired or is not yet valid").
 * When: an error (root cause `webhook-broken:<mesh>`) when the bundle has no certificate valid now;
 * a warning when an expired certificate sits next to a valid one (rotation leftovers: the webhook
 * works as long as the serving certificate chains to the valid one). One finding per webhook
 * configuration, listing the webhooks sharing the bundle and every expired certificate.
 * Known false positives: none known; the time compared is when the snapshot was read, not the
 * API server's clock.
 * Fix: re-issue the webhook certificates (cert-manager, `linkerd upgrade`, or an istiod restart,
 * which re-patches the caBundle), then restart the injector.
 */
import { certEvidence, validity } from '../k8s/x509.js';
import { meshTitle } from '../mesh/registry.js';
import { brokenEffect, bundleFinding, byConfig, usable, webhookBundles } from '../facts/webhook-certs.js';
import { defineCheck, messages, meta, say } from './define.js';
import { plural } from '../util/objects.js';

const MESSAGES = messages({
  'no-valid':
    'The caBundle of {config} holds {expired} and no valid one, so the API server cannot verify the {meshTitle} injector and {effect}.',
  'beside-valid':
    "The caBundle of {config} holds {expired} next to valid ones; injection works only while the injector's certificate chains to a valid one.",
});

export default defineCheck({
  ...meta('webhook-ca-expired'),
  messages: MESSAGES,
  *run(m) {
    for (const install of m.webhookMeshes) {
      for (const groups of byConfig(webhookBundles(install.webhooks))) {
        const hit = groups.filter((g) => g.parsed.certs.some((c) => validity(c, m.now) === 'expired'));
        if (hit.length === 0) continue;
        const broken = hit.some((g) => !usable(g, m.now));
        const expired = [
          ...new Map(
            hit
              .flatMap((g) => g.parsed.certs)
              .filter((c) => validity(c, m.now) === 'expired')
              .map((c) => [c.fingerprint256, c]),
          ).values(),
        ];
        const base = bundleFinding(hit, broken, m);
        const first = expired[0]!;
        const what = `${plural(expired.length, 'expired certificate')} (${first.label}, expired ${first.notAfter.toISOString()}${expired.length > 1 ? ', ...' : ''})`;
        yield {
          ...base,
          ...(broken
            ? say(MESSAGES, 'no-valid', {
                config: base.resource.name,
                expired: what,
                meshTitle: meshTitle(install.mesh),
                effect: brokenEffect(hit.flatMap((g) => g.webhooks)),
              })
            : say(MESSAGES, 'beside-valid', { config: base.resource.name, expired: what })),
          evidence: { ...base.evidence, certificates: expired.map((c) => certEvidence(c, m.now)) },
          affectedPods: 0, // mesh-wide: every pod created while it lasts, not a countable set
        };
      }
    }
  },
});
