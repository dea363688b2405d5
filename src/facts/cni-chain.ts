/**
 * The order in which the cluster's CNI agent and a mesh's CNI node agent wrote a node's CNI configuration (issue 31,
 * gen9path). A mesh's CNI plugin is chained: its installer adds it to the list the cluster's own plugin wrote
 * (10-calico.conflist, 05-cilium.conflist, 10-aws.conflist) or, finding none, waits or exits. The cluster's agent
 * writes its list again whenever it starts (calico-node's install-cni, Cilium's agent, aws-node), without the mesh's
 * entry. So, per node, from the times the API shows:
 * - `open`: the cluster's agent (re)started after the mesh's agent last started there: the mesh's entry is gone unless
 *   the mesh's agent puts it back by itself (a watch on the directory: the release tables' `cniRechains`);
 *   linkerd/linkerd2#4029 (linkerd-cni before calico-node on a new GKE node), #4789 and #7855 (calico-node restarted),
 *   #12490 (a node restarted, the watch missing it);
 * - `window`: the mesh's agent exited after the cluster's agent started and was started again (Kuma's installer checks
 *   its entry and exits when it is gone: kumahq/kuma app/cni/pkg/install/main.go runLoop, validation.go "chained plugin
 *   config file does not contain kuma-cni plugin"): pods created on the node in between were set up without the
 *   plugin (kumahq/kuma#6906);
 * - `early`: the mesh's agent started on the node before the cluster's agent and exited before the latter started (no
 *   list to chain onto yet: "CNI config /host/etc/cni/net.d/10-calico.conflist not found. Kuma CNI won't be chained",
 *   kumahq/kuma#6907); it restarted until the list was there.
 * Times are the objects' own (containers' startedAt and finishedAt, pods' startTime), never the wall clock. The
 * cluster's agent is recognised by its DaemonSet's image (src/k8s/pod-network.ts), its pod on the node by its owner
 * reference; both read only where `Model.seesNamespace` allows. Bounded: nodes with a mesh agent pod, 2000 pods each.
 */
import { defineFactFamily } from '../k8s/fact.js';
import { initContainers, isActive, podSpec } from '../k8s/pods.js';
import { injectedMesh } from '../mesh/proxy.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import type { K8sObject } from '../util/types.js';
import { arr, isObj, nameOf, nsOf, str, time } from '../util/objects.js';
import { cniAgentOn } from './node-agents.js';
import { POD_NETWORK } from './pod-network.js';
import type { Model } from './model.js';

/** One pod's container times: the latest start of a running container, the latest end of a previous run. */
function agentTimes(pod: K8sObject): {
  started?: Date;
  lastExit?: { at: Date; code?: number };
  restarts: number;
} {
  const st = isObj(pod.status) ? pod.status : {};
  let started: Date | undefined;
  let lastExit: { at: Date; code?: number } | undefined;
  let restarts = 0;
  for (const c of arr(st.containerStatuses).slice(0, 20)) {
    if (!isObj(c)) continue;
    restarts += typeof c.restartCount === 'number' ? c.restartCount : 0;
    const run = isObj(c.state) && isObj(c.state.running) ? time(c.state.running.startedAt) : undefined;
    if (run && (!started || run > started)) started = run;
    const term = isObj(c.lastState) && isObj(c.lastState.terminated) ? c.lastState.terminated : undefined;
    const end = term ? time(term.finishedAt) : undefined;
    if (end && (!lastExit || end > lastExit.at))
      lastExit = { at: end, ...(typeof term!.exitCode === 'number' ? { code: term!.exitCode } : {}) };
  }
  return { ...(started ? { started } : {}), ...(lastExit ? { lastExit } : {}), restarts };
}

interface ChainOrder {
  kind: 'open' | 'window' | 'early';
  node: string;
  /** The mesh's CNI agent pod there. */
  agent: {
    namespace: string;
    daemonSet: string;
    pod: string;
    started: Date;
    restarts: number;
    lastExit?: { at: Date; code?: number };
  };
  /** The cluster's CNI agent pod there. */
  primary: { product: string; namespace: string; daemonSet: string; pod: string; started: Date };
  /** Injected pods on the node that the plugin sets up, whose sandbox came in the gap (created since `primary.started`; for `window`, before the agent started again). */
  pods: K8sObject[];
}

/** The pod runs the mesh's proxy with the plugin doing the redirection: injected, without the privileged init container. */
function setUpByPlugin(pod: K8sObject, mesh: MeshName): boolean {
  const cni = profileOf(mesh).cni;
  if (!cni || injectedMesh(pod) !== mesh) return false;
  return !initContainers(podSpec(pod)).some((c) => c.name === cni.privilegedInit.name);
}

