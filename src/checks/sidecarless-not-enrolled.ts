/**
 * sidecarless-not-enrolled — pods a mesh's sidecar-less data plane should mesh (Istio ambient
 * mode: `istio.io/dataplane-mode=ambient` on the namespace or the pod) that run outside it: the
 * node agent did not enrol them, or their node runs no ready node proxy.
 *
 * Why: in ambient mode there is no sidecar to look for; "not meshed" looks different. The istio-cni
 * node agent writes `ambient.istio.io/redirection: enabled` on a pod once its traffic is redirected
 * and ztunnel accepted it, `pending` when redirection is in place but ztunnel could not be reached,
 * and nothing when enrolment failed (istio/istio cni/pkg/util/podutil.go, cni/pkg/nodeagent); it
 * writes no Event. ztunnel (DaemonSet `ztunnel`, pods `app: ztunnel`) must run on the pod's node.
 * `istioctl analyze` has no such check; its helpers only read the annotation (PodInAmbientMode).
 * When: Running pods (older than a minute: the agent annotates right after start) of app workloads
 * in scope that the profile says are enrolled by their labels and their namespace's, that carry no
 * sidecar (the sidecar wins) and are not on the host network. The node proxy is judged only where
 * its pods were examined (pods read cluster-wide, or its pods found among the pods read); otherwise
 * the evidence says "not examined" and no claim is made about nodes.
 * Known false positives: a pod annotated between the snapshot and now; a node proxy restarting.
 * Fix: look at the node component the evidence names on the pod's node, then re-create the pods
 * (the CNI plugin enrols new pods when their sandbox is created).
 */
import { cmd, comment, lit } from '../fix/steps.js';
import { isActive, podSpec } from '../k8s/pods.js';
import { recreateCommands } from '../fix/commands.js';
import { injectedMesh } from '../mesh/proxy.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { matchesSelector, nodePods, nsLabelsIfRead, sidecarlessOf } from '../facts/sidecarless.js';
import type { K8sObject } from '../util/types.js';
import { agree, nameOf, plural, str, time } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import type { Step } from '../fix/steps.js';
import { APP_WORKLOADS, DECISIONS } from '../facts/model.js';

/** The agent annotates a pod right after its sandbox is created: younger pods are not judged. */
const GRACE_MS = 60_000;

const MESSAGES = messages({
  'no-node-proxy':
    '{counted} {run} on {nodes} with no ready {nodeProxy} pod, so {meshTitle} {mode} does not carry {their} traffic.',
  'not-enrolled':
    '{counted} {are} not enrolled in {meshTitle} {mode} ({enrolment}), so {their} traffic bypasses the mesh.',
});

