/**
 * Where host-network-pod fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/workload-lifecycle.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('host-network-pod', {
  // An explanation for `-n`: a hostNetwork workload in a namespace enabled for a mesh is never injected.
  fires: [
    { fixtures: 'fires.yaml', namespace: 'shop', findings: ['DaemonSet shop/node-agent'] },
    { fixtures: 'fires.yaml', namespace: 'store', findings: ['DaemonSet store/log-shipper'] },
  ],
  silent: [
    { name: 'fires.yaml with -A', fixtures: 'fires.yaml' },
    { fixtures: 'ok.yaml', base: 'linkerd', namespace: 'legacy' },
    { fixtures: 'ok.yaml', base: 'linkerd', namespace: 'shop' },
    { base: 'linkerd', namespace: 'kube-system' },
    { fixtures: 'ok-kuma.yaml', namespace: 'orders' },
  ],
});
