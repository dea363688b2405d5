/**
 * sidecar-missing — pods the mesh should have injected run without a proxy, and no more specific
 * cause is known.
 *
 * Why: the symptom every other injection check explains. With failurePolicy Ignore (Linkerd's
 * default) a webhook that fails leaves pods without a proxy and no error anywhere; what is left is
 * this mismatch between what the configuration says and what runs.
 * When: the model says a pod created now would be injected (the namespace or template asks, a
 * webhook is called, the injector accepts), yet active pods have no proxy and were not created
 * before the marker (pod-predates-enablement), or when the marker was set is unknown. Silent for
 * finished pods, control-plane namespaces, hostNetwork pods, pods that opt out, namespaces not
 * enabled, native sidecars, pods meshed by the other mesh, and where injection-marker-invalid
 * or webhook-excludes-namespace explain it (a marker value the injector ignores while the policy
 * injects explains nothing: reported beside it, facts/marker-problems.ts markerExplains), and for the pods the injector's own skip event stands
 * for (injection-skipped quotes it). Linked to `webhook-broken:<mesh>`, so a webhook
 * finding in the same report ranks first.
 * Pods all created before the injector was first ready (its install's pods, never restarted, say
 * when), under failurePolicy Ignore, are said to be that: the window from their creation to the
 * injector's readiness (kumahq/kuma#258, linkerd/linkerd2#3885). Pods all created before the
 * MutatingWebhookConfiguration that injects them now was created are said to be that, whatever its
 * failurePolicy: no webhook of it existed to call (the workloads applied before the mesh, a GitOps
 * sync without ordering, istioctl's install deleting and re-creating the default revision tag's
 * configuration, istio/istio#40134, kyma-incubator/reconciler#1138).
 * Known false positives: without managedFields, pods that simply predate the marker land here.
 * Fix: look at the owner's events and the injector's logs, then re-create the pods.
 */
import { cmd, comment } from '../fix/steps.js';
import { recreateCommands } from '../fix/commands.js';
import {
  injectionSkip,
  injectorAt,
  injectorOutages,
  webhookTargets,
  type InjectorOutage,
  WEBHOOK_TARGETS,
  INJECTION_SKIPS,
} from '../facts/controlplane.js';
import { CERTS_LOADED_BEFORE, injectorWindow, outageAt, outageEvidence } from '../facts/timeline.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { agree, plural } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';
import { missingProxy, podEvidence, skippedByInjector, MISSING_PROXY } from '../facts/missing-proxy.js';

const MESSAGES = messages({
  'during-injector-outage':
    '{pods} of {workload} {were} created while the {meshTitle} injector was down ({from} to {to}) but {have} no {meshTitle} proxy, although webhook {webhook} should have injected {them}.',
  'during-injector-outage-reason':
    '{pods} of {workload} {were} created while the {meshTitle} injector was down ({from} to {to}, {reason}) but {have} no {meshTitle} proxy, although webhook {webhook} should have injected {them}.',
  'before-injector-ready':
    '{pods} of {workload} {were} created at {created}, before the {meshTitle} injector was first ready (Deployment {deployment} created {installedAt}, ready {readyAt}), and failurePolicy Ignore let them through but {have} no {meshTitle} proxy, although webhook {webhook} should have injected {them}.',
  'before-webhook':
    '{pods} of {workload} {were} created at {created}, before MutatingWebhookConfiguration {configuration} was created ({createdAt}): its webhook {webhook}, which injects such a pod now, did not exist when {they} {were} admitted, so {have} no {meshTitle} proxy.',
  'stale-cert':
    '{pods} of {workload} {were} created at {created}, after Secret {secret} got its current certificate ({issued}) while the {meshTitle} injector, Pod {pod} started {startedAt}, still served the one it started with ({release} reads it only at start): the API server rejects that certificate once it expires or the caBundle no longer vouches for it, and failurePolicy Ignore let {them} through, so {they} {have} no {meshTitle} proxy. Restart the injector, then re-create {them}.',
  'after-marker':
    '{pods} of {workload} {were} created after {markers} but {have} no {meshTitle} proxy, although webhook {webhook} should have injected {them}.',
  'unknown-time':
    '{pods} of {workload} {were} created at an unknown time relative to the injection marker but {have} no {meshTitle} proxy, although webhook {webhook} should have injected {them}.',
});

