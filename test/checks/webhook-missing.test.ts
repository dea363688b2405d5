/**
 * Where webhook-missing fires, and its near misses (test/helpers/check-tester.ts). Its evidence,
 * fixes and links to other findings: test/checks/control-plane.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('webhook-missing', {
  fires: [
    { fixtures: 'fires-consul.yaml', findings: ['MutatingWebhookConfiguration consul-connect-injector'] },
    { fixtures: 'fires-istio.yaml', findings: ['MutatingWebhookConfiguration istio-sidecar-injector'] },
    {
      fixtures: 'fires-kuma.yaml',
      findings: ['MutatingWebhookConfiguration kuma-admission-mutating-webhook-configuration'],
    },
    {
      fixtures: 'fires-linkerd.yaml',
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config'],
    },
    // Only the mesh whose webhook is gone.
    { fixtures: 'fires-istio.yaml', base: 'both', findings: ['MutatingWebhookConfiguration istio-sidecar-injector'] },
  ],
  silent: [
    // A mesh only asked for (--mesh) is not installed: nothing is missing.
    { base: 'istio', mesh: 'linkerd' },
    { base: 'both' },
  ],
});
