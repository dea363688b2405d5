/**
 * Real user reports (issue 31, items 1, 3, 4: why an injected mesh container cannot run, the proxy's own network
 * path, the mesh's node agents), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen6run/, the thread in each file's header). Each must name the confirmed cause: the check
 * and the words that make it the cause. Named 0/7 before this round's mechanisms (commit 3914c0c), 7/7 after: Cilium
 * owning the CNI configuration (node-agent-incomplete), the pod started before its node's CNI agent was ready and the
 * install's own pull secrets (proxy-cannot-start), an app init container the CNI plugin redirects (proxy-cannot-start).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-cni-cilium-1.15-never-ready',
    report: 'nforgeio/neonKUBE#1880',
    id: 'node-agent-incomplete',
    says: ['istio-cni-node', 'kube-system/cilium', 'cni.exclusive'],
  },
  {
    file: 'istio-cni-cilium-minikube',
    report: 'kubernetes/minikube#20286',
    id: 'node-agent-incomplete',
    says: ['istio-cni-node-n5kbp', 'kube-system/cilium', 'cni.exclusive'],
  },
  {
    file: 'istio-cni-cilium-1.14-eks',
    report: 'cilium/cilium#26760',
    id: 'node-agent-incomplete',
    says: ['istio-cni-node-5s7fk', 'kube-system/cilium', 'cni.exclusive'],
  },
  {
    file: 'linkerd-cni-new-node-before-agent',
    report: 'linkerd/linkerd2#11073',
    id: 'proxy-cannot-start',
    says: ['linkerd-network-validator', 'linkerd-cni-x2v9q', '2026-11-22T11:11:52Z'],
    never: [/cni\.exclusive/],
  },
  {
    file: 'istio-cni-karpenter-new-node-before-agent',
    report: 'aws/karpenter-provider-aws#1684',
    id: 'proxy-cannot-start',
    says: ['istio-validation', 'istio-cni-node-w7zqk', '2026-11-22T11:21:18Z'],
    never: [/skips the pod's namespace/],
  },
  {
    file: 'kuma-dp-private-registry-no-pull-secret',
    report: 'kumahq/kuma#10944',
    id: 'proxy-cannot-start',
    says: ['kuma-init', 'registry.corp.example:5000', 'registry-secret', 'imagePullSecrets'],
  },
  {
    file: 'istio-ambient-sidecar-app-init-jenkins',
    report: 'istio/istio#53150',
    id: 'init-before-proxy',
    says: ['the init container init', 'Istio CNI plugin', 'runs only after every init container', '1337'],
  },
];

reportCases('gen6run', 'real reports: the confirmed cause is named', CASES);
