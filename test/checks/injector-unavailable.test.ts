/**
 * Where injector-unavailable fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/control-plane.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('injector-unavailable', {
  fires: [
    { fixtures: 'fires-consul-scaled-zero.yaml', findings: ['Deployment consul/consul-connect-injector'] },
    { fixtures: 'fires-istio-imagepull.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-istio-scaled-zero.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-kuma-crashloop.yaml', findings: ['Deployment kuma-system/kuma-control-plane'] },
    { fixtures: 'fires-linkerd-crashloop.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-linkerd-missing.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    { fixtures: 'warn-linkerd-degraded.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
  ],
  silent: [{ fixtures: 'ok-linkerd-rollout.yaml' }],
});
