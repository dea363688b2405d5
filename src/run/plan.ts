/**
 * One read plan, as data, derived from the selected checks (issue 32): the kinds they read
 * (listed, or read by name: which names is the meshes' plan, src/mesh/read-plan.ts, asked once the
 * namespaces and webhook configurations are read) and what they read of the API server itself
 * (its version, /metrics, the kube-apiserver pods). Two executors run it: gather
 * (src/cluster/gather.ts, read once: check, explain, snapshot) and the reflector
 * (src/cluster/reflector.ts, LIST + WATCH: watch, which also reads /version on each connection and
 * /metrics on full evaluations). Neither reads anything the plan does not name, and both read all of it.
 */
import type { Check } from '../checks/define.js';
import type { ServerReadPlan } from '../cluster/endpoints.js';
import { APISERVER_NAMESPACE } from '../k8s/apiserver.js';
import type { KindKey } from '../k8s/kinds.js';
import { SERVER_INPUTS, type ServerInputKey } from '../k8s/server.js';
import { webhookMesh } from '../mesh/registry.js';
import type { Scope } from '../util/types.js';

export interface ReadPlanData {
  /** The kinds to read, sorted. */
  readonly kinds: readonly KindKey[];
  /** The reads of the API server itself, in SERVER_INPUTS order. */
  readonly server: readonly ServerInputKey[];
}

/** The kinds a set of checks reads: the union of their declared inputs. */
export function kindsFor(checks: readonly Check[]): KindKey[] {
  const kinds = new Set<KindKey>();
  for (const c of checks) for (const k of [...c.inputs, ...(c.optionalInputs ?? [])]) kinds.add(k);
  // ConfigMaps and Secrets are fetched by name in the mesh namespaces, which these two name.
  if (kinds.has('configmaps') || kinds.has('secrets')) {
    kinds.add('namespaces');
    kinds.add('mutatingwebhookconfigurations');
  }
  return [...kinds].sort();
}

/** What the checks read of the API server itself (CheckMeta.serverInputs: its version, /metrics, its pods): the union, in a stable order. */
function serverFor(checks: readonly Check[]): ServerInputKey[] {
  const wanted = new Set(checks.flatMap((c) => c.serverInputs ?? []));
  return SERVER_INPUTS.filter((k) => wanted.has(k));
}

/** The read plan of these checks. */
export const readPlanOf = (checks: readonly Check[]): ReadPlanData => ({
  kinds: kindsFor(checks),
  server: serverFor(checks),
});

/**
 * The server reads as the reading layer takes them: of /metrics, the series of the meshes'
 * injection webhooks only. With `scope`, the kube-apiserver pods are read by their labels only
 * where the pods of kube-system are not listed anyway (a -n run of another namespace).
 */
export function serverReadPlan(
  server: readonly ServerInputKey[],
  scope?: { scope: Scope; kinds: readonly KindKey[] },
): ServerReadPlan {
  const want = new Set(server);
  const listed = scope && (scope.scope.allNamespaces || scope.scope.namespace === APISERVER_NAMESPACE);
  const pods = want.has('apiserverPods') && !listed && (!scope || scope.kinds.includes('pods'));
  return {
    ...(want.has('version') ? { version: true } : {}),
    ...(want.has('metrics')
      ? { metrics: { keepWebhook: (name: string) => webhookMesh({ name, configName: '' }) !== undefined } }
      : {}),
    ...(pods ? { apiserverPods: true } : {}),
  };
}
