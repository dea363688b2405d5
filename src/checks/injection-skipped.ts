/**
 * injection-skipped — the injector itself recorded why it skipped the workload's pods, which the
 * model says it should have injected: the finding quotes the injector and says what its words mean.
 *
 * Why: the injector's own account beats any reconstruction. Linkerd's proxy injector records an
 * `InjectionSkipped` event on the workload ("Linkerd sidecar proxy injection skipped: <reasons>",
 * controller/proxy-injector/webhook.go; on the Deployment, StatefulSet, DaemonSet, Job or CronJob,
 * never for a bare pod). Its reasons differ by release: Linkerd 2.10 and 2.11 skip pods without a
 * ServiceAccount token mount with the automount reason, releases before 2.8 take containers named
 * envoy or contour for a proxy already injected, and pods created before a marker was set were
 * skipped for the missing annotation (the profile's readSkip says what each reason means, with its
 * source). Istio, Kuma and Consul record no such event (they log it, or deny the pod:
 * webhook-denied).
 * When: the model says a pod created now would be injected (the namespace or the template asks, a
 * webhook is called, the injector accepts), active pods lack the proxy and did not predate the
 * marker (pod-predates-enablement), and the injector's latest skip event on the workload stands for
 * them (created no later than its last time, give or take client-go's five-minute spam filter).
 * Events expire (1h by default), so older skips are sidecar-missing's. It outranks
 * sidecar-missing, which stays silent for these pods.
 * Known false positives: none known; an event newer than a template fix while the old pods remain
 * says what happened to them, which is still true.
 * Fix: what the reasons name (the profile's fix for each), then re-create the pods.
 */
import { cmd } from '../fix/steps.js';
import { recreateCommands } from '../fix/commands.js';
import { missingProxy, podEvidence, skippedByInjector, MISSING_PROXY } from '../facts/missing-proxy.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { plural } from '../util/objects.js';
import { printable } from '../util/errors.js';
import type { SkipReading } from '../mesh/profile.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  skipped:
    '{pods} of {workload} run without a {meshTitle} proxy because its injector skipped them, saying: {quoted} ({means}).',
});

export default defineCheck({
  ...meta('injection-skipped'),
  facts: [MISSING_PROXY],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      for (const { mesh } of m.meshes) {
        const p = profileOf(mesh);
        if (!p.injector.skippedEventPrefix) continue; // the mesh records no skip
        const missing = missingProxy(m, w, mesh);
        if (!missing || missing.unexplained.length === 0) continue;
        const skipped = skippedByInjector(m, w, mesh, missing);
        if (!skipped) continue;
        const { skip, pods } = skipped;
        const readings = skip.reasons.map(
          (reason): SkipReading =>
            p.injector.readSkip?.(m, w, reason, pods) ?? {
              reason,
              means: `a reason meshdoctor does not know; the injector's log says more`,
              source: `the ${meshTitle(mesh)} injector's event`,
              fix: [],
            },
        );
        const quoted = skip.reasons.map((r) => printable(r, 160)).join('; ');
        const fix = readings.flatMap((r) => r.fix);
        // A change to the pod template re-creates the pods itself (a rollout); otherwise they are re-created.
        const editsTemplate = fix.some((s) => s.kind === 'edit' && 'template' in s && s.template);
        const hook = missing.decision.calls.find((c) => c.called)?.webhook;
        yield {
          mesh,
          ...say(MESSAGES, 'skipped', {
            pods: plural(pods.length, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            meshTitle: meshTitle(mesh),
            quoted,
            means: readings[0]!.means,
          }),
          resource: w.ref,
          affectedPods: pods.length,
          evidence: {
            injector: {
              event: 'InjectionSkipped',
              object: skip.object,
              reasons: skip.reasons.map((r) => printable(r, 256)),
              count: skip.count,
              lastTimestamp: skip.lastTimestamp ?? null,
            },
            readings: readings.map((r) => ({
              reason: printable(r.reason, 256),
              means: r.means,
              source: r.source,
              ...(r.evidence ? r.evidence : {}),
            })),
            pods: podEvidence(pods),
            ...(hook ? { webhook: hook.name } : {}),
          },
          fix: [
            ...fix,
            ...(editsTemplate ? [] : recreateCommands(w)),
            ...(hook?.service
              ? [
                  cmd`kubectl logs -n ${hook.service.namespace} ${`deploy/${hook.service.name}`} -c ${p.controlPlane.injector.container} --tail=200`,
                ]
              : []),
          ],
        };
      }
    }
  },
});
