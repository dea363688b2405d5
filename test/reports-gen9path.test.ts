/**
 * Real user reports of the network path around the mesh (issue 31, gen9path): a managed control plane that cannot
 * reach the injector's pod (private GKE's firewall, EKS with an overlay network), and the order in which the cluster's
 * CNI agent and the mesh's CNI agent write a node's CNI configuration. Each is rebuilt as an overlay on the healthy
 * cluster of its mesh and release (test/fixtures/reports/gen9path/, the thread in each file's header) and must name
 * the confirmed cause. Named 0/6 before this round's mechanisms (commit 7d015f4), 6/6 after: a private GKE cluster failing open and EKS's
 * "Address is not allowed" (webhook-port-blocked), the order of the CNI agents on each node (node-agent-incomplete).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-gke-private-injector-8443-failing-open',
    report: 'linkerd/linkerd2#8707',
    id: 'webhook-port-blocked',
    says: ['8443', /private/, /firewall/, /failurePolicy Ignore/],
  },
  {
    file: 'istio-eks-weave-istiod-address-not-allowed',
    report: 'istio/istio#45738',
    id: 'webhook-port-blocked',
    // "Address is not allowed" is EKS's control plane refusing a pod address outside the VPC, not an HTTP proxy.
    says: ['Weave Net', 'Address is not allowed', /hostNetwork/],
    never: [/HTTP proxy answered/],
  },
  {
    file: 'linkerd-stable-2.10-cni-calico-pod-replaced-after-linkerd-cni',
    report: 'linkerd/linkerd2#7855',
    id: 'node-agent-incomplete',
    says: ['calico-node', 'linkerd-cni', 'worker-b', 'web-5b7c9d8f4-ddddd'],
    never: [/worker-a/],
  },
  {
    file: 'linkerd-cni-node-restart-calico-after-linkerd-cni-validator-fails',
    report: 'linkerd/linkerd2#12490',
    id: 'node-agent-incomplete',
    says: ['calico-node', 'linkerd-cni', 'k8s-worker-03'],
  },
  {
    file: 'kuma-cni-gke-calico-rewrote-conflist-validation-fails',
    report: 'kumahq/kuma#6906',
    id: 'node-agent-incomplete',
    says: ['calico-node', 'kuma-cni-node', 'quotes-5d6c7b8a9-p9o8i'],
  },
  {
    file: 'kuma-cni-new-gke-node-before-calico-conflist',
    report: 'kumahq/kuma#6907',
    id: 'node-agent-incomplete',
    says: ['kuma-cni-node', /calico/i, /before/],
  },
];

const OPEN: string[] = [];

reportCases('gen9path', 'real reports of the network path: the confirmed cause is named', CASES, OPEN);
