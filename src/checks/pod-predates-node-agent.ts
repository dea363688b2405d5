/**
 * pod-predates-node-agent — meshed pods that started on their node before the mesh's CNI node agent there was
 * ready (issue 31, items 4 and 5: a node agent not everywhere, in time), and nothing stopped them: the pod has no
 * validation container (an old release without one, or validation turned off), or the mesh's validation container
 * is reported to pass on a pod the plugin never set up (src/mesh/<mesh>/, `cni.validationPasses`).
 *
 * Why: a CNI plugin runs once, when the pod's sandbox is created. A pod whose sandbox was created before the agent
 * wrote the plugin into the node's CNI configuration (a new node, a node restarted, the agent's pod replaced: the
 * installers remove their plugin on exit) gets no traffic redirection, and nothing adds it later: its proxy runs
 * beside an app whose traffic bypasses it until the pod is re-created. linkerd/linkerd2#2970 and #8120 (pods "come
 * up without any iptables rules ... all pods have to be manually restarted", before the network validator of
 * linkerd/linkerd2#9678, 2.13), istio/istio#14327 (Istio CNI before the validation container and repair controller
 * of 1.4.5 and 1.5), kumahq/kuma#16809 (kuma-validation passing without the rules). Where the validation container
 * fails instead, proxy-cannot-start names the same timeline.
 * A mesh whose pods carry the plugin's own status (the profile's `cni.setUpMark`: Consul's
 * consul.hashicorp.com/transparent-proxy-status, rewritten by consul-cni from enabled to complete) is judged by it: still
 * at the injector's value is "never set up" (hashicorp/consul-k8s#3060), anything else is "set up".
 * When: the pod's status.startTime is before the Ready condition's lastTransitionTime of the agent's pod on its
 * node (src/facts/node-agents.ts cniAgentOn), and that time is the agent's first readiness (its containers never
 * restarted) or the agent's pod was created after the pod started. The agent's DaemonSet and pods are read where
 * `Model.seesNamespace` allows it. Times are the objects' own, never the wall clock.
 * Known false positives: an agent pod that became unready after its first readiness (a readiness probe failing for
 * a while) with its plugin configuration still on the node: the pods started in between are set up.
 * Fix: re-create the pods (their workloads restarted); keep pods off nodes whose agent is not ready (the mesh's
 * node taint or repair controller where its release has one).
 */
import { recreateCommands, recreateEvidence } from '../fix/commands.js';
import { comment, type Step } from '../fix/steps.js';
import { cniAgentOn } from '../facts/node-agents.js';
import { podStates, MESHES } from '../facts/model.js';
import { meshesAllowed } from '../facts/siblings.js';
import { initContainers, podSpec } from '../k8s/pods.js';
import { WORKLOADS } from '../k8s/snapshot.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import type { Model } from '../facts/model.js';
import { agree, annotationsOf, isObj, nameOf, plural, str, time } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'before-agent':
    "{pods} of {workload} started on node {node} at {started}, before {mesh}'s CNI node agent there (pod {agentPod} of DaemonSet {daemonSet}) was ready at {agentReady}{nodeAge}: {sandbox} set up without the plugin, so {theyRun} without traffic redirection through the proxy until re-created; {validation}.",
});

/** A time as the API writes it, to the second. */
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

const statuses = (pod: K8sObject, key: 'containerStatuses' | 'initContainerStatuses'): Record<string, any>[] => {
  const st = isObj(pod.status) ? pod.status : {};
  return Array.isArray(st[key]) ? st[key].filter(isObj) : [];
};

/** The injected pod runs with the CNI plugin: it has the validation container, or no privileged init container while the injector says the plugin is on. */
function withPlugin(m: Model, mesh: MeshName, pod: K8sObject): 'validation' | 'none' | 'unset' | undefined {
  const cni = profileOf(mesh).cni!;
  // The pod says itself whether the plugin set it up (Consul's transparent-proxy-status), whatever its init container.
  const mark = cni.setUpMark ? annotationsOf(pod)[cni.setUpMark.key] : undefined;
  if (cni.setUpMark && mark !== undefined)
    return mark === cni.setUpMark.injected && cni.enabled(m)?.enabled === true ? 'unset' : undefined;
  const inits = initContainers(podSpec(pod)).map((c) => str(c.name));
  if (cni.validationInit && inits.includes(cni.validationInit)) return 'validation';
  if (inits.includes(cni.privilegedInit.name)) return undefined;
  return cni.enabled(m)?.enabled === true ? 'none' : undefined;
}

