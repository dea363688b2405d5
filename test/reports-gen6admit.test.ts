/**
 * Real user reports (issue 31, round 6: every admission layer, timelines, who asks and who wins, errors by
 * structure, scope), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen6admit/, the thread in each file's header). Each must name the confirmed cause.
 * Measured before the round's mechanisms (38baac4): 1/7; after: 7/7.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-namespace-disabled-pod-opt-in',
    report: 'istio/istio#32388',
    id: 'opt-in-overruled',
    says: ['istio-injection=disabled', 'sidecar.istio.io/inject', /wins/],
  },
  {
    file: 'istio-deployment-label-template-annotation',
    report: 'istio/istio#32853',
    id: 'injection-marker-invalid',
    says: ['sidecar.istio.io/inject', /label/, /Deployment/],
  },
  {
    file: 'istio-optout-annotation-webhook-down',
    report: 'istio/istio#35271',
    id: 'webhook-call-failed',
    says: ['auto.sidecar-injector.istio.io', 'sidecar.istio.io/inject', /annotation/, /label/],
  },
  {
    file: 'istio-istiod-cold-start-annotation-optout',
    report: 'istio/istio#26380',
    id: 'webhook-blocks-injector',
    says: ['istiod', 'namespace.sidecar-injector.istio.io', /annotation/, /label/],
  },
  {
    file: 'linkerd-psa-baseline-cluster-default',
    report: 'linkerd/linkerd2#11667',
    id: 'pod-security-blocks-init',
    says: ['linkerd-init', 'baseline', /cluster-wide default|no pod-security label/],
  },
  {
    file: 'linkerd-psa-cluster-default-ingress',
    report: 'linkerd/linkerd2#11706',
    id: 'pod-security-blocks-init',
    says: ['linkerd-init', 'baseline', /cluster-wide default|no pod-security label/],
  },
  {
    file: 'linkerd-trust-anchor-upgrade-not-restarted',
    report: 'linkerd/linkerd2#8664',
    id: 'proxy-predates-trust-root',
    says: ['metrics-api', 'trust root', /re-created/],
  },
];

reportCases('gen6admit', 'real reports (round 6): the confirmed cause is named', CASES);
