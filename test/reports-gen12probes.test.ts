/**
 * Real user reports of an app's probes failing through the mesh's proxy (issue 31, gen12probes): a probe the
 * injector did not rewrite (its setting off, a container added after injection by another webhook) meeting Envoy's
 * mTLS-only inbound, and Linkerd 2.11's inbound policy refusing the kubelet (no probe authorized before 2.12; a probe
 * path with a query string before stable-2.13.4). Each is rebuilt as an overlay on the healthy cluster of its mesh
 * (test/fixtures/reports/gen12probes/, the thread in each file's header) and must name the probe and why.
 * Named 0/5 before (gen12probes before app-probe-through-proxy), 5/5 after: app-probe-through-proxy reads the
 * release tables' `probes` rows (src/mesh/<mesh>/probes.ts).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.7-rewrite-off-strict-readiness-reset',
    report: 'istio/istio#26737',
    id: 'app-probe-through-proxy',
    says: ['portal', 'readiness', 'httpGet 8800/ready', 'rewriteAppHTTPProbe', 'connection reset by peer'],
    wrong: ['app-starts-before-proxy'],
  },
  {
    file: 'istio-opa-sidecar-added-after-injection-probes',
    report: 'istio/istio#53786',
    id: 'app-probe-through-proxy',
    says: ['opa-istio', 'added to the pod after injection', 'connection reset by peer'],
  },
  {
    file: 'linkerd-2.11-all-authenticated-probes-403',
    report: 'linkerd/linkerd2#7050',
    id: 'app-probe-through-proxy',
    says: ['invoices', 'all-authenticated', '403', 'Linkerd 2.11'],
  },
  {
    file: 'linkerd-2.11-cluster-authenticated-pod-probes-403',
    report: 'linkerd/linkerd2#7143',
    id: 'app-probe-through-proxy',
    says: ['items', 'liveness', 'cluster-authenticated', '403'],
  },
  {
    file: 'linkerd-2.13-deny-probe-query-string-403',
    report: 'linkerd/linkerd2#10877',
    id: 'app-probe-through-proxy',
    says: ['nginx', 'query string', 'deny', '2.13.4'],
  },
];

const OPEN: string[] = [];

reportCases(
  'gen12probes',
  "real reports of an app's probes refused by the mesh's proxy: the probe and why are named",
  CASES,
  OPEN,
);
