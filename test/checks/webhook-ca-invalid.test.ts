/**
 * Where webhook-ca-invalid fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/certificates.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('webhook-ca-invalid', {
  fires: [
    { fixtures: 'fires-consul-empty.yaml', findings: ['MutatingWebhookConfiguration consul-connect-injector'] },
    { fixtures: 'fires-consul-0.x-empty.yaml', findings: ['MutatingWebhookConfiguration consul-connect-injector-cfg'] },
    {
      fixtures: 'fires-consul-cert-manager-unschedulable.yaml',
      findings: ['MutatingWebhookConfiguration consul-connect-injector'],
    },
    {
      fixtures: 'fires-consul-cert-manager-failedmount.yaml',
      findings: ['MutatingWebhookConfiguration consul-connect-injector'],
    },
    { fixtures: 'fires-istio-empty.yaml', findings: ['MutatingWebhookConfiguration istio-sidecar-injector'] },
    {
      fixtures: 'fires-linkerd-cert-manager-pending.yaml',
      findings: ['MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config'],
    },
  ],
  silent: [{ fixtures: 'ok-url-webhook.yaml' }],
});
