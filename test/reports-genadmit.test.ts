/**
 * Real user reports (issue 31: admission layers, timelines, releases, who asks, start order, errors by
 * structure), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/genadmit/, the thread in each file's header). Each must name the confirmed cause:
 * the check and the words that make it the cause, not only "sidecar missing".
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-gatekeeper-privesc',
    report: 'linkerd/linkerd2#9998',
    id: 'admission-rejects-proxy',
    says: [/Gatekeeper/i, 'linkerd-init'],
  },
  {
    file: 'linkerd-psp-netadmin',
    report: 'linkerd/linkerd2#4189',
    id: 'admission-rejects-proxy',
    says: [/PodSecurityPolicy/, 'NET_ADMIN'],
  },
  {
    file: 'istio-scc-restricted-v2',
    report: 'istio-ecosystem/sail-operator#16',
    id: 'admission-rejects-proxy',
    says: [/SecurityContextConstraints/, 'NET_ADMIN'],
  },
  {
    file: 'istio-scc-proxy-uid',
    report: 'openshift-labs/learn-katacoda#1015',
    id: 'admission-rejects-proxy',
    says: [/SecurityContextConstraints/, '1337'],
  },
  {
    file: 'istio-opa-webhook-no-endpoints',
    report: 'open-policy-agent/opa#1822',
    id: 'webhook-call-failed',
    says: ['istio.openpolicyagent.org', /no endpoints/i],
  },
  {
    file: 'istio-1.5-injector-deadline',
    report: 'istio/istio#13840',
    id: 'webhook-call-failed',
    says: ['sidecar-injector.istio.io', /deadline|timed out|timeout/i],
  },
  {
    file: 'linkerd-restart-before-injector',
    report: 'linkerd/linkerd2#13702',
    id: 'sidecar-missing',
    says: ['08:00:30', 'injector was down'],
  },
  {
    file: 'istio-1.5-annotation-without-namespace',
    report: 'istio/istio#26600',
    id: 'injection-marker-invalid',
    says: ['sidecar.istio.io/inject', 'istio-injection', 'the namespace decides'],
  },
  {
    file: 'linkerd-stable-2.10-namespace-label',
    report: 'linkerd/linkerd2#4856',
    id: 'injection-marker-invalid',
    says: ['label linkerd.io/inject', 'annotation'],
  },
  {
    file: 'kuma-restarts-until-sidecar-ready',
    report: 'kumahq/kuma#7223',
    id: 'app-starts-before-proxy',
    says: ['ledger', /wait-for-dataplane-ready|waitForDataplaneReady/],
  },
  {
    file: 'consul-app-before-dataplane',
    report: 'hashicorp/consul-k8s#1397',
    id: 'app-starts-before-proxy',
    says: ['checkout', 'consul-dataplane'],
  },
  {
    file: 'consul-k8s-1.0-servers-1.13',
    report: 'hashicorp/consul-k8s#1809',
    id: 'proxy-outdated',
    says: ['1.13.3', 'compatible only with servers 1.14.x'],
  },
];

reportCases('genadmit', 'real reports: the confirmed cause is named', CASES);
