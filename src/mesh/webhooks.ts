import type { K8sObject } from '../util/types.js';
import { arr, isObj, nameOf, str, strMap } from '../util/objects.js';
import type { MeshWebhook } from './profile.js';
import { profileOf, webhookMesh } from './registry.js';

export type { MeshWebhook, WebhookCall } from './profile.js';
export { evalWebhook, matchConditionExpression, namespaceLabels, rulesMatchPodCreate } from '../k8s/webhook.js';

/** Every mesh injection webhook in the MutatingWebhookConfigurations, in a stable order. */
export function meshWebhooks(configs: K8sObject[]): MeshWebhook[] {
  const out: MeshWebhook[] = [];
  for (const config of configs) {
    for (const h of arr(config.webhooks)) {
      if (!isObj(h)) continue;
      const name = str(h.name) ?? '';
      const cc = isObj(h.clientConfig) ? h.clientConfig : {};
      const svc = isObj(cc.service) ? cc.service : undefined;
      const mesh = webhookMesh({
        name,
        configName: nameOf(config),
        ...(str(svc?.name) ? { serviceName: str(svc?.name)! } : {}),
      });
      if (!mesh) continue;
      if (
        profileOf(mesh).controlPlane.webhooks.inactive?.(h as { namespaceSelector: unknown; objectSelector: unknown })
      )
        continue; // serves nothing
      const revisions = new Set<string>();
      const revLabel = profileOf(mesh).revisions?.label;
      for (const sel of revLabel ? [h.namespaceSelector, h.objectSelector] : []) {
        for (const e of arr(isObj(sel) ? sel.matchExpressions : undefined)) {
          if (isObj(e) && e.key === revLabel && e.operator === 'In')
            for (const v of arr(e.values)) revisions.add(String(v));
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
        ...(arr(h.matchConditions).length ? { matchConditions: arr(h.matchConditions).slice(0, 64) } : {}),
        revisions: [...revisions].sort(),
      });
    }
  }
  return out.sort((a, b) => (a.configName + '\0' + a.name < b.configName + '\0' + b.name ? -1 : 1));
}
