/**
 * Real user reports (issue 31, item 3 and the API server's path to the injector), each rebuilt as an overlay on the
 * healthy cluster of its mesh and release (test/fixtures/reports/gen8net/, the thread in each file's header). Each
 * must name the confirmed cause: the check and the words that make it the cause. Named 0/4 before this round (commit
 * c73a098: sidecar-missing, a bare "the call failed" twice, and silence), 4/4 after: the kube-apiserver pod's HTTPS_PROXY
 * without a NO_PROXY entry for the Service host (webhook-port-blocked, src/facts/apiserver-proxy.ts) and a proxy's
 * answer read from the API server's error (webhook-call-failed, cause `proxy`).
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
  {
    file: 'istio-1.5-cfcr-proxy-unable-to-connect',
    report: 'cloudfoundry-incubator/kubo-release#289',
    // The API server runs outside any pod: the error alone names the proxy; what set it is not in the cluster.
    id: 'webhook-call-failed',
    says: ['HTTP proxy', 'Unable to connect', 'no kube-apiserver pod read shows that environment'],
  },
];

reportCases('gen8net', "real reports: the proxy's network path and the API server's path to the injector", CASES);
