/**
 * webhook-no-endpoints — the Service a mesh injection webhook calls is missing, lacks the port
 * the webhook calls, or has no ready endpoint behind that port.
 *
 * Why: the API server calls the webhook through its Service. With no ready endpoint every call
 * fails: under failurePolicy Ignore (Linkerd's default) pods are silently created without a
 * proxy; under Fail (Istio, Linkerd HA) their creation is blocked.
 * When: silent when the Service's namespace was not read (a live `-n` run), when neither
 * EndpointSlices nor Endpoints were read (endpoints unknown), and for URL webhooks.
 * A Service missing behind a configuration left over beside a live one is webhook-stale's.
 * Known false positives: a snapshot taken during the seconds an injector restarts.
 * Fix: look at the injector Deployment and its pods (the endpoints follow them); restore the
 * Service when it is gone.
 */
import { cmd } from '../fix/steps.js';
import { failureEffect } from '../k8s/admission.js';
import {
  type WebhookBackend,
  injectorPodSelector,
  namespaceRead,
  podsMissingProxy,
  reinstallCommands,
  webhookBackends,
  webhookEvidence,
  PODS_MISSING_PROXY,
  WEBHOOK_BACKENDS,
} from '../facts/controlplane.js';
import { isLeftover } from '../facts/webhook-configs.js';
import { defineCheck, messages, meta, say } from './define.js';

type Problem = 'service-missing' | 'port-missing' | 'target-port-unresolved' | 'no-ready-endpoints';

function problemOf(b: WebhookBackend): Problem | undefined {
  if (!b.service) return 'service-missing';
  if (!b.servicePort) return 'port-missing';
  if (!b.endpointsFrom) return undefined; // neither EndpointSlices nor Endpoints were read
  if (b.ready.length) return undefined;
  if (typeof b.servicePort.targetPort === 'string' && b.containerPort === undefined && b.selectedPods.length)
    return 'target-port-unresolved';
  return 'no-ready-endpoints';
}

function describe(b: WebhookBackend, p: Problem): string {
  const tp = b.servicePort?.targetPort;
  switch (p) {
    case 'service-missing':
      return 'which does not exist';
    case 'port-missing':
      return `which has no port ${b.port}`;
    case 'target-port-unresolved':
      return `whose targetPort ${tp} is a container port name that no injector pod declares`;
    default:
      return `which has no ready endpoint for targetPort ${tp} (${b.notReady.length} not ready)`;
  }
}

const MESSAGES = messages({
  'no-endpoints': 'Webhook {webhooks} calls Service {service} port {port}, {problem}; {effect}.',
});

export default defineCheck({
  ...meta('webhook-no-endpoints'),
  facts: [PODS_MISSING_PROXY, WEBHOOK_BACKENDS],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      for (const b of webhookBackends(m, mesh)) {
        if (!namespaceRead(m, b.namespace)) continue; // the control plane's namespace was not read: unknown, not broken
        const problem = problemOf(b);
        if (!problem) continue;
        // A configuration left behind beside a live one (or of a removed mesh) is webhook-stale's: delete it, not restore its Service.
        if (problem === 'service-missing' && b.webhooks.every((h) => isLeftover(m, h))) continue;
        const inj = b.injector;
        const hooks = b.webhooks.map((h) => h.name).join(', ');
        const fix =
          problem === 'service-missing' || problem === 'port-missing'
            ? [
                cmd`kubectl -n ${b.namespace} get service ${b.name} -o yaml`,
                ...reinstallCommands(m, mesh, b.namespace, inj.name),
              ]
            : [
                // The Deployment as read; none found (gone, or never one): its pods by the Service's selector.
                ...(inj.deployment ? [cmd`kubectl -n ${b.namespace} rollout status ${`deploy/${inj.name}`}`] : []),
                cmd`kubectl -n ${b.namespace} describe pods -l ${injectorPodSelector(mesh, b.service)}`,
                cmd`kubectl -n ${b.namespace} get endpointslices -l ${`kubernetes.io/service-name=${b.name}`} -o wide`,
              ];
        yield {
          mesh,
          ...say(MESSAGES, 'no-endpoints', {
            webhooks: hooks,
            service: `${b.namespace}/${b.name}`,
            port: b.port,
            problem: describe(b, problem),
            effect: failureEffect(b.webhooks.map((h) => h.failurePolicy)),
          }),
          resource: { kind: 'Service', namespace: b.namespace, name: b.name },
          affectedPods: podsMissingProxy(m, mesh),
          causeKey: { kind: 'webhook-broken', mesh },
          causedBy: { kind: 'injector-down', mesh },
          evidence: {
            problem,
            webhooks: webhookEvidence(b.webhooks),
            service: `${b.namespace}/${b.name}`,
            port: b.port,
            targetPort: b.servicePort?.targetPort ?? null,
            containerPort: b.containerPort ?? null,
            selectedPods: b.selectedPods,
            endpointsFrom: b.endpointsFrom ?? null,
            ready: b.ready,
            notReady: b.notReady,
            injector: inj.deployment ? `${inj.namespace}/${inj.name}` : null,
          },
          fix,
        };
      }
    }
  },
});
