/**
 * Test certificates: a CA and leaves signed by it, generated with @peculiar/x509 on Node's
 * webcrypto. The PEM outputs work with `https.createServer({ key, cert })`, Node's
 * `crypto.X509Certificate`, and as base64 Secret data in fixtures.
 */
import { webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

/**
 * @peculiar/x509 uses tsyringe, which refuses to load without a Reflect metadata polyfill
 * (normally the reflect-metadata package, not installed here). tsyringe only reads constructor
 * parameter types through it, which x509's classes do not declare, so a minimal store will do.
 * It must be in place before x509 loads, hence the dynamic import below.
 */
function installReflectMetadata(): void {
  const R = Reflect as unknown as Record<string, unknown>;
  if (R.getMetadata) return;
  const store = new WeakMap<object, Map<unknown, unknown>>();
  R.defineMetadata = (key: unknown, value: unknown, target: object) => {
    if (!store.has(target)) store.set(target, new Map());
    store.get(target)!.set(key, value);
  };
  R.getOwnMetadata = (key: unknown, target: object) => store.get(target)?.get(key);
  R.getMetadata = (key: unknown, target: object) => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t)) {
      if (store.get(t)?.has(key)) return store.get(t)!.get(key);
    }
    return undefined;
  };
}
installReflectMetadata();
const x509: typeof X509 = await import('@peculiar/x509');
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export type KeyType = 'rsa' | 'ecdsa';

export interface GeneratedCert {
  /** The certificate, PEM. */
  certPem: string;
  /** The private key, PKCS#8 PEM ("BEGIN PRIVATE KEY"). */
  keyPem: string;
  /** The parsed certificate and key pair (needed to sign leaves with a CA). */
  cert: X509.X509Certificate;
  keys: CryptoKeyPair;
}

export interface CAOptions {
  keyType: KeyType;
  commonName?: string;
  notBefore?: Date;
  notAfter?: Date;
}

export interface LeafOptions {
  ca: GeneratedCert;
  keyType: KeyType;
  dnsNames: string[];
  ipAddresses?: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** Defaults to the first DNS name (or IP address); '' for an empty subject (SANs only, as cert-manager issues). */
  commonName?: string;
}

/**
 * Default validity: fixed dates around the fixtures' NOW (test/helpers/fixtures.ts), never the wall
 * clock, wide enough that TLS servers of the tests (verified against the real clock) work for decades.
 */
const FIXED_NOT_BEFORE = new Date('2025-11-22T12:00:00Z');
const FIXED_NOT_AFTER = new Date('2056-11-22T12:00:00Z');

const KEY_ALGORITHMS: Record<KeyType, RsaHashedKeyGenParams | EcKeyGenParams> = {
  rsa: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 },
  ecdsa: { name: 'ECDSA', namedCurve: 'P-256' },
};

/** The signature algorithm a key of this type signs with. */
const SIGNING: Record<KeyType, Algorithm | EcdsaParams> = {
  rsa: { name: 'RSASSA-PKCS1-v1_5' },
  ecdsa: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
};

function generateKeys(type: KeyType): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KEY_ALGORITHMS[type], true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function keyPem(keys: CryptoKeyPair): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as webcrypto.CryptoKey);
  return x509.PemConverter.encode(der, 'PRIVATE KEY') + '\n';
}

function keyTypeOf(cert: GeneratedCert): KeyType {
  return cert.keys.privateKey.algorithm.name === 'ECDSA' ? 'ecdsa' : 'rsa';
}

/** Escape a value for an RFC 4514 distinguished name string. */
function dn(commonName: string): string {
  return `CN=${commonName.replace(/([,+"\\<>;=])/g, '\\$1')}`;
}

/** A self-signed CA certificate (basicConstraints CA:true, keyUsage keyCertSign + cRLSign). */
export async function generateCA(opts: CAOptions): Promise<GeneratedCert> {
  const keys = await generateKeys(opts.keyType);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: dn(opts.commonName ?? 'meshdoctor test CA'),
    keys,
    notBefore: opts.notBefore ?? FIXED_NOT_BEFORE,
    notAfter: opts.notAfter ?? FIXED_NOT_AFTER,
    signingAlgorithm: SIGNING[opts.keyType],
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await keyPem(keys), cert, keys };
}

/** A server/client leaf certificate signed by `ca`, with a subjectAltName extension. */
export async function generateLeaf(opts: LeafOptions): Promise<GeneratedCert> {
  const keys = await generateKeys(opts.keyType);
  const ips = opts.ipAddresses ?? [];
  const names: X509.JsonGeneralName[] = [
    ...opts.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ips.map((value) => ({ type: 'ip' as const, value })),
  ];
  const commonName = opts.commonName ?? opts.dnsNames[0] ?? ips[0] ?? 'leaf';
  const cert = await x509.X509CertificateGenerator.create({
    subject: commonName === '' ? '' : dn(commonName),
    issuer: opts.ca.cert.subjectName,
    publicKey: keys.publicKey,
    signingKey: opts.ca.keys.privateKey,
    notBefore: opts.notBefore ?? FIXED_NOT_BEFORE,
    notAfter: opts.notAfter ?? FIXED_NOT_AFTER,
    signingAlgorithm: SIGNING[keyTypeOf(opts.ca)],
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | (opts.keyType === 'rsa' ? x509.KeyUsageFlags.keyEncipherment : 0),
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(opts.ca.keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await keyPem(keys), cert, keys };
}

/**
 * `n` self-signed certificates with one key and one name, differing only in serial: each one
 * verifies as the issuer of every other (a hostile Secret's chain-search bomb).
 */
export async function generateSameKeyCopies(n: number): Promise<string[]> {
  const keys = await generateKeys('ecdsa');
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: (i + 1).toString(16).padStart(2, '0'),
      name: dn('linkerd-proxy-injector.linkerd.svc'),
      keys,
      notBefore: FIXED_NOT_BEFORE,
      notAfter: FIXED_NOT_AFTER,
      signingAlgorithm: SIGNING.ecdsa,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'linkerd-proxy-injector.linkerd.svc' }]),
      ],
    });
    out.push(cert.toString('pem') + '\n');
  }
  return out;
}

/** A certificate whose notBefore is not a time (month 13): Node reads its date as "Bad time value". */
export async function generateBadTimeCert(): Promise<string> {
  const ca = await generateCA({ keyType: 'ecdsa', commonName: 'bad time' });
  const der = Buffer.from(ca.cert.rawData);
  const i = der.indexOf(Buffer.from('251122120000Z', 'latin1'));
  if (i < 0) throw new Error('notBefore not found');
  der.write('251322120000Z', i, 'latin1');
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
}
