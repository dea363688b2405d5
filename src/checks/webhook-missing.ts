/**
 * webhook-missing — a mesh is installed (its injector Deployment runs, or meshed pods exist) but
 * no MutatingWebhookConfiguration registers its injection webhook.
 *
 * Why: without the webhook the API server never asks the mesh about new pods: every pod is
 * created without a proxy and nothing anywhere logs an error. It happens after a partial
 * uninstall, a `kubectl delete -f` of the wrong manifest, or a GitOps prune.
 * When: only when the webhook configurations were read; a 403 on them skips the check (the
 * runner does this from `inputs`), because "could not read" is not "missing".
 * Known false positives: a control plane kept on purpose without auto-injection (CLI-injected
 * workloads only).
 * Fix: re-render the control plane the way it was installed (linkerd upgrade / helm upgrade /
 * istioctl install), then verify the configuration exists.
 */
import { injectedMesh } from '../mesh/proxy.js';
import { podsMissingProxy, reinstallCommands, PODS_MISSING_PROXY } from '../facts/controlplane.js';
import { nameOf, nsOf, plural } from '../util/objects.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'no-webhook':
    '{meshTitle} is installed ({what}) but no MutatingWebhookConfiguration registers its injection webhook, so every new pod is created without a proxy.',
});

export default defineCheck({
  ...meta('webhook-missing'),
  facts: [PODS_MISSING_PROXY],
  messages: MESSAGES,
  *run(m) {
    for (const install of m.meshes) {
      if (install.webhooks.length) continue;
      const mesh = install.mesh;
      const p = profileOf(mesh);
      const deployments = m.list('deployments').filter((d) => p.controlPlane.injector.isDeployment(nameOf(d)));
      const meshedPods = m.list('pods').filter((p) => injectedMesh(p as { spec?: unknown }) === mesh).length;
      // Only an install with something running (not a --mesh choice or a leftover namespace).
      if (!deployments.length && !meshedPods) continue;
      const ns = deployments[0] ? nsOf(deployments[0]) : (install.namespaces[0] ?? p.controlPlane.namespace);
      const names = deployments.map(nameOf);
      const expected = p.controlPlane.webhooks.expectedConfigs(names);
      const what = [
        ...deployments.map((d) => `Deployment ${nsOf(d)}/${nameOf(d)}`),
        ...(meshedPods ? [`${plural(meshedPods, 'meshed pod')}`] : []),
      ].join(', ');
      yield {
        mesh,
        ...say(MESSAGES, 'no-webhook', { meshTitle: meshTitle(mesh), what }),
        resource: { kind: 'MutatingWebhookConfiguration', name: expected[0]! },
        affectedPods: podsMissingProxy(m, mesh),
        causeKey: { kind: 'webhook-broken', mesh },
        evidence: {
          expectedConfigurations: expected,
          injectorDeployments: deployments.map((d) => `${nsOf(d)}/${nameOf(d)}`),
          meshedPods,
          controlPlaneNamespaces: install.namespaces,
        },
        fix: [...reinstallCommands(m, mesh, ns, names[0]), p.controlPlane.webhooks.list(expected[0]!)],
      };
    }
  },
});
