/**
 * identity-cert-expiring — a Linkerd trust anchor or the identity issuer certificate expires within
 * --cert-expiry-warning days (default 60, the threshold `linkerd check` warns at).
 *
 * Why: Linkerd rotates proxy certificates every 24h but never its issuer or anchors; when they
 * expire, identity and mTLS stop (see identity-cert-expired). Rotating before that is painless,
 * after it is an outage.
 * When: a warning per ConfigMap `linkerd-identity-trust-roots` / Secret `linkerd-identity-issuer`
 * with each expiring certificate and its days left. Secrets are optional: without them the
 * anchors are still checked.
 * A certificate cert-manager manages (Linkerd's documented issuer lives 48h and is renewed 25h
 * before expiry) is only reported once its renewal is overdue: less than a third of its lifetime
 * left (cert-manager's default renewBefore) and within the window.
 * Known false positives: a cert-manager certificate with a renewBefore under a third of its life.
 * Fix: Linkerd's documented rotation (cert-manager re-issue, or `linkerd upgrade` with a new
 * issuer or an anchor bundle).
 */
import { certEvidence, certManagerCertificate, expiring, type Cert } from '../k8s/x509.js';
import { PROFILE_LIST } from '../mesh/registry.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The meshes whose identity certificates meshdoctor can read. */
const WITH_IDENTITY = PROFILE_LIST.filter((p) => p.identity);

const DAY = 86_400_000;

const MESSAGES = messages({
  expiring: 'The {meshTitle} {role} certificate in {where} ({certificate}) expires on {notAfter}, within {days} days.',
});

export default defineCheck({
  ...meta('identity-cert-expiring'),
  messages: MESSAGES,
  *run(m) {
    const days = m.options.certExpiryWarningDays;
    for (const p of WITH_IDENTITY) {
      if (m.options.mesh !== 'auto' && m.options.mesh !== p.name) continue; // --mesh: this mesh's identity is not asked about
      for (const src of p.identity!.sources(m)) {
        const managed = src.obj ? certManagerCertificate(src.obj) !== undefined : false;
        const window = (c: Cert) =>
          managed ? Math.min(days, (c.notAfter.getTime() - c.notBefore.getTime()) / 3 / DAY) : days;
        const soon = src.certs.filter((c) => expiring(c, m.now, window(c)));
        if (soon.length === 0) continue;
        const first = soon[0]!;
        yield {
          mesh: p.name,
          ...say(MESSAGES, 'expiring', {
            meshTitle: p.title,
            role: src.role,
            where: `${src.ref.kind} ${src.ref.namespace}/${src.ref.name}`,
            certificate: first.label,
            notAfter: first.notAfter.toISOString(),
            days,
          }),
          resource: src.ref,
          evidence: {
            role: src.role,
            key: src.key,
            warningDays: days,
            certificates: soon.map((c) => certEvidence(c, m.now)),
          },
          fix: p.identity!.fix(src, true),
          affectedPods: 0, // mesh-wide: every meshed pod, not counted here
        };
      }
    }
  },
});
