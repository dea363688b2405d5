/**
 * Webhook caBundles, by configuration: what each holds and the finding fields the caBundle checks
 * share. How a mesh renews its webhook certificate is its profile's (webhookCertFix).
 */
import { cmd, comment } from '../fix/steps.js';
import type { Model } from './model.js';
import { parseCaBundle, validity, injectCaFrom, type PemResult } from '../k8s/x509.js';
import type { K8sObject } from '../util/types.js';
import { groupBy } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshWebhook } from '../mesh/webhooks.js';
import type { Step } from '../fix/steps.js';

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
    else
      groups.set(key, {
        mesh: w.mesh,
        config: w.config,
        configName: w.configName,
        webhooks: [w],
        parsed: parseCaBundle(w.caBundle),
      });
  }
  return [...groups.values()];
}

/** Bundle groups by configuration name, in order. */
export const byConfig = (groups: BundleGroup[]): BundleGroup[][] => [...groupBy(groups, (g) => g.configName).values()];

/** A bundle the API server can verify with now: at least one certificate valid at `now`. */
export const usable = (g: BundleGroup, now: Date): boolean => g.parsed.certs.some((c) => validity(c, now) === 'valid');

/** What a broken webhook does to new pods, by its failurePolicy. */
export function brokenEffect(hooks: MeshWebhook[]): string {
  return hooks.some((h) => h.failurePolicy === 'Fail')
    ? 'pod creation in injected namespaces is rejected'
    : 'new pods are created without a proxy';
}

/** The finding fields every caBundle finding of one configuration shares. */
export function bundleFinding(groups: BundleGroup[], broken: boolean, m?: Model) {
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
    fix: webhookCertFix(g.mesh, g.config, hooks, m),
    ...(broken ? { causeKey: { kind: 'webhook-broken' as const, mesh: g.mesh } } : { severity: 'warning' as const }),
  };
}

/**
 * How to get a valid caBundle and serving certificate: through cert-manager when it injects the
 * CA, else Linkerd's regeneration on upgrade, or istiod's own patching of its webhooks.
 */
export function webhookCertFix(mesh: MeshName, config: K8sObject, hooks: MeshWebhook[], m?: Model): Step[] {
  const p = profileOf(mesh);
  const svc = hooks.find((h) => h.service)?.service;
  const ns = svc?.namespace || p.controlPlane.namespace;
  const injector = svc?.name || p.controlPlane.injector.name;
  const from = injectCaFrom(config);
  const certManager = from
    ? [
        comment`is the Certificate Ready: cainjector copies the CA of its Secret into the caBundle`,
        cmd`kubectl -n ${from.namespace} describe certificate ${from.name}`,
        comment`why the caBundle was not filled`,
        cmd`kubectl -n cert-manager logs -l app.kubernetes.io/component=cainjector --tail=100`,
      ]
    : [];
  return [...certManager, ...p.install.certFix(ns, injector, !!from, m)];
}
