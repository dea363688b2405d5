/**
 * A mesh's node agents, mesh-generic (issue 31): the DaemonSets its profile names (the CNI
 * plugin's `cni.daemonSet`; the sidecar-less data plane's node agent and node proxy), which nodes
 * lack a ready pod of each and why (a taint it does not tolerate, a node selection leaving the node
 * out, its pod not ready there, or none created: the DaemonSet's FailedCreate events), and the pods
 * on those nodes that need it (CNI: pods with the plugin's validation container, or injected with
 * the plugin on; sidecar-less: pods it enrols). Scheduling rules: src/k8s/scheduling.ts.
 */
import { defineFact, defineFactFamily } from '../k8s/fact.js';
import { eventInfo } from '../k8s/events.js';
import { podHealth } from '../k8s/health.js';
import { initContainers, isActive, podSpec } from '../k8s/pods.js';
import { daemonPodNode, nodeReady, selectionMisses, unschedulableMessage, untolerated } from '../k8s/scheduling.js';
import { evalSelector } from '../k8s/selectors.js';
import { injectedMesh } from '../mesh/proxy.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import type { K8sObject } from '../util/types.js';
import { isObj, labelsOf, nameOf, nsOf, str, time } from '../util/objects.js';
import { printable } from '../util/errors.js';
import type { Model } from './model.js';
import { nsLabelsIfRead } from './sidecarless.js';

/** An agent pod younger than this that is not ready yet is starting, not failing. */
const GRACE_MS = 120_000;

interface AgentDef {
  daemonSet: string;
  /** "CNI node agent", "node proxy ztunnel". */
  title: string;
  /** The agent installs a CNI plugin into the node's CNI configuration (a CNI node agent, not a node proxy). */
  cni: boolean;
  /** The pod needs this agent on its node. */
  needs(pod: K8sObject): boolean;
  /** Its DaemonSet found by the labels of its selector (a name that follows the release), not by `daemonSet`. */
  selector?: Readonly<Record<string, string>>;
  /** What the pods without it do: a clause. */
  without?: string;
}

/** Why a node has no ready agent pod. */
type GapKind = 'taint' | 'selection' | 'not-ready' | 'unschedulable' | 'not-created';

interface AgentGap {
  node: string;
  kind: GapKind;
  /** A clause: "taint dedicated=infra:NoExecute not tolerated", "istio-cni-node-x: ImagePullBackOff". */
  why: string;
  /** The agent pod there, when there is one. */
  pod?: string;
  /** Not ready, though running with no container waiting (a readiness that never comes, not a crash or a pull). */
  running?: boolean;
  /** The scheduler's message for an agent pod it cannot place (kind unschedulable). */
  scheduler?: string;
  /** The DaemonSet sets no priority class, so its pod cannot preempt the node's pods (kind unschedulable). */
  noPriority?: boolean;
  /** The taints not tolerated (kind taint). */
  taints?: { key: string; value?: string; effect: string }[];
  /** Active pods on the node that need the agent (namespace/name). */
  affected: K8sObject[];
}

export interface NodeAgentCoverage {
  mesh: MeshName;
  title: string;
  /** The agent installs a CNI plugin into the node's CNI configuration. */
  cni: boolean;
  /** What the pods without it do, where the profile says (else: they fail validation or run outside the mesh). */
  without?: string;
  ds: K8sObject;
  namespace: string;
  name: string;
  desired?: number;
  ready?: number;
  /** Nodes and the agent's pods were read: the gaps name every node; else only the status counts and the pods read. */
  nodesRead: boolean;
  gaps: AgentGap[];
  /** The DaemonSet's latest FailedCreate event: why pods are not created. */
  failedCreate?: { message: string; count: number; priorityClass?: string; quota: boolean };
}

