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
    // Any owner (issue 31, gen10life): judged by restartPolicy and containers, the release tables deciding the words.
    {
      fixtures: 'fires-kuma-1.x-workflow-pod-cp-stops-jobs-only.yaml',
      findings: ['Workflow orders/etl-nightly'],
      said: [{ id: 'owner-keeps-running', params: { policy: 'Never', proxy: 'kuma-sidecar' } }],
    },
    {
      fixtures: 'fires-linkerd-2.20-spark-driver-bare-pod-shutdown-not-enabled.yaml',
      base: 'linkerd-2.20',
      findings: ['Pod shop/pi-driver'],
      said: [{ id: 'owner-keeps-running', params: { pods: 'pods pi-driver, pi-exec-1' } }],
    },
    {
      fixtures: 'fires-consul-0.x-tekton-taskrun-hung.yaml',
      findings: ['TaskRun catalog/publish-run-7x2kd'],
      said: [{ id: 'owner-keeps-running', params: { proxy: 'envoy-sidecar' } }],
    },
    { fixtures: 'fires-istio-1.5-airflow-bare-pod-hung.yaml', findings: ['Pod store/exampledagtask-8c1f2a'] },
    // The kubelet started the proxy again after the app stopped it (consul-k8s 1.0, restartPolicy OnFailure).
    {
      fixtures: 'fires-consul-dataplane-restarted-after-quitquitquit.yaml',
      findings: ['Job catalog/ledger-sync'],
      said: [{ id: 'proxy-restarted', params: { restarts: '1 restart', policy: 'OnFailure' } }],
    },
  ],
  silent: [
    { fixtures: 'ok-owner-pods-not-meant-to-end.yaml' },
    { fixtures: 'ok-istio-native-auto.yaml' },
    { fixtures: 'ok-kuma-template.yaml' },
    { fixtures: 'ok-linkerd-just-exited.yaml' },
    { fixtures: 'ok-native-config.yaml' },
    { fixtures: 'ok-templates.yaml' },
    { fixtures: 'ok-consul-0.x-proxy-exited-helper-running.yaml' },
  ],
});
