import { labelsOf } from '../util/objects.js';
import type { MeshContext } from '../mesh/context.js';
import { podSpec } from '../k8s/pods.js';
import { proxyAlreadyPresent } from '../mesh/proxy.js';
import type { MeshName } from '../mesh/names.js';
import type { Decision, DecisionInput } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { evalWebhook, type MeshWebhook, type WebhookCall } from '../mesh/webhooks.js';

export type { Decision } from '../mesh/profile.js';

/**
 * What one mesh would do with a pod created now: the API server's calls to its webhooks, made
 * once here and handed to the injector's steps with the other facts a step needs from beyond its
 * own mesh (a proxy of any mesh already in the template).
 */
export function decide(m: MeshContext, mesh: MeshName, webhooks: MeshWebhook[], given: DecisionInput): Decision {
  const p = profileOf(mesh);
  const podLabels = given.podLabels ?? labelsOf(given.template);
  const calls: WebhookCall[] = webhooks
    .filter((w) => w.mesh === mesh)
    .map((w) => evalWebhook(w, given.nsLabels, podLabels));
  const present = proxyAlreadyPresent(podSpec(given.template));
  const input: DecisionInput = { ...given, calls, ...(present ? { proxyPresent: present } : {}) };
  const called = calls.some((c) => c.called);
  const injector = p.injector.decide(m, input);
  // A webhook that injects unmarked pods (Istio's enableNamespacesByDefault) asks for them itself.
  const intent =
    p.markers.intent(input, m) || calls.some((c) => c.called && !!p.controlPlane.webhooks.injectsUnmarked?.(c.webhook));
  const unknown = injector.find((s) => s.unknown)?.detail;
  return {
    mesh,
    intent,
    calls,
    called,
    injector,
    inject: called && !unknown && injector.every((s) => s.ok),
    ...(unknown ? { unknown } : {}),
  };
}
