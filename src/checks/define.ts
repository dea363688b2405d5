import type { KindKey } from '../cluster/kinds.js';
import type { Model } from '../model.js';
import type { CheckMeta, FindingInput } from '../types.js';

/** A check: its metadata and a pure run over the model. */
export interface Check extends CheckMeta {
  run(ctx: Model): Iterable<FindingInput>;
}

/** Declare a check (identity function that keeps the type exact). */
export function defineCheck(check: Check): Check {
  return check;
}

/**
 * Where a check's page is published, when a base URL is configured (MESHDOCTOR_DOCS_URL, e.g. your
 * fork's `.../blob/main/docs/checks`): `${base}/${id}.md`. Without one there is no URL: the pages
 * ship with meshdoctor (`meshdoctor checks ID`), and no link points to a site that may not exist.
 */
export const docsUrl = (id: string, base: string | undefined): string | undefined => (base ? `${base.replace(/\/+$/, '')}/${id}.md` : undefined);

/**
 * The controllers the Model resolves pods to (Pod -> ReplicaSet -> Deployment, Job -> CronJob,
 * StatefulSet, DaemonSet): every check that judges workloads reads them when it can.
 */
export const WORKLOAD_KINDS: readonly KindKey[] = ['deployments', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'replicasets'];