/** Why nothing stopped the pod: a clause, or undefined where its validation container stopped it or still runs. */
function unstopped(mesh: MeshName, pod: K8sObject, how: 'validation' | 'none' | 'unset'): string | undefined {
  const cni = profileOf(mesh).cni!;
  if (how === 'unset' && cni.setUpMark)
    return `their annotation ${cni.setUpMark.key} is still ${cni.setUpMark.injected}, the injector's value, which the plugin rewrites when it sets a pod up: it never ran for them (${cni.setUpMark.source})`;
  if (how === 'none')
    return cni.validationInit
      ? `the pods have no validation container that would have stopped them (${cni.validationInit} is not injected)`
      : 'the mesh injects no validation container that would have stopped them';
  const v = statuses(pod, 'initContainerStatuses').find((s) => s.name === cni.validationInit);
  const term = isObj(v?.state) && isObj(v.state.terminated) ? v.state.terminated : undefined;
  // A failing or running validation is proxy-cannot-start's (it names the same timeline); only a pass is ours.
  if (!term || term.exitCode !== 0 || !cni.validationPasses) return undefined;
  return `${cni.validationInit} completed all the same: ${cni.validationPasses.why} (${cni.validationPasses.source})`;
}

export default defineCheck({
  ...meta('pod-predates-node-agent'),
  facts: [WORKLOADS, MESHES],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      if (!p.cni) continue;
      /** The mesh's agent on each node (null: none), asked once per node and mesh. */
      const agents = new Map<string, ReturnType<typeof cniAgentOn> | null>();
      for (const w of m.workloads) {
        if (!m.inScope(w.namespace)) continue;
        const hits: {
          pod: K8sObject;
          node: string;
          started: Date;
          agent: NonNullable<ReturnType<typeof cniAgentOn>>;
          why: string;
        }[] = [];
        for (const pod of (podStates(w).meshed.get(mesh) ?? []).slice(0, 500)) {
          // The cheap tests first (each a `continue`, so their order does not change what is found): the node's
          // agent (once per node), then the pod's start time (a date parsed only where an agent's readiness is compared).
          const node = str(podSpec(pod).nodeName);
          if (!node || podSpec(pod).hostNetwork === true) continue;
          let agent = agents.get(node);
          if (agent === undefined) agents.set(node, (agent = cniAgentOn(m, mesh, node) ?? null));
          if (!agent?.ready || !agent.readySince) continue;
          const started = time(isObj(pod.status) ? pod.status.startTime : undefined);
          if (!started || started.getTime() >= agent.readySince.getTime()) continue;
          const how = withPlugin(m, mesh, pod);
          if (!how) continue;
          const agentCreated = time(agent.pod.metadata?.creationTimestamp);
          const firstReady = statuses(agent.pod, 'containerStatuses').every((s) => !s.restartCount);
          if (!firstReady && !(agentCreated && agentCreated.getTime() > started.getTime())) continue;
          const why = unstopped(mesh, pod, how);
          if (why) hits.push({ pod, node, started, agent, why });
        }
        if (!hits.length) continue;
        const first = hits[0]!;
        const n = hits.length;
        const nodes = [...new Set(hits.map((h) => h.node))].sort();
        const nodeObj = m.has('nodes') ? m.list('nodes').find((x) => nameOf(x) === first.node) : undefined;
        const nodeCreated = time(nodeObj?.metadata?.creationTimestamp);
        const fix: Step[] = [
          comment`a CNI plugin runs only when a pod is created: re-create the pods that started before the agent on their node was ready`,
          ...recreateCommands(w),
        ];
        yield {
          mesh,
          ...say(MESSAGES, 'before-agent', {
            pods: plural(n, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            node: nodes.length > 1 ? `${first.node} (and ${nodes.length - 1} more)` : first.node,
            started: iso(first.started),
            mesh: p.title,
            agentPod: `${first.agent.namespace}/${nameOf(first.agent.pod)}`,
            daemonSet: first.agent.daemonSet,
            agentReady: iso(first.agent.readySince!),
            nodeAge:
              nodeCreated && nodeCreated.getTime() <= first.started.getTime()
                ? ` (the node joined at ${iso(nodeCreated)})`
                : '',
            sandbox: agree(n, 'its sandbox was', 'their sandboxes were'),
            theyRun: agree(n, 'it runs', 'they run'),
            validation: first.why,
          }),
          resource: w.ref,
          affectedPods: n,
          evidence: {
            pods: hits.slice(0, 20).map((h) => ({
              name: nameOf(h.pod),
              node: h.node,
              started: iso(h.started),
              agentPod: `${h.agent.namespace}/${nameOf(h.agent.pod)}`,
              agentReadySince: iso(h.agent.readySince!),
            })),
            daemonSet: `${first.agent.namespace}/${first.agent.daemonSet}`,
            ...(nodeCreated ? { nodeCreated: iso(nodeCreated) } : {}),
            ...(p.cni.validationPasses && hits.some((h) => h.why.includes(p.cni!.validationPasses!.source))
              ? { validationPasses: p.cni.validationPasses.source }
              : {}),
            ...recreateEvidence([w]),
          },
          fix,
        };
      }
    }
  },
});
