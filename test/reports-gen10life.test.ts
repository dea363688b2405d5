/**
 * Real user reports of pods meant to end whose proxy does not (issue 31, gen10life): the pods of a Job, of an Argo
 * Workflow, of a Tekton TaskRun, of a PersistentVolumeClaim (CDI's importer), whose app has exited while the proxy, an
 * ordinary container, runs on; and a release whose proxy is restarted by its own liveness probe after the app stopped
 * it. Each is rebuilt as an overlay on the healthy cluster of its mesh and release (test/fixtures/reports/gen10life/,
 * the thread in each file's header) and must name the confirmed cause.
 * Named 1/5 before this round's mechanism (commit 8a13dd7): only linkerd/linkerd2#7279 (a Job's pod); the Workflow's,
 * TaskRun's and PVC's pods silent; consul-k8s#1791 named generically ("not a native sidecar"), not the restart.
 * Named 5/5 after (job-never-completes judging any pod meant to end by its restartPolicy, with the release tables of
 * src/mesh/<mesh>/ending.ts): the Workflow, TaskRun and PersistentVolumeClaim named as owners with the restart policy;
 * consul-dataplane started again by the kubelet after the app stopped it, with consul-k8s 1.0's liveness probe named.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.10-argo-workflow-pod-istio-proxy-keeps-running',
    report: 'argoproj/argo-workflows#7214',
    id: 'job-never-completes',
    says: ['Workflow argo/cowsay-x7k2q', 'istio-proxy', /restartPolicy Never/],
  },
  {
    file: 'istio-tekton-taskrun-pod-istio-proxy-keeps-running',
    report: 'tektoncd/pipeline#4731',
    id: 'job-never-completes',
    says: ['TaskRun ci/build-run-8hq2v', 'istio-proxy'],
  },
  {
    file: 'linkerd-cdi-importer-pod-pvc-owner-proxy-keeps-running',
    report: 'kubevirt/containerized-data-importer#2948',
    id: 'job-never-completes',
    says: ['PersistentVolumeClaim vms/fedora-disk', 'linkerd-proxy', /restartPolicy OnFailure/],
  },
  {
    file: 'linkerd-prometheus-operator-admission-job-proxy-keeps-running',
    report: 'linkerd/linkerd2#7279',
    id: 'job-never-completes',
    says: ['Job monitoring/prometheus-operator-kube-p-admission-create', 'linkerd-proxy'],
  },
  {
    file: 'consul-job-dataplane-restarted-by-liveness-after-quitquitquit',
    report: 'hashicorp/consul-k8s#1791',
    id: 'job-never-completes',
    says: ['Job catalog/report-export', 'consul-dataplane', /liveness probe/, /restarted/],
  },
];

/** Open before the mechanism (commit fe1b6dd): none is open now. */
const OPEN_BEFORE: string[] = [
  'istio-1.10-argo-workflow-pod-istio-proxy-keeps-running',
  'istio-tekton-taskrun-pod-istio-proxy-keeps-running',
  'linkerd-cdi-importer-pod-pvc-owner-proxy-keeps-running',
  'consul-job-dataplane-restarted-by-liveness-after-quitquitquit',
];

const OPEN: string[] = [];
void OPEN_BEFORE;

reportCases('gen10life', 'real reports of pods meant to end: the confirmed cause is named', CASES, OPEN);
