/**
 * Real user reports (issue 31, classes 6, 7, 9, 10: unknown keys of a mesh's domain, old releases, skew,
 * start order), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen5rel/, the thread in each file's header). Each must name the confirmed cause.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-edge-native-sidecar-misspelled',
    report: 'linkerd/linkerd2#13205',
    id: 'mesh-key-unknown',
    says: ['config.linkerd.io/proxy-native-sidecar', 'config.alpha.linkerd.io/proxy-enable-native-sidecar'],
  },
  {
    file: 'istio-1.21-hold-meshconfig-not-applied',
    report: 'istio/istio#51310',
    id: 'app-starts-before-proxy',
    says: ['ledger', 'holdApplicationUntilProxyStarts'],
  },
  {
    file: 'istio-1.15-inplace-proxies-1.12',
    report: 'istio/istio#41354',
    id: 'proxy-outdated',
    says: ['1.12.1', '1.15.1', '3 releases behind'],
  },
  {
    file: 'linkerd-stable-2.5-proxies-under-2.7',
    report: 'linkerd/linkerd2#3537',
    id: 'proxy-outdated',
    says: ['stable-2.5.0', 'stable-2.7.0'],
  },
  {
    file: 'istio-native-sidecar-datadog-admission',
    report: 'DataDog/datadog-operator#1116',
    id: 'admission-rejects-proxy',
    says: ['datadog-webhook/datadog.webhook.agent.config', 'restartPolicy'],
  },
  {
    file: 'istio-native-sidecar-otel-operator',
    report: 'istio/istio#49054',
    id: 'admission-rejects-proxy',
    says: ['opentelemetry-operator-mutation/mpod.kb.io', 'restartPolicy'],
  },
  {
    file: 'kuma-namespace-annotation-after-2.2',
    report: 'kumahq/kuma-gui#882',
    id: 'injection-marker-invalid',
    says: ['kuma-demo', 'kuma.io/sidecar-injection', 'label'],
  },
];

reportCases('gen5rel', 'real reports (gen5rel): the confirmed cause is named', CASES);