/** The node agents the profile names, with the pods that need each (one entry per DaemonSet). */
function agentDefs(m: Model, mesh: MeshName): AgentDef[] {
  const p = profileOf(mesh);
  const defs = new Map<string, AgentDef>();
  const add = (d: AgentDef) => {
    const had = defs.get(d.daemonSet);
    defs.set(d.daemonSet, had ? { ...had, cni: had.cni || d.cni, needs: (pod) => had.needs(pod) || d.needs(pod) } : d);
  };
  const cni = p.cni;
  if (cni) {
    const validation = cni.validationInit;
    add({
      daemonSet: cni.daemonSet,
      title: 'CNI node agent',
      cni: true,
      needs: validation
        ? (pod) => initContainers(podSpec(pod)).some((c) => c.name === validation)
        : (pod) => injectedMesh(pod) === mesh && cni.enabled(m)?.enabled === true,
    });
  }
  const client = p.runtime.nodeAgent;
  if (client)
    add({
      daemonSet: `selector:${JSON.stringify(client.selector)}`,
      title: client.title,
      cni: false,
      needs: (pod) => injectedMesh(pod) === mesh && client.needs(pod),
      selector: client.selector,
      without: client.without,
    });
  const mode = p.sidecarless;
  if (mode) {
    const enrolled = (pod: K8sObject) => !injectedMesh(pod) && mode.enrols(pod, nsLabelsIfRead(m, nsOf(pod)));
    add({ daemonSet: mode.nodeAgent.daemonSet, title: mode.nodeAgent.title, cni: true, needs: enrolled });
    add({
      daemonSet: mode.nodeProxy.daemonSet,
      title: `node proxy ${mode.nodeProxy.title}`,
      cni: false,
      needs: enrolled,
    });
  }
  return [...defs.values()];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The DaemonSet's latest FailedCreate event, read for a priority class or a quota refusing its pods. */
function failedCreate(m: Model, ns: string, name: string): NodeAgentCoverage['failedCreate'] {
  if (!m.has('events')) return undefined;
  let last: { message: string; at: string } | undefined;
  let count = 0;
  for (const e of m.inNamespace('events', ns)) {
    const ev = eventInfo(e);
    if (ev.kind !== 'DaemonSet' || ev.name !== name || ev.reason !== 'FailedCreate') continue;
    count += ev.count;
    if (!last || (ev.lastTimestamp ?? '') > last.at) last = { message: ev.message, at: ev.lastTimestamp ?? '' };
  }
  if (!last) return undefined;
  const pc =
    /pods with ([a-z0-9.-]{1,253}) priorityClass is not permitted/.exec(last.message)?.[1] ??
    /insufficient quota to match these scopes: .*PriorityClass In \[([a-z0-9.-]{1,253})/.exec(last.message)?.[1];
  return {
    message: printable(last.message, 500),
    count,
    ...(pc ? { priorityClass: pc } : {}),
    quota: /exceeded quota: |insufficient quota/.test(last.message),
  };
}

/** A clause for a taint. */
const taintText = (t: { key: string; value?: string; effect: string }) =>
  `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

const PODS_BY_NODE = defineFact({
  id: 'pods-by-node',
  inputs: ['pods'],
  compute: (m: Model) => {
    const out = new Map<string, K8sObject[]>();
    for (const p of m.list('pods')) {
      const node = str(podSpec(p).nodeName);
      if (!node || !isActive(p)) continue;
      const list = out.get(node);
      if (list) list.push(p);
      else out.set(node, [p]);
    }
    return out;
  },
});

export const NODE_AGENTS = defineFactFamily({
  id: 'node-agents',
  inputs: ['daemonsets', 'events', 'namespaces', 'nodes', 'pods'],
  compute: (m: Model, mesh: MeshName): NodeAgentCoverage[] => {
    if (!m.has('daemonsets')) return [];
    const defs = agentDefs(m, mesh);
    const nodes = m.has('nodes') ? m.list('nodes').slice(0, 5000) : [];
    // Active pods by node, once.
    const podsByNode = m.fact(PODS_BY_NODE);
    const out: NodeAgentCoverage[] = [];
    for (const def of defs) {
      const sel = def.selector;
      const matches = sel
        ? (d: K8sObject) => {
            const spec = isObj(d.spec) && isObj(d.spec.selector) ? d.spec.selector : undefined;
            const ml = spec && isObj(spec.matchLabels) ? spec.matchLabels : {};
            return Object.entries(sel).every(([k, v]) => ml[k] === v);
          }
        : (d: K8sObject) => nameOf(d) === def.daemonSet;
      for (const ds of m.list('daemonsets').filter(matches)) {
        const ns = nsOf(ds);
        const spec = isObj(ds.spec) ? ds.spec : {};
        const tmpl = podSpec(isObj(spec.template) ? spec.template : undefined);
        const st = isObj(ds.status) ? ds.status : {};
        const selector = isObj(spec.selector) ? spec.selector : undefined;
        const agents = m
          .inNamespace('pods', ns)
          .filter((p) => isActive(p) && selector !== undefined && evalSelector(selector, labelsOf(p)).matched);
        const agentOn = new Map<string, K8sObject>();
        for (const a of agents) {
          // A pod the scheduler has not placed names its node in its node affinity (the DaemonSet controller's).
          const node = daemonPodNode(a);
          if (node && (!agentOn.has(node) || podHealth(a).ready)) agentOn.set(node, a);
        }
        const young = (p: K8sObject) =>
          m.now.getTime() - (time(p.metadata?.creationTimestamp)?.getTime() ?? 0) < GRACE_MS;
        const affectedOn = (node: string) =>
          (podsByNode.get(node) ?? []).filter((p) => nsOf(p) !== ns && m.inScope(nsOf(p)) && def.needs(p));
        const gaps: AgentGap[] = [];
        const judge = (node: string, nodeObj: K8sObject | undefined) => {
          const agent = agentOn.get(node);
          if (agent && podHealth(agent).ready) return;
          const affected = affectedOn(node);
          if (agent) {
            if (young(agent)) return;
            const said = unschedulableMessage(agent);
            if (said !== undefined) {
              // A node agent must preempt: the charts give theirs system-node-critical (istio-cni, kuma-cni, consul-cni;
              // ztunnel since istio/istio c8f97d09, 1.21, after #47867). Without a class its pod waits for room.
              const noPriority = !str(tmpl.priorityClassName) && !str(podSpec(agent).priorityClassName);
              gaps.push({
                node,
                kind: 'unschedulable',
                why: `${nameOf(agent)} Pending, not placed by the scheduler: "${printable(said, 300)}"${
                  noPriority
                    ? '; the DaemonSet sets no priority class, so its pod cannot preempt the pods already on the node'
                    : ''
                }`,
                pod: nameOf(agent),
                scheduler: printable(said, 300),
                ...(noPriority ? { noPriority } : {}),
                affected,
              });
              return;
            }
            const h = podHealth(agent);
            gaps.push({
              node,
              kind: 'not-ready',
              why: `${nameOf(agent)} not ready (${h.waiting ?? h.phase ?? 'no reason given'})`,
              pod: nameOf(agent),
              ...(!h.waiting && h.phase === 'Running' ? { running: true } : {}),
              affected,
            });
            return;
          }
          if (!nodeObj) return;
          const taints = untolerated(nodeObj, tmpl);
          if (taints.length) {
            if (affected.length)
              gaps.push({
                node,
                kind: 'taint',
                why: `taint ${taints.map(taintText).join(', ')} not tolerated`,
                taints,
                affected,
              });
            return;
          }
          const miss = selectionMisses(nodeObj, tmpl);
          if (miss) {
            if (affected.length) gaps.push({ node, kind: 'selection', why: `${miss} leaves the node out`, affected });
            return;
          }
          gaps.push({ node, kind: 'not-created', why: 'no agent pod created', affected });
        };
        // Its pods could be examined only where pods were read (a -n run reads its namespace and the control planes').
        const podsRead = m.readIn('pods', ns);
        if (podsRead && nodes.length) {
          for (const n of nodes) if (nodeReady(n) !== false) judge(nameOf(n), n);
        } else if (podsRead) {
          for (const node of [...agentOn.keys()].sort()) judge(node, undefined);
        }
        const desired = num(st.desiredNumberScheduled);
        const ready = num(st.numberReady);
        const short = desired !== undefined && ready !== undefined && ready < desired;
        const fc = failedCreate(m, ns, nameOf(ds));
        // With the nodes and the pods read, the gaps say it all (a node not Ready is counted in desired, not judged).
        // Its pods refused in its namespace: the status alone cannot tell a pod still starting from one that fails, so
        // the shortfall is not judged (the coverage names the refusal; a full read would say nothing of a starting pod).
        const statusOnly = short && !(podsRead && nodes.length) && m.refusedIn('pods', ns) === undefined;
        if (!gaps.length && !statusOnly) continue;
        out.push({
          mesh,
          title: def.title,
          cni: def.cni,
          ...(def.without ? { without: def.without } : {}),
          ds,
          namespace: ns,
          name: nameOf(ds),
          ...(desired !== undefined ? { desired } : {}),
          ...(ready !== undefined ? { ready } : {}),
          nodesRead: podsRead && nodes.length > 0,
          gaps: gaps.sort((a, b) => (a.node < b.node ? -1 : 1)),
          ...(fc ? { failedCreate: fc } : {}),
        });
      }
    }
    return out;
  },
});

/** The coverage of every node agent of the mesh found in the cluster (memoized). */
export function nodeAgentCoverage(m: Model, mesh: MeshName): NodeAgentCoverage[] {
  return m.fact(NODE_AGENTS, mesh);
}

/** The mesh's CNI node agent pod on a node (the ready one where there are several), and since when it is ready. */
interface AgentOnNode {
  pod: K8sObject;
  namespace: string;
  daemonSet: string;
  ready: boolean;
  /** Its Ready condition's lastTransitionTime, where it is ready and the time was kept. */
  readySince?: Date;
}

/** The mesh's CNI node agent on `node`: undefined where its DaemonSet or its pods were not read, or none runs there. */
export function cniAgentOn(m: Model, mesh: MeshName, node: string): AgentOnNode | undefined {
  const cni = profileOf(mesh).cni;
  if (!cni || !m.has('daemonsets') || !m.has('pods')) return undefined;
  for (const ds of m.list('daemonsets').filter((d) => nameOf(d) === cni.daemonSet)) {
    const ns = nsOf(ds);
    if (!m.seesNamespace(ns) || !m.readIn('pods', ns)) continue;
    const spec = isObj(ds.spec) ? ds.spec : {};
    const selector = isObj(spec.selector) ? spec.selector : undefined;
    if (!selector) continue;
    const on = m
      .inNamespace('pods', ns)
      .filter((p) => isActive(p) && str(podSpec(p).nodeName) === node && evalSelector(selector, labelsOf(p)).matched);
    if (!on.length) continue;
    const pod = on.find((p) => podHealth(p).ready) ?? on[0]!;
    const ready = podHealth(pod).ready;
    const cond = (isObj(pod.status) && Array.isArray(pod.status.conditions) ? pod.status.conditions : []).find(
      (c: unknown) => isObj(c) && c.type === 'Ready' && c.status === 'True',
    );
    const since = ready && isObj(cond) ? time(cond.lastTransitionTime) : undefined;
    return { pod, namespace: ns, daemonSet: nameOf(ds), ready, ...(since ? { readySince: since } : {}) };
  }
  return undefined;
}
