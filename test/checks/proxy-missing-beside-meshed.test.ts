/**
 * Where proxy-missing-beside-meshed fires, and its near misses (test/helpers/check-tester.ts): an
 * app team's namespaced Role, which cannot read Namespaces or MutatingWebhookConfigurations. Its
 * evidence, fixes and links to other findings: test/checks/namespace-only.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('proxy-missing-beside-meshed', {
  fires: [
    {
      fixtures: 'fires-linkerd-mixed.yaml',
      namespace: 'shop',
      namespaceOnly: true,
      findings: ['Deployment shop/cart'],
    },
    {
      fixtures: 'fires-istio-namespace.yaml',
      namespace: 'store',
      namespaceOnly: true,
      findings: ['Deployment store/checkout'],
    },
  ],
  silent: [
    // Namespaces and webhook configurations read: sidecar-missing decides.
    { name: 'fires-linkerd-mixed.yaml with everything read', fixtures: 'fires-linkerd-mixed.yaml', namespace: 'shop' },
    {
      name: 'fires-istio-namespace.yaml with everything read',
      fixtures: 'fires-istio-namespace.yaml',
      namespace: 'store',
    },
    { fixtures: 'ok-linkerd-near-misses.yaml', namespace: 'shop', namespaceOnly: true },
    { fixtures: 'ok-istio-near-misses.yaml', namespace: 'store', namespaceOnly: true },
    { fixtures: 'ok-system-namespaces.yaml', namespace: 'kube-system', namespaceOnly: true },
    { fixtures: 'ok-system-namespaces.yaml', namespace: 'linkerd-viz', namespaceOnly: true },
    { fixtures: 'ok-system-namespaces.yaml', namespace: 'istio-system', namespaceOnly: true },
  ],
});
