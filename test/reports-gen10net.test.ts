/**
 * Real user reports of the cluster's network ranges and DNS as the mesh sees them (issue 31, gen10net): the mesh's
 * configured ranges against the cluster's addresses (Linkerd's clusterNetworks missing the Service range, a node address
 * the kubelet probes from outside them), IPv6 pods on releases whose proxy or init container cannot serve them. Each is
 * rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen10net/, the thread in
 * each file's header) and must name the confirmed cause. Named 1/4 before this round's mechanisms (commit f5a84fe: kumahq/kuma#1947
 * by proxy-cannot-start), 4/4 after: mesh-ranges-miss-cluster (clusterNetworks missing the Service range, a node address
 * outside them on 2.11, IPv6 pods on a release whose proxy listens on IPv4 only).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-clusternetworks-miss-service-cidr',
    report: 'linkerd/linkerd2#9521',
    id: 'mesh-ranges-miss-cluster',
    says: ['clusterNetworks', '10.130.117.0/24', '10.2.1.17', /Service/],
  },
  {
    file: 'linkerd-2.11-node-address-outside-clusternetworks-probes-403',
    report: 'linkerd/linkerd2#7507',
    id: 'mesh-ranges-miss-cluster',
    says: ['clusterNetworks', '95.216.10.20', /probe/],
  },
  {
    file: 'linkerd-2.11-ipv6-only-pods-proxy-listens-ipv4',
    report: 'linkerd/linkerd2#3849',
    id: 'mesh-ranges-miss-cluster',
    says: ['IPv6', '2a05:d014:9fc:ae44:3db5::c', /0\.0\.0\.0/],
  },
  {
    file: 'kuma-1.x-dual-stack-gke-kuma-init-ip6tables-nat',
    report: 'kumahq/kuma#1947',
    id: 'proxy-cannot-start',
    says: ['kuma-init', /nat/, /IPv6/],
  },
];

const OPEN: string[] = [];

reportCases('gen10net', 'real reports of the network ranges and DNS: the confirmed cause is named', CASES, OPEN);
