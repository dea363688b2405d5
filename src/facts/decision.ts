import { labelsOf } from '../util/objects.js';
import type { Model } from './model.js';
import type { MeshName } from '../mesh/names.js';
import type { DecisionInput, InjectorStep } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { evalWebhook, type MeshWebhook, type WebhookCall } from '../mesh/webhooks.js';

export type { DecisionInput, InjectorStep } from '../mesh/profile.js';

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
  /** The verdict: a pod created now gets this mesh's proxy (false also when `unknown`). */
  inject: boolean;
  /** A step's outcome could not be examined (InjectorStep.unknown): whether the pod is injected is not known, nor that it is not. */
  unknown?: string;
}

export function decide(m: Model, mesh: MeshName, webhooks: MeshWebhook[], input: DecisionInput): Decision {
  const p = profileOf(mesh);
  const podLabels = input.podLabels ?? labelsOf(input.template);
  const calls = webhooks.filter((w) => w.mesh === mesh).map((w) => evalWebhook(w, input.nsLabels, podLabels));
  const called = calls.some((c) => c.called);
  const injector = p.injector(m, input);
  // A webhook that injects unmarked pods (Istio's enableNamespacesByDefault) asks for them itself.
  const intent = p.intent(input, m) || calls.some((c) => c.called && !!p.injectsUnmarked?.(c.webhook));
  const unknown = injector.find((s) => s.unknown)?.detail;
  return { mesh, intent, calls, called, injector, inject: called && !unknown && injector.every((s) => s.ok), ...(unknown ? { unknown } : {}) };
}
