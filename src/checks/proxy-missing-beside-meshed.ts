/**
 * proxy-missing-beside-meshed — namespace-only permissions: pods without a proxy beside pods the
 * same mesh injected, where the namespace's marker and the webhooks cannot be read.
 *
 * Why: app teams often hold only a namespaced Role (deploy/rbac.yaml, the second ClusterRole).
 * Namespaces and MutatingWebhookConfigurations are cluster-scoped, so the injection decision
 * cannot be made and every check built on it is skipped. The namespace still shows the outcome:
 * (a) a workload some of whose active pods run the mesh's proxy (Linkerd `linkerd-proxy`, Istio
 * `istio-proxy`, as a container or native sidecar) while others do not: the unmeshed ones were
 * created when injection did not happen (an injector outage under failurePolicy Ignore, or before
 * the namespace was enabled); (b) a workload with no proxy at all in a namespace whose other app
 * workloads were injected without their own pod template asking, so the namespace asks.
 * When: only when Namespaces or MutatingWebhookConfigurations could not be read; with both read,
 * sidecar-missing, pod-predates-enablement and their siblings decide it (one cause, one finding).
 * Silent for finished pods (Succeeded/Failed, so finished Jobs), hostNetwork pods, templates or
 * pods that opt out (pod-opted-out says so), an invalid `linkerd.io/inject` value on the template
 * (injection-marker-invalid), Istio ambient pods, pods older than a template change that asks
 * for injection or of an older revision than every meshed pod (a rollout replaces them),
 * workloads meshed by the other mesh, and the meshes'
 * own, Kubernetes' own and cert-manager's namespaces. Where the Namespace can be read, its
 * marker must ask for injection (or the template must).
 * Known false positives: a workload kept out on purpose by the injector's own configuration (Istio
 * neverInjectSelector) or a webhook objectSelector we cannot see; a namespace whose marker was
 * removed after its meshed pods were created (then a restart leaves the pods unmeshed).
 * Fix: read the owner's events (FailedCreate, Linkerd's InjectionSkipped), then restart only that
 * workload; a pod created now is injected if the injector works.
 */
import { cmd, type Step } from '../fix/steps.js';
import { podSpec } from '../k8s/pods.js';
import { meshTitle } from '../mesh/registry.js';
import { recreateCommands } from '../fix/commands.js';
import { injectionSkip, INJECTION_SKIPS } from '../facts/controlplane.js';
import { templateOptOut, templateAsks, templateMarkerInvalid } from '../facts/markers.js';
import { podEvidence } from '../facts/missing-proxy.js';
import {
  meshOwnNamespace,
  meshedByNamespace,
  meshedWithoutProxy,
  meshesAllowed,
  namespaceAsks,
  notExamined,
  notExaminedText,
} from '../facts/siblings.js';
import { podStates, type Workload, DECISIONS } from '../facts/model.js';
import { sidecarlessOf } from '../facts/sidecarless.js';
import type { K8sObject } from '../util/types.js';
import { agree, arr, isObj, labelsOf, plural, str, time } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

/** Event look-ups for the workload and the direct owners of its unmeshed pods (ReplicaSet, Job). */
function eventCommands(w: Workload, pods: K8sObject[]): Step[] {
  const names = new Set<string>([w.name]);
  for (const p of pods) {
    const owner = arr(p.metadata?.ownerReferences)
      .filter(isObj)
      .find((r) => r.controller === true);
    const name = str(owner?.name);
    if (name) names.add(name);
  }
  return [...names]
    .slice(0, 3)
    .map((n) => cmd`kubectl get events -n ${w.namespace} --field-selector ${`involvedObject.name=${n}`}`);
}

const created = (p: K8sObject) => time(p.metadata?.creationTimestamp)?.getTime();

/** The template revision a pod was created from (Deployment: pod-template-hash; StatefulSet, DaemonSet: controller-revision-hash). */
const revision = (p: K8sObject) => labelsOf(p)['pod-template-hash'] ?? labelsOf(p)['controller-revision-hash'];

/**
 * An unmeshed pod of an older template revision than the meshed ones, created before any of them:
 * a rollout (a restart after the namespace was enabled) is replacing it.
 */
function replacedByRollout(p: K8sObject, meshed: readonly K8sObject[]): boolean {
  const rev = revision(p);
  const t = created(p);
  if (rev === undefined || t === undefined || meshed.length === 0) return false;
  return meshed.every((x) => revision(x) !== undefined && revision(x) !== rev && (created(x) ?? -Infinity) > t);
}

const MESSAGES = messages({
  mixed:
    '{missing} of {active} of {workload} {have} no {meshTitle} proxy while {others} {othersHave} one, so {theyWere} created when injection did not happen; {unread}.',
  'namespace-asks':
    '{workload} runs {pods} without a {meshTitle} proxy although namespace {namespace} asks for injection and {siblings} in it {are} meshed; {unread}.',
  'siblings-injected':
    '{workload} runs {pods} without a {meshTitle} proxy while {siblings} in namespace {namespace} {wereInjected} pod template asking, so the namespace asks for injection; {unread}.',
});

