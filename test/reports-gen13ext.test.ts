/**
 * Real user reports (issue 31 items 12 and 4/5, gen13ext): a mesh's own extensions that its charts mesh through their
 * namespace's marker, installed into a namespace created without it; and meshed pods a mesh's CNI plugin never set up.
 * Each rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen13ext/, the
 * thread in each file's header). Named 0/2 before (8f3b0f7): both silent. 2/2 after: namespace-not-enabled (the profile's
 * controlPlane.meshedByNamespace) and pod-predates-node-agent (the CNI plugin's setUpMark: Consul's
 * transparent-proxy-status still at the injector's value).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-stable-2.10-viz-helm-namespace-without-inject-annotation',
    report: 'linkerd/linkerd2#7946',
    id: 'namespace-not-enabled',
    says: ['linkerd-viz', 'linkerd.io/inject=enabled', 'viz extension', '--create-namespace'],
  },
  {
    file: 'consul-cni-race-meshed-pod-started-before-consul-cni-ready-on-new-node',
    report: 'hashicorp/consul-k8s#3060',
    id: 'pod-predates-node-agent',
    says: ['consul-cni', 'transparent-proxy-status is still enabled', 'node-b'],
  },
];

reportCases('gen13ext', 'real reports: mesh extensions expected meshed; node agents', CASES);