export default defineCheck({
  ...meta('sidecarless-not-enrolled'),
  facts: [APP_WORKLOADS, DECISIONS],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      const sl = sidecarlessOf(m, w);
      if (!sl) continue;
      const { mesh, mode } = sl;
      const p = profileOf(mesh);
      const nsLabels = nsLabelsIfRead(m, w.namespace);
      const proxies = nodePods(m, `proxy:${mesh}`, mode.nodeProxy.title, mode.nodeProxy.isPod);
      const agents = nodePods(m, `agent:${mesh}`, mode.nodeAgent.title, matchesSelector(mode.nodeAgent.podSelector));
      const pods = w.pods.filter(
        (pod) =>
          isActive(pod) &&
          str((pod.status as Record<string, unknown> | undefined)?.phase) === 'Running' &&
          m.now.getTime() - (time(pod.metadata?.creationTimestamp)?.getTime() ?? 0) >= GRACE_MS &&
          podSpec(pod).hostNetwork !== true &&
          !injectedMesh(pod) && // a sidecar wins: the node agent skips it
          mode.enrols(pod, nsLabels), // an older pod opted out stays out
      );
      const bad: { pod: K8sObject; node?: string; enrolment: string; state: string; noProxy: boolean }[] = [];
      for (const pod of pods) {
        const e = mode.enrolment(pod);
        const node = str(podSpec(pod).nodeName);
        const noProxy = proxies.examined && !!node && !proxies.readyNodes.has(node);
        if (e.state !== 'enrolled' || noProxy)
          bad.push({ pod, ...(node ? { node } : {}), enrolment: e.text, state: e.state, noProxy });
      }
      if (bad.length === 0) continue;
      const title = meshTitle(mesh);
      const nodes = [...new Set(bad.filter((b) => b.noProxy).map((b) => b.node!))].sort();
      const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
      const proxyNs = proxies.namespaces[0] ?? cpNs;
      const agentNs = agents.namespaces[0] ?? cpNs;
      const id = `${w.kind} ${w.namespace}/${w.name}`;
      const n = `${bad.length} of ${plural(pods.length, 'running pod')} of ${id}`;
      const said = nodes.length
        ? say(MESSAGES, 'no-node-proxy', {
            counted: n,
            run: agree(bad.length, 'runs', 'run'),
            nodes: nodes.length === 1 ? `node ${nodes[0]}` : `nodes ${nodes.join(', ')}`,
            nodeProxy: mode.nodeProxy.title,
            meshTitle: title,
            mode: mode.title,
            their: agree(bad.length, 'its', 'their'),
          })
        : say(MESSAGES, 'not-enrolled', {
            counted: n,
            are: agree(bad.length, 'is', 'are'),
            meshTitle: title,
            mode: mode.title,
            enrolment: bad[0]!.enrolment,
            their: agree(bad.length, 'its', 'their'),
          });
      const fix: Step[] = [];
      for (const node of nodes) {
        fix.push(
          comment`the ${lit(mode.nodeProxy.title)} pod of DaemonSet ${mode.nodeProxy.daemonSet} must be Ready on node ${node}`,
          cmd`kubectl -n ${proxyNs} get pods -o wide --field-selector ${`spec.nodeName=${node}`}`,
        );
        fix.push(
          comment`taints, node selectors, scheduling errors`,
          cmd`kubectl -n ${proxyNs} describe daemonset ${mode.nodeProxy.daemonSet}`,
        );
      }
      const agentNodes = [...new Set(bad.filter((b) => !b.noProxy).map((b) => b.node ?? ''))].sort();
      for (const node of agentNodes) {
        const agent = node ? agents.byNode.get(node)?.[0] : undefined;
        if (agent)
          fix.push(
            comment`the ${lit(mode.nodeAgent.title)} on node ${node}: why it did not enrol the pods`,
            cmd`kubectl -n ${agentNs} logs ${agent} --tail=200`,
          );
        else if (node)
          fix.push(
            comment`the ${lit(mode.nodeAgent.title)} of DaemonSet ${mode.nodeAgent.daemonSet} on node ${node}`,
            cmd`kubectl -n ${agentNs} get pods -l ${mode.nodeAgent.podSelector} -o wide --field-selector ${`spec.nodeName=${node}`}`,
          );
        else
          fix.push(
            comment`the ${lit(mode.nodeAgent.title)} of DaemonSet ${mode.nodeAgent.daemonSet}`,
            cmd`kubectl -n ${agentNs} get pods -l ${mode.nodeAgent.podSelector} -o wide`,
          );
      }
      const recreate = recreateCommands(w);
      if (recreate.length) fix.push(comment`once it runs: new pods are enrolled when created`, ...recreate);
      yield {
        mesh,
        ...said,
        resource: w.ref,
        affectedPods: bad.length,
        evidence: {
          enrolledBy: sl.by,
          pods: bad.map((b) => ({
            name: nameOf(b.pod),
            node: b.node ?? null,
            enrolment: b.enrolment,
            nodeProxy: !proxies.examined
              ? 'not examined'
              : !b.node
                ? 'no node'
                : b.noProxy
                  ? 'no ready pod on the node'
                  : 'ready',
            nodeAgent: !agents.examined
              ? 'not examined'
              : b.node && agents.readyNodes.has(b.node)
                ? 'ready'
                : 'no ready pod on the node',
          })),
          ...(proxies.examined ? {} : { nodeProxyNotExamined: proxies.reason }),
          ...(agents.examined ? {} : { nodeAgentNotExamined: agents.reason }),
        },
        fix,
      };
    }
  },
});
