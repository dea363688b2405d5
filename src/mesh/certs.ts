/**
 * Certificates from untrusted cluster data: webhook caBundles (base64 of PEM), ConfigMap PEM and
 * sanitized Secrets (`certificates`). Parsing is Node's own `crypto.X509Certificate` (RSA and
 * ECDSA alike); every block that is not a usable certificate becomes a problem with a reason.
 * Nothing here keeps or prints key material: a private key block is named, never shown.
 */
import { X509Certificate } from 'node:crypto';
import type { K8sObject, MeshName } from '../types.js';
import { annotationsOf, groupBy, isObj, plural, shq, str } from '../util.js';
import type { MeshWebhook } from './webhooks.js';
import { LINKERD_INJECTOR } from './constants.js';

const DAY = 86_400_000;
/** Any PEM block, with its type (CERTIFICATE, PRIVATE KEY, ...). */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----(?:(?!-----BEGIN )[\s\S])*?-----END \1-----/g;

export interface Cert {
  x509: X509Certificate;
  subject: string;
  /** How messages name it: the subject, else (cert-manager issues SAN-only certificates) its first SAN, else its serial. */
  label: string;
  issuer: string;
  serial: string;
  notBefore: Date;
  notAfter: Date;
  keyType: string;
  fingerprint256: string;
}

export type PemProblemCode = 'empty' | 'not-base64' | 'not-pem' | 'private-key' | 'not-certificate' | 'truncated' | 'unparseable';

export interface PemProblem {
  problem: PemProblemCode;
  detail: string;
}

export interface PemResult {
  certs: Cert[];
  problems: PemProblem[];
}

/** "CN=a\nO=b" (Node's form) -> "CN=a, O=b". Node gives undefined for an empty name (cert-manager issues such certificates: SANs only). */
const dn = (s: string | undefined): string => (s ?? '').split('\n').filter(Boolean).join(', ');

/**
 * A parsed certificate, or why it cannot be used: dates Node cannot read (OpenSSL prints "Bad time
 * value" for a malformed time) would make every comparison false, i.e. valid forever.
 */
function toCert(x509: X509Certificate): Cert | string {
  const type = x509.publicKey.asymmetricKeyType ?? 'unknown';
  const notBefore = new Date(x509.validFrom);
  const notAfter = new Date(x509.validTo);
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) return `whose validity dates cannot be read (${x509.validFrom} - ${x509.validTo})`;
  const subject = dn(x509.subject);
  const san = (x509.subjectAltName ?? '').split(', ')[0];
  return {
    x509,
    subject,
    label: subject || (san ? `no subject, ${san}` : `no subject, serial ${x509.serialNumber}`),
    issuer: dn(x509.issuer),
    serial: x509.serialNumber,
    notBefore,
    notAfter,
    keyType: type === 'ec' ? 'EC' : type.toUpperCase(),
    fingerprint256: x509.fingerprint256,
  };
}

/** Every PEM block of a text, parsed: certificates, and a problem for everything else. */
export function parsePem(text: string): PemResult {
  const certs: Cert[] = [];
  const problems: PemProblem[] = [];
  if (!text.trim()) return { certs, problems: [{ problem: 'empty', detail: 'no text' }] };
  const blocks = [...text.matchAll(PEM_BLOCK)];
  blocks.forEach((b, i) => {
    const type = b[1]!;
    const n = `block ${i + 1}`;
    if (type.includes('PRIVATE KEY')) problems.push({ problem: 'private-key', detail: `${n} is a private key, not a certificate` });
    else if (type !== 'CERTIFICATE') problems.push({ problem: 'not-certificate', detail: `${n} is a ${type}, not a certificate` });
    else {
      let cert: Cert | string;
      try {
        cert = toCert(new X509Certificate(b[0]));
      } catch (e) {
        cert = `that cannot be parsed (${(e as Error).message})`;
      }
      if (typeof cert === 'string') problems.push({ problem: 'unparseable', detail: `${n} is a certificate ${cert}` });
      else certs.push(cert);
    }
  });
  const begins = (text.match(/-----BEGIN /g) ?? []).length;
  if (begins > blocks.length) problems.push({ problem: 'truncated', detail: `${plural(begins - blocks.length, 'PEM block')} without their END line (truncated)` });
  else if (begins === 0) problems.push({ problem: 'not-pem', detail: 'not PEM: no -----BEGIN CERTIFICATE----- block' });
  return { certs, problems };
}

/** A webhook's caBundle: base64 of PEM certificates. */
export function parseCaBundle(caBundle: string | undefined): PemResult {
  const b64 = (caBundle ?? '').replace(/\s+/g, '');
  if (!b64) return { certs: [], problems: [{ problem: 'empty', detail: 'the caBundle is empty' }] };
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    return { certs: [], problems: [{ problem: 'not-base64', detail: 'the caBundle is not base64' }] };
  }
  return parsePem(Buffer.from(b64, 'base64').toString('latin1'));
}

