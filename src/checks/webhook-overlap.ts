/**
 * webhook-overlap — two MutatingWebhookConfigurations of the same mesh are both called for the
 * same workloads' pods: a leftover revision, or an old chart's configuration next to the new one
 * (IST0139 in Istio's analyzer, pkg/config/analysis/analyzers/webhook/webhook.go @1.28.0).
 *
 * Why: the API server calls every matching webhook, in the order of the configurations' names
 * (mutating_webhook_manager.go). A mesh that skips pods already injected keeps the first
 * injection (the first configuration's injector, perhaps an old one); Istio injects again from
 * its own template (the profile's `injector.reinjects`), so the configuration called last wins,
 * whatever revision the namespace asked for. Either way a second injector is called for each pod,
 * and the one that counts may not be the one intended.
 * When: decided on the namespaces and workloads the snapshot holds, through each workload's own
 * decision (the same selector evaluation as the other checks), never on imagined label sets.
 * Known false positives: two configurations that select the same pods on purpose with disjoint
 * rules (none of the meshes' charts renders that).
 * Fix: delete the configuration that can go without leaving a workload uninjected (its Service is
 * gone, its injector Deployment is missing, or its injector injects the older proxy); otherwise
 * narrow the selectors of one of them.
 */
import { cmd, comment } from '../fix/steps.js';
import { overlaps, OVERLAPS } from '../facts/webhook-configs.js';
import { profileOf } from '../mesh/registry.js';
import { plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'delete-one':
    'MutatingWebhookConfigurations {first} and {second} of {meshTitle} are both called for the pods of {workloads} ({shown}): {keeps}. Delete {remove}: {why}.',
  'narrow-one':
    'MutatingWebhookConfigurations {first} and {second} of {meshTitle} are both called for the pods of {workloads} ({shown}): {keeps}. Neither can go without leaving some workload uninjected: narrow the selectors of one.',
});

export default defineCheck({
  ...meta('webhook-overlap'),
  facts: [OVERLAPS],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      for (const o of overlaps(m, mesh)) {
        const p = profileOf(mesh);
        const names = o.workloads.map((w) => `${w.namespace}/${w.name}`);
        const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? ', ...' : '');
        const keeps = p.injector.reinjects
          ? `${o.injects.name}'s injection wins (called last, it injects again)`
          : `${o.injects.name}'s injection is kept (called first; the second sees the proxy and skips)`;
        const target = o.remove?.config ?? o.second;
        const other = target === o.first ? o.second : o.first;
        const said = {
          first: o.first.name,
          second: o.second.name,
          meshTitle: p.title,
          workloads: plural(o.workloads.length, 'workload'),
          shown,
          keeps,
        };
        yield {
          mesh,
          ...(o.remove
            ? say(MESSAGES, 'delete-one', { ...said, remove: o.remove.config.name, why: o.remove.why })
            : say(MESSAGES, 'narrow-one', said)),
          resource: { kind: 'MutatingWebhookConfiguration', name: target.name },
          affectedPods: o.workloads.reduce((n, w) => n + w.pods.length, 0),
          evidence: {
            configurations: [o.first.name, o.second.name],
            calledFirst: o.first.name,
            injectionKept: o.injects.name,
            workloads: o.workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`),
            ...(o.remove ? { remove: o.remove.config.name, why: o.remove.why } : {}),
            injectors: Object.fromEntries(
              [o.first, o.second].map((c) => [
                c.name,
                c.injector
                  ? `${c.injector.namespace}/${c.injector.name}${c.injector.deployment ? '' : ' (no Deployment)'}`
                  : null,
              ]),
            ),
          },
          fix: o.remove
            ? [
                comment`delete the configuration that is no longer needed, the other stays and serves every workload it served`,
                cmd`kubectl delete mutatingwebhookconfiguration ${o.remove.config.name}`,
              ]
            : [
                comment`both serve workloads the other does not: narrow the namespaceSelector or objectSelector of one, then check the result`,
                cmd`kubectl get mutatingwebhookconfiguration ${target.name} -o yaml`,
                cmd`kubectl get mutatingwebhookconfiguration ${other.name} -o yaml`,
              ],
        };
      }
    }
  },
});
