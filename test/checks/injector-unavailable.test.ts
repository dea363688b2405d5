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
    // The Deployment is gone: reported on the Service its webhook calls, never on a Deployment that does not exist.
    { fixtures: 'fires-linkerd-missing.yaml', findings: ['Service linkerd/linkerd-proxy-injector'] },
    { fixtures: 'warn-linkerd-degraded.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
  ],
  // istiod out of the cluster (a Service without selector): no Deployment is expected, none is named.
  silent: [{ fixtures: 'ok-linkerd-rollout.yaml' }, { fixtures: 'ok-istio-external.yaml' }],
});
