/**
 * The labels a pod created now from a workload carries: the template's labels plus the ones its
 * controller adds. Admission webhooks (objectSelector) and injectors (e.g. Istio's
 * never/alwaysInjectSelector) see the pod, so they see these labels too.
 *
 * Sources (kubernetes/kubernetes):
 * - Job: pkg/registry/batch/job/strategy.go `generateSelector` (36f36813) writes `job-name`,
 *   `batch.kubernetes.io/job-name` (the Job's name) and `controller-uid`,
 *   `batch.kubernetes.io/controller-uid` (its UID) into the Job's template unless
 *   spec.manualSelector is true; a template's own value wins. A CronJob's jobTemplate has none of
 *   them, but the Jobs it creates (manualSelector unset) get them, so its pods carry them too.
 *   Indexed Jobs' pods also get `batch.kubernetes.io/job-completion-index` (pkg/controller/job
 *   indexed_job_utils.go addCompletionIndexLabel, feature PodIndexLabel, beta and on by default
 *   from 1.28: kubernetes/website feature-gates/pod-index-label.md).
 * - StatefulSet: pkg/controller/statefulset/stateful_set_utils.go `updateIdentity` sets
 *   `statefulset.kubernetes.io/pod-name` and (PodIndexLabel, 1.28+) `apps.kubernetes.io/pod-index`;
 *   `setPodRevision` sets `controller-revision-hash` (0fe831c3 for setPodRevision).
 * - DaemonSet: pkg/controller/daemon/util/daemonset_util.go `CreatePodTemplate` adds
 *   `pod-template-generation` and `controller-revision-hash`.
 * - Deployment: pkg/controller/deployment/sync.go puts `pod-template-hash` into the ReplicaSet's
 *   template (DefaultDeploymentUniqueLabelKey), which its pods carry.
 * Values come from an existing pod of the workload that has the key, else from the workload
 * (names, UIDs), else a placeholder: selectors on these keys are nearly always Exists/DoesNotExist.
 */
import type { K8sObject } from '../util/types.js';
import { dict, isObj, labelOf, labelsOf, str } from '../util/objects.js';

/** A value for a controller label whose real value is unknown (a pod not created yet). */
const PLACEHOLDER = 'unknown';

interface WorkloadLike {
  kind: string;
  name: string;
  obj?: K8sObject;
  template: { metadata?: unknown; spec?: unknown };
  pods: K8sObject[];
}

/** The keys the controller of `kind` adds to its pods, with the value it would give when no pod tells it. */
function controllerKeys(w: WorkloadLike): { keys: Record<string, string>; templateWins: boolean } {
  const spec = isObj(w.obj?.spec) ? w.obj!.spec : {};
  const uid = str(w.obj?.metadata?.uid) ?? PLACEHOLDER;
  switch (w.kind) {
    case 'Deployment':
      return { keys: { 'pod-template-hash': PLACEHOLDER }, templateWins: false };
    case 'StatefulSet':
      return {
        keys: {
          'controller-revision-hash': PLACEHOLDER,
          'statefulset.kubernetes.io/pod-name': `${w.name}-0`,
          'apps.kubernetes.io/pod-index': '0',
        },
        templateWins: false,
      };
    case 'DaemonSet':
      return {
        keys: {
          'controller-revision-hash': PLACEHOLDER,
          'pod-template-generation': String(w.obj?.metadata?.generation ?? PLACEHOLDER),
        },
        templateWins: false,
      };
    case 'Job': {
      if (spec.manualSelector === true) return { keys: {}, templateWins: true };
      const keys: Record<string, string> = {
        'job-name': w.name,
        'batch.kubernetes.io/job-name': w.name,
        'controller-uid': uid,
        'batch.kubernetes.io/controller-uid': uid,
      };
      if (spec.completionMode === 'Indexed') keys['batch.kubernetes.io/job-completion-index'] = '0';
      return { keys, templateWins: true };
    }
    case 'CronJob': {
      const job = isObj(spec.jobTemplate) && isObj(spec.jobTemplate.spec) ? spec.jobTemplate.spec : {};
      if (job.manualSelector === true) return { keys: {}, templateWins: true };
      // The Job is named <cronjob>-<scheduled time in minutes> (pkg/controller/cronjob utils getJobName).
      const jobName = `${w.name}-${PLACEHOLDER}`;
      const keys: Record<string, string> = {
        'job-name': jobName,
        'batch.kubernetes.io/job-name': jobName,
        'controller-uid': PLACEHOLDER,
        'batch.kubernetes.io/controller-uid': PLACEHOLDER,
      };
      if (job.completionMode === 'Indexed') keys['batch.kubernetes.io/job-completion-index'] = '0';
      return { keys, templateWins: true };
    }
    default:
      return { keys: {}, templateWins: true };
  }
}

const cache = new WeakMap<object, Readonly<Record<string, string>>>();

/** The value of label `k` on the first pod that has it (a loop that stops there: workloads can have thousands of pods). */
function fromPods(pods: K8sObject[], k: string): string | undefined {
  for (const p of pods) {
    const v = labelOf(p, k);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * The labels of a pod created now from this workload (frozen; the template's own map when the
 * controller adds nothing, e.g. a bare Pod). Cached per workload, which one Model builds: not per
 * template object, which `watch` keeps from one evaluation to the next while the pods the values
 * come from change.
 */
export function newPodLabels(w: WorkloadLike): Readonly<Record<string, string>> {
  const hit = cache.get(w);
  if (hit) return hit;
  const template = labelsOf(w.template);
  const { keys, templateWins } = controllerKeys(w);
  if (!Object.keys(keys).length) {
    cache.set(w, template);
    return template;
  }
  const out: Record<string, string> = Object.assign(dict(), template);
  for (const [k, fallback] of Object.entries(keys)) {
    if (templateWins && template[k] !== undefined) continue;
    out[k] = fromPods(w.pods, k) ?? fallback;
  }
  const frozen = Object.freeze(out);
  cache.set(w, frozen);
  return frozen;
}