export default defineCheck({
  ...meta('sidecar-missing'),
  facts: [MISSING_PROXY, WEBHOOK_TARGETS, INJECTION_SKIPS, CERTS_LOADED_BEFORE],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      for (const { mesh } of m.meshes) {
        const found = missingProxy(m, w, mesh);
        if (!found || found.unexplained.length === 0) continue;
        // The pods the injector's own skip event stands for are injection-skipped's, which quotes it.
        const skipped = skippedByInjector(m, w, mesh, found);
        const missing = skipped
          ? { ...found, unexplained: found.unexplained.filter((p) => !skipped.pods.includes(p)) }
          : found;
        if (missing.unexplained.length === 0) continue;
        const n = missing.unexplained.length;
        const hook = missing.decision.calls.find((c) => c.called)!.webhook;
        const target = webhookTargets(m, mesh).find((t) => t.webhooks.includes(hook));
        const skip = injectionSkip(m, mesh, w);
        // Pods created while the injector could not inject (down, or not yet ready after its install,
        // under failurePolicy Ignore) are that window's consequence: say so, and link (facts/timeline.ts).
        const window = injectorWindow(m, mesh, missing.unexplained, hook.failurePolicy, hook.config);
        const absent = window?.kind === 'before-webhook' ? window : undefined;
        const outage = window?.kind === 'injector-down' ? window.outage : undefined;
        const early = window?.kind === 'before-injector-ready' ? window : undefined;
        const staleCert = window?.kind === 'stale-cert' ? window : undefined;
        const outages = window?.outages ?? injectorOutages(m, mesh);
        // Each pod's own outage, for evidence, even where not every pod was created in one.
        const during = new Map<K8sObject, InjectorOutage | undefined>(
          missing.unexplained.map((p) => [p, outageAt(outages, p)]),
        );
        const common = {
          pods: plural(n, 'pod'),
          workload: `${w.kind} ${w.namespace}/${w.name}`,
          were: agree(n, 'was', 'were'),
          have: agree(n, 'has', 'have'),
          meshTitle: meshTitle(mesh),
          webhook: hook.name,
          them: agree(n, 'it', 'them'),
        };
        const said = absent
          ? say(MESSAGES, 'before-webhook', {
              ...common,
              created: `${absent.firstCreated.toISOString()}${n > 1 ? ` to ${absent.lastCreated.toISOString()}` : ''}`,
              configuration: absent.configuration,
              createdAt: absent.createdAt.toISOString(),
              they: agree(n, 'it', 'they'),
            })
          : outage
            ? outage.reason
              ? // The reason the injector's status gave (OOMKilled, MinimumReplicasUnavailable, ...), quoted.
                say(MESSAGES, 'during-injector-outage-reason', { ...common, ...span(outage), reason: outage.reason })
              : say(MESSAGES, 'during-injector-outage', { ...common, ...span(outage) })
            : staleCert
              ? say(MESSAGES, 'stale-cert', {
                  ...common,
                  they: agree(n, 'it', 'they'),
                  created: `${staleCert.firstCreated.toISOString()}${n > 1 ? ` to ${staleCert.lastCreated.toISOString()}` : ''}`,
                  secret: `${staleCert.stale.namespace}/${staleCert.stale.secret}`,
                  issued: staleCert.stale.leaf.notBefore.toISOString(),
                  pod: `${staleCert.stale.namespace}/${staleCert.stale.podName}`,
                  startedAt: staleCert.stale.startedAt.toISOString(),
                  release: `${meshTitle(mesh)} ${staleCert.stale.version ?? ''}`.trim(),
                })
              : early
                ? say(MESSAGES, 'before-injector-ready', {
                    ...common,
                    created: `${early.firstCreated.toISOString()}${n > 1 ? ` to ${early.lastCreated.toISOString()}` : ''}`,
                    deployment: early.deployment,
                    installedAt: early.installedAt.toISOString(),
                    readyAt: early.readyAt.toISOString(),
                  })
                : missing.since
                  ? say(MESSAGES, 'after-marker', {
                      ...common,
                      markers: missing.markers.map((mk) => `${mk.on} got ${mk.text}`).join(' and '),
                    })
                  : say(MESSAGES, 'unknown-time', common);
        yield {
          mesh,
          ...said,
          resource: w.ref,
          affectedPods: missing.unexplained.length,
          causedBy: { kind: outage?.reason === 'OOMKilled' && outage.to ? 'injector-oom' : 'webhook-broken', mesh },
          evidence: {
            pods: podEvidence(missing.unexplained).map((p, i) => {
              const o = during.get(missing.unexplained[i]!);
              return o ? { ...p, createdWhileInjectorDown: outageEvidence(o) } : p;
            }),
            ...(absent
              ? {
                  createdBeforeWebhook: {
                    configuration: absent.configuration,
                    createdAt: absent.createdAt.toISOString(),
                  },
                }
              : {}),
            ...(staleCert
              ? {
                  createdWhileInjectorServedOlderCertificate: {
                    pod: `${staleCert.stale.namespace}/${staleCert.stale.podName}`,
                    startedAt: staleCert.stale.startedAt.toISOString(),
                    secret: `${staleCert.stale.namespace}/${staleCert.stale.secret}`,
                    certificateIssued: staleCert.stale.leaf.notBefore.toISOString(),
                    ...(staleCert.stale.version ? { version: staleCert.stale.version } : {}),
                  },
                }
              : {}),
            ...(early
              ? {
                  createdBeforeInjectorReady: {
                    deployment: early.deployment,
                    installedAt: early.installedAt.toISOString(),
                    readyAt: early.readyAt.toISOString(),
                  },
                }
              : {}),
            ...(outages.length ? { injectorOutages: outages.map(outageEvidence) } : {}),
            markers: missing.markers.map((mk) => ({
              on: mk.on,
              marker: mk.text,
              setAt: mk.setAt?.toISOString() ?? null,
            })),
            webhook: {
              name: hook.name,
              configuration: hook.configName,
              failurePolicy: hook.failurePolicy,
              ...(hook.service ? { service: `${hook.service.namespace}/${hook.service.name}` } : {}),
            },
            ...(skip ? { injectionSkipped: skip } : {}),
          },
          fix: [
            cmd`kubectl get events -n ${w.namespace} --sort-by=.lastTimestamp | grep ${w.name}`,
            // The injector as read (its Deployment, else its pods by the Service's selector); never a name guessed from the Service's.
            ...(hook.service
              ? [
                  cmd`kubectl logs -n ${hook.service.namespace} ${injectorAt(mesh, target?.injector, target?.service)} -c ${profileOf(mesh).controlPlane.injector.container}`,
                ]
              : []),
            ...recreateCommands(w),
            // Pods older than the webhook: the order of the install, not an outage.
            ...(absent
              ? [
                  comment`so that no workload is created before the mesh can inject it, apply MutatingWebhookConfiguration ${absent.configuration} and its injector before the workloads, in an earlier sync wave or with a dependsOn, and keep installers from deleting it while workloads roll out`,
                ]
              : []),
            // A window of the injector's: what keeps the next one from admitting pods without a proxy.
            ...(window && !absent && hook.service
              ? [
                  comment`so that the next outage admits no pod without a proxy: run the injector with 2 or more replicas and a PodDisruptionBudget, the high-availability install of the mesh, or set failurePolicy Fail on webhook ${hook.name}`,
                ]
              : []),
          ],
        };
      }
    }
  },
});

const span = (o: InjectorOutage) => ({ from: o.from.toISOString(), to: o.to ? o.to.toISOString() : 'now' });