export default defineCheck({
  ...meta('proxy-missing-beside-meshed'),
  facts: [INJECTION_SKIPS, DECISIONS],
  messages: MESSAGES,
  *run(m) {
    // Both read: the injection decision is known and the full checks report this (one cause, one finding).
    if (m.injectionConfigRead) return;
    const missing = notExamined(m);
    for (const w of m.appWorkloads) {
      const s = podStates(w);
      if (s.hostNetwork) continue; // never injected, by design
      if (sidecarlessOf(m, w)) continue; // meshed without a sidecar, by its labels (sidecarless-not-enrolled watches it)
      for (const mesh of meshesAllowed(m)) {
        if (meshOwnNamespace(m, w.namespace, mesh)) continue; // control planes and never-injected namespaces
        if (templateOptOut(m, mesh, w.template)) continue; // a choice: pod-opted-out
        if (templateMarkerInvalid(mesh, w.template)) continue; // the injector skips it: injection-marker-invalid
        const nsAsks = namespaceAsks(m, w.namespace, mesh);
        const asks = templateAsks(mesh, w.template);
        if (nsAsks === false && !asks) continue; // the Namespace was read and does not ask: nothing failed
        const meshedHere = s.meshed.get(mesh) ?? [];
        const pods = s.unmeshed.filter(
          (p) =>
            podSpec(p).hostNetwork !== true &&
            !templateOptOut(m, mesh, p) && // created from an older template that opted out
            !meshedWithoutProxy(p, m.namespace(w.namespace)) && // a sidecar-less data plane meshes it
            !(asks && !templateAsks(mesh, p)) && // older than the template change that asks: the rollout replaces it
            !replacedByRollout(p, meshedHere),
        );
        if (pods.length === 0) continue;
        let siblings: Workload[] = [];
        if (meshedHere.length === 0) {
          if (s.meshed.size > 0) continue; // meshed by the other mesh
          siblings = (
            nsAsks === true
              ? m.appWorkloadsIn(w.namespace).filter((x) => podStates(x).meshed.has(mesh))
              : meshedByNamespace(m, w.namespace, mesh)
          ).filter((x) => x !== w);
          if (siblings.length === 0) continue; // nothing shows the namespace meshed: no intent to go by
        }
        const mixed = meshedHere.length > 0;
        const title = meshTitle(mesh);
        const firstMeshed = Math.min(
          ...(mixed ? meshedHere : siblings.flatMap((x) => podStates(x).meshed.get(mesh) ?? [])).map(
            (p) => created(p) ?? Infinity,
          ),
        );
        const skip = injectionSkip(m, mesh, w);
        const unread = `${notExaminedText(m, w.namespace)} could not be read, so why injection did not happen is not known`;
        yield {
          mesh,
          ...(mixed ? {} : { severity: 'warning' as const }),
          ...(mixed
            ? say(MESSAGES, 'mixed', {
                missing: pods.length,
                active: plural(s.active.length, 'active pod'),
                workload: `${w.kind} ${w.namespace}/${w.name}`,
                have: agree(pods.length, 'has', 'have'),
                meshTitle: title,
                others: plural(meshedHere.length, 'other'),
                othersHave: agree(meshedHere.length, 'has', 'have'),
                theyWere: agree(pods.length, 'it was', 'they were'),
                unread,
              })
            : nsAsks
              ? say(MESSAGES, 'namespace-asks', {
                  workload: `${w.kind} ${w.namespace}/${w.name}`,
                  pods: plural(pods.length, 'pod'),
                  meshTitle: title,
                  namespace: w.namespace,
                  siblings: plural(siblings.length, 'other workload'),
                  are: agree(siblings.length, 'is', 'are'),
                  unread,
                })
              : say(MESSAGES, 'siblings-injected', {
                  workload: `${w.kind} ${w.namespace}/${w.name}`,
                  pods: plural(pods.length, 'pod'),
                  meshTitle: title,
                  siblings: plural(siblings.length, 'other workload'),
                  namespace: w.namespace,
                  wereInjected: agree(siblings.length, 'was injected without its', 'were injected without their'),
                  unread,
                })),
          resource: w.ref,
          affectedPods: pods.length,
          causedBy: { kind: 'webhook-broken', mesh },
          evidence: {
            unmeshedPods: podEvidence(pods).map((p, i) => {
              const t = created(pods[i]!);
              return {
                ...p,
                createdBeforeFirstMeshedPod: t !== undefined && Number.isFinite(firstMeshed) ? t < firstMeshed : null,
              };
            }),
            ...(mixed
              ? { meshedPods: podEvidence([...meshedHere]) }
              : {
                  meshedSiblings: siblings.map((x) => ({
                    workload: `${x.kind}/${x.name}`,
                    pods: podEvidence([...(podStates(x).meshed.get(mesh) ?? [])]),
                  })),
                }),
            namespaceMarker: nsAsks === undefined ? 'not read' : nsAsks ? 'asks for injection' : 'does not ask',
            ...(asks ? { templateAsks: true } : {}),
            notExamined: missing,
            ...(skip ? { injectionSkipped: skip } : {}),
          },
          fix: [...eventCommands(w, pods), ...recreateCommands(w)],
        };
      }
    }
  },
});
