import type { MeshName } from '../types.js';
import { labelsOf } from '../util.js';
import { istioInjector, istioIntent } from './istio.js';
import { linkerdInjector, linkerdIntent, type LinkerdSettings } from './linkerd.js';
import { evalWebhook, type MeshWebhook, type WebhookCall } from './webhooks.js';

/** One rule of an injector's decision, for `explain` and evidence. */
export interface InjectorStep {
  rule: string;
  ok: boolean;
  detail: string;
}

/** What one mesh would do with a pod created now from this template in this namespace. */
export interface Decision {
  mesh: MeshName;
  /** The namespace or template asks this mesh for injection. */
  intent: boolean;
  /** Every injection webhook of the mesh, evaluated as the API server would. */
  calls: WebhookCall[];
  /** Some webhook of the mesh would be called. */
  called: boolean;
  /** The injector's steps (evaluated whether or not a webhook is called, for explain). */
  injector: InjectorStep[];
  /** The verdict: a pod created now gets this mesh's proxy. */
  inject: boolean;
}

export interface DecisionInput {
  namespace: string;
  nsLabels: Record<string, string>;
  nsAnnotations: Record<string, string>;
  template: { metadata?: unknown; spec?: unknown };
}

export function decide(mesh: MeshName, webhooks: MeshWebhook[], input: DecisionInput, linkerd: LinkerdSettings): Decision {
  const podLabels = labelsOf(input.template);
  const calls = webhooks.filter((w) => w.mesh === mesh).map((w) => evalWebhook(w, input.nsLabels, podLabels));
  const called = calls.some((c) => c.called);
  const injector =
    mesh === 'linkerd'
      ? linkerdInjector(input.nsAnnotations, input.template, linkerd)
      : istioInjector(input.namespace, input.template);
  const intent = mesh === 'linkerd' ? linkerdIntent(input.nsAnnotations, input.template) : istioIntent(input.nsLabels, input.template);
  return { mesh, intent, calls, called, injector, inject: called && injector.every((s) => s.ok) };
}
