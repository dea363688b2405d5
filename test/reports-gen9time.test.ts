/**
 * Real user reports of mesh components serving a certificate older than the one their Secret holds (issue 31,
 * gen9time: timelines of mesh components against what they read), each rebuilt as an overlay on the healthy cluster
 * of its mesh and release (test/fixtures/reports/gen9time/, the thread in each file's header). Each must name the
 * confirmed cause: the component pod started before its Secret got its current certificate, in a release that reads it
 * only at start. Named 0/3 before this round's mechanism (src/ at commit d3452fc: sidecar-missing said the pods lacked
 * a proxy at an unknown time or after the marker), 3/3 after (component-cert-not-reloaded, facts/timeline.ts
 * certsLoadedBefore, the release rows of src/mesh/linkerd/cert-loads.ts; sidecar-missing now puts the pods on the
 * renewal too). The blind8 report of the class, linkerd/linkerd2#5888, is named by webhook-call-failed's TLS cause.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-stable-2.10-base-2.9.0-upgrade-regenerated-injector-cert-not-rolled',
    report: 'linkerd/linkerd2#5341',
    id: 'component-cert-not-reloaded',
    says: ['linkerd-proxy-injector', 'linkerd-proxy-injector-k8s-tls', 'stable-2.9.0', /only at start/, /restart/i],
  },
  {
    file: 'linkerd-stable-2.10-base-2.9.0-cert-manager-renewed-injector-tap-not-reloaded',
    report: 'linkerd/linkerd2#5272',
    id: 'component-cert-not-reloaded',
    says: ['linkerd-proxy-injector', 'linkerd-tap-k8s-tls', /only at start/, /restart/i],
  },
  {
    file: 'linkerd-stable-2.10-base-2.6.0-helm-upgrade-rerendered-webhook-certs-not-restarted',
    report: 'linkerd/linkerd2#3673',
    id: 'component-cert-not-reloaded',
    says: ['linkerd-proxy-injector-tls', 'linkerd-sp-validator-tls', 'stable-2.6.0', /only at start/],
  },
];

reportCases('gen9time', 'real reports: a mesh component serving an older certificate than its Secret holds', CASES);
