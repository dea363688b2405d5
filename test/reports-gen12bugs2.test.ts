/**
 * Real user reports of a release's own bug (issue 31, gen12bugs2: Istio and Consul), each rebuilt as an overlay on the
 * healthy cluster of its mesh (test/fixtures/reports/gen12bugs2/, the thread in each file's header): the known bug of
 * the release the pod's images show must be named, with the release that fixes it.
 * Named 0/4 before (branch gen12bugs2 at 345c222), 4/4 after: known-release-bug over the release tables' bugs
 * (src/mesh/istio/release-bugs.ts, src/mesh/consul/release-bugs.ts; container names ending in `*` for consul-k8s's
 * multi-port containers, src/facts/known-bugs.ts).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-stats-eviction-interval-600s',
    report: 'istio/istio#58500',
    id: 'known-release-bug',
    says: ['istio/istio#58500', 'statsEvictionInterval', '1.28.2'],
  },
  {
    file: 'consul-multiport-dataplane-dns-port',
    report: 'hashicorp/consul-k8s#2144',
    id: 'known-release-bug',
    says: ['hashicorp/consul-k8s#2176', 'consul-dataplane-web-admin', '1.1.2'],
  },
  {
    file: 'istio-null-cpu-limit-refused',
    report: 'istio/istio#58805',
    id: 'known-release-bug',
    says: ['istio/istio#58805', 'limit of 0', '1.28.6'],
  },
  {
    file: 'istio-1.4-portless-first-container',
    report: 'istio/istio#18594',
    id: 'known-release-bug',
    says: ['istio/istio#18594', 'declares no ports', '1.4.3'],
  },
];

const OPEN: string[] = [];

reportCases(
  'gen12bugs2',
  'real reports of a release bug of Istio and Consul: the bug and its fix release are named',
  CASES,
  OPEN,
);
