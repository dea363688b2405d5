/**
 * Real user reports (issue 31, item 1: why an injected mesh container cannot run, from the spec and the status), each
 * rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen8run/, the thread in
 * each file's header). Each must name the confirmed cause: the check and the words that make it the cause. Named 4/6
 * before this round's changes (the two open below).
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
];

const OPEN: string[] = [];

reportCases('gen8run', 'real reports: the confirmed cause is named', CASES, OPEN);