/** The certificates kept under one key of a sanitized Secret (see cluster/sanitize.ts). */
export function secretCerts(secret: K8sObject | undefined, key: string): PemResult | undefined {
  const text = isObj(secret?.certificates) ? str(secret!.certificates[key]) : undefined;
  return text === undefined ? undefined : parsePem(text);
}

export type Validity = 'valid' | 'expired' | 'not-yet-valid';

export function validity(c: Cert, now: Date): Validity {
  if (c.notAfter.getTime() < now.getTime()) return 'expired';
  if (c.notBefore.getTime() > now.getTime()) return 'not-yet-valid';
  return 'valid';
}

/** Valid now, but not `warningDays` from now. */
export function expiring(c: Cert, now: Date, warningDays: number): boolean {
  return validity(c, now) === 'valid' && c.notAfter.getTime() - now.getTime() <= warningDays * DAY;
}

/** Whole days left until notAfter (negative once expired). */
export const daysLeft = (c: Cert, now: Date): number => Math.floor((c.notAfter.getTime() - now.getTime()) / DAY);

/** Structured evidence about a certificate (public data only). */
export function certEvidence(c: Cert, now: Date) {
  return {
    subject: c.subject,
    issuer: c.issuer,
    serial: c.serial,
    notBefore: c.notBefore.toISOString(),
    notAfter: c.notAfter.toISOString(),
    daysLeft: daysLeft(c, now),
    keyType: c.keyType,
    fingerprint256: c.fingerprint256,
  };
}

/** The value of an RDN attribute of the subject (e.g. CN), if present. */
export function subjectAttr(c: Cert, attr: string): string | undefined {
  return (c.x509.subject ?? '').split('\n').find((l) => l.startsWith(`${attr}=`))?.slice(attr.length + 1);
}

/** `child` is signed by `parent` (names match and the signature verifies). */
export function issuedBy(child: Cert, parent: Cert): boolean {
  try {
    return child.x509.checkIssued(parent.x509) && child.x509.verify(parent.x509.publicKey);
  } catch {
    return false; // a key type that cannot verify this signature did not sign it
  }
}

/**
 * `leaf` is one of `roots`, or chains to one through `intermediates` (signatures only, not time).
 * Breadth-first with a visited set, at most `depth` links: each certificate is tried once, so
 * identical or cross-signed certificates (a hostile Secret holds 40 copies) cost O(n^2) signature
 * checks at worst, never an exponential search.
 */
export function chainsTo(leaf: Cert, intermediates: Cert[], roots: Cert[], depth = 4): boolean {
  const isRoot = (c: Cert) => roots.some((r) => r.fingerprint256 === c.fingerprint256 || issuedBy(c, r));
  const seen = new Set([leaf.fingerprint256]);
  let level = [leaf];
  for (let d = 0; level.length; d++) {
    if (level.some(isRoot)) return true;
    if (d === depth) return false;
    const next: Cert[] = [];
    for (const i of intermediates) {
      if (seen.has(i.fingerprint256) || !level.some((c) => issuedBy(c, i))) continue;
      seen.add(i.fingerprint256);
      next.push(i);
    }
    level = next;
  }
  return false;
}

/** The DNS names of the subjectAltName extension. */
export function dnsNames(c: Cert): string[] {
  return (c.x509.subjectAltName ?? '')
    .split(', ')
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4));
}

/** The certificate serves `host` by its SANs (the API server ignores the subject CN). */
export function servesHost(c: Cert, host: string): boolean {
  return c.x509.checkHost(host, { subject: 'never' }) !== undefined;
}

/** `cert-manager.io/inject-ca-from: <namespace>/<certificate>` on a webhook configuration. */
export function injectCaFrom(config: K8sObject): { namespace: string; name: string } | undefined {
  const v = annotationsOf(config)['cert-manager.io/inject-ca-from'];
  const m = v ? /^([^/]+)\/(.+)$/.exec(v) : null;
  return m ? { namespace: m[1]!, name: m[2]! } : undefined;
}

/** The cert-manager Certificate that manages a Secret (annotation set by cert-manager), if any. */
export function certManagerCertificate(secret: K8sObject): string | undefined {
  return annotationsOf(secret)['cert-manager.io/certificate-name'];
}

// --- Webhook caBundles --------------------------------------------------------------------------

/** Webhooks of one configuration that share one caBundle, and what it holds. */
export interface BundleGroup {
  mesh: MeshName;
  config: K8sObject;
  configName: string;
  webhooks: MeshWebhook[];
  parsed: PemResult;
}

