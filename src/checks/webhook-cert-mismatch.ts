/**
 * webhook-cert-mismatch — Linkerd's injector serves a certificate the webhook's caBundle does not
 * vouch for: not signed by (nor equal to) any caBundle certificate, or without the SAN
 * `<service>.<namespace>.svc` the API server dials.
 *
 * Why: the API server rejects the handshake ("x509: certificate signed by unknown authority" or
 * "certificate is valid for ..., not linkerd-proxy-injector.linkerd.svc"), and with Linkerd's
 * default failurePolicy Ignore pods silently start without a proxy. Typical after a partial
 * rotation: a Secret re-created without re-applying the webhook configuration, GitOps tools
 * re-rendering the chart (a new self-signed pair on every render), or cert-manager's cainjector
 * not running.
 * When: Linkerd, Kuma and Consul (istiod patches its own caBundle); only when the serving Secret
 * was read: Linkerd's `linkerd-proxy-injector-k8s-tls` (`tls.crt`, or the legacy
 * `linkerd-proxy-injector-tls` `crt.pem`), Kuma's as its control plane's Deployment mounts it
 * (a custom controlPlane.tls.general.secretName too; `kuma-tls-cert` where it mounts none;
 * nothing while its Deployments were not read), Consul's webhook cert Secret. A caBundle with no certificate is left to webhook-ca-invalid; validity
 * dates are left to the expiry checks. Sanitized Secrets carry certificates only, never keys.
 * Known false positives: a Secret updated seconds before the snapshot, before cainjector caught up.
 * Fix: re-issue the certificate and caBundle together, then restart the injector.
 */
import { chainsTo, dnsNames, secretCerts, servesHost, servesHostByCommonName } from '../k8s/x509.js';
import { PROFILE_LIST } from '../mesh/registry.js';
import { webhookBundles, webhookCertFix } from '../facts/webhook-certs.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The meshes whose injector keeps its serving certificate in a Secret meshdoctor can read. */
const WITH_SECRETS = PROFILE_LIST.filter(
  (p) => p.controlPlane.webhooks.servingCertSecrets?.length || p.controlPlane.webhooks.servingCertSecretIn,
);

const MESSAGES = messages({
  mismatch:
    "The {meshTitle} injector's certificate in Secret {secret} does not match webhook configuration {config} ({problems}), so the API server rejects every injection call.",
});

export default defineCheck({
  ...meta('webhook-cert-mismatch'),
  messages: MESSAGES,
  *run(m) {
    for (const p of WITH_SECRETS) {
      const install = m.webhookMeshes.find((x) => x.mesh === p.name);
      if (!install) continue;
      for (const g of webhookBundles(install.webhooks)) {
        const svc = g.webhooks.find((w) => w.service)?.service;
        if (!svc || g.parsed.certs.length === 0) continue; // url webhooks have no Secret; an empty bundle is webhook-ca-invalid's
        // The Secret the cluster names (Kuma: its Deployment's volume), else the profile's names.
        const hooks = p.controlPlane.webhooks;
        const names = hooks.servingCertSecretIn
          ? [hooks.servingCertSecretIn(m, svc.namespace)].filter((n) => n !== undefined)
          : (hooks.servingCertSecrets ?? []);
        const found = names
          .map(([name, key]) => ({ secret: m.get('secrets', svc.namespace, name), key }))
          .find((s) => s.secret);
        if (!found) continue; // the Secret was not read (not collected, or absent): nothing to compare, nothing claimed
        const secretName = found.secret!.metadata?.name ?? '';
        const host = `${svc.name}.${svc.namespace}.svc`;
        const served = secretCerts(found.secret, found.key)?.certs ?? [];
        const leaf = served[0];
        const problems: { problem: string; detail: string }[] = [];
        if (!leaf)
          problems.push({
            problem: 'no-certificate',
            detail: `Secret ${secretName} holds no certificate under ${found.key}`,
          });
        else {
          if (!chainsTo(leaf, served.slice(1), g.parsed.certs)) {
            problems.push({
              problem: 'not-signed-by-ca-bundle',
              detail: `the serving certificate (issuer ${leaf.issuer}) is not signed by any caBundle certificate`,
            });
          }
          // The host only as the subject Common Name, no subjectAltName: valid for API servers built before Go 1.15,
          // refused from Kubernetes 1.19 on (crypto/x509 verify.go "relies on legacy Common Name field").
          if (!servesHost(leaf, host))
            problems.push(
              !dnsNames(leaf).length && servesHostByCommonName(leaf, host)
                ? {
                    problem: 'common-name-only',
                    detail: `the serving certificate names ${host} only in its subject Common Name, without a subjectAltName, which API servers from Kubernetes 1.19 on no longer accept`,
                  }
                : { problem: 'san-mismatch', detail: `the serving certificate is not valid for ${host}` },
            );
        }
        if (problems.length === 0) continue;
        yield {
          mesh: p.name,
          ...say(MESSAGES, 'mismatch', {
            meshTitle: p.title,
            secret: `${svc.namespace}/${secretName}`,
            config: g.configName,
            problems: problems.map((p) => p.detail).join('; '),
          }),
          resource: { kind: 'Secret', namespace: svc.namespace, name: secretName },
          evidence: {
            webhookConfiguration: g.configName,
            webhooks: g.webhooks.map((w) => w.name),
            failurePolicy: [...new Set(g.webhooks.map((w) => w.failurePolicy))].join(','),
            expectedDnsName: host,
            problems,
            ...(leaf
              ? {
                  servingCertificate: {
                    subject: leaf.subject,
                    issuer: leaf.issuer,
                    serial: leaf.serial,
                    dnsNames: dnsNames(leaf),
                    keyType: leaf.keyType,
                    fingerprint256: leaf.fingerprint256,
                  },
                }
              : {}),
            caBundle: g.parsed.certs.map((c) => ({
              subject: c.subject,
              serial: c.serial,
              fingerprint256: c.fingerprint256,
            })),
          },
          fix: webhookCertFix(p.name, g.config, g.webhooks, m),
          causeKey: { kind: 'webhook-broken', mesh: p.name },
          affectedPods: 0, // mesh-wide: every pod created while it lasts, not a countable set
        };
      }
    }
  },
});
