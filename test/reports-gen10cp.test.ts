/**
 * Real user reports of control-plane components that do not run (issue 31, gen10cp): a component of the mesh's
 * control plane (Linkerd's identity, Istio's Citadel before istiod, Consul's servers, kuma-cp) whose pods are not
 * scheduled, cannot pull or parse their image, or do not exist, followed to why (the scheduler's, the kubelet's own
 * words) and to what it breaks (proxies never ready, Secrets never written, init containers that never finish). Each is
 * rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen10cp/, the thread in
 * each file's header) and must name the confirmed cause.
 * Named 0/6 before this round's mechanism (commit 59098eb), 6/6 after: control-plane-down for Linkerd's identity, Citadel
 * (missing, and down with its InvalidImageName), Consul's servers (twice, one named by its release); injector-unavailable
 * for kuma-cp, quoting the kubelet's words from the one reading of why a control-plane pod does not run.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-identity-pending-insufficient-cpu-proxies-not-ready',
    report: 'linkerd/linkerd2#5356',
    id: 'control-plane-down',
    says: ['linkerd/linkerd-identity', 'Insufficient cpu', 'shop/web-5b7c9d8f4-aaaaa', /certificate/],
  },
  {
    file: 'istio-1.5-no-citadel-galley-secret-not-found',
    report: 'istio/istio#18840',
    id: 'control-plane-down',
    says: [/Citadel/i, /no .*workload/i, 'istio.istio-galley-service-account', 'istio-galley'],
  },
  {
    file: 'istio-1.5-citadel-invalid-image-injector-secret-not-found',
    report: 'istio/istio#19029',
    id: 'control-plane-down',
    says: [
      'istio-system/istio-citadel',
      'InvalidImageName',
      'invalid reference format',
      'istio.istio-sidecar-injector-service-account',
    ],
  },
  {
    file: 'consul-0.x-servers-pending-unbound-pvc',
    report: 'hashicorp/consul-k8s#1496',
    id: 'control-plane-down',
    says: ['consul/consul-server', 'unbound immediate PersistentVolumeClaims', 'catalog/products-7b8c9d6f5-n1m2b'],
  },
  {
    file: 'consul-0.x-release-hashicorp-servers-no-storage-class',
    report: 'hashicorp/consul-helm#284',
    id: 'control-plane-down',
    says: ['consul/hashicorp-consul-server', 'unbound immediate PersistentVolumeClaims'],
  },
  {
    file: 'kuma-1.0-control-plane-image-pull-backoff',
    report: 'kumahq/kuma#1013',
    id: 'injector-unavailable',
    says: ['kuma-system/kuma-control-plane', 'ImagePullBackOff', 'kuma-cp:0.7.1'],
  },
];

const OPEN: string[] = [];

reportCases(
  'gen10cp',
  'real reports of control-plane components that do not run: the confirmed cause is named',
  CASES,
  OPEN,
);
