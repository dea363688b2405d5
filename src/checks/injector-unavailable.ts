/**
 * injector-unavailable — a mesh's injector Deployment (linkerd-proxy-injector, istiod[-rev]) has
 * no available replica, its pods crash-loop or are not Ready, or it is gone while its webhook
 * is still registered (no Deployment owns the pods its webhook's Service selects, nor has a pod
 * template the Service selects: reported on the Service, never on a Deployment name guessed from it).
 *
 * Why: the webhook's endpoints are the injector's Ready pods. When none is available every
 * injection call fails (silently with failurePolicy Ignore, blocking pod creation with Fail).
 * When: an error (causeKey injector-down) when no replica is available, none is Ready, it is
 * scaled to 0 while serving a webhook, or it is missing; a warning (no causeKey: the webhook
 * still works) when some pods cannot start but others serve. Pods that are merely not Ready
 * while others are available (a rollout) stay silent. Silent when the namespace was not read.
 * Linked to webhook-blocks-injector (injector-locked-out) when its own webhook keeps its pods from being created.
 * Known false positives: a snapshot taken during an injector restart.
 * Fix: describe the Deployment, read the crashed container's previous logs, restart it (or
 * scale it back up / re-render it when it is gone).
 */
import { cmd } from '../fix/steps.js';
import { failureEffect } from '../k8s/admission.js';
import { podHealth } from '../k8s/health.js';
import { isActive } from '../k8s/pods.js';
import {
  type Injector,
  injectorDebugCommands,
  injectorPodSelector,
  injectors,
  namespaceRead,
  podsMissingProxy,
  reinstallCommands,
  selfBlocks,
  webhookEvidence,
  PODS_MISSING_PROXY,
  INJECTORS,
} from '../facts/controlplane.js';
import type { FindingInput } from './define.js';
import type { Evidence } from './types.js';
import { isObj, nameOf } from '../util/objects.js';
import { WARNING_EVENTS, whyNoPods, whyNotRunning } from '../facts/pod-warnings.js';
import { profileOf } from '../mesh/registry.js';
import { isLeftover } from '../facts/webhook-configs.js';
import { defineCheck, messages, meta, say } from './define.js';
import { COMPONENT_STATES, downComponentOf } from '../facts/components.js';

