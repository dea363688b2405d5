/**
 * Real user reports (issue 31, round 9, gen9events: evidence read whole): a mesh pod visibly unhappy whose cause only
 * the Warning events about it say (the kubelet's FailedMount of a volume the injector added, a mesh controller's own
 * event), each rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen9events/,
 * the thread in each file's header). The blind set's kumahq/kuma#1216 (test/reports-blind8.test.ts) is of this class.
 * Named 0/2 before (commit d3452fc: both silent; kumahq/kuma#1216 a MISS, the proxy "not ready, for a reason meshdoctor
 * does not know"), 2/2 after (and kumahq/kuma#1216 named): src/k8s/warnings.ts, src/facts/pod-warnings.ts.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.5-ca-root-configmap-missing-failedmount',
    report: 'istio/istio#22463',
    id: 'proxy-cannot-start',
    says: ['istiod-ca-cert', 'istio-ca-root-cert', /not found/, 'FailedMount'],
  },
  {
    file: 'istio-ca-root-cert-not-created-new-namespace',
    report: 'istio/istio#43824',
    id: 'proxy-cannot-start',
    says: ['istiod-ca-cert', 'istio-ca-root-cert', /not found/, 'FailedMount'],
  },
];

reportCases('gen9events', 'gen9events: the Warning events about an unhappy mesh pod are quoted', CASES);
