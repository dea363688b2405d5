/**
 * Certificate checks: webhook caBundles (expired, expiring, invalid), the Linkerd injector's
 * serving certificate against its caBundle, and Linkerd's identity certificates. Certificates are
 * generated per test run relative to NOW (RSA and ECDSA P-256); time is always injected.
 */
import { X509Certificate } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/run/run.js';
import { CHECKS } from '../../src/checks/index.js';
import type { K8sObject } from '../../src/util/types.js';
import type { Finding } from '../../src/run/result.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { generateCA, generateLeaf, type GeneratedCert, type KeyType } from '../helpers/certs.js';
import { baseObjects, cluster, findings, ids, NOW, overlay, snapshotFrom } from '../helpers/fixtures.js';

const DAY = 86_400_000;
const at = (days: number) => new Date(NOW.getTime() + days * DAY);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const INJECTOR_HOST = 'linkerd-proxy-injector.linkerd.svc';
const WEBHOOK_CHECKS = ['webhook-ca-expired', 'webhook-ca-expiring', 'webhook-ca-invalid'];
const ALL = [...WEBHOOK_CHECKS, 'webhook-cert-mismatch', 'identity-cert-expiring', 'identity-cert-expired'];

/** The healthy base's webhook configuration with every webhook's caBundle replaced. */
function webhookConfig(
  base: 'linkerd' | 'istio',
  caBundle: string | undefined,
  annotations?: Record<string, string>,
): K8sObject {
  const cfg = structuredClone(baseObjects(base).find((o) => o.kind === 'MutatingWebhookConfiguration')!);
  for (const h of cfg.webhooks as any[]) {
    if (caBundle === undefined) delete h.clientConfig.caBundle;
    else h.clientConfig.caBundle = caBundle;
  }
  if (annotations) cfg.metadata!.annotations = annotations;
  return cfg;
}

const bundle = (...certs: GeneratedCert[]) => b64(certs.map((c) => c.certPem).join(''));
const snap = (base: 'linkerd' | 'istio' | 'both', ...objs: K8sObject[]): Snapshot =>
  snapshotFrom(overlay(baseObjects(base), objs));
const one = (fs: Finding[]): Finding => {
  expect(fs).toHaveLength(1);
  return fs[0]!;
};

function tlsSecret(name: string, data: Record<string, string>, annotations?: Record<string, string>): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'linkerd', ...(annotations ? { annotations } : {}) },
    type: 'kubernetes.io/tls',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

const trustRoots = (...certs: GeneratedCert[]): K8sObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'linkerd-identity-trust-roots', namespace: 'linkerd' },
  data: { 'ca-bundle.crt': certs.map((c) => c.certPem).join('') },
});

const x509 = (c: GeneratedCert) => new X509Certificate(c.certPem);

