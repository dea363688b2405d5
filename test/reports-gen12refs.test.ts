/**
 * Real user reports (issue 31, gen12refs: mesh settings that name objects or addresses that are not there), each
 * rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen12refs/, the thread
 * in each file's header). Each must name the setting, what it names and that it is not there.
 * Named 0/3 before (345c222): all three silent (mesh-key-unknown only, on the Linkerd one). 3/3 after: reference-missing
 * resolves addresses naming a Service (src/mesh/references.ts serviceOfHost, src/mesh/istio/mesh-config.ts). Near misses from real reports (istio/istio#24941: the Service named
 * exists and DNS failed; istio/istio#23487: istiod-remote exists) are ok fixtures of reference-missing.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-stable-2.10-trace-collector-old-addon-address',
    report: 'linkerd/website#1249',
    id: 'reference-missing',
    says: ['config.linkerd.io/trace-collector', 'Service linkerd-collector in namespace linkerd'],
  },
  {
    file: 'istio-mesh-config-discovery-address-namespace-not-istiods',
    report: 'Kuadrant/multicluster-gateway-controller#79',
    id: 'reference-missing',
    says: ['discoveryAddress', 'istiod.istio.svc:15012', 'namespace istio does not exist', 'istio-system'],
  },
  {
    file: 'istio-extension-provider-zipkin-short-service-name',
    report: 'istio/istio#52149',
    id: 'reference-missing',
    says: ['zipkin.monitoring', 'zipkin.monitoring.svc.cluster.local'],
  },
];

reportCases('gen12refs', 'real reports: mesh settings naming objects or addresses that are not there', CASES);
