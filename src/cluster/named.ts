import type { K8sObject } from '../types.js';

export interface NamedRef {
  key: 'configmaps' | 'secrets';
  namespace: string;
  name: string;
}

const LINKERD_WEBHOOK_CONFIG = 'linkerd-proxy-injector-webhook-config';

/**
 * The control-plane namespaces of the installed meshes, read from their webhooks' services (the
 * authoritative place), falling back to the conventional namespaces when they exist.
 */
export function meshNamespaces(namespaces: K8sObject[], webhookConfigs: K8sObject[]) {
  const linkerd = new Set<string>();
  const istio = new Set<string>();
  for (const cfg of webhookConfigs) {
    const hooks = Array.isArray(cfg.webhooks) ? (cfg.webhooks as Record<string, any>[]) : [];
    for (const h of hooks) {
      const ns = h?.clientConfig?.service?.namespace;
      if (typeof ns !== 'string' || typeof h.name !== 'string') continue;
      if (h.name.endsWith('linkerd.io') || cfg.metadata?.name === LINKERD_WEBHOOK_CONFIG) linkerd.add(ns);
      else if (h.name.endsWith('sidecar-injector.istio.io')) istio.add(ns);
    }
  }
  for (const ns of namespaces) {
    const name = ns.metadata?.name;
    if (typeof name !== 'string') continue;
    if (ns.metadata?.labels?.['linkerd.io/is-control-plane'] === 'true') linkerd.add(name);
    if (linkerd.size === 0 && name === 'linkerd') linkerd.add(name);
    if (istio.size === 0 && name === 'istio-system') istio.add(name);
  }
  return { linkerd: [...linkerd].sort(), istio: [...istio].sort() };
}

/** Istio revisions served by the installed webhooks ('default' for the unrevisioned one). */
export function istioRevisions(webhookConfigs: K8sObject[]): string[] {
  const revs = new Set<string>();
  for (const cfg of webhookConfigs) {
    const name = cfg.metadata?.name ?? '';
    const hooks = Array.isArray(cfg.webhooks) ? (cfg.webhooks as Record<string, any>[]) : [];
    if (!hooks.some((h) => typeof h?.name === 'string' && h.name.endsWith('sidecar-injector.istio.io'))) continue;
    const rev = cfg.metadata?.labels?.['istio.io/rev'];
    if (typeof rev === 'string' && rev) revs.add(rev);
    else if (name === 'istio-sidecar-injector') revs.add('default');
  }
  return [...revs].sort();
}

/**
 * The ConfigMaps and Secrets the checks read, by name, in the mesh namespaces only. These kinds
 * are never listed cluster-wide.
 */
export function namedObjects(namespaces: K8sObject[], webhookConfigs: K8sObject[]): NamedRef[] {
  const { linkerd, istio } = meshNamespaces(namespaces, webhookConfigs);
  const out: NamedRef[] = [];
  for (const ns of linkerd) {
    out.push({ key: 'configmaps', namespace: ns, name: 'linkerd-config' });
    out.push({ key: 'configmaps', namespace: ns, name: 'linkerd-identity-trust-roots' });
    out.push({ key: 'secrets', namespace: ns, name: 'linkerd-proxy-injector-k8s-tls' });
    out.push({ key: 'secrets', namespace: ns, name: 'linkerd-identity-issuer' });
  }
  for (const ns of istio) {
    out.push({ key: 'configmaps', namespace: ns, name: 'istio' });
    for (const rev of istioRevisions(webhookConfigs)) {
      const suffix = rev === 'default' ? '' : `-${rev}`;
      out.push({ key: 'configmaps', namespace: ns, name: `istio-sidecar-injector${suffix}` });
    }
    if (!istioRevisions(webhookConfigs).length) out.push({ key: 'configmaps', namespace: ns, name: 'istio-sidecar-injector' });
    out.push({ key: 'secrets', namespace: ns, name: 'istio-ca-secret' });
  }
  return out;
}
