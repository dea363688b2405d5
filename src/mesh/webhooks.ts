import { evalSelector, type SelectorResult } from '../k8s/selectors.js';
import type { K8sObject } from '../util/types.js';
import { arr, dict, isObj, nameOf, str, labelsOf, strMap } from '../util/objects.js';
import type { MeshName } from './names.js';
import { profileOf, webhookMesh } from './registry.js';

/** A mutating webhook that injects a mesh's proxy, flattened from its configuration. */
export interface MeshWebhook {
  mesh: MeshName;
  configName: string;
  config: K8sObject;
  name: string;
  service?: { namespace: string; name: string; port: number; path?: string };
  url?: string;
  caBundle?: string;
  failurePolicy: 'Ignore' | 'Fail';
  namespaceSelector: unknown;
  objectSelector: unknown;
  rules: unknown[];
  /** The values of the mesh's revision label (Istio's `istio.io/rev`) this webhook selects: revision or tag names. */
  revisions: string[];
}

/** Every mesh injection webhook in the MutatingWebhookConfigurations, in a stable order. */
export function meshWebhooks(configs: K8sObject[]): MeshWebhook[] {
  const out: MeshWebhook[] = [];
  for (const config of configs) {
    for (const h of arr(config.webhooks)) {
      if (!isObj(h)) continue;
      const name = str(h.name) ?? '';
      const cc = isObj(h.clientConfig) ? h.clientConfig : {};
      const svc = isObj(cc.service) ? cc.service : undefined;
      const mesh = webhookMesh({ name, configName: nameOf(config), ...(str(svc?.name) ? { serviceName: str(svc?.name)! } : {}) });
      if (!mesh) continue;
      if (profileOf(mesh).inactiveWebhook?.(h as { namespaceSelector: unknown; objectSelector: unknown })) continue; // serves nothing
      const revisions = new Set<string>();
      const revLabel = profileOf(mesh).revisionLabel;
      for (const sel of revLabel ? [h.namespaceSelector, h.objectSelector] : []) {
        for (const e of arr(isObj(sel) ? sel.matchExpressions : undefined)) {
          if (isObj(e) && e.key === revLabel && e.operator === 'In') for (const v of arr(e.values)) revisions.add(String(v));
        }
        const ml = strMap(isObj(sel) ? sel.matchLabels : undefined)[revLabel!];
        if (ml) revisions.add(ml);
      }
      out.push({
        mesh,
        configName: nameOf(config),
        config,
        name,
        ...(svc
          ? {
              service: {
                namespace: str(svc.namespace) ?? '',
                name: str(svc.name) ?? '',
                port: typeof svc.port === 'number' ? svc.port : 443,
                ...(str(svc.path) ? { path: str(svc.path) } : {}),
              },
            }
          : {}),
        ...(str(cc.url) ? { url: str(cc.url) } : {}),
        ...(typeof cc.caBundle === 'string' ? { caBundle: cc.caBundle } : {}),
        failurePolicy: h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
        namespaceSelector: h.namespaceSelector,
        objectSelector: h.objectSelector,
        rules: arr(h.rules),
        revisions: [...revisions].sort(),
      });
    }
  }
  return out.sort((a, b) => (a.configName + '\0' + a.name < b.configName + '\0' + b.name ? -1 : 1));
}

/** Whether a webhook's rules cover CREATE of core/v1 pods. */
export function rulesMatchPodCreate(rules: unknown[]): boolean {
  return rules.some((r) => {
    if (!isObj(r)) return false;
    const ops = arr(r.operations).map(String);
    const groups = arr(r.apiGroups).map(String);
    const versions = arr(r.apiVersions).map(String);
    const resources = arr(r.resources).map(String);
    return (
      (ops.includes('CREATE') || ops.includes('*')) &&
      (groups.includes('') || groups.includes('*')) &&
      (versions.includes('v1') || versions.includes('*')) &&
      (resources.includes('pods') || resources.includes('*') || resources.includes('*/*'))
    );
  });
}

/**
 * The labels the API server matches a namespaceSelector against. Since Kubernetes 1.21 every
 * namespace carries the immutable label `kubernetes.io/metadata.name`; snapshots that lack it
 * (hand-written fixtures, old dumps) get it here, as the API server would have set it.
 */
export function namespaceLabels(ns: K8sObject | undefined, name: string): Record<string, string> {
  return Object.assign(dict(), { 'kubernetes.io/metadata.name': name }, labelsOf(ns));
}

export interface WebhookCall {
  webhook: MeshWebhook;
  called: boolean;
  rules: boolean;
  namespaceSelector: SelectorResult;
  objectSelector: SelectorResult;
}

/** Would the API server call this webhook for a pod CREATE with these labels in this namespace? */
export function evalWebhook(webhook: MeshWebhook, nsLabels: Record<string, string>, podLabels: Record<string, string>): WebhookCall {
  const rules = rulesMatchPodCreate(webhook.rules);
  const namespaceSelector = cachedSelector(webhook.namespaceSelector, nsLabels);
  const objectSelector = evalSelector(webhook.objectSelector, podLabels);
  return {
    webhook,
    called: rules && namespaceSelector.matched && objectSelector.matched,
    rules,
    namespaceSelector,
    objectSelector,
  };
}

/** namespaceSelector results by (selector, label set) identity: one evaluation per namespace. */
const selectorCache = new WeakMap<object, WeakMap<object, SelectorResult>>();
function cachedSelector(selector: unknown, labels: Record<string, string>): SelectorResult {
  if (!isObj(selector)) return evalSelector(selector, labels);
  let byLabels = selectorCache.get(selector);
  if (!byLabels) selectorCache.set(selector, (byLabels = new WeakMap()));
  let r = byLabels.get(labels);
  if (!r) byLabels.set(labels, (r = evalSelector(selector, labels)));
  return r;
}
