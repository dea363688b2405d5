/**
 * webhook-blocks-injector — a mesh's injection webhook, with failurePolicy Fail, is called for the
 * pods of its own injector: while no replica of the injector answers, the API server refuses its
 * new pods, so it cannot come back by itself.
 *
 * Why: with failurePolicy Fail (Istio, Kuma, Consul; Linkerd HA) the API server refuses a pod
 * whose webhook call fails. The injector's own pods are pods too: unless the webhook's selectors
 * leave them out, a restart of every replica at once (an upgrade gone wrong, a node drain, all of
 * them OOMKilled) leaves a ReplicaSet that can never create them (`FailedCreate ... failed calling
 * webhook ... no endpoints available`), and "restart the injector" cannot help. Linkerd's HA docs
 * demand the label config.linkerd.io/admission-webhooks: disabled on its namespace
 * (linkerd/linkerd2#6530, #7699 fixed by #7718, #10817); the other meshes ship their exclusion
 * (the profile's controlPlane.selfExclusion).
 * When: an error (causeKey injector-locked-out) when the injector has no available replica: its
 * pods cannot be created (injector-unavailable and the FailedCreate events of its ReplicaSet are
 * linked to it); a warning while it runs (the lock-out waits for the next time all replicas are
 * gone). Only for webhooks that injector serves, with failurePolicy Fail, that the API server
 * would call for a new pod of it (its namespace's labels and its template's). Silent where the
 * control plane's Namespace or the injector's Deployment was not read.
 * Known false positives: none known; an injector whose webhook answers from another replica set
 * (two installs serving one webhook) is still reported per Deployment.
 * A template that opts out with an annotation the webhook's objectSelector would exclude as a label
 * (Istio's istiod with `sidecar.istio.io/inject: "false"` as an annotation, istio/istio#26380) is told
 * so: an objectSelector reads labels only (k8s/webhook.ts annotationsSelectorsMiss), so the opt-out
 * never keeps the API server from calling the webhook; the same key as a label does.
 * Fix: the exclusion the mesh's installs use (a namespace label, or a pod template label), checked
 * against the webhook's selectors before it is advised; where none works, the label the template
 * already means as an annotation, else the selectors to change.
 */
import { cmd, comment } from '../fix/steps.js';
import { namespaceChange, setOnTemplate } from '../fix/commands.js';
import { annotationsSelectorsMiss, evalWebhook } from '../k8s/webhook.js';
import {
  selfBlocks,
  webhookEvidence,
  podsMissingProxy,
  type SelfBlock,
  PODS_MISSING_PROXY,
  SELF_BLOCKS,
} from '../facts/controlplane.js';
import type { Model } from '../facts/model.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import type { Step } from '../fix/steps.js';
import { isObj, nameOf } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'locked-out':
    '{mesh} injector {injector} cannot create its pods: its own webhook {hooks} (failurePolicy Fail) is called for them, and with no replica to answer the API server refuses each one, so restarting it cannot help{annotation}{exclusion}.',
  'at-risk':
    "{mesh} injector {injector}'s own webhook {hooks} (failurePolicy Fail) is called for its pods: once all its replicas are gone at the same time (a restart, a node drain), none can be created again{annotation}{exclusion}.",
});

/** The annotations of the injector Deployment's pod template. */
function templateAnnotations(b: SelfBlock): Record<string, unknown> {
  const spec = b.injector.deployment.spec;
  const t = isObj(spec) && isObj(spec.template) && isObj(spec.template.metadata) ? spec.template.metadata : {};
  return isObj(t.annotations) ? t.annotations : {};
}

