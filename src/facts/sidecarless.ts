/**
 * Sidecar-less data planes (Istio's ambient mode), mesh-generic: which workloads they enrol by
 * labels, and where their node proxies run. The facts live in each profile's `sidecarless`.
 */
import { defineFactFamily } from '../k8s/fact.js';
import { isActive, podSpec } from '../k8s/pods.js';
import { NS_LABELS, type Model, type Workload } from './model.js';
import type { K8sObject } from '../util/types.js';
import type { MeshName } from '../mesh/names.js';
import { isObj, labelOf, labelsOf, nameOf, nsOf, str } from '../util/objects.js';
import type { SidecarlessMode } from '../mesh/profile.js';
import { PROFILE_LIST } from '../mesh/registry.js';

/** The namespace's labels when the Namespace was read (with kubernetes.io/metadata.name), else undefined. */
export function nsLabelsIfRead(m: Model, ns: string): Record<string, string> | undefined {
  return m.has('namespaces') ? m.fact(NS_LABELS, ns) : undefined;
}

/** The meshes with a sidecar-less data plane that may be installed (--mesh honoured). */
export function sidecarlessMeshes(m: Model): { mesh: MeshName; mode: SidecarlessMode }[] {
  return PROFILE_LIST.flatMap((p) =>
    p.sidecarless && m.meshPossible(p.name) ? [{ mesh: p.name, mode: p.sidecarless }] : [],
  );
}

/**
 * The mesh whose sidecar-less data plane enrols a pod created now from the workload's template,
 * by its labels and its namespace's; undefined when none does, or when a mesh injects a sidecar
 * into it (the sidecar wins: the node agent skips injected pods).
 */
export function sidecarlessOf(
  m: Model,
  w: Workload,
): { mesh: MeshName; mode: SidecarlessMode; by: string } | undefined {
  const nsLabels = nsLabelsIfRead(m, w.namespace);
  for (const { mesh, mode } of sidecarlessMeshes(m)) {
    if (!mode.enrols(w.template, nsLabels)) continue;
    if (m.decisions(w).some((d) => d.inject)) return undefined;
    const own = labelsOf(w.template)[mode.label.key] === mode.label.value;
    return {
      mesh,
      mode,
      by: own
        ? `pod template label ${mode.label.key}=${mode.label.value}`
        : `namespace label ${mode.label.key}=${mode.label.value}`,
    };
  }
  return undefined;
}

/** The namespace is labelled for a sidecar-less data plane (a choice of data plane, not a missing marker). */
export function namespaceSidecarless(m: Model, ns: string): { mesh: MeshName; mode: SidecarlessMode } | undefined {
  const l = nsLabelsIfRead(m, ns);
  return l ? sidecarlessMeshes(m).find((x) => l[x.mode.label.key] === x.mode.label.value) : undefined;
}

/** A pod is Ready (condition Ready True). */
const ready = (p: K8sObject): boolean =>
  isObj(p.status) &&
  Array.isArray(p.status.conditions) &&
  p.status.conditions.some((c: unknown) => isObj(c) && c.type === 'Ready' && c.status === 'True');

interface NodePods {
  /** The pods could be examined: pods were read where they run (or everywhere). */
  examined: boolean;
  /** Why not, when not examined. */
  reason?: string;
  /** Nodes with a ready pod. */
  readyNodes: Set<string>;
  /** The active pods by node, by name. */
  byNode: Map<string, string[]>;
  /** Namespaces the pods were found in. */
  namespaces: string[];
}

const NODE_PODS = defineFactFamily({
  id: 'node-pods',
  inputs: ['pods'],
  cacheKey: (k: { key: string }) => k.key,
  compute: (m: Model, { title, isPod }: { key: string; title: string; isPod: (p: K8sObject) => boolean }): NodePods => {
    const pods = m.list('pods').filter((p) => isPod(p) && isActive(p));
    const byNode = new Map<string, string[]>();
    const readyNodes = new Set<string>();
    for (const p of pods) {
      const node = str(podSpec(p).nodeName);
      if (!node) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), nameOf(p)]);
      if (ready(p)) readyNodes.add(node);
    }
    const namespaces = [...new Set(pods.map(nsOf))].sort();
    const s = m.snapshot;
    if (!m.has('pods'))
      return {
        examined: false,
        reason: `pods: ${s.unavailable.pods ?? 'not in the snapshot'}`,
        readyNodes,
        byNode,
        namespaces,
      };
    // Read with -n (live, or a snapshot saved with -n): pods only in that namespace and the control-plane ones.
    if (pods.length === 0 && !s.scope.allNamespaces)
      return {
        examined: false,
        reason: `no ${title} pod among the pods read (a namespaced run reads pods only in its namespace and the control-plane namespaces)`,
        readyNodes,
        byNode,
        namespaces,
      };
    return { examined: true, readyNodes, byNode, namespaces };
  },
});

/**
 * A node component's pods (a node proxy, a node agent) by node. Examined only when pods were read
 * cluster-wide (-A) or some of its pods were found among the pods read (a DaemonSet lives in one
 * namespace, listed whole); a -n run reads pods only in its namespace and the control-plane
 * namespaces, so finding none there proves nothing.
 */
export function nodePods(m: Model, key: string, title: string, isPod: (p: K8sObject) => boolean): NodePods {
  return m.fact(NODE_PODS, { key, title, isPod });
}

/** Pods matching a `k=v` selector (kubectl -l syntax, equality terms only). */
export function matchesSelector(selector: string): (p: K8sObject) => boolean {
  const terms = selector.split(',').map((t) => t.split('=') as [string, string]);
  return (p) => terms.every(([k, v]) => labelOf(p, k) === v);
}
