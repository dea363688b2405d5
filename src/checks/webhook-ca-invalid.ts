/**
 * webhook-ca-invalid — a mesh injection webhook's caBundle holds nothing the API server can use:
 * empty, not base64, not PEM, a private key instead of a certificate, a truncated or unparseable
 * block, or a certificate that is not valid yet.
 *
 * Why: without a usable CA the API server cannot verify the injector, so every call fails: with
 * failurePolicy Ignore (Linkerd) pods silently start without a proxy, with Fail (Istio) pod
 * creation is rejected. An empty caBundle is the usual trace of cert-manager's cainjector not
 * having run (annotation `cert-manager.io/inject-ca-from`), or, for Istio, of istiod not running
 * or not allowed to patch its webhook configuration (istiod fills the caBundle itself).
 * When: an error (root cause `webhook-broken:<mesh>`) when no certificate of the bundle is valid
 * now; a warning when unusable blocks sit next to a valid certificate (the API server skips them).
 * Expired certificates are left to webhook-ca-expired. A `url` webhook with no caBundle uses the
 * API server's system roots and is not reported. Key material is never shown, only named.
 * Known false positives: an Istio install caught in the seconds between install and istiod's
 * first patch.
 * Fix: let cert-manager fill the bundle, re-generate Linkerd's webhook certificates, or restart
 * istiod so it re-patches the caBundle.
 */
import { certEvidence, injectCaFrom, validity } from '../k8s/x509.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import {
  brokenEffect,
  bundleFinding,
  byConfig,
  type BundleGroup,
  usable,
  webhookBundles,
} from '../facts/webhook-certs.js';
import type { Model } from '../facts/model.js';
import { isObj, labelsOf, nameOf, str } from '../util/objects.js';
import { isActive } from '../k8s/pods.js';
import { podHealth } from '../k8s/health.js';
import { evalSelector } from '../k8s/selectors.js';
import { WARNING_EVENTS, whyNotRunning } from '../facts/pod-warnings.js';
import { defineCheck, messages, meta, say } from './define.js';

/**
 * The Deployment that fills an empty caBundle where it is not the injector (Consul's webhook-cert-manager, the profile's
 * `install.caBundleFiller`), when it has no ready pod: said, with why its pod does not run where the cluster says it
 * (the scheduler's message, the kubelet's volume warnings: hashicorp/consul-k8s#655, a taint it does not tolerate).
 */
function fillerState(g: BundleGroup, m: Model): string {
  const svc = g.webhooks.find((w) => w.service)?.service;
  const f = svc ? profileOf(g.mesh).install.caBundleFiller?.(m, svc.namespace, svc.name) : undefined;
  const d = f ? m.get('deployments', f.namespace, f.name) : undefined;
  const selector = isObj(d?.spec) ? d!.spec.selector : undefined;
  if (!f || !isObj(selector) || !m.has('pods')) return '';
  // Its status says a replica is available: it runs, and why it does not patch is not in the cluster's state.
  if (isObj(d!.status) && typeof d!.status.availableReplicas === 'number' && d!.status.availableReplicas > 0) return '';
  const pods = m
    .inNamespace('pods', f.namespace)
    .filter((p) => isActive(p) && evalSelector(selector, labelsOf(p)).matched)
    .slice(0, 16);
  if (!pods.length) return `; Deployment ${f.namespace}/${f.name} has no available replica and no pod`;
  if (pods.some((p) => podHealth(p).ready)) return '';
  const pod = pods[0]!;
  const why = whyNotRunning(m, g.mesh, pod);
  return `; Deployment ${f.namespace}/${f.name} has no ready pod (pod ${nameOf(pod)}: ${podHealth(pod).waiting ?? str(isObj(pod.status) ? pod.status.phase : undefined) ?? 'not Ready'}${why?.text ?? ''})`;
}

/** What is wrong with one bundle, as structured problems (empty list: nothing for this check). */
function problemsOf(g: BundleGroup, m: Model) {
  const webhooks = g.webhooks.map((w) => w.name);
  const out: { webhooks: string[]; problem: string; detail: string; certificate?: ReturnType<typeof certEvidence> }[] =
    [];
  for (const p of g.parsed.problems) {
    if (p.problem === 'empty' && g.webhooks.every((w) => w.url && !w.service)) continue; // url webhooks fall back to system roots
    const from = p.problem === 'empty' ? injectCaFrom(g.config) : undefined;
    if (from)
      out.push({
        webhooks,
        problem: 'cert-manager-pending',
        detail: `the caBundle is empty: cert-manager has not injected the CA of Certificate ${from.namespace}/${from.name}`,
      });
    else if (p.problem === 'empty' && profileOf(g.mesh).install.emptyCaBundle)
      out.push({
        webhooks,
        problem: 'empty',
        detail: `${profileOf(g.mesh).install.emptyCaBundle!}${fillerState(g, m)}`,
      });
    else out.push({ webhooks, ...p });
  }
  for (const c of g.parsed.certs.filter((c) => validity(c, m.now) === 'not-yet-valid')) {
    out.push({
      webhooks,
      problem: 'not-yet-valid',
      detail: `${c.label} is not valid until ${c.notBefore.toISOString()}`,
      certificate: certEvidence(c, m.now),
    });
  }
  return out;
}

const MESSAGES = messages({
  unusable:
    'The caBundle of {config} is unusable ({problems}), so the API server cannot verify the {meshTitle} injector and {effect}.',
  'skipped-blocks':
    'The caBundle of {config} has blocks the API server skips ({problems}) next to a valid certificate.',
});

export default defineCheck({
  ...meta('webhook-ca-invalid'),
  facts: [WARNING_EVENTS],
  messages: MESSAGES,
  *run(m) {
    for (const install of m.webhookMeshes) {
      for (const groups of byConfig(webhookBundles(install.webhooks))) {
        const hit = groups.map((g) => ({ g, problems: problemsOf(g, m) })).filter((x) => x.problems.length > 0);
        if (hit.length === 0) continue;
        const broken = hit.some(({ g }) => !usable(g, m.now));
        const problems = hit.flatMap((x) => x.problems);
        const base = bundleFinding(
          hit.map((x) => x.g),
          broken,
          m,
        );
        const details = [...new Set(problems.map((p) => p.detail))].join('; ');
        yield {
          ...base,
          ...(broken
            ? say(MESSAGES, 'unusable', {
                config: base.resource.name,
                problems: details,
                meshTitle: meshTitle(install.mesh),
                effect: brokenEffect(hit.flatMap((x) => x.g.webhooks)),
              })
            : say(MESSAGES, 'skipped-blocks', { config: base.resource.name, problems: details })),
          evidence: { ...base.evidence, problems },
          affectedPods: 0, // mesh-wide: every pod created while it lasts, not a countable set
        };
      }
    }
  },
});
