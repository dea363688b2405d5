/**
 * Hostile certificates (issue 12): a chain-search bomb, dates that cannot be read. Each test failed
 * on the code before its fix (the bomb pinned a CPU for minutes; the bad dates counted as valid).
 */
import { chainsTo, parsePem } from '../src/k8s/x509.js';
import { describe, expect, it } from 'vitest';
import { generateBadTimeCert, generateSameKeyCopies } from './helpers/certs.js';
import { cluster, findings } from './helpers/fixtures.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function withServingSecret(pem: string, caBundle?: string) {
  const snap = cluster('linkerd', [
    `
apiVersion: v1
kind: Secret
metadata: {name: linkerd-proxy-injector-k8s-tls, namespace: linkerd}
type: kubernetes.io/tls
data: {tls.crt: ${b64(pem)}}
`,
  ]);
  if (caBundle !== undefined) {
    const hook = snap.objects.mutatingwebhookconfigurations!.find(
      (o) => o.metadata?.name === 'linkerd-proxy-injector-webhook-config',
    ) as any;
    hook.webhooks[0].clientConfig.caBundle = b64(caBundle);
  }
  return snap;
}

describe('certificate chain search is bounded', () => {
  it('40 certificates that all sign each other cost a bounded number of signature checks', async () => {
    const copies = await generateSameKeyCopies(40);
    const certs = parsePem(copies.join('')).certs;
    expect(certs).toHaveLength(40);
    const [unrelated] = parsePem((await generateSameKeyCopies(1))[0]!).certs;
    // Counted, not timed: every signature check (X509Certificate.verify) of these certificates.
    let checks = 0;
    for (const c of [...certs, unrelated!]) {
      const verify = c.x509.verify.bind(c.x509);
      c.x509.verify = (key) => (checks++, verify(key));
    }
    // No root signs them: the old search tried every path of 4 links (39^4 = 2.3 million signature
    // checks); breadth-first with a visited set tries each certificate once as an issuer of each
    // level: at most n^2 plus one per certificate against the root.
    expect(chainsTo(certs[0]!, certs.slice(1), [unrelated!])).toBe(false);
    expect(checks).toBeGreaterThan(0);
    expect(checks).toBeLessThanOrEqual(40 * 40 + 40);
    // ... and a chain that does exist is still found through the copies.
    expect(chainsTo(certs[0]!, certs.slice(1), [certs[39]!])).toBe(true);
  });

  it('as a Secret in a cluster (or a -f manifest), webhook-cert-mismatch still answers', async () => {
    const copies = await generateSameKeyCopies(40);
    const [other] = await generateSameKeyCopies(1);
    const fs = findings(withServingSecret(copies.join(''), other), ['webhook-cert-mismatch']);
    expect(fs.map((f) => f.id)).toEqual(['webhook-cert-mismatch']);
  });
});

describe('certificate dates that cannot be read', () => {
  it('are a problem with the certificate, never "valid forever"', async () => {
    const pem = await generateBadTimeCert();
    const parsed = parsePem(pem);
    expect(parsed.certs).toEqual([]);
    expect(parsed.problems).toEqual([
      { problem: 'unparseable', detail: expect.stringContaining('validity dates cannot be read') },
    ]);
  });

  it('a caBundle holding only such a certificate is unusable', async () => {
    const pem = await generateBadTimeCert();
    const snap = withServingSecret(pem, pem);
    const fs = findings(snap, ['webhook-ca-invalid', 'webhook-ca-expired', 'webhook-ca-expiring']);
    expect(fs.map((f) => f.id)).toEqual(['webhook-ca-invalid']);
    expect(fs[0]!.message).toContain('validity dates cannot be read');
  });
});
