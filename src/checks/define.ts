import type { KindKey } from '../cluster/kinds.js';
import type { Check } from '../types.js';

export const DOCS_BASE = 'https://github.com/meshdoctor/meshdoctor/blob/main/README.md';

/** Declare a check (identity function that keeps the type exact). */
export function defineCheck(check: Check): Check {
  return check;
}

/** The README anchor documenting a check. */
export const docsUrl = (id: string): string => `${DOCS_BASE}#${id}`;

/**
 * The controllers the Model resolves pods to (Pod -> ReplicaSet -> Deployment, Job -> CronJob,
 * StatefulSet, DaemonSet): every check that judges workloads reads them when it can.
 */
export const WORKLOAD_KINDS: readonly KindKey[] = ['deployments', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'replicasets'];
