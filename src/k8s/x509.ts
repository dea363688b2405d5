/**
 * Certificates from untrusted cluster data: webhook caBundles (base64 of PEM), ConfigMap PEM and
 * sanitized Secrets (`certificates`). Parsing is Node's own `crypto.X509Certificate` (RSA and
 * ECDSA alike); every block that is not a usable certificate becomes a problem with a reason.
 * Nothing here keeps or prints key material: a private key block is named, never shown.
 */
import { X509Certificate } from 'node:crypto';
import type { K8sObject } from '../util/types.js';
import { annotationsOf, isObj, plural, str } from '../util/objects.js';

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

type PemProblemCode =
  'empty' | 'not-base64' | 'not-pem' | 'private-key' | 'not-certificate' | 'truncated' | 'unparseable';

interface PemProblem {
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
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime()))
    return `whose validity dates cannot be read (${x509.validFrom} - ${x509.validTo})`;
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

/**
 * Parsed certificate blocks by their text: the same certificate is read by several checks and
 * webhooks of a run (and by every run of a process: tests, explain after check). A Cert is never
 * changed once made. Bounded: emptied when full, so hostile input costs parsing, not memory.
 */
const parsed = new Map<string, Cert | string>();
const MAX_PARSED = 512;
function parseBlock(block: string): Cert | string {
  let cert = parsed.get(block);
  if (cert === undefined) {
    try {
      cert = toCert(new X509Certificate(block));
    } catch (e) {
      cert = `that cannot be parsed (${(e as Error).message})`;
    }
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(block, cert);
  }
  return cert;
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
    if (type.includes('PRIVATE KEY'))
      problems.push({ problem: 'private-key', detail: `${n} is a private key, not a certificate` });
    else if (type !== 'CERTIFICATE')
      problems.push({ problem: 'not-certificate', detail: `${n} is a ${type}, not a certificate` });
    else {
      const cert = parseBlock(b[0]);
      if (typeof cert === 'string') problems.push({ problem: 'unparseable', detail: `${n} is a certificate ${cert}` });
      else certs.push(cert);
    }
  });
  const begins = (text.match(/-----BEGIN /g) ?? []).length;
  if (begins > blocks.length)
    problems.push({
      problem: 'truncated',
      detail: `${plural(begins - blocks.length, 'PEM block')} without their END line (truncated)`,
    });
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

type Validity = 'valid' | 'expired' | 'not-yet-valid';

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
const daysLeft = (c: Cert, now: Date): number => Math.floor((c.notAfter.getTime() - now.getTime()) / DAY);

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
  return (c.x509.subject ?? '')
    .split('\n')
    .find((l) => l.startsWith(`${attr}=`))
    ?.slice(attr.length + 1);
}

/** `child` is signed by `parent` (names match and the signature verifies). */
function issuedBy(child: Cert, parent: Cert): boolean {
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

/** The certificate names `host` as its subject Common Name (what API servers built before Go 1.15 accepted without SANs). */
export function servesHostByCommonName(c: Cert, host: string): boolean {
  return c.x509.checkHost(host, { subject: 'always' }) !== undefined;
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
