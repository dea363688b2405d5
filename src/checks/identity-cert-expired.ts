/**
 * identity-cert-expired — a Linkerd trust anchor or the identity issuer certificate is outside its
 * validity period (expired, or not valid yet).
 *
 * Why: linkerd-identity signs every proxy's certificate with the issuer, and proxies verify each
 * other against the trust anchors. An expired issuer means new proxies get no identity and never
 * become ready; expired anchors break mTLS between all meshed pods. `linkerd check` fails on both.
 * When: the issuer (Secret `linkerd-identity-issuer`) expired or not yet valid: error. Trust anchors
 * (ConfigMap `linkerd-identity-trust-roots`, possibly several): error when none is valid now,
 * warning when an expired anchor sits next to a valid one (left over from a rotation). Unparseable
 * blocks and an issuer that does not chain to an anchor are not judged here (dates only).
 * Known false positives: an old snapshot file is judged at the time it was read, not today.
 * Fix: Linkerd's documented rotation: cert-manager re-issues the issuer when it manages the
 * Secret; otherwise a new issuer (or anchor bundle) applied with `linkerd upgrade`.
 */
import { certEvidence, validity } from '../k8s/x509.js';
import { PROFILE_LIST } from '../mesh/registry.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The meshes whose identity certificates meshdoctor can read. */
const WITH_IDENTITY = PROFILE_LIST.filter((p) => p.identity);

const MESSAGES = messages({
  issuer:
    'The {meshTitle} identity issuer certificate in {where} {when}, so {issuer} cannot issue proxy certificates and new meshed pods never become ready.',
  'anchor-beside-valid':
    'A {meshTitle} trust anchor in {where} ({certificate}) {when}; the other anchors are still valid, so remove it from the bundle.',
  'anchor-none-valid':
    "The {meshTitle} trust anchor in {where} ({certificate}) {when} and no valid anchor is left, so proxies cannot verify each other's identity.",
});

export default defineCheck({
  ...meta('identity-cert-expired'),
  messages: MESSAGES,
  *run(m) {
    for (const p of WITH_IDENTITY) {
      if (m.options.mesh !== 'auto' && m.options.mesh !== p.name) continue; // --mesh: this mesh's identity is not asked about
      for (const src of p.identity!.sources(m)) {
        const bad = src.certs.filter((c) => validity(c, m.now) !== 'valid');
        if (bad.length === 0) continue;
        const anyValid = bad.length < src.certs.length;
        const first = bad[0]!;
        const when =
          validity(first, m.now) === 'expired'
            ? `expired on ${first.notAfter.toISOString()}`
            : `is not valid until ${first.notBefore.toISOString()}`;
        const where = `${src.ref.kind} ${src.ref.namespace}/${src.ref.name}`;
        yield {
          mesh: p.name,
          ...(src.role === 'issuer'
            ? say(MESSAGES, 'issuer', { meshTitle: p.title, where, when, issuer: p.identity!.issuer })
            : say(MESSAGES, anyValid ? 'anchor-beside-valid' : 'anchor-none-valid', {
                meshTitle: p.title,
                where,
                certificate: first.label,
                when,
              })),
          resource: src.ref,
          evidence: {
            role: src.role,
            key: src.key,
            ...(src.role === 'trust anchor'
              ? { anchors: src.certs.length, validAnchors: src.certs.length - bad.length }
              : {}),
            certificates: bad.map((c) => ({ ...certEvidence(c, m.now), state: validity(c, m.now) })),
          },
          fix: p.identity!.fix(src, anyValid),
          ...(anyValid ? { severity: 'warning' as const } : {}),
          affectedPods: 0, // mesh-wide: every meshed pod, not counted here
        };
      }
    }
  },
});
