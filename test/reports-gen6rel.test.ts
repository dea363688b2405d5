/**
 * Real user reports (issue 31, classes 6, 7, 9, 10: unknown keys, release awareness and known bugs of a
 * release, start order), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen6rel/, the thread in each file's header). Each must name the confirmed cause.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'kuma-2.9.0-cni-empty-init-container',
    report: 'kumahq/kuma#11993',
    id: 'known-release-bug',
    says: ['kumahq/kuma#11993', 'Kuma 2.9.1'],
  },
  {
    file: 'consul-0.2-default-inject-missing-annotations',
    report: 'hashicorp/consul-k8s#20',
    id: 'known-release-bug',
    says: ['hashicorp/consul-k8s#20', 'Consul 0.4.0'],
  },
  {
    file: 'consul-0.16-connect-inject-init-oomkilled',
    report: 'hashicorp/consul-k8s#283',
    id: 'known-release-bug',
    says: ['hashicorp/consul-k8s#283', 'OOMKilled', 'Consul 0.17.0'],
  },
  {
    file: 'consul-0.16-connect-inject-init-cp-out-of-memory',
    report: 'hashicorp/consul-helm#529',
    // The log says "cp: write error: Out of memory"; the pod keeps only exit code 1 (no termination message):
    // the finding quotes it and says the cause is not known, never the Service rule of consul-k8s 0.26 and later.
    id: 'proxy-cannot-start',
    says: ['consul-connect-inject-init', 'exit code 1', 'meshdoctor does not know'],
    never: [/no Kubernetes Service selects the pod/],
    unknowable: true,
  },
  {
    file: 'istio-cni-app-init-vault-env',
    report: 'istio/istio#23802',
    id: 'init-before-proxy',
    says: ['kimlexir-migrate', 'Istio CNI plugin', 'connection refused', 'UID 1337'],
  },
  {
    file: 'istio-cni-hold-gitlab-init-db',
    report: 'istio/istio#49787',
    id: 'init-before-proxy',
    says: ['dependencies', 'Istio CNI plugin', 'port 5432 failed'],
  },
  {
    file: 'linkerd-stable-2.10-cni-init-container-egress',
    report: 'linkerd/linkerd2#4788',
    id: 'init-before-proxy',
    says: ['Linkerd CNI plugin', "can't connect to remote host", 'UID 2102'],
  },
  {
    file: 'linkerd-stable-2.10-cni-prometheus-init-wrong-skip-key',
    report: 'linkerd/linkerd2#8100',
    id: 'init-before-proxy',
    says: ['init-config-reloader', 'Linkerd CNI plugin'],
  },
];

reportCases('gen6rel', 'real reports (gen6rel): the confirmed cause is named', CASES);
