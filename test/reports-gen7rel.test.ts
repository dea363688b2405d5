/**
 * Real user reports (issue 31, items 5, 7, 10: timelines, release awareness, start order), each rebuilt as an
 * overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen7rel/, the thread in each file's
 * header). Each must name the confirmed cause: the check and the words that make it the cause. Named 3/7 before this
 * round's mechanisms (linkerd/linkerd2#5070, by the injector-replacement window of facts/controlplane.ts; kumahq/kuma#2483
 * and linkerd/linkerd2#2704, an app restarted after failing before its proxy was ready), 7/7 after:
 * pods created before the webhook configuration that injects them now existed (sidecar-missing, facts/timeline.ts:
 * istio/istio#40134, kyma-incubator/reconciler#1138), an app that failed once before its proxy was ready in a pod
 * that never restarts its containers (app-starts-before-proxy: linkerd/linkerd2#8700, istio/istio#4341), both on
 * releases that have no hold setting (the message says to upgrade first).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.14-istioctl-install-recreates-default-tag',
    report: 'istio/istio#40134',
    id: 'sidecar-missing',
    says: ['istio-revision-tag-default', '2026-11-21T09:15:42', 'did not exist'],
  },
  {
    file: 'istio-kyma-reconciler-reinstall-rollout',
    report: 'kyma-incubator/reconciler#1138',
    id: 'sidecar-missing',
    says: ['1 pod of Deployment orders/order-service', 'istio-revision-tag-default', 'did not exist'],
  },
  {
    file: 'linkerd-stable-2.10-nightly-scale-down-injector-replaced',
    report: 'linkerd/linkerd2#5070',
    id: 'sidecar-missing',
    says: ['2 pods of Deployment metrics/api', 'injector was down', 'linkerd-proxy-injector-6d8f9c7b5-9vqzt'],
  },
  {
    file: 'linkerd-stable-2.10-argo-step-starts-before-proxy',
    report: 'linkerd/linkerd2#8700',
    id: 'app-starts-before-proxy',
    says: ['main', 'stable-2.10.2', 'upgrade, then set it'],
  },
  {
    file: 'istio-1.5-job-fails-before-proxy-ready',
    report: 'istio/istio#4341',
    id: 'app-starts-before-proxy',
    says: ['Job store/db-seed', 'not restarted (restartPolicy Never)', 'upgrade, then set it'],
  },
  {
    file: 'kuma-1.x-kong-migrations-before-dataplane',
    report: 'kumahq/kuma#2483',
    id: 'app-starts-before-proxy',
    says: [
      'Job orders/kong-init-migrations',
      'kong-migrations',
      'kuma.io/wait-for-dataplane-ready',
      'upgrade, then set it',
    ],
  },
  {
    file: 'linkerd-stable-2.10-startup-calls-refused',
    report: 'linkerd/linkerd2#2704',
    id: 'app-starts-before-proxy',
    says: ['Deployment payments/gateway-client', 'and restarted', 'stable-2.10.2', 'upgrade, then set it'],
  },
];

reportCases('gen7rel', 'real reports (gen7rel): the confirmed cause is named', CASES);
