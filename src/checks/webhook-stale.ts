/**
 * webhook-stale — a mesh's MutatingWebhookConfiguration left behind: every webhook of it calls a
 * Service that no longer exists, while another configuration of the mesh calls a live one (an old
 * chart's or revision's configuration beside the new), or its whole namespace is gone (the mesh
 * was removed, its configuration was not: Helm does not delete what an older release created, and
 * `istioctl uninstall` of one revision leaves the others' tags), or its injector is gone from a
 * namespace that stays (the Service and every injector Deployment of the mesh deleted, Deployments
 * read there: an uninstall that removed the injector and left its configuration and namespace).
 *
 * Why: the API server still calls it for every pod it selects: with failurePolicy Fail their
 * creation is refused ("failed calling webhook ... service not found"), with Ignore each call
 * fails (and waits for its timeout) before the pod is admitted as if it were not there.
 * When: Namespaces and the Services of the webhook's namespace were read (a namespace not read is
 * unknown, never gone). A lone configuration whose Service is missing beside a running injector
 * Deployment is a broken install, not a leftover: webhook-no-endpoints reports it, and leaves
 * leftovers to this check.
 * Known false positives: a Service deleted a moment ago by an upgrade that re-creates it.
 * Fix: delete the leftover configuration (the live one, named, stays).
 */
import { cmd, comment } from '../fix/steps.js';
import { failureEffect } from '../k8s/admission.js';
import { leftoverConfigs, meshConfigs, MESH_CONFIGS } from '../facts/webhook-configs.js';
import { profileOf } from '../mesh/registry.js';
import { plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'left-behind':
    'MutatingWebhookConfiguration {config} of {meshTitle} is left behind: it calls Service {services}, {why}.',
  'left-behind-called':
    'MutatingWebhookConfiguration {config} of {meshTitle} is left behind: it calls Service {services}, {why}. It is called for the pods of {workloads} ({shown}): {effect}.',
});

export default defineCheck({
  ...meta('webhook-stale'),
  facts: [MESH_CONFIGS],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      const leftovers = leftoverConfigs(m, mesh);
      if (!leftovers.length) continue;
      const live = meshConfigs(m, mesh).filter((c) => c.live);
      for (const c of leftovers) {
        const services = [
          ...new Set(c.webhooks.flatMap((h) => (h.service ? [`${h.service.namespace}/${h.service.name}`] : []))),
        ].sort();
        const why = c.namespaceGone
          ? `whose namespace no longer exists`
          : live.length
            ? `which no longer exists, while ${live.map((l) => l.name).join(', ')} ${live.length === 1 ? 'calls' : 'call'} a live injector`
            : `which no longer exists, and no ${profileOf(mesh).title} injector Deployment is left in its namespace (uninstalled)`;
        const said = { config: c.name, meshTitle: profileOf(mesh).title, services: services.join(', '), why };
        yield {
          mesh,
          ...(c.workloads.length
            ? say(MESSAGES, 'left-behind-called', {
                ...said,
                workloads: plural(c.workloads.length, 'workload'),
                shown: `${c.workloads
                  .slice(0, 5)
                  .map((w) => `${w.namespace}/${w.name}`)
                  .join(', ')}${c.workloads.length > 5 ? ', ...' : ''}`,
                effect: failureEffect(c.webhooks.map((h) => h.failurePolicy)),
              })
            : say(MESSAGES, 'left-behind', said)),
          resource: { kind: 'MutatingWebhookConfiguration', name: c.name },
          evidence: {
            services,
            namespaceGone: c.namespaceGone,
            injectorGone: c.injectorGone,
            liveConfigurations: live.map((l) => l.name),
            webhooks: c.webhooks.map((h) => ({ name: h.name, failurePolicy: h.failurePolicy })),
            workloads: c.workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`),
          },
          fix: [
            live.length
              ? comment`delete the leftover, the live configuration stays and injects the pods`
              : c.injectorGone
                ? comment`delete the leftover of an injector that is no longer installed, or reinstall the mesh if it should inject`
                : comment`delete the leftover of a mesh that is no longer installed`,
            cmd`kubectl delete mutatingwebhookconfiguration ${c.name}`,
          ],
        };
      }
    }
  },
});
