/**
 * Where webhook-no-endpoints fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/control-plane.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('webhook-no-endpoints', {
  fires: [
    { fixtures: 'fires-consul-service-missing.yaml', findings: ['Service consul/consul-connect-injector'] },
    { fixtures: 'fires-istio-endpoints-only.yaml', findings: ['Service istio-system/istiod'] },
    { fixtures: 'fires-istio-port-missing.yaml', findings: ['Service istio-system/istiod'] },
    { fixtures: 'fires-kuma-not-ready.yaml', findings: ['Service kuma-system/kuma-control-plane'] },
    { fixtures: 'fires-linkerd-not-ready.yaml', findings: ['Service linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-linkerd-service-missing.yaml', findings: ['Service linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-linkerd-targetport-unresolved.yaml', findings: ['Service linkerd/linkerd-proxy-injector'] },
  ],
  silent: [
    { fixtures: 'ok-istio-slices-only.yaml' },
    { fixtures: 'ok-linkerd-endpoints-only.yaml' },
    { fixtures: 'ok-linkerd-numeric-targetport.yaml' },
  ],
});
