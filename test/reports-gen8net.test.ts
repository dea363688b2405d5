/**
 * Real user reports (issue 31, item 3 and the API server's path to the injector), each rebuilt as an overlay on the
 * healthy cluster of its mesh and release (test/fixtures/reports/gen8net/, the thread in each file's header). Each
 * must name the confirmed cause: the check and the words that make it the cause. Named 0/3 before this round (commit
 * c73a098): sidecar-missing, a bare "the call failed", and silence.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-stable-2.10-apiserver-kubeadm-proxy-env',
    report: 'linkerd/linkerd2#2847',
    id: 'webhook-port-blocked',
    says: ['kube-apiserver-k8s-master', 'HTTPS_PROXY', 'NO_PROXY', 'linkerd-proxy-injector.linkerd.svc'],
  },
  {
    file: 'istio-1.5-apiserver-proxy-service-unavailable',
    report: 'istio/istio#12441',
    id: 'webhook-call-failed',
    says: ['proxy', 'Service Unavailable', 'https_proxy'],
  },
  {
    file: 'istio-1.5-apiserver-no-proxy-addresses-only',
    report: 'istio/istio#13575',
    id: 'webhook-port-blocked',
    says: ['kube-apiserver-master-a', 'https_proxy', 'no_proxy', 'istio-sidecar-injector.istio-system.svc'],
  },
];

reportCases('gen8net', "real reports: the proxy's network path and the API server's path to the injector", CASES);
