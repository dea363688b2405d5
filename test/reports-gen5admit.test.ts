/**
 * Real user reports (issue 31, round 5: every admission layer, timelines, who asks, errors by structure),
 * each rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen5admit/,
 * the thread in each file's header). Each must name the confirmed cause: the check and the words that make it
 * the cause, not only "sidecar missing". Measured before the round's mechanisms (ec46515): 6/10; after: 10/10.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'kuma-psa-baseline-kuma-init',
    report: 'kumahq/kuma#7196',
    id: 'pod-security-blocks-init',
    says: ['kuma-init', 'baseline', /NET_ADMIN/],
  },
  {
    file: 'istio-psa-baseline-istio-init',
    report: 'istio/istio#54968',
    id: 'pod-security-blocks-init',
    says: ['istio-init', 'baseline', 'istio-cni-node', 'not configured for it'],
  },
  {
    file: 'istio-deckhouse-policy-engine-istio-init',
    report: 'deckhouse/deckhouse#7414',
    id: 'admission-rejects-proxy',
    says: ['admission-policy-engine.deckhouse.io', 'istio-init', 'd8-pod-security-baseline-deny-default'],
  },
  {
    file: 'consul-psa-restricted-seccomp',
    report: 'hashicorp/consul-k8s#4441',
    id: 'admission-rejects-proxy',
    says: [/restricted/, 'seccompProfile', 'consul-dataplane'],
  },
  {
    file: 'istio-1.5-cni-psp-readonly-rootfs',
    report: 'istio/istio#22695',
    id: 'admission-rejects-proxy',
    says: [/PodSecurityPolicy/, 'readOnlyRootFilesystem', 'istio-validation'],
  },
  {
    file: 'istio-1.5-psp-after-injection',
    report: 'istio/istio#17318',
    id: 'admission-rejects-proxy',
    says: [/PodSecurityPolicy/, '"[]"', 'skipped without an error'],
  },
  {
    file: 'linkerd-stable-2.10-psp-control-plane',
    report: 'linkerd/linkerd2#2819',
    id: 'admission-rejects-proxy',
    says: [/PodSecurityPolicy/, 'NET_ADMIN', 'linkerd-init'],
  },
  {
    file: 'istio-1.5-webhook-stale-namespace',
    report: 'istio/istio#16481',
    id: 'webhook-stale',
    says: ['istio-sidecar-injector', 'istio-control', 'left behind'],
    // The webhook points at a namespace that does not exist: no istiod there misses its ConfigMap.
    wrong: ['injector-config-excludes'],
  },
  {
    file: 'linkerd-viz-after-eviction',
    report: 'linkerd/linkerd2#8228',
    id: 'sidecar-missing',
    says: ['grafana', 'injector was down', '06:10:40'],
  },
  {
    file: 'consul-0.x-namespace-selector-not-opt-in',
    report: 'hashicorp/consul-k8s#698',
    id: 'namespace-not-enabled',
    says: ['foo', 'connect-inject', /-default-inject|default/],
  },
];

reportCases('gen5admit', 'real reports (round 5): the confirmed cause is named', CASES);