/** The mesh's own exclusion that keeps every one of these webhooks from the injector's pods, checked against their selectors. */
function exclusion(m: Model, b: SelfBlock): { text: string; fix: Step[] } | undefined {
  const inj = b.injector;
  for (const x of profileOf(inj.mesh).controlPlane.selfExclusion) {
    const ns = x.on === 'namespace' ? { ...b.nsLabels, [x.key]: x.value } : b.nsLabels;
    const pod = x.on === 'template' ? { ...b.podLabels, [x.key]: x.value } : b.podLabels;
    if (b.webhooks.some((h) => evalWebhook(h, ns, pod).called)) continue; // this one does not help here
    if (x.on === 'namespace')
      return {
        text: `label ${x.key}=${x.value} on namespace ${inj.namespace}`,
        fix: namespaceChange(m, inj.namespace, 'labels', [{ key: x.key, value: x.value }]),
      };
    const w = m.workloads.find((y) => y.kind === 'Deployment' && y.namespace === inj.namespace && y.name === inj.name);
    if (w)
      return {
        text: `pod template label ${x.key}=${x.value} on Deployment ${inj.namespace}/${inj.name}`,
        fix: setOnTemplate(w, 'labels', x.key, x.value),
      };
  }
  return undefined;
}

export default defineCheck({
  ...meta('webhook-blocks-injector'),
  facts: [PODS_MISSING_PROXY, SELF_BLOCKS],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      for (const b of selfBlocks(m, mesh)) {
        const inj = b.injector;
        const hooks = b.webhooks.map((h) => h.name).join(', ');
        const id = `Deployment ${inj.namespace}/${inj.name}`;
        // An opt-out written as an annotation where the webhooks' objectSelector reads a label (istio/istio#26380).
        const missed = annotationsSelectorsMiss(b.webhooks, b.nsLabels, b.podLabels, templateAnnotations(b))[0];
        const w = m.workloads.find(
          (y) => y.kind === 'Deployment' && y.namespace === inj.namespace && y.name === inj.name,
        );
        const ex =
          exclusion(m, b) ??
          (missed && w
            ? {
                text: `pod template label ${missed.key}=${missed.value} on ${id}`,
                fix: setOnTemplate(w, 'labels', missed.key, missed.value),
              }
            : undefined);
        const annotation = missed
          ? `; its pod template sets ${missed.key}=${missed.value} as an annotation, which the webhook's objectSelector cannot see (it reads labels only)`
          : '';
        const fix: Step[] = ex
          ? [
              ...ex.fix,
              ...(b.down && ex.fix.every((s) => s.kind !== 'edit' || s.target.kind === 'Namespace')
                ? [
                    comment`its ReplicaSet retries by itself, or create the pods now with`,
                    cmd`kubectl -n ${inj.namespace} rollout restart ${`deploy/${inj.name}`}`,
                  ]
                : []),
            ]
          : [
              comment`leave namespace ${inj.namespace} or the pods of the injector out of webhook ${hooks} with its namespaceSelector or objectSelector, in the values the control plane was installed with`,
              cmd`kubectl get mutatingwebhookconfiguration ${b.webhooks[0]!.configName} -o yaml`,
            ];
        yield {
          mesh,
          ...(b.down ? {} : { severity: 'warning' as const }),
          ...say(MESSAGES, b.down ? 'locked-out' : 'at-risk', {
            mesh: meshTitle(mesh),
            injector: id,
            hooks,
            annotation,
            exclusion: ex ? `; ${ex.text} leaves them out` : '',
          }),
          resource: { kind: 'Deployment', namespace: inj.namespace, name: inj.name },
          affectedPods: b.down ? podsMissingProxy(m, mesh) : 0,
          ...(b.down ? { causeKey: { kind: 'injector-locked-out' as const, mesh } } : {}),
          evidence: {
            deployment: `${inj.namespace}/${inj.name}`,
            available: !b.down,
            webhooks: webhookEvidence(b.webhooks),
            namespaceLabels: b.nsLabels,
            podLabels: b.podLabels,
            pods: inj.pods.map(nameOf),
            ...(ex ? { exclusion: ex.text } : {}),
            ...(missed ? { annotationNotSelected: `${missed.key}=${missed.value}` } : {}),
          },
          fix,
        };
      }
    }
  },
});
