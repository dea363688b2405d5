/**
 * pod-sandbox-cni-failed — the kubelet cannot create a pod's sandbox because the mesh's CNI plugin
 * fails on the node, or (Multus, OpenShift) the NetworkAttachmentDefinition that runs it is missing
 * from the pod's namespace. The pod stays in ContainerCreating; `kubectl describe` shows a
 * FailedCreatePodSandBox event whose long message hides which plugin failed.
 * Why: the kubelet reports every sandbox failure as FailedCreatePodSandBox ("Failed to create pod
 * sandbox: %v", kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go), with the runtime's and
 * libcni's error (`plugin type="istio-cni" name="istio-cni" failed (add): ...`) or Multus's
 * (`cannot find a network-attachment-definition (istio-cni) in namespace (ns)`). The plugin's
 * type and attachment name of each mesh are in its profile (`cni.pluginType`, `cni.attachment`).
 * Reports: istio/istio 46451, 51847, 52218, 49038, 42485, 54820; kubeflow/community-distribution
 * 2580; rancher/rancher 41608; linkerd/linkerd2 10413, 14538; kumahq/kuma 4224.
 * When: a FailedCreatePodSandBox event on a pod in scope whose message names a mesh's CNI plugin
 * type or attachment, and the pod is still Pending with no container started. Silent for a
 * sandbox failure of another plugin (Calico's ClusterInformation, Cilium), for a pod that started
 * since (the attachment was created, the plugin recovered), and for pods not read.
 * Known false positives: none known; a plugin failing once and then succeeding leaves the pod running.
 * Fix: a missing attachment: create it in the namespace as the mesh documents it; a plugin failing:
 * the mesh's CNI DaemonSet pod on that node (its log says why), and the message quoted.
 */
import { cmd, comment, type Step } from '../fix/steps.js';
import { eventInfo, workloadOfObject } from '../k8s/events.js';
import { SANDBOX_REASON, sandboxCauses, sandboxQuote, type SandboxCause } from '../k8s/sandbox.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { meshesAllowed } from '../facts/siblings.js';
import type { MeshName } from '../mesh/names.js';
import { printable } from '../util/errors.js';
import { arr, isObj, plural, str, time } from '../util/objects.js';
import type { K8sObject, ResourceRef } from '../util/types.js';
import { defineCheck, meta } from './define.js';

/** A pod that has started a container since, or is no longer Pending: its sandbox exists. */
function started(pod: K8sObject): boolean {
  const st = isObj(pod.status) ? pod.status : {};
  if (str(st.phase) && st.phase !== 'Pending') return true;
  return [...arr(st.initContainerStatuses), ...arr(st.containerStatuses)]
    .filter(isObj)
    .some((s) => isObj(s.state) && (isObj(s.state.running) || isObj(s.state.terminated)));
}

interface Group {
  mesh: MeshName;
  cause: SandboxCause;
  resource: ResourceRef;
  pods: Set<string>;
  nodes: Set<string>;
  count: number;
  last?: string;
  message: string;
}

