/**
 * Linkerd's identity: the trust anchors (ConfigMap `linkerd-identity-trust-roots`) and the issuer
 * (Secret `linkerd-identity-issuer`), and their documented rotation.
 */
import { cmd, comment, lit, type Step } from '../../fix/steps.js';
import { certManagerCertificate, parsePem, secretCerts, subjectAttr } from '../../k8s/x509.js';
import type { K8sObject } from '../../util/types.js';
import { isObj, str } from '../../util/objects.js';
import type { IdentityCerts } from '../profile.js';

/**
 * The trust anchors (ConfigMap `linkerd-identity-trust-roots`, `ca-bundle.crt`) and the issuer
 * (Secret `linkerd-identity-issuer`, `crt.pem` or cert-manager's `tls.crt`; its first certificate).
 * Unparseable blocks are dropped here: these checks judge dates only.
 */
export function linkerdIdentity(configmaps: K8sObject[], secrets: K8sObject[]): IdentityCerts[] {
  const out: IdentityCerts[] = [];
  for (const cm of configmaps) {
    const text =
      cm.metadata?.name === 'linkerd-identity-trust-roots' && isObj(cm.data)
        ? str(cm.data['ca-bundle.crt'])
        : undefined;
    if (text === undefined) continue;
    const ref = {
      kind: 'ConfigMap' as const,
      namespace: str(cm.metadata?.namespace) ?? '',
      name: 'linkerd-identity-trust-roots',
    };
    out.push({ role: 'trust anchor', ref, key: 'ca-bundle.crt', obj: cm, certs: parsePem(text).certs });
  }
  for (const s of secrets) {
    if (s.metadata?.name !== 'linkerd-identity-issuer') continue;
    const key = ['crt.pem', 'tls.crt'].find((k) => secretCerts(s, k)?.certs.length);
    if (!key) continue; // no issuer certificate kept: nothing to date
    const ref = {
      kind: 'Secret' as const,
      namespace: str(s.metadata?.namespace) ?? '',
      name: 'linkerd-identity-issuer',
    };
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
export function fixIdentity(src: IdentityCerts, anyValid: boolean): Step[] {
  const ns = src.ref.namespace;
  const cn = src.certs.map((c) => subjectAttr(c, 'CN')).find(Boolean);
  const domain = cn?.replace(/^(root|identity)\.linkerd\./, '') || 'cluster.local';
  const anchorCn = src.role === 'trust anchor' && cn ? cn : `root.linkerd.${domain}`;
  const issuerCn = src.role === 'issuer' && cn ? cn : `identity.linkerd.${domain}`;
  if (src.role === 'issuer') {
    const certificate = certManagerCertificate(src.obj);
    if (certificate) {
      return [
        comment`why cert-manager did not renew it`,
        cmd`kubectl -n ${ns} describe certificate ${certificate}`,
        comment`cert-manager re-issues the Secret, and linkerd-identity loads the new issuer`,
        cmd`kubectl -n ${ns} delete secret linkerd-identity-issuer`,
      ];
    }
    return [
      comment`ca.crt and ca.key: your trust anchor and its key`,
      cmd`step certificate create ${issuerCn} issuer-new.crt issuer-new.key ${lit(STEP_ISSUER)} --ca ca.crt --ca-key ca.key`,
      comment`a Helm install passes the new issuer with --set-file identity.issuer.tls.crtPEM=issuer-new.crt --set-file identity.issuer.tls.keyPEM=issuer-new.key instead`,
      cmd`linkerd upgrade --identity-issuer-certificate-file=./issuer-new.crt --identity-issuer-key-file=./issuer-new.key | kubectl apply -f -`,
      cmd`linkerd check --proxy`,
    ];
  }
  if (!anyValid) {
    return [
      cmd`step certificate create ${anchorCn} ca-new.crt ca-new.key ${lit(STEP_ROOT)}`,
      cmd`step certificate create ${issuerCn} issuer-new.crt issuer-new.key ${lit(STEP_ISSUER)} --ca ca-new.crt --ca-key ca-new.key`,
      cmd`linkerd upgrade --identity-trust-anchors-file=./ca-new.crt --identity-issuer-certificate-file=./issuer-new.crt --identity-issuer-key-file=./issuer-new.key | kubectl apply -f -`,
      comment`restart the control plane, then every meshed workload, so that its proxy trusts the new anchor`,
      cmd`kubectl -n ${ns} rollout restart deploy`,
    ];
  }
  return [
    cmd`kubectl -n ${ns} get configmap linkerd-identity-trust-roots -o jsonpath=${'{.data.ca-bundle\\.crt}'} > original-trust.crt`,
    comment`remove the expired anchors from original-trust.crt`,
    cmd`step certificate create ${anchorCn} ca-new.crt ca-new.key ${lit(STEP_ROOT)}`,
    cmd`step certificate bundle ca-new.crt original-trust.crt bundle.crt`,
    cmd`linkerd upgrade --identity-trust-anchors-file=./bundle.crt | kubectl apply -f -`,
    comment`restart the control plane, then every meshed workload, and issue a new issuer from ca-new.crt and ca-new.key`,
    cmd`kubectl -n ${ns} rollout restart deploy`,
  ];
}
