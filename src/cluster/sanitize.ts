import type { K8sObject } from '../types.js';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
/** Secret keys that may hold certificates (never keys: *.key, key.pem, ca-key.pem are dropped). */
const CERT_KEY = /(^|[.-])(crt|cert)(\.pem)?$|^ca\.crt$|^crt\.pem$|^tls\.crt$|^ca-cert\.pem$|^root-cert\.pem$|^cert-chain\.pem$/;

/**
 * Reduce a Secret to what meshdoctor may keep: its metadata (without managedFields), its type,
 * and the public certificates found under certificate-like keys, as PEM text in
 * `certificates`. `data` and `stringData` are dropped whole, so private keys and any other
 * secret value never enter a snapshot, a report or memory beyond this function.
 */
export function sanitizeSecret(obj: K8sObject): K8sObject {
  const md = (obj.metadata ?? {}) as NonNullable<K8sObject['metadata']>;
  const certificates: Record<string, string> = {};
  // An already-sanitized Secret (from meshdoctor's own snapshot) keeps its certificates.
  if (obj.certificates && typeof obj.certificates === 'object') {
    for (const [key, value] of Object.entries(obj.certificates as Record<string, unknown>)) {
      const certs = typeof value === 'string' ? value.match(CERT_BLOCK) : null;
      if (certs) certificates[key] = certs.join('\n') + '\n';
    }
  }
  const data = obj.data;
  if (data && typeof data === 'object') {
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      if (!CERT_KEY.test(key) || typeof value !== 'string') continue;
      const text = Buffer.from(value, 'base64').toString('latin1');
      const certs = text.match(CERT_BLOCK);
      if (certs) certificates[key] = certs.join('\n') + '\n';
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: md.name,
      namespace: md.namespace,
      uid: md.uid,
      creationTimestamp: md.creationTimestamp,
      ...(md.labels ? { labels: md.labels } : {}),
      ...(md.annotations ? { annotations: stripLastApplied(md.annotations) } : {}),
    },
    type: obj.type,
    certificates,
  };
}

/** kubectl's last-applied annotation on a Secret holds its data in clear: never keep it. */
function stripLastApplied(a: Record<string, string>): Record<string, string> {
  if (typeof a !== 'object' || a === null) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) if (k !== 'kubectl.kubernetes.io/last-applied-configuration') out[k] = v;
  return out;
}

/**
 * Drop what no check reads and what weighs most on large clusters: `metadata.managedFields` of
 * pods that have a controller, of ReplicaSets and of Events. managedFields only date injection
 * markers, which live on namespaces, workload controllers and bare pods; those keep theirs.
 * Applied as objects are read (live and from files), so `snapshot` saves what `check` reads.
 */
export function slim(key: string, obj: K8sObject): K8sObject {
  const md = obj.metadata;
  if (!md || typeof md !== 'object' || md.managedFields === undefined) return obj;
  const owned = Array.isArray(md.ownerReferences) && md.ownerReferences.some((r) => r && typeof r === 'object' && r.controller === true);
  if (key === 'replicasets' || key === 'events' || (key === 'pods' && owned)) delete md.managedFields;
  return obj;
}
