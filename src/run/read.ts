/**
 * Reading a cluster or snapshot files for the checks: the reading layer (src/cluster/) with what
 * the meshes need of it, the read plan (which namespaces and named objects) and the keep policy
 * (what a snapshot keeps), handed in.
 */
import type { GatherOptions } from '../cluster/gather.js';
import type { ServerInputKey } from '../k8s/server.js';
import { serverReadPlan } from './plan.js';
import { loadSnapshot as loadWith, type StdinReader } from '../cluster/load.js';
import type { Snapshot } from '../k8s/snapshot.js';
import { KEEPER } from '../mesh/keep.js';
import { READ_PLAN } from '../mesh/read-plan.js';
import type { Limits } from '../util/limits.js';
import { DEFAULT_LIMITS } from '../util/limits.js';
import type { Scope } from '../util/types.js';

/**
 * Read the live cluster (the Kubernetes transport is imported only here, lazily), and of the API
 * server itself what `server` names: of /metrics, the series of the meshes' injection webhooks only.
 */
export async function gather(
  opts: Omit<GatherOptions, 'keep' | 'plan'> & { serverInputs?: readonly ServerInputKey[] },
): Promise<Snapshot> {
  const { gather: gatherWith } = await import('../cluster/gather.js');
  const { serverInputs, ...rest } = opts;
  const server = serverReadPlan(serverInputs ?? []);
  return gatherWith({ ...rest, keep: KEEPER, plan: READ_PLAN, server: { ...server, ...rest.server } });
}

/** Read snapshot files (meshdoctor's own, kubectl List JSON/YAML, multi-document YAML, directories). */
export function loadSnapshot(
  paths: string[],
  scope?: Scope,
  limits: Limits = DEFAULT_LIMITS,
  stdin?: StdinReader,
): Promise<Snapshot> {
  return loadWith(paths, scope, limits, KEEPER, stdin);
}