export default defineCheck({
  ...meta('pod-sandbox-cni-failed'),
  *run(m) {
    const meshes = meshesAllowed(m).filter((x) => profileOf(x).cni);
    const byPlugin = new Map<string, MeshName>();
    const byAttachment = new Map<string, MeshName>();
    for (const mesh of meshes) {
      const cni = profileOf(mesh).cni!;
      byPlugin.set(cni.pluginType, mesh);
      if (cni.attachment) byAttachment.set(cni.attachment.name, mesh);
    }
    if (!byPlugin.size) return;
    const groups = new Map<string, Group>();
    for (const e of m.list('events')) {
      const ev = eventInfo(e);
      if (ev.reason !== SANDBOX_REASON || ev.kind !== 'Pod' || !m.inScope(ev.namespace)) continue;
      const cause = sandboxCauses(ev.message, [...byPlugin.keys()], [...byAttachment.keys()])[0];
      if (!cause) continue;
      const mesh = (cause.kind === 'attachment' ? byAttachment : byPlugin).get(cause.name)!;
      const pod = m.get('pods', ev.namespace, ev.name);
      // The pod gone or started since: the failure is over (pods not read: the event alone tells).
      if (m.has('pods') && (!pod || started(pod))) continue;
      const owner = arr(pod?.metadata?.ownerReferences)
        .filter(isObj)
        .find((r) => r.controller === true);
      const w = owner
        ? workloadOfObject(m, String(owner.kind ?? ''), ev.namespace, String(owner.name ?? ''))
        : undefined;
      const resource = w?.ref ?? { kind: 'Pod', namespace: ev.namespace, name: ev.name };
      const id = `${mesh}\u0000${cause.kind}/${cause.name}\u0000${resource.kind}/${resource.namespace}/${resource.name}`;
      const g = groups.get(id) ?? {
        mesh,
        cause,
        resource,
        pods: new Set<string>(),
        nodes: new Set<string>(),
        count: 0,
        message: ev.message,
      };
      g.pods.add(ev.name);
      const node = isObj(pod?.spec) ? str(pod.spec.nodeName) : undefined;
      if (node) g.nodes.add(node);
      g.count += ev.count;
      if (!g.last || (time(ev.lastTimestamp)?.getTime() ?? 0) > (time(g.last)?.getTime() ?? 0)) {
        g.message = ev.message;
        if (ev.lastTimestamp) g.last = ev.lastTimestamp;
      }
      groups.set(id, g);
    }
    const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, 200);
    for (const [, g] of sorted) {
      const p = profileOf(g.mesh);
      const cni = p.cni!;
      const pods = [...g.pods].sort();
      const nodes = [...g.nodes].sort();
      const ns = g.resource.namespace!;
      const quote = printable(sandboxQuote(g.message), 400);
      const what = `${g.resource.kind} ${ns}/${g.resource.name}`;
      let message: string;
      const fix: Step[] = [];
      if (g.cause.kind === 'attachment') {
        const where = g.cause.namespace ?? ns;
        message =
          `The kubelet cannot create the sandbox of ${plural(pods.length, 'pod')} of ${what}: Multus finds no NetworkAttachmentDefinition ${g.cause.name} in namespace ${where}, ` +
          `which the pods name to run the ${meshTitle(g.mesh)} CNI plugin, so they stay in ContainerCreating (${quote}).`;
        fix.push(
          ...(where === ns
            ? cni.attachment!.fix(ns)
            : [
                comment`the pods name ${where}/${g.cause.name}: create it there, or point the injected k8s.v1.cni.cncf.io/networks annotation at a namespace that has it`,
              ]),
        );
      } else {
        const on = nodes.length ? ` on ${plural(nodes.length, 'node')} ${nodes.slice(0, 5).join(', ')}` : '';
        message = `The kubelet cannot create the sandbox of ${plural(pods.length, 'pod')} of ${what}${on}: the ${meshTitle(g.mesh)} CNI plugin (type ${g.cause.name}) fails: ${quote}`;
        fix.push(
          comment`the pod of DaemonSet ${cni.daemonSet} on ${nodes[0] ?? 'the node of the pod'} installs and serves the plugin, and its log says why it fails`,
          cmd`kubectl get pods -A -o wide --field-selector ${`spec.nodeName=${nodes[0] ?? 'NODE'}`}`,
          comment`then read the log of the ${cni.daemonSet} pod listed there`,
        );
      }
      yield {
        mesh: g.mesh,
        message,
        resource: g.resource,
        affectedPods: pods.length,
        evidence: {
          cause: g.cause.kind,
          name: g.cause.name,
          ...(g.cause.namespace ? { attachmentNamespace: g.cause.namespace } : {}),
          pods: pods.slice(0, 20),
          nodes: nodes.slice(0, 20),
          events: g.count,
          ...(g.last ? { lastSeen: g.last } : {}),
          message: printable(sandboxQuote(g.message, 1000), 1000),
        },
        fix,
      };
    }
  },
});