/** The mesh webhooks grouped by configuration and caBundle, each bundle parsed once. */
export function webhookBundles(hooks: MeshWebhook[]): BundleGroup[] {
  const groups = new Map<string, BundleGroup>();
  for (const w of hooks) {
    const key = `${w.configName}\0${w.caBundle ?? ''}`;
    const g = groups.get(key);
    if (g) g.webhooks.push(w);
    else groups.set(key, { mesh: w.mesh, config: w.config, configName: w.configName, webhooks: [w], parsed: parseCaBundle(w.caBundle) });
  }
  return [...groups.values()];
}

/** Bundle groups by configuration name, in order. */
export const byConfig = (groups: BundleGroup[]): BundleGroup[][] => [...groupBy(groups, (g) => g.configName).values()];

/** A bundle the API server can verify with now: at least one certificate valid at `now`. */
export const usable = (g: BundleGroup, now: Date): boolean => g.parsed.certs.some((c) => validity(c, now) === 'valid');

export const MESH_TITLE: Record<MeshName, string> = { linkerd: 'Linkerd', istio: 'Istio' };

/** What a broken webhook does to new pods, by its failurePolicy. */
export function brokenEffect(hooks: MeshWebhook[]): string {
  return hooks.some((h) => h.failurePolicy === 'Fail') ? 'pod creation in injected namespaces is rejected' : 'new pods are created without a proxy';
}

/** The finding fields every caBundle finding of one configuration shares. */
export function bundleFinding(groups: BundleGroup[], broken: boolean) {
  const g = groups[0]!;
  const hooks = groups.flatMap((x) => x.webhooks);
  const from = injectCaFrom(g.config);
  return {
    mesh: g.mesh,
    resource: { kind: 'MutatingWebhookConfiguration', name: g.configName },
    evidence: {
      webhookConfiguration: g.configName,
      webhooks: hooks.map((h) => h.name),
      failurePolicy: [...new Set(hooks.map((h) => h.failurePolicy))].join(','),
      ...(from ? { injectCaFrom: `${from.namespace}/${from.name}` } : {}),
    },
    fix: webhookCertFix(g.mesh, g.config, hooks),
    ...(broken ? { causeKey: `webhook-broken:${g.mesh}` } : { severity: 'warning' as const }),
  };
}

/**
 * How to get a valid caBundle and serving certificate: through cert-manager when it injects the
 * CA, else Linkerd's regeneration on upgrade, or istiod's own patching of its webhooks.
 */
export function webhookCertFix(mesh: MeshName, config: K8sObject, hooks: MeshWebhook[]): string[] {
  const svc = hooks.find((h) => h.service)?.service;
  const ns = shq(svc?.namespace || (mesh === 'linkerd' ? 'linkerd' : 'istio-system'));
  const deploy = shq(`deploy/${svc?.name || (mesh === 'linkerd' ? LINKERD_INJECTOR : 'istiod')}`);
  const from = injectCaFrom(config);
  const certManager = from
    ? [
        `kubectl -n ${shq(from.namespace)} describe certificate ${shq(from.name)}  # Ready? cainjector copies the CA of its Secret into the caBundle`,
        `kubectl -n cert-manager logs -l app.kubernetes.io/component=cainjector --tail=100  # why the caBundle was not filled`,
      ]
    : [];
  if (mesh === 'istio') {
    return [
      ...certManager,
      `kubectl -n ${ns} rollout restart ${deploy}  # istiod re-patches the caBundle of its webhook configurations when it starts`,
      `kubectl -n ${ns} logs ${deploy} --tail=200 | grep -i webhook  # errors patching the caBundle (with a plugged-in CA, replace Secret cacerts first)`,
    ];
  }
  return [
    ...certManager,
    `kubectl -n ${ns} delete secret linkerd-proxy-injector-k8s-tls  # ${from ? 'cert-manager re-issues it' : 'the upgrade below re-creates it'}`,
    ...(from ? [] : ['linkerd upgrade | kubectl apply -f -  # Helm installs: helm upgrade linkerd-control-plane instead; both generate a new webhook certificate and caBundle']),
    `kubectl -n ${ns} rollout restart ${deploy}`,
  ];
}

// --- Linkerd identity ---------------------------------------------------------------------------

/** Certificates that make up Linkerd's identity: the trust anchors and the issuer certificate. */
export interface IdentityCerts {
  role: 'trust anchor' | 'issuer';
  ref: { kind: 'ConfigMap' | 'Secret'; namespace: string; name: string };
  key: string;
  obj: K8sObject;
  certs: Cert[];
}

/**
 * The trust anchors (ConfigMap `linkerd-identity-trust-roots`, `ca-bundle.crt`) and the issuer
 * (Secret `linkerd-identity-issuer`, `crt.pem` or cert-manager's `tls.crt`; its first certificate).
 * Unparseable blocks are dropped here: these checks judge dates only.
 */
