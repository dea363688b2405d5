/**
 * Where webhook-excludes-namespace fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/injection.test.ts, test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('webhook-excludes-namespace', {
  fires: [
    { fixtures: 'fires-both-meshes.yaml', findings: ['Namespace edge', 'Namespace edge', 'Namespace relay'] },
    { fixtures: 'fires-consul.yaml', findings: ['Namespace monitoring'] },
    { fixtures: 'fires-consul-match-condition-not-evaluated.yaml', findings: ['Deployment catalog/ledger'] },
    { fixtures: 'fires-istio-match-condition.yaml', findings: ['Deployment store/cart'] },
    {
      fixtures: 'fires-kuma-match-condition.yaml',
      findings: [
        'Deployment billing/invoicer',
        'Deployment orders/api',
        'Deployment orders/ledger',
        'Deployment orders/notes',
        'Job orders/reindex',
      ],
    },
    { fixtures: 'fires-linkerd-match-condition.yaml', findings: ['Deployment shop/gateway'] },
    { fixtures: 'fires-istio-namespace-opt-out.yaml', findings: ['Namespace legacy'] },
    { fixtures: 'fires-istio-tags.yaml', findings: ['Namespace orders', 'Deployment tools/runner'] },
    { fixtures: 'fires-istio.yaml', findings: ['Namespace canary', 'Namespace local-path-storage'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Namespace shipping'] },
    { fixtures: 'fires-linkerd-object-selector.yaml', findings: ['Deployment shop/gateway'] },
    { fixtures: 'fires-linkerd.yaml', findings: ['Namespace batch', 'Namespace cert-manager'] },
  ],
  silent: [
    { fixtures: 'ok-istio-disabled-beside-rev.yaml' },
    { fixtures: 'ok-consul-match-condition-not-evaluated.yaml' },
    { fixtures: 'ok-istio.yaml' },
    { fixtures: 'ok-linkerd-match-condition-holds.yaml' },
    { fixtures: 'ok-linkerd.yaml' },
  ],
});
