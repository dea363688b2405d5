/**
 * Where job-never-completes fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/workload-lifecycle.test.ts, test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts.
 */
import { checkCases } from '../helpers/check-tester.js';

checkCases('job-never-completes', {
  fires: [
    { fixtures: 'fires-consul-hung.yaml', findings: ['Job catalog/export'] },
    { fixtures: 'fires-consul-template.yaml', findings: ['CronJob catalog/nightly'] },
    { fixtures: 'fires-istio-cronjob-hung.yaml', findings: ['Job store/sync-29381160'] },
    { fixtures: 'fires-kuma-hung.yaml', findings: ['Job orders/reindex-now'] },
    { fixtures: 'fires-linkerd-hung.yaml', findings: ['Job shop/migrate'] },
    { fixtures: 'fires-templates.yaml', findings: ['CronJob shop/cleanup', 'Job store/reindex'] },
    // The proxy under its own release's name, its helpers not taken for the app (consul-k8s 0.2 and 0.25).
    { fixtures: 'fires-consul-0.x-envoy-sidecar-hung.yaml', findings: ['Job catalog/backfill'] },
    { fixtures: 'fires-consul-0.2-connect-envoy-sidecar-hung.yaml', findings: ['Job catalog/reindex'] },
    // A template that will hang names the proxy its release injects (consul-k8s 0.25: envoy-sidecar) and today's on a current install.
    {
      fixtures: 'fires-consul-0.x-template.yaml',
      findings: ['CronJob catalog/nightly-0x'],
      said: [{ id: 'will-hang', params: { proxy: 'envoy-sidecar' } }],
    },
    {
      fixtures: 'fires-consul-template.yaml',
      findings: ['CronJob catalog/nightly'],
      said: [{ id: 'will-hang', params: { proxy: 'consul-dataplane' } }],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-native-auto.yaml' },
    { fixtures: 'ok-kuma-template.yaml' },
    { fixtures: 'ok-linkerd-just-exited.yaml' },
    { fixtures: 'ok-native-config.yaml' },
    { fixtures: 'ok-templates.yaml' },
    { fixtures: 'ok-consul-0.x-proxy-exited-helper-running.yaml' },
  ],
});
