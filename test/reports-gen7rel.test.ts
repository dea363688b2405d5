/**
 * Real user reports (issue 31, item 5: timelines; pods created before the mesh could inject them), each rebuilt as
 * an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen7rel/, the thread in each
 * file's header). Each must name the confirmed cause: the check and the words that make it the cause. Named 1/3
 * before this round's mechanisms (linkerd/linkerd2#5070 by the injector-replacement window of facts/controlplane.ts).
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
];

reportCases('gen7rel', 'real reports (gen7rel): the confirmed cause is named', CASES);
