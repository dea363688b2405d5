/**
 * Real user reports (issue 31, items 4, 5 and 10: mesh node agents not everywhere or not yet, timelines, start
 * order), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen8agents/, the thread in each file's header). Each must name the confirmed cause: the
 * check and the words that make it the cause. Named 1/5 before this round's mechanisms (commit c73a098: only
 * kumahq/kuma#13572, by proxy-cannot-start's CNI timeline), 5/5 after: pod-predates-node-agent (a pod started before
 * its node's CNI agent was ready, nothing stopped it) and proxy-hold-stuck (the proxy's hold hook never completes).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-stable-2.10-cni-pods-before-agent',
    report: 'linkerd/linkerd2#2970',
    id: 'pod-predates-node-agent',
    says: ['invoices', 'linkerd-cni-7xk2p', '2026-11-22T10:03:10Z', /without traffic redirection/],
  },
  {
    file: 'istio-1.5-cni-race-cluster-restart',
    report: 'istio/istio#14327',
    id: 'pod-predates-node-agent',
    says: ['catalog/search', 'istio-cni-node-m4n5b', '2026-11-22T08:02:15Z', /no validation container/],
  },
  {
    file: 'kuma-cni-validation-crashloop-before-agent',
    report: 'kumahq/kuma#13572',
    id: 'proxy-cannot-start',
    says: ['kuma-validation', 'kuma-cni-node-w9q8r', '2026-11-22T09:31:02Z', /re-created/],
  },
  {
    file: 'linkerd-admin-port-proxy-await',
    report: 'linkerd/linkerd2#10981',
    id: 'proxy-hold-stuck',
    says: ['config.linkerd.io/admin-port', '5191', /without --port/, /proxy-await/],
  },
  {
    file: 'istio-hold-application-hook-timeout',
    report: 'istio/istio#41086',
    id: 'proxy-hold-stuck',
    says: ['holdApplicationUntilProxyStarts', 'FailedPostStartHook', /timeout waiting for Envoy proxy/],
    unknowable: true,
  },
];

reportCases('gen8agents', 'node agents, timelines, start order: the confirmed cause is named', CASES, []);
