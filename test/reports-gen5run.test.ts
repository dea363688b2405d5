/**
 * Real user reports (issue 31: why a mesh container cannot run, the proxy's own network path, the mesh's node
 * agents), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen5run/, the thread in each file's header). Each must name the confirmed cause: the
 * check and the words that make it the cause. Where the cluster's state cannot show the cause (`unknowable`),
 * the finding must quote what it saw and say that the cause is not known, not guess one.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.5-egress-dns-pod-port',
    report: 'istio/istio#14736',
    id: 'proxy-egress-blocked',
    says: ['test-egress', '8053', /DNS/],
  },
  {
    file: 'istio-egress-deny-all-istiod',
    report: 'istio/istio#27548',
    id: 'proxy-egress-blocked',
    says: ['cache', 'istiod', '15012'],
  },
  {
    file: 'istio-cni-multus-unchained',
    report: 'istio/istio#48734',
    id: 'proxy-cannot-start',
    says: ['istio-validation', 'k8s.v1.cni.cncf.io/networks', 'CHAINED_CNI_PLUGIN', 'istio_cni.chained'],
  },
  {
    file: 'istio-validation-control-plane-namespace',
    report: 'istio/istio#34560',
    id: 'proxy-cannot-start',
    says: ['istio-validation', 'skips namespace istio-system'],
  },
  {
    file: 'kuma-cni-install-cni-process',
    report: 'kumahq/kuma#10461',
    id: 'pod-sandbox-cni-failed',
    says: ['worker-12', "more than one process '/install-cni'", '2.9.0', 'kuma-cni-node-w2m9d'],
  },
  {
    file: 'linkerd-cni-no-valid-ip',
    report: 'linkerd/linkerd2#10849',
    id: 'pod-sandbox-cni-failed',
    says: ['no valid IP addresses', /no other plugin|alone/],
  },
  {
    file: 'linkerd-cni-bin-dir',
    report: 'rancher-sandbox/rancher-desktop#6170',
    id: 'pod-sandbox-cni-failed',
    says: ['/usr/libexec/cni', 'DaemonSet linkerd-cni/linkerd-cni installs linkerd-cni into /opt/cni/bin'],
  },
  {
    file: 'consul-0.x-init-iptables-nat',
    report: 'hashicorp/consul-k8s#960',
    id: 'proxy-cannot-start',
    says: ['consul-connect-inject-init', 'exit code 1', 'does not know', '--previous'],
    never: [/no Kubernetes Service selects/, /Services select the pod/, /ServiceAccount/],
    unknowable: true,
  },
];

reportCases('gen5run', 'real reports: the confirmed cause is named', CASES);