function judge(m: Parameters<typeof injectors>[0], inj: Injector): FindingInput<Evidence, typeof MESSAGES> | undefined {
  const mesh = inj.mesh;
  // No Deployment behind a configuration left over beside a live one (or of a removed mesh): webhook-stale's, nothing to restore.
  if (!inj.deployment && inj.webhooks.length && inj.webhooks.every((h) => isLeftover(m, h))) return undefined;
  const ref = { kind: 'Deployment', namespace: inj.namespace, name: inj.name };
  const hooks = inj.webhooks.map((h) => h.name).join(', ');
  const effect = inj.webhooks.length ? `; ${failureEffect(inj.webhooks.map((h) => h.failurePolicy))}` : '';
  const base = {
    mesh,
    resource: ref,
    affectedPods: podsMissingProxy(m, mesh),
    causeKey: { kind: 'injector-down' as const, mesh },
    // Locked out by its own webhook (webhook-blocks-injector): that is why it cannot come back; else an OOM kill may explain it.
    causedBy: {
      kind: selfBlocks(m, mesh).some(
        (b) => b.down && b.injector.name === inj.name && b.injector.namespace === inj.namespace,
      )
        ? ('injector-locked-out' as const)
        : ('injector-oom' as const),
      mesh,
    },
  };
  const dep = inj.deployment;
  if (!dep) {
    if (!inj.webhooks.length) return undefined; // nothing expects a Deployment here
    if (inj.external) return undefined; // a Service without selector: the injector runs out of the cluster's sight
    const svcRef = inj.webhooks.find((h) => h.service)?.service;
    const svc = svcRef ? m.get('services', svcRef.namespace, svcRef.name) : undefined;
    // The Service itself is gone: webhook-no-endpoints says so (one cause, one finding).
    if (!svcRef || !svc) return undefined;
    const selector = injectorPodSelector(mesh, svc);
    return {
      ...base,
      resource: { kind: 'Service', namespace: svcRef.namespace, name: svcRef.name },
      ...say(MESSAGES, 'service-selects-nothing', {
        service: `${svcRef.namespace}/${svcRef.name}`,
        webhooks: hooks,
        selector,
        effect,
      }),
      evidence: {
        service: `${svcRef.namespace}/${svcRef.name}`,
        selector,
        deploymentFound: false,
        pods: [],
        webhooks: webhookEvidence(inj.webhooks),
      },
      fix: [
        cmd`kubectl -n ${inj.namespace} get deployments,statefulsets,pods --show-labels`,
        ...reinstallCommands(m, mesh, inj.namespace, inj.name),
      ],
    };
  }
  const spec = isObj(dep.spec) ? dep.spec : {};
  const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
  // A Deployment without any status (a manifest, not a read object) says nothing about availability.
  const available = isObj(dep.status)
    ? typeof dep.status.availableReplicas === 'number'
      ? dep.status.availableReplicas
      : 0
    : undefined;
  const health = inj.pods.filter(isActive).map(podHealth);
  const evidence = {
    deployment: `${inj.namespace}/${inj.name}`,
    replicas: { desired, available: available ?? null },
    pods: health.map(({ broken: _b, ...h }) => h),
    webhooks: webhookEvidence(inj.webhooks),
  };
  if (desired === 0) {
    if (!inj.webhooks.length) return undefined; // scaled down with no webhook calling it: nothing breaks
    return {
      ...base,
      ...say(MESSAGES, 'scaled-to-zero', { injector: `${inj.namespace}/${inj.name}`, webhooks: hooks, effect }),
      evidence,
      fix: [cmd`kubectl -n ${inj.namespace} scale ${`deploy/${inj.name}`} --replicas=1`],
    };
  }
  const failing = health.find((h) => h.broken) ?? health.find((h) => !h.ready);
  const container = failing?.lastTermination?.container ?? profileOf(mesh).controlPlane.injector.container;
  const failingPod = failing ? inj.pods.find((p) => nameOf(p) === failing.name) : undefined;
  const why = failing ? whyNotRunning(m, mesh, failingPod) : undefined;
  // Its pod waits for another component of the control plane (a Secret Citadel writes): that one is the cause (control-plane-down).
  const upstream = failingPod ? downComponentOf(m, mesh, failingPod) : undefined;
  const upstreamCause = upstream
    ? { causedBy: { kind: 'component-down' as const, mesh, component: upstream.component.id } }
    : {};
  // No pod at all: its controller's FailedCreate says why (a quota, Pod Security, a priority class, a ServiceAccount).
  const noPods =
    !failing && m.has('pods') && !health.length ? whyNoPods(m, 'Deployment', inj.namespace, inj.name) : undefined;
  const warned = why ?? noPods;
  if (warned?.warnings.length) Object.assign(evidence, { warnings: warned.warnings });
  const detail = failing
    ? ` (pod ${failing.name}: ${failing.waiting ?? 'not Ready'}${why?.text ?? ''})`
    : m.has('pods') && !health.length
      ? ` (no pods${noPods?.text ?? ''})`
      : '';
  const down = available === 0 || (m.has('pods') && (health.length === 0 || !health.some((h) => h.ready)));
  if (down) {
    return {
      ...base,
      ...upstreamCause,
      ...say(MESSAGES, 'unavailable', {
        injector: `${inj.namespace}/${inj.name}`,
        available: available ?? health.filter((h) => h.ready).length,
        desired,
        detail,
        effect,
      }),
      evidence,
      fix: injectorDebugCommands(inj, container),
    };
  }
  const broken = health.filter((h) => h.broken);
  if (!broken.length) return undefined;
  const { causeKey: _k, causedBy: _c, ...degraded } = base;
  return {
    ...degraded,
    severity: 'warning',
    ...say(MESSAGES, 'degraded', {
      injector: `${inj.namespace}/${inj.name}`,
      broken: broken.length,
      pods: health.length,
      detail,
    }),
    evidence,
    fix: injectorDebugCommands(inj, container),
  };
}

const MESSAGES = messages({
  'service-selects-nothing':
    "Service {service}, which webhook {webhooks} calls, selects no pod and no Deployment's pod template ({selector}): the injector is not running{effect}.",
  'scaled-to-zero': 'Injector Deployment {injector} is scaled to 0 replicas while webhook {webhooks} calls it{effect}.',
  unavailable: 'Injector Deployment {injector} has {available} of {desired} replicas available{detail}{effect}.',
  degraded:
    'Injector Deployment {injector} has {broken} of {pods} pods unable to run{detail}; the others still serve the webhook.',
});

export default defineCheck({
  ...meta('injector-unavailable'),
  facts: [PODS_MISSING_PROXY, INJECTORS, WARNING_EVENTS, COMPONENT_STATES],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      for (const inj of injectors(m, mesh)) {
        if (!namespaceRead(m, inj.namespace)) continue; // the control plane's namespace was not read
        const f = judge(m, inj);
        if (f) yield f;
      }
    }
  },
});
