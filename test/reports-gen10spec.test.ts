/**
 * Real user reports of pod spec fields that take away what the mesh's proxy needs (issue 31, gen10spec): the pod's
 * DNS (dnsPolicy Default: the node's resolver, which knows no cluster Service), its ServiceAccount token turned off
 * on the pod or its ServiceAccount while the proxy reads the mounted one (Istio's first-party-jwt), and a Windows
 * node for Linux-only proxy images. Each is rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen10spec/, the thread in each file's header) and must name the field.
 * Named 0/5 before (main 8a13dd7), 5/5 after: proxy-cannot-start names the field (src/facts/pod-needs.ts over the
 * profiles' network.podSpec tables).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-hcloud-ccm-dnspolicy-default-proxy-crashloop',
    report: 'hetznercloud/hcloud-cloud-controller-manager#559',
    id: 'proxy-cannot-start',
    says: ['dnsPolicy: Default', 'istiod'],
  },
  {
    file: 'istio-1.5-eck-automount-false-first-party-jwt',
    report: 'istio/istio#18221',
    id: 'proxy-cannot-start',
    says: ['automountServiceAccountToken: false', /token/],
  },
  {
    file: 'istio-1.6-serviceaccount-automount-false-first-party-jwt',
    report: 'istio/istio#25138',
    id: 'proxy-cannot-start',
    says: ['ServiceAccount fewbox/demo', 'automountServiceAccountToken: false'],
  },
  {
    file: 'linkerd-windows-node-selector-proxy-init-pull',
    report: 'linkerd/linkerd2#2882',
    id: 'proxy-cannot-start',
    says: ['kubernetes.io/os', 'windows', /Linux/],
  },
  {
    file: 'istio-windows-affinity-proxy-image-platform',
    report: 'istio/istio#39788',
    id: 'proxy-cannot-start',
    says: ['kubernetes.io/os', 'windows', /Linux/],
  },
];

const OPEN: string[] = [];

reportCases('gen10spec', 'real reports of pod spec fields the proxy depends on: the field is named', CASES, OPEN);
