/**
 * Real user reports (issue 31, item 1: why an injected mesh container cannot run, from the spec and the status), each
 * rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen8run/, the thread in
 * each file's header). Each must name the confirmed cause: the check and the words that make it the cause. Named 5/8
 * before this round's changes (commit 61f74d0's proxy-cannot-start), 8/8 after: a registry's HTTP 5xx read as the
 * registry's side, a proxy killed by the kubelet for its liveness probe (its events quoted), a mesh init container
 * that never finishes read by the mesh's own reading of the cluster (src/checks/proxy-cannot-start.ts).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-init-pull-503-registry-unavailable',
    report: 'linkerd/linkerd2#9899',
    id: 'proxy-cannot-start',
    says: ['linkerd-init', 'cr.l5d.io', /server error/, '503 Service Unavailable'],
    never: [/without credentials|no such image or tag|your mirror/],
  },
  {
    file: 'linkerd-init-pull-io-timeout',
    report: 'linkerd/linkerd2#7070',
    id: 'proxy-cannot-start',
    says: ['linkerd-init', 'cannot reach cr.l5d.io', 'i/o timeout'],
  },
  {
    file: 'linkerd-proxy-oomkilled-crashloop',
    report: 'linkerd/linkerd2#6263',
    id: 'proxy-cannot-start',
    says: ['linkerd-proxy', 'for memory', '250Mi'],
  },
  {
    file: 'istio-init-private-registry-unauthorized',
    report: 'istio/istio#13842',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'cluster1.icp.intra.szh.loc:8500', 'without credentials', 'imagePullSecrets'],
  },
  {
    file: 'istio-init-image-tag-not-found',
    report: 'istio/old_issues_repo#130',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'no such image or tag', '0.3.0.0-c5a2b3bc'],
  },
  {
    file: 'linkerd-proxy-killed-by-liveness-probe',
    report: 'linkerd/linkerd2#2585',
    id: 'proxy-cannot-start',
    says: ['linkerd-proxy', 'liveness probe', 'Client.Timeout exceeded'],
  },
  {
    file: 'consul-init-no-service-bare-pod',
    report: 'hashicorp/consul-k8s#522',
    id: 'proxy-cannot-start',
    says: ['consul-connect-inject-init', 'no Kubernetes Service selects the pod'],
  },
  {
    file: 'consul-init-stuck-vault-several-services',
    report: 'hashicorp/vault-helm#574',
    id: 'proxy-cannot-start',
    says: ['consul-connect-inject-init', 'does not finish', '2 Services select the pod'],
  },
];

const OPEN: string[] = [];

reportCases('gen8run', 'real reports: the confirmed cause is named', CASES, OPEN);
