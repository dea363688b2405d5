/**
 * serviceaccount-missing — a pod template names a ServiceAccount that does not exist in its
 * namespace, so the API server rejects every new pod (`FailedCreate ... serviceaccount "x" not
 * found`); or, for Linkerd without projected identity tokens, the pod or its ServiceAccount turns
 * the token off and the injector skips the pod.
 *
 * Why: an SRE chasing "the sidecar is missing" is often looking at a workload whose pods are
 * never created at all; the ServiceAccount is the usual cause after a namespace was re-created or
 * a Helm chart renamed it. Linkerd before projected tokens (identity.serviceAccountTokenProjection
 * false) skips pods without the ServiceAccount token (pkg/inject/report.go: the pod's
 * `automountServiceAccountToken: false`, or no token volume because the ServiceAccount disables
 * automounting); with projected tokens (the default since 2.12) it injects them. Consul with ACLs
 * denies such pods instead (its profile's tokenRequirement says `denies`): none is created, and
 * the message says so; webhook-denied links its FailedCreate events to this finding.
 * When: workloads with a pod template (bare pods exist already, so their ServiceAccount did);
 * only when a mesh is installed. With namespace-only permissions (no Namespaces or webhooks) the
 * missing ServiceAccount is reported the same (no pod is created, mesh or not), the mesh known from
 * meshed pods or --mesh; the token case needs the webhooks and stays silent. A missing `default` ServiceAccount is reported only with a
 * FailedCreate event saying so (the controller re-creates it in every namespace at once).
 * Known false positives: a snapshot that left ServiceAccounts out of some namespace.
 * Fix: create the ServiceAccount (the controllers retry and create the pods); for the token case,
 * set `automountServiceAccountToken: true` on the pod template (or on the ServiceAccount).
 */
import { cmd } from '../fix/steps.js';
import { podSpec } from '../k8s/pods.js';
import { desiredPods, jobFinished, podStates, APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import { objectChange, setOnTemplateSpec } from '../fix/commands.js';
import { failedCreateEvents } from '../facts/resources.js';
import { nameOf, str } from '../util/objects.js';
import { profileOf } from '../mesh/registry.js';
import { tokenCause } from '../facts/denials.js';
import { defineCheck, messages, meta, say } from './define.js';

/** Its evidence: a ServiceAccount that does not exist, or a token turned off where the mesh needs it. */
type SaEvidence =
  | { serviceAccount: string; field: string; exists: false; failedCreate?: unknown[]; pods: string[] }
  | {
      serviceAccount: string;
      automountServiceAccountToken: { podTemplate: boolean } | { serviceAccount: boolean; podTemplate: 'unset' };
      pods: string[];
      [more: string]: unknown;
    };

const MESSAGES = messages({
  'not-found':
    '{workload} uses ServiceAccount {serviceAccount}, which does not exist in namespace {namespace}, so its pods cannot be created.',
  'token-off-pod': '{workload} sets automountServiceAccountToken: false and {why}, {outcome}.',
  'token-off-serviceaccount':
    'ServiceAccount {serviceAccount} of {workload} sets automountServiceAccountToken: false and {why}, {outcome}.',
});

export default defineCheck<SaEvidence, typeof MESSAGES>({
  ...meta('serviceaccount-missing'),
  facts: [APP_WORKLOADS, DECISIONS],
  messages: MESSAGES,
  *run(m) {
    if (m.meshes.length === 0) return; // no mesh installed: not a mesh problem
    for (const w of m.appWorkloads) {
      if (w.kind === 'Pod' || !w.templatePath) continue; // the pod exists, so its ServiceAccount did when it was created
      if (w.kind === 'Job' && jobFinished(w.obj)) continue; // a finished Job creates no more pods
      const spec = podSpec(w.template);
      const named = str(spec.serviceAccountName) || str(spec.serviceAccount);
      const sa = named || 'default';
      const field = str(spec.serviceAccountName)
        ? 'spec.serviceAccountName'
        : named
          ? 'spec.serviceAccount'
          : '(none: default)';
      const saObj = m.get('serviceaccounts', w.namespace, sa);
      if (!saObj) {
        const pods = podStates(w).active.map(nameOf);
        const events = failedCreateEvents(m, w, (msg) => msg.includes(`serviceaccount "${sa}" not found`));
        // The ServiceAccount controller re-creates "default" at once: absent an event, the snapshot lacks it.
        if (sa === 'default' && events.length === 0) continue;
        yield {
          mesh: m.decisions(w).find((d) => d.inject)?.mesh ?? m.meshes[0]!.mesh,
          ...say(MESSAGES, 'not-found', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            serviceAccount: sa,
            namespace: w.namespace,
          }),
          resource: w.ref,
          affectedPods: desiredPods(w),
          evidence: {
            serviceAccount: sa,
            field,
            exists: false,
            ...(events.length ? { failedCreate: events } : {}),
            pods,
          },
          fix: [cmd`kubectl create serviceaccount ${sa} -n ${w.namespace}`],
        };
        continue;
      }
      // A mesh whose injector skips pods without the ServiceAccount token (Linkerd without projected tokens).
      const d = m.decisions(w).find((x) => x.called && profileOf(x.mesh).injector.token?.(m));
      const need = d && profileOf(d.mesh).injector.token!(m)!;
      if (!d || !need) continue;
      // Every other reason to skip the pod is another check's finding.
      if (!d.injector.every((s) => s.ok || s.kind === 'token')) continue;
      const onPod = spec.automountServiceAccountToken === false;
      const onSa = spec.automountServiceAccountToken === undefined && saObj.automountServiceAccountToken === false;
      if (!onPod && !onSa) continue;
      // The template turns the token off, yet the injector's own token rule passes (a token mounted at its path by hand): not refused.
      if (onPod && d.injector.some((s) => s.kind === 'token' && s.ok)) continue;
      const unmeshed = podStates(w).unmeshed.map(nameOf);
      // The mesh's injector skips such pods (created without a proxy) or denies them (none created).
      const outcome = need.denies
        ? 'so the injector denies its pods and none can be created'
        : 'so its pods are not injected';
      yield {
        mesh: d.mesh,
        // Skipped pods run without a proxy (a warning); denied ones are not created (the check's error).
        ...(need.denies ? {} : { severity: 'warning' as const }),
        ...(onPod
          ? say(MESSAGES, 'token-off-pod', { workload: `${w.kind} ${w.namespace}/${w.name}`, why: need.why, outcome })
          : say(MESSAGES, 'token-off-serviceaccount', {
              serviceAccount: `${w.namespace}/${sa}`,
              workload: `${w.kind} ${w.name}`,
              why: need.why,
              outcome,
            })),
        resource: w.ref,
        affectedPods: need.denies ? Math.max(desiredPods(w), 1) : Math.max(unmeshed.length, 1),
        ...(need.denies ? { causeKey: tokenCause(d.mesh, w.ref) } : {}),
        evidence: {
          serviceAccount: sa,
          automountServiceAccountToken: onPod
            ? { podTemplate: false }
            : { serviceAccount: false, podTemplate: 'unset' },
          ...need.evidence,
          pods: unmeshed,
        },
        fix: [
          ...setOnTemplateSpec(w, { automountServiceAccountToken: true }),
          ...(onSa
            ? objectChange(m, { kind: 'ServiceAccount', namespace: w.namespace, name: sa }, '', [
                { key: 'automountServiceAccountToken', value: true },
              ])
            : []),
        ],
      };
    }
  },
});