export function linkerdIdentity(configmaps: K8sObject[], secrets: K8sObject[]): IdentityCerts[] {
  const out: IdentityCerts[] = [];
  for (const cm of configmaps) {
    const text = cm.metadata?.name === 'linkerd-identity-trust-roots' && isObj(cm.data) ? str(cm.data['ca-bundle.crt']) : undefined;
    if (text === undefined) continue;
    const ref = { kind: 'ConfigMap' as const, namespace: str(cm.metadata?.namespace) ?? '', name: 'linkerd-identity-trust-roots' };
    out.push({ role: 'trust anchor', ref, key: 'ca-bundle.crt', obj: cm, certs: parsePem(text).certs });
  }
  for (const s of secrets) {
    if (s.metadata?.name !== 'linkerd-identity-issuer') continue;
    const key = ['crt.pem', 'tls.crt'].find((k) => secretCerts(s, k)?.certs.length);
    if (!key) continue; // no issuer certificate kept: nothing to date
    const ref = { kind: 'Secret' as const, namespace: str(s.metadata?.namespace) ?? '', name: 'linkerd-identity-issuer' };
    out.push({ role: 'issuer', ref, key, obj: s, certs: secretCerts(s, key)!.certs.slice(0, 1) });
  }
  return out;
}

const STEP_ROOT = '--profile root-ca --no-password --insecure --not-after 87600h';
const STEP_ISSUER = '--profile intermediate-ca --no-password --insecure --not-after 8760h';

/**
 * Linkerd's documented rotation: for the issuer, cert-manager re-issuing its Secret, or a new
 * issuer from the trust anchor through `linkerd upgrade`; for trust anchors, a bundle of new and
 * old anchors (rotation), or new anchor and issuer at once when no anchor is valid any more.
 */
export function identityFix(src: IdentityCerts, anyValid: boolean): string[] {
  const ns = shq(src.ref.namespace);
  const cn = src.certs.map((c) => subjectAttr(c, 'CN')).find(Boolean);
  const domain = cn?.replace(/^(root|identity)\.linkerd\./, '') || 'cluster.local';
  const anchorCn = shq(src.role === 'trust anchor' && cn ? cn : `root.linkerd.${domain}`);
  const issuerCn = shq(src.role === 'issuer' && cn ? cn : `identity.linkerd.${domain}`);
  if (src.role === 'issuer') {
    const certificate = certManagerCertificate(src.obj);
    if (certificate) {
      return [
        `kubectl -n ${ns} describe certificate ${shq(certificate)}  # why cert-manager did not renew it`,
        `kubectl -n ${ns} delete secret linkerd-identity-issuer  # cert-manager re-issues it; linkerd-identity loads the new issuer`,
      ];
    }
    return [
      `step certificate create ${issuerCn} issuer-new.crt issuer-new.key ${STEP_ISSUER} --ca ca.crt --ca-key ca.key  # ca.crt/ca.key: your trust anchor and its key`,
      'linkerd upgrade --identity-issuer-certificate-file=./issuer-new.crt --identity-issuer-key-file=./issuer-new.key | kubectl apply -f -  # Helm: --set-file identity.issuer.tls.crtPEM=issuer-new.crt --set-file identity.issuer.tls.keyPEM=issuer-new.key',
      'linkerd check --proxy',
    ];
  }
  if (!anyValid) {
    return [
      `step certificate create ${anchorCn} ca-new.crt ca-new.key ${STEP_ROOT}`,
      `step certificate create ${issuerCn} issuer-new.crt issuer-new.key ${STEP_ISSUER} --ca ca-new.crt --ca-key ca-new.key`,
      'linkerd upgrade --identity-trust-anchors-file=./ca-new.crt --identity-issuer-certificate-file=./issuer-new.crt --identity-issuer-key-file=./issuer-new.key | kubectl apply -f -',
      `kubectl -n ${ns} rollout restart deploy  # then restart every meshed workload so its proxy trusts the new anchor`,
    ];
  }
  return [
    `kubectl -n ${ns} get configmap linkerd-identity-trust-roots -o jsonpath='{.data.ca-bundle\\.crt}' > original-trust.crt  # remove expired anchors from this file`,
    `step certificate create ${anchorCn} ca-new.crt ca-new.key ${STEP_ROOT}`,
    'step certificate bundle ca-new.crt original-trust.crt bundle.crt',
    'linkerd upgrade --identity-trust-anchors-file=./bundle.crt | kubectl apply -f -',
    `kubectl -n ${ns} rollout restart deploy  # then restart every meshed workload, and issue a new issuer from ca-new.crt/ca-new.key`,
  ];
}
