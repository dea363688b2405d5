import { annotationsOf, isObj, labelsOf, str } from '../util/objects.js';
import type { MeshContext } from '../mesh/context.js';
import { podSpec } from '../k8s/pods.js';
import { proxyAlreadyPresent } from '../mesh/proxy.js';
import type { MeshName } from '../mesh/names.js';
import type { Decision, DecisionInput } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { installedMarkers } from '../mesh/releases.js';
import { templateMarker } from '../mesh/marker-table.js';
import { evalWebhook, matchConditionExpression, type MeshWebhook, type WebhookCall } from '../mesh/webhooks.js';
import type { CelRequest } from '../k8s/cel.js';
import { printable } from '../util/errors.js';
import type { KindKey } from '../k8s/kinds.js';
import { WORKLOAD_INPUTS } from '../k8s/workloads.js';

/**
 * What an injection decision reads (src/facts/model.ts DECISIONS): the namespaces and webhooks,
 * the injectors' Deployments, pods and ConfigMaps, and ServiceAccounts (Consul with ACLs).
 */
export const DECISION_INPUTS: readonly KindKey[] = [
  'configmaps',
  'deployments',
  'mutatingwebhookconfigurations',
  'namespaces',
  'pods',
  'serviceaccounts',
];

/** What a fact over the app workloads and their injection decisions reads: both lists, once each. */
export const WORKLOAD_DECISION_INPUTS: readonly KindKey[] = [...new Set([...WORKLOAD_INPUTS, ...DECISION_INPUTS])];

export type { Decision } from '../mesh/profile.js';

/**
 * What one mesh would do with a pod created now: the API server's calls to its webhooks, made
 * once here and handed to the injector's steps with the other facts a step needs from beyond its
 * own mesh (a proxy of any mesh already in the template).
 */
export function decide(m: MeshContext, mesh: MeshName, webhooks: MeshWebhook[], given: DecisionInput): Decision {
  const p = profileOf(mesh);
  const podLabels = given.podLabels ?? labelsOf(given.template);
  // What the pod CREATE carries for the webhooks' matchConditions: a template's pods get their name
  // from generateName (not known at admission), a bare pod has its own.
  // Read only by matchConditions (evalWebhook evaluates them only where a webhook has some): built
  // only then, not for every workload and mesh (a copy of the labels and the annotations' map each).
  const hooks = webhooks.filter((w) => w.mesh === mesh);
  const meta = isObj(given.template.metadata) ? given.template.metadata : {};
  const request: CelRequest | undefined = hooks.some((w) => (w.matchConditions ?? []).length)
    ? {
        namespace: given.namespace,
        labels: { ...podLabels },
        annotations: annotationsOf(given.template),
        ...(str(meta.name) ? { name: str(meta.name)! } : {}),
      }
    : undefined;
  const calls: WebhookCall[] = hooks.map((w) => evalWebhook(w, given.nsLabels, podLabels, request));
  const present = proxyAlreadyPresent(podSpec(given.template));
  // The installed release's own markers, where they are not today's (Kuma 1.0 to 1.4 read only the annotation).
  const markers = given.markers ?? installedMarkers(m, p)?.markers;
  const input: DecisionInput = {
    ...given,
    calls,
    ...(present ? { proxyPresent: present } : {}),
    ...(markers ? { markers } : {}),
  };
  const called = calls.some((c) => c.called);
  const injector = p.injector.decide(m, input);
  // A webhook that injects unmarked pods (Istio's enableNamespacesByDefault) asks for them itself.
  // A pod template whose own marker reads "inject" asks explicitly, wherever a webhook of the mesh is called for
  // it: whatever label let the webhook take the namespace (OpenShift Service Mesh's member roll label
  // maistra.io/member-of, with the policy disabled), the owner asked (issue 31.8, who asks).
  const hit = templateMarker(p.markers, given.template);
  const explicit = called && !!hit && hit.k.read(hit.value) === true;
  const intent =
    explicit ||
    p.markers.intent(input, m) ||
    calls.some((c) => c.called && !!p.controlPlane.webhooks.injectsUnmarked?.(c.webhook));
  const unknown = injector.find((s) => s.unknown)?.detail ?? conditionsUnknown(calls);
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

/**
 * A webhook of the mesh whose selectors take the pod but whose matchConditions meshdoctor could not
 * evaluate (src/k8s/cel.ts): whether the API server calls it, so whether the pod is injected, is not
 * known. Undefined when another of the mesh's webhooks is called for sure.
 */
function conditionsUnknown(calls: WebhookCall[]): string | undefined {
  if (calls.some((c) => c.called && c.matchConditions?.decision !== 'unknown')) return undefined;
  const c = calls.find((x) => x.called && x.matchConditions?.decision === 'unknown');
  if (!c) return undefined;
  const names = c.matchConditions!.names.slice(0, 4);
  const shown = names.map((n) => {
    const e = matchConditionExpression(c.webhook, n);
    return e === undefined ? n : `${n} (${printable(e, 160)})`;
  });
  return `the matchConditions ${shown.join(', ')} of webhook ${c.webhook.name} were not evaluated (meshdoctor evaluates only simple CEL shapes over the pod's name, namespace, labels and annotations), so whether the API server calls it for these pods is not known`;
}