describe.each(['ecdsa', 'rsa'] as KeyType[])('certificate checks (%s)', (keyType) => {
  const KEY = keyType === 'ecdsa' ? 'EC' : 'RSA';
  let valid: GeneratedCert, expired: GeneratedCert, future: GeneratedCert, soon: GeneratedCert, other: GeneratedCert;
  let leaf: GeneratedCert, leafWrongSan: GeneratedCert, leafOtherCa: GeneratedCert, leafRerendered: GeneratedCert;
  let leafCnOnly: GeneratedCert;

  beforeAll(async () => {
    const ca = (notBefore: Date, notAfter: Date, commonName: string) =>
      generateCA({ keyType, notBefore, notAfter, commonName });
    [valid, expired, future, soon, other] = await Promise.all([
      ca(at(-30), at(3650), 'valid CA'),
      ca(at(-400), at(-1), 'expired CA'),
      ca(at(2), at(400), 'future CA'),
      ca(at(-355), at(10), 'expiring CA'),
      ca(at(-30), at(3650), 'other CA'),
    ]);
    const sign = (ca: GeneratedCert, dnsNames: string[], commonName?: string) =>
      generateLeaf({ ca, keyType, dnsNames, notBefore: at(-1), notAfter: at(300), commonName });
    [leaf, leafWrongSan, leafOtherCa, leafCnOnly] = await Promise.all([
      sign(valid, [INJECTOR_HOST]),
      // The right name in the subject CN does not count: the API server reads SANs only.
      sign(valid, ['linkerd-proxy-injector.default.svc'], INJECTOR_HOST),
      sign(other, [INJECTOR_HOST]),
      // The host only as the subject CN, no DNS name at all: the way certificates were made before Go 1.15.
      sign(valid, [], INJECTOR_HOST),
    ]);
    // A chart re-rendered by a GitOps tool: a new CA with the same name signs a new leaf.
    leafRerendered = await sign(await ca(at(-1), at(3650), 'valid CA'), [INJECTOR_HOST]);
  });

  describe('webhook-ca-expired', () => {
    const run = (s: Snapshot) => findings(s, ['webhook-ca-expired']);

    it('fires for a Linkerd caBundle whose only certificate expired, as the webhook-broken root cause', () => {
      const f = one(run(snap('linkerd', webhookConfig('linkerd', bundle(expired)))));
      expect(ids([f])).toEqual([
        'webhook-ca-expired MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config',
      ]);
      expect(f.severity).toBe('error');
      expect(f.causeKey).toBe('webhook-broken:linkerd');
      expect(f.message).toContain('new pods are created without a proxy');
      const cert = x509(expired);
      expect(f.evidence).toMatchObject({
        webhookConfiguration: 'linkerd-proxy-injector-webhook-config',
        webhooks: ['linkerd-proxy-injector.linkerd.io'],
        failurePolicy: 'Ignore',
        certificates: [
          {
            subject: 'CN=expired CA',
            issuer: 'CN=expired CA',
            serial: cert.serialNumber,
            notAfter: new Date(cert.validTo).toISOString(),
            daysLeft: -1,
            keyType: KEY,
            fingerprint256: cert.fingerprint256,
          },
        ],
      });
      expect(f.fix).toEqual([
        '# delete the webhook certificate Secret: the upgrade below re-creates it',
        'kubectl -n linkerd delete secret linkerd-proxy-injector-k8s-tls',
        '# a new webhook certificate and caBundle: for a Helm install, run helm upgrade linkerd-control-plane instead of this line',
        'linkerd upgrade | kubectl apply -f -',
        'kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector',
      ]);
    });

    it('fires once for Istio, grouping the webhooks that share the bundle, with the istiod restart', () => {
      const f = one(run(snap('istio', webhookConfig('istio', bundle(expired)))));
      expect(ids([f])).toEqual(['webhook-ca-expired MutatingWebhookConfiguration istio-sidecar-injector']);
      expect(f.causeKey).toBe('webhook-broken:istio');
      expect(f.message).toContain('pod creation in injected namespaces is rejected');
      expect(f.evidence.webhooks).toHaveLength(4);
      expect(f.fix.slice(0, 2)).toEqual([
        '# istiod re-patches the caBundle of its webhook configurations when it starts',
        'kubectl -n istio-system rollout restart deploy/istiod',
      ]);
    });

    it('is a warning without a root cause when a valid certificate remains in the bundle', () => {
      const f = one(run(snap('linkerd', webhookConfig('linkerd', bundle(valid, expired)))));
      expect(f.severity).toBe('warning');
      expect(f.causeKey).toBeUndefined();
      expect((f.evidence.certificates as any[]).map((c) => c.subject)).toEqual(['CN=expired CA']);
    });

    it('stays silent for valid, expiring, not-yet-valid and garbage bundles', () => {
      for (const c of [valid, soon, future])
        expect(run(snap('both', webhookConfig('linkerd', bundle(c)), webhookConfig('istio', bundle(c))))).toEqual([]);
      expect(run(snap('linkerd', webhookConfig('linkerd', b64('hello'))))).toEqual([]);
    });
  });

  describe('webhook-ca-expiring', () => {
    const run = (s: Snapshot, certExpiryWarningDays?: number) =>
      findings(s, ['webhook-ca-expiring'], { certExpiryWarningDays });

    it('warns 10 days ahead with the default 60-day window, for both meshes', () => {
      const fs = run(snap('both', webhookConfig('linkerd', bundle(soon)), webhookConfig('istio', bundle(soon))));
      expect(ids(fs).sort()).toEqual([
        'webhook-ca-expiring MutatingWebhookConfiguration istio-sidecar-injector',
        'webhook-ca-expiring MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config',
      ]);
      for (const f of fs) {
        expect(f.severity).toBe('warning');
        expect(f.causeKey).toBeUndefined();
        expect(f.evidence).toMatchObject({
          warningDays: 60,
          certificates: [{ subject: 'CN=expiring CA', daysLeft: 10, keyType: KEY }],
        });
      }
    });

    it('stays silent with --cert-expiry-warning 5, and for valid, expired or not-yet-valid certificates', () => {
      expect(run(snap('linkerd', webhookConfig('linkerd', bundle(soon))), 5)).toEqual([]);
      // The window is inclusive: exactly 10 days left warns at 10, not at 9.
      expect(run(snap('linkerd', webhookConfig('linkerd', bundle(soon))), 10)).toHaveLength(1);
      expect(run(snap('linkerd', webhookConfig('linkerd', bundle(soon))), 9)).toEqual([]);
      for (const c of [valid, expired, future])
        expect(run(snap('istio', webhookConfig('istio', bundle(c))))).toEqual([]);
    });
  });

  describe('webhook-ca-invalid', () => {
    const run = (s: Snapshot) => findings(s, ['webhook-ca-invalid']);
    const problems = (f: Finding) =>
      (f.evidence.problems as { problem: string; detail: string }[]).map((p) => p.problem);

    it('reports a not-yet-valid certificate with the date it starts', () => {
      for (const base of ['linkerd', 'istio'] as const) {
        const f = one(run(snap(base, webhookConfig(base, bundle(future)))));
        expect(f.causeKey).toBe(`webhook-broken:${base}`);
        expect(problems(f)).toEqual(['not-yet-valid']);
        expect(f.message).toContain(
          `CN=future CA is not valid until ${new Date(x509(future).validFrom).toISOString()}`,
        );
        expect((f.evidence.problems as any[])[0].certificate).toMatchObject({ subject: 'CN=future CA', keyType: KEY });
      }
    });

    it('reports garbage bundles with the reason, never key material', () => {
      const truncated = valid.certPem.slice(0, valid.certPem.length / 2);
      const broken = valid.certPem.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!broken-body!!!!!');
      const cases: [string | undefined, string, string][] = [
        [undefined, 'empty', 'the caBundle is empty'],
        ['', 'empty', 'the caBundle is empty'],
        ['not base64!!', 'not-base64', 'the caBundle is not base64'],
        [b64('hello'), 'not-pem', 'not PEM'],
        [b64(valid.keyPem), 'private-key', 'block 1 is a private key, not a certificate'],
        [b64(truncated), 'truncated', 'without their END line'],
        [b64(broken), 'unparseable', 'block 1 is a certificate that cannot be parsed'],
      ];
      for (const [caBundle, problem, text] of cases) {
        const f = one(run(snap('linkerd', webhookConfig('linkerd', caBundle))));
        expect(ids([f])).toEqual([
          'webhook-ca-invalid MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config',
        ]);
        expect(f.severity).toBe('error');
        expect(f.causeKey).toBe('webhook-broken:linkerd');
        expect(problems(f)).toEqual([problem]);
        expect(f.message).toContain(text);
        expect(JSON.stringify(f)).not.toMatch(/PRIVATE KEY|MI[GI][A-Za-z0-9+/]{20}/);
      }
    });

    it('explains an empty Istio bundle by istiod, from a fixture', () => {
      const f = one(run(cluster('istio', ['checks/webhook-ca-invalid/fires-istio-empty.yaml'])));
      expect(f.evidence.webhooks).toEqual([
        'namespace.sidecar-injector.istio.io',
        'rev.namespace.sidecar-injector.istio.io',
      ]);
      expect(f.message).toContain(
        'istiod fills it itself, so istiod is not running or cannot patch this configuration',
      );
      expect(f.fix.slice(0, 2)).toEqual([
        '# istiod re-patches the caBundle of its webhook configurations when it starts',
        'kubectl -n istio-system rollout restart deploy/istiod',
      ]);
    });

    it('explains an empty Consul bundle by the webhook-cert-manager today and by the injector itself up to 0.25', () => {
      const today = one(run(cluster('consul', ['checks/webhook-ca-invalid/fires-consul-empty.yaml'])));
      expect(today.fix).toEqual([
        '# the webhook-cert-manager makes a new CA and certificate and patches the caBundle within seconds of its restart',
        'kubectl -n consul rollout restart deploy/consul-webhook-cert-manager',
        '# the injector loads the new certificate when it restarts',
        'kubectl -n consul rollout restart deploy/consul-connect-injector',
      ]);
      // consul-k8s 0.25: no webhook-cert-manager for the injector; the injector Deployment is not named like its Service.
      const old = one(run(cluster('consul-0.x', ['checks/webhook-ca-invalid/fires-consul-0.x-empty.yaml'])));
      expect(old.message).toContain('up to consul-k8s 0.25 the injector itself at start with -tls-auto');
      expect(old.fix).toEqual([
        '# this release of the injector makes its own certificate and patches the caBundle when it starts, -tls-auto',
        'kubectl -n consul rollout restart deploy/consul-connect-injector-webhook-deployment',
      ]);
    });

    it('follows the Consul webhook-cert-manager when it has no ready pod: the scheduler says why', () => {
      const f = one(run(cluster('consul', ['checks/webhook-ca-invalid/fires-consul-cert-manager-unschedulable.yaml'])));
      expect(f.message).toContain(
        'Deployment consul/consul-webhook-cert-manager has no ready pod (pod consul-webhook-cert-manager-5b7c9d8f6-q2w3e: Pending; not scheduled, the scheduler says: 0/2 nodes are available: 2 node(s) had untolerated taint {workload: consul}.',
      );
      const mount = one(
        run(cluster('consul', ['checks/webhook-ca-invalid/fires-consul-cert-manager-failedmount.yaml'])),
      );
      expect(mount.message).toContain(
        'Deployment consul/consul-webhook-cert-manager has no ready pod (pod consul-webhook-cert-manager-5b7c9d8f6-q2w3e: ContainerCreating; the kubelet cannot mount its volume config (the ConfigMap consul-webhook-cert-manager-config was not found in namespace consul',
      );
      // Near misses: its Deployment says a replica is available; on consul-k8s 0.25 the injector fills it (-tls-auto).
      expect(one(run(cluster('consul', ['checks/webhook-ca-invalid/fires-consul-empty.yaml']))).message).not.toContain(
        'Deployment consul/consul-webhook-cert-manager',
      );
      expect(
        one(run(cluster('consul-0.x', ['checks/webhook-ca-invalid/fires-consul-0.x-empty.yaml']))).message,
      ).not.toContain('webhook-cert-manager has no');
    });

    it('names the cert-manager Certificate when cainjector has not filled the bundle', () => {
      const f = one(run(cluster('linkerd', ['checks/webhook-ca-invalid/fires-linkerd-cert-manager-pending.yaml'])));
      expect(problems(f)).toEqual(['cert-manager-pending']);
      expect(f.evidence.injectCaFrom).toBe('linkerd/linkerd-proxy-injector');
      expect(f.message).toContain('cert-manager has not injected the CA of Certificate linkerd/linkerd-proxy-injector');
      expect(f.fix).toEqual([
        '# is the Certificate Ready: cainjector copies the CA of its Secret into the caBundle',
        'kubectl -n linkerd describe certificate linkerd-proxy-injector',
        '# why the caBundle was not filled',
        'kubectl -n cert-manager logs -l app.kubernetes.io/component=cainjector --tail=100',
        '# delete the webhook certificate Secret: cert-manager re-issues it',
        'kubectl -n linkerd delete secret linkerd-proxy-injector-k8s-tls',
        'kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector',
      ]);
    });

    it('is a warning when an unusable block sits next to a valid certificate', () => {
      const f = one(run(snap('istio', webhookConfig('istio', b64(valid.certPem + valid.keyPem)))));
      expect(f.severity).toBe('warning');
      expect(f.causeKey).toBeUndefined();
      expect(problems(f)).toEqual(['private-key']);
    });

    it('stays silent for valid, expiring and expired bundles, and for a url webhook without caBundle', () => {
      for (const c of [valid, soon, expired])
        expect(run(snap('both', webhookConfig('linkerd', bundle(c)), webhookConfig('istio', bundle(c))))).toEqual([]);
      expect(run(cluster('istio', ['checks/webhook-ca-invalid/ok-url-webhook.yaml']))).toEqual([]);
    });
  });

  describe('webhook-cert-mismatch', () => {
    const run = (s: Snapshot) => findings(s, ['webhook-cert-mismatch']);
    const serving = (c: GeneratedCert, annotations?: Record<string, string>) =>
      tlsSecret('linkerd-proxy-injector-k8s-tls', { 'tls.crt': c.certPem, 'tls.key': c.keyPem }, annotations);

    it('stays silent when the serving certificate chains to the caBundle and names the service', () => {
      expect(run(snap('linkerd', webhookConfig('linkerd', bundle(valid)), serving(leaf)))).toEqual([]);
      // Several CAs in the bundle (rotation): any one signing the leaf will do.
      expect(run(snap('linkerd', webhookConfig('linkerd', bundle(other, valid)), serving(leaf)))).toEqual([]);
    });

    it('fires for a leaf signed by another CA', () => {
      const f = one(run(snap('linkerd', webhookConfig('linkerd', bundle(valid)), serving(leafOtherCa))));
      expect(ids([f])).toEqual(['webhook-cert-mismatch Secret linkerd/linkerd-proxy-injector-k8s-tls']);
      expect(f.causeKey).toBe('webhook-broken:linkerd');
      expect(f.evidence.problems).toEqual([
        {
          problem: 'not-signed-by-ca-bundle',
          detail: 'the serving certificate (issuer CN=other CA) is not signed by any caBundle certificate',
        },
      ]);
      expect(f.evidence.servingCertificate).toMatchObject({
        issuer: 'CN=other CA',
        dnsNames: [INJECTOR_HOST],
        keyType: KEY,
      });
      expect(f.fix.slice(0, 2)).toEqual([
        '# delete the webhook certificate Secret: the upgrade below re-creates it',
        'kubectl -n linkerd delete secret linkerd-proxy-injector-k8s-tls',
      ]);
      expect(JSON.stringify(f)).not.toContain('PRIVATE KEY');
    });

    it('fires for a SAN that is not <service>.<namespace>.svc, with the cert-manager fix when it manages the CA', () => {
      const cfg = webhookConfig('linkerd', bundle(valid), {
        'cert-manager.io/inject-ca-from': 'linkerd/linkerd-proxy-injector',
      });
      const f = one(
        run(
          snap('linkerd', cfg, serving(leafWrongSan, { 'cert-manager.io/certificate-name': 'linkerd-proxy-injector' })),
        ),
      );
      expect(f.evidence.problems).toEqual([
        { problem: 'san-mismatch', detail: `the serving certificate is not valid for ${INJECTOR_HOST}` },
      ]);
      expect(f.evidence.expectedDnsName).toBe(INJECTOR_HOST);
      expect(f.fix.slice(0, 2)).toEqual([
        '# is the Certificate Ready: cainjector copies the CA of its Secret into the caBundle',
        'kubectl -n linkerd describe certificate linkerd-proxy-injector',
      ]);
    });

    it('names a certificate whose host is only its Common Name, which API servers from Kubernetes 1.19 refuse', () => {
      const f = one(run(snap('linkerd', webhookConfig('linkerd', bundle(valid)), serving(leafCnOnly))));
      expect(f.evidence.problems).toEqual([
        {
          problem: 'common-name-only',
          detail: `the serving certificate names ${INJECTOR_HOST} only in its subject Common Name, without a subjectAltName, which API servers from Kubernetes 1.19 on no longer accept`,
        },
      ]);
      expect(f.evidence.servingCertificate).toMatchObject({ subject: `CN=${INJECTOR_HOST}`, dnsNames: [] });
    });

    it('fires for a leaf from a re-generated CA of the same name (the signature decides)', () => {
      const f = one(run(snap('linkerd', webhookConfig('linkerd', bundle(valid)), serving(leafRerendered))));
      expect((f.evidence.problems as any[]).map((p) => p.problem)).toEqual(['not-signed-by-ca-bundle']);
    });

    it('fires when the Secret holds no certificate', () => {
      const f = one(
        run(
          snap(
            'linkerd',
            webhookConfig('linkerd', bundle(valid)),
            tlsSecret('linkerd-proxy-injector-k8s-tls', { 'tls.crt': 'garbage' }),
          ),
        ),
      );
      expect(f.evidence.problems).toEqual([
        {
          problem: 'no-certificate',
          detail: 'Secret linkerd-proxy-injector-k8s-tls holds no certificate under tls.crt',
        },
      ]);
    });

    it('stays silent without the Secret, with an unusable caBundle (webhook-ca-invalid), and for Istio', () => {
      const gone = {
        ...serving(leafOtherCa),
        metadata: {
          name: 'linkerd-proxy-injector-k8s-tls',
          namespace: 'linkerd',
          annotations: { 'meshdoctor.test/delete': 'true' },
        },
      };
      expect(run(snap('linkerd', webhookConfig('linkerd', bundle(valid)), gone))).toEqual([]);
      expect(run(snap('linkerd', webhookConfig('linkerd', b64('hello')), serving(leafOtherCa)))).toEqual([]);
      expect(run(snap('istio', webhookConfig('istio', bundle(valid))))).toEqual([]);
    });

    it('is skipped with the reason when Secrets cannot be read', () => {
      const s = snap('linkerd', webhookConfig('linkerd', bundle(valid)), serving(leafOtherCa));
      delete s.objects.secrets;
      s.unavailable.secrets = 'forbidden (403)';
      const r = runChecks(
        s,
        CHECKS.filter((c) => c.id === 'webhook-cert-mismatch'),
        { mesh: 'auto', certExpiryWarningDays: 60, now: NOW },
      );
      expect(r.findings).toEqual([]);
      expect(r.skipped).toEqual([{ check: 'webhook-cert-mismatch', reason: 'cannot read secrets' }]);
      expect(r.coverage.unavailable).toEqual([
        { kind: 'secrets', reason: 'forbidden (403)', checks: ['webhook-cert-mismatch'] },
      ]);
    });
  });

  describe('identity-cert-expired / identity-cert-expiring', () => {
    const run = (s: Snapshot, opts: { certExpiryWarningDays?: number; mesh?: 'istio' } = {}) =>
      findings(s, ['identity-cert-expired', 'identity-cert-expiring'], opts);
    const issuer = (c: GeneratedCert, key = 'crt.pem', annotations?: Record<string, string>) =>
      tlsSecret(
        'linkerd-identity-issuer',
        { [key]: c.certPem, [key === 'crt.pem' ? 'key.pem' : 'tls.key']: c.keyPem },
        annotations,
      );

    it("reports an expired trust anchor as an error with Linkerd's replacement procedure", () => {
      const f = one(run(snap('linkerd', trustRoots(expired))));
      expect(ids([f])).toEqual(['identity-cert-expired ConfigMap linkerd/linkerd-identity-trust-roots']);
      expect(f.severity).toBe('error');
      expect(f.evidence).toMatchObject({
        role: 'trust anchor',
        anchors: 1,
        validAnchors: 0,
        certificates: [{ subject: 'CN=expired CA', state: 'expired', keyType: KEY }],
      });
      expect(f.fix).toContain(
        'linkerd upgrade --identity-trust-anchors-file=./ca-new.crt --identity-issuer-certificate-file=./issuer-new.crt --identity-issuer-key-file=./issuer-new.key | kubectl apply -f -',
      );
    });

    it('is a warning when an expired anchor sits next to a valid one (multi-certificate bundle)', () => {
      const f = one(run(snap('linkerd', trustRoots(valid, expired))));
      expect(f.id).toBe('identity-cert-expired');
      expect(f.severity).toBe('warning');
      expect(f.evidence).toMatchObject({ anchors: 2, validAnchors: 1 });
      expect(f.fix.slice(0, 2)).toEqual([
        "kubectl -n linkerd get configmap linkerd-identity-trust-roots -o jsonpath='{.data.ca-bundle\\.crt}' > original-trust.crt",
        '# remove the expired anchors from original-trust.crt',
      ]);
    });

    it('reports a not-yet-valid issuer under identity-cert-expired', () => {
      const f = one(run(snap('linkerd', issuer(future))));
      expect(ids([f])).toEqual(['identity-cert-expired Secret linkerd/linkerd-identity-issuer']);
      expect(f.message).toContain(`is not valid until ${new Date(x509(future).validFrom).toISOString()}`);
      expect((f.evidence.certificates as any[])[0]).toMatchObject({ state: 'not-yet-valid', keyType: KEY });
    });

    it('re-issues an expired issuer by hand, or through cert-manager when it manages the Secret', () => {
      const manual = one(run(snap('linkerd', issuer(expired))));
      expect(manual.fix).toEqual([
        '# ca.crt and ca.key: your trust anchor and its key',
        "step certificate create 'expired CA' issuer-new.crt issuer-new.key --profile intermediate-ca --no-password --insecure --not-after 8760h --ca ca.crt --ca-key ca.key",
        '# a Helm install passes the new issuer with --set-file identity.issuer.tls.crtPEM=issuer-new.crt --set-file identity.issuer.tls.keyPEM=issuer-new.key instead',
        'linkerd upgrade --identity-issuer-certificate-file=./issuer-new.crt --identity-issuer-key-file=./issuer-new.key | kubectl apply -f -',
        'linkerd check --proxy',
      ]);
      const cm = one(
        run(
          snap(
            'linkerd',
            issuer(expired, 'tls.crt', { 'cert-manager.io/certificate-name': 'linkerd-identity-issuer' }),
          ),
        ),
      );
      expect(cm.evidence.key).toBe('tls.crt');
      expect(cm.fix).toEqual([
        '# why cert-manager did not renew it',
        'kubectl -n linkerd describe certificate linkerd-identity-issuer',
        '# cert-manager re-issues the Secret, and linkerd-identity loads the new issuer',
        'kubectl -n linkerd delete secret linkerd-identity-issuer',
      ]);
      expect(JSON.stringify([manual, cm])).not.toContain('PRIVATE KEY');
    });

    it('warns 10 days ahead (default window) for anchors and issuer, silent with --cert-expiry-warning 5', () => {
      const s = snap('linkerd', trustRoots(soon), issuer(soon));
      expect(ids(run(s))).toEqual([
        'identity-cert-expiring ConfigMap linkerd/linkerd-identity-trust-roots',
        'identity-cert-expiring Secret linkerd/linkerd-identity-issuer',
      ]);
      expect(run(s)[0]!.evidence).toMatchObject({ warningDays: 60, certificates: [{ daysLeft: 10, keyType: KEY }] });
      expect(run(s, { certExpiryWarningDays: 5 })).toEqual([]);
    });

    it('still checks the anchors when Secrets are unavailable', () => {
      const s = snap('linkerd', trustRoots(expired), issuer(expired));
      delete s.objects.secrets;
      s.unavailable.secrets = 'forbidden (403)';
      expect(ids(run(s))).toEqual(['identity-cert-expired ConfigMap linkerd/linkerd-identity-trust-roots']);
    });

    it('stays silent for valid certificates and with --mesh istio', () => {
      expect(run(snap('linkerd', trustRoots(valid, other), issuer(valid)))).toEqual([]);
      expect(run(snap('linkerd', trustRoots(expired)), { mesh: 'istio' })).toEqual([]);
    });
  });
});

describe('certificate checks on healthy clusters', () => {
  it('stay silent for Linkerd, Istio and both, in every scope', () => {
    for (const base of ['linkerd', 'istio', 'both'] as const) {
      expect(findings(cluster(base), ALL)).toEqual([]);
      expect(findings(cluster(base, [], { allNamespaces: false, namespace: 'shop' }), ALL)).toEqual([]);
    }
  });
});