const startOf = (pod: K8sObject): Date | undefined =>
  time(isObj(pod.status) ? pod.status.startTime : undefined) ?? time(pod.metadata?.creationTimestamp);

const ownedBy = (pod: K8sObject, ds: string) =>
  arr(pod.metadata?.ownerReferences).some((o) => isObj(o) && o.kind === 'DaemonSet' && o.name === ds);

export const CNI_CHAIN_ORDER = defineFactFamily({
  id: 'cni-chain-order',
  // The meshes' own kinds too: which mesh injected a pod is asked of the meshes found (fact meshes).
  inputs: ['daemonsets', 'deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: Model, mesh: MeshName): ChainOrder[] => {
    const cni = profileOf(mesh).cni;
    if (!cni || !m.has('daemonsets') || !m.has('pods')) return [];
    const primaries = m.fact(POD_NETWORK).filter((a) => m.seesNamespace(a.namespace) && m.readIn('pods', a.namespace));
    if (!primaries.length) return [];
    const agentDs = m.list('daemonsets').filter((d) => nameOf(d) === cni.daemonSet);
    const nodes = new Set<string>();
    for (const ds of agentDs) {
      if (!m.seesNamespace(nsOf(ds)) || !m.readIn('pods', nsOf(ds))) continue;
      for (const p of m.inNamespace('pods', nsOf(ds)).slice(0, 5000))
        if (ownedBy(p, nameOf(ds)) && str(podSpec(p).nodeName)) nodes.add(str(podSpec(p).nodeName)!);
    }
    // The injected pods the plugin sets up, by node: read once.
    const byNode = new Map<string, K8sObject[]>();
    for (const p of m.list('pods')) {
      const n = str(podSpec(p).nodeName);
      // Only the namespaces the run sees: a -n run does not read the pods of the others (live and offline agree).
      if (!n || !nodes.has(n) || !isActive(p) || !m.seesNamespace(nsOf(p)) || !setUpByPlugin(p, mesh)) continue;
      // Appended in place, the first 2000 a node (was a copy per pod).
      const list = byNode.get(n);
      if (!list) byNode.set(n, [p]);
      else if (list.length < 2000) list.push(p);
    }
    const out: ChainOrder[] = [];
    for (const node of [...nodes].sort().slice(0, 2000)) {
      const on = cniAgentOn(m, mesh, node);
      if (!on) continue;
      const t = agentTimes(on.pod);
      if (!t.started) continue;
      for (const a of primaries) {
        const pod = m
          .inNamespace('pods', a.namespace)
          .find((p) => isActive(p) && ownedBy(p, a.daemonSet) && str(podSpec(p).nodeName) === node);
        const pt = pod ? agentTimes(pod) : undefined;
        if (!pod || !pt?.started) continue;
        const primary = {
          product: a.product,
          namespace: a.namespace,
          daemonSet: a.daemonSet,
          pod: nameOf(pod),
          started: pt.started,
        };
        const agent = {
          namespace: on.namespace,
          daemonSet: on.daemonSet,
          pod: nameOf(on.pod),
          started: t.started,
          restarts: t.restarts,
          ...(t.lastExit ? { lastExit: t.lastExit } : {}),
        };
        let kind: ChainOrder['kind'] | undefined;
        let from = pt.started;
        let until: Date | undefined;
        if (pt.started > t.started) kind = 'open';
        else if (t.lastExit && t.lastExit.at >= pt.started) {
          kind = 'window';
          until = t.started;
        } else if (t.lastExit && t.restarts > 0) {
          const created = time(on.pod.metadata?.creationTimestamp);
          const primaryCreated = time(pod.metadata?.creationTimestamp);
          // Started on the node before the cluster's agent pod existed there, and its failed runs ended before that one started.
          if (created && primaryCreated && created < primaryCreated) {
            kind = 'early';
            from = pt.started;
          }
        }
        if (!kind) continue;
        const pods =
          kind === 'early'
            ? []
            : (byNode.get(node) ?? [])
                .filter((p) => {
                  const s = startOf(p);
                  return !!s && s >= from && (!until || s < until);
                })
                .sort((x, y) => (`${nsOf(x)}/${nameOf(x)}` < `${nsOf(y)}/${nameOf(y)}` ? -1 : 1));
        out.push({ kind, node, agent, primary, pods });
        break;
      }
    }
    return out;
  },
});

/** The mesh's CNI agents whose plugin the cluster's agent may have dropped from a node's configuration, per node. */
export function cniChainOrder(m: Model, mesh: MeshName): ChainOrder[] {
  return m.fact(CNI_CHAIN_ORDER, mesh);
}
