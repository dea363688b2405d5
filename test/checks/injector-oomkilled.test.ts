/**
 * Where injector-oomkilled fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/control-plane.test.ts, test/checks/outage.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('injector-oomkilled', {
  fires: [
    { fixtures: 'fires-consul.yaml', findings: ['Deployment consul/consul-connect-injector'] },
    { fixtures: 'fires-istio.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-linkerd-chain.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
  ],
  silent: [{ fixtures: 'ok-linkerd-error-exit.yaml' }],
});
