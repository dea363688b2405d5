/**
 * Real user reports (issue 31, round 8, items 2 and 11: every admission layer, not only the mesh's): the API
 * server's own SecurityContextDeny plugin refusing the proxy's runAsUser, PodSecurityPolicy naming an injected
 * init container by index (Consul) or nothing at all after the CNI (Istio), OpenShift's SCC refusing the proxy's
 * UID (Linkerd on OKD), Gatekeeper's allowed-capabilities constraint naming the injected init container (AKS).
 * Each rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen8admit/,
 * the thread in each file's header); each must name the confirmed cause.
 * Named 5/7 before this round's mechanisms (at 2e84699: SecurityContextDeny and the duplicate volume silent, no
 * finding at all), 7/7 after: admission-rejects-proxy reads SecurityContextDeny's refusal and names the injected
 * containers that set runAsUser; quotes any refusal of an injected workload it does not recognise rather than stay
 * silent; names a volume or value the API server's validation refuses that the template does not hold (a second
 * volume named like the template's own, a mount path written twice), with the webhooks that could have added it.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.5-securitycontextdeny-autoinject',
    report: 'istio/istio#7650',
    id: 'admission-rejects-proxy',
    says: ['SecurityContextDeny', 'istio-proxy', 'runAsUser'],
  },
  {
    file: 'consul-0.x-psp-connect-inject-init',
    report: 'hashicorp/consul-helm#1044',
    id: 'admission-rejects-proxy',
    says: ['PodSecurityPolicy', 'spec.initContainers[1]', 'runAsNonRoot'],
  },
  {
    file: 'linkerd-okd-scc-proxy-uid',
    report: 'linkerd/linkerd2#8553',
    id: 'admission-rejects-proxy',
    says: ['SecurityContextConstraints', 'linkerd-proxy', '2102'],
  },
  {
    file: 'istio-aks-gatekeeper-allowed-capabilities',
    report: 'Azure/AKS#4564',
    id: 'admission-rejects-proxy',
    says: ['Gatekeeper', 'istio-init', 'azurepolicy-k8sazurev2allowedcapabilities-7c41e9d0b2a35f86e1d4'],
  },
  {
    file: 'istio-1.5-cni-psp-no-privilege-escalation',
    report: 'istio/cni#89',
    id: 'admission-rejects-proxy',
    says: ['PodSecurityPolicy', /"\[\]"/, /skipped/],
  },
  {
    file: 'linkerd-jaeger-injector-duplicate-podinfo-volume',
    report: 'linkerd/linkerd2#11254',
    id: 'admission-rejects-proxy',
    says: ['spec.volumes[10]', 'podinfo', 'linkerd-jaeger-injector.linkerd.io', 'a second volume named podinfo'],
  },
  {
    file: 'istio-hold-eks-pod-identity-mount-twice',
    report: 'istio/istio#40993',
    id: 'admission-rejects-proxy',
    says: ['/var/run/secrets/eks.amazonaws.com/serviceaccount', 'must be unique', 'iam-for-pods.amazonaws.com'],
  },
];

reportCases('gen8admit', 'real reports: the confirmed cause is named', CASES);
