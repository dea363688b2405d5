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
 * The plugin's own words (issue 31): a line the profile knows (`cni.failures`: Istio's "no ztunnel
 * connection") names the cause; "Unauthorized" names the plugin's credentials on the node (the
 * kubeconfig its DaemonSet wrote: hashicorp/consul-k8s#4106, #4442). A message naming no plugin at all
 * (a bare "exit status N": kumahq/kuma#2046) is attributed to the mesh whose CNI-only validation init
 * container the pod carries, said as the candidate the message cannot name.
 * Beyond the words (issue 31): libcni's `failed to find plugin "T" in path [P]` is the plugin's binary not where the
 * runtime looks, said with the directory the mesh's DaemonSet installs into (its hostPath volume cni-bin-dir) and the
 * mesh's setting for it (rancher-sandbox/rancher-desktop#6170); where the DaemonSet has no ready pod on the failing
 * pods' node (node-agent-incomplete's facts), the finding says so (kumahq/kuma#10461).
 * From the spec (issue 31): events expire after an hour, so a Pending pod with no container started
 * whose `k8s.v1.cni.cncf.io/networks` annotation names a mesh's attachment (Multus's forms: `name`,
 * `ns/name`, `name@iface`, or a JSON list of `{name, namespace}`: k8snetworkplumbingwg
 * multus-cni pkg/k8sclient parsePodNetworkAnnotation) that is not among the
 * NetworkAttachmentDefinitions read is the same finding without the event. Only when the
 * attachments were read and the API answered with at least one of them in the namespace Multus
 * looks in (a cluster that does not serve the API gives none: that is "not collected", never "not
 * found"; and one namespace's evidence never depends on another's, so `-n` and a watch's
 * per-namespace evaluation judge it as `-A` does).
 * Known false positives: none known; a plugin failing once and then succeeding leaves the pod running.
 * Fix: a missing attachment: create it in the namespace as the mesh documents it; a plugin failing:
 * the mesh's CNI DaemonSet pod on that node (its log says why), and the message quoted.
 */
import { cmd, comment, lit, type Step } from '../fix/steps.js';
import { eventInfo, workloadOfObject, WORKLOAD_INDEX } from '../k8s/events.js';
import {
  NETWORKS,
  SANDBOX_REASON,
  namedAttachments,
  pluginNotFound,
  sandboxCauses,
  sandboxQuote,
  type SandboxCause,
} from '../k8s/sandbox.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { meshesAllowed } from '../facts/siblings.js';
import { nodeAgentCoverage, NODE_AGENTS } from '../facts/node-agents.js';
import type { Model } from '../facts/model.js';
import { CNI_BIN_VOLUME, daemonSetsNamed, hostPathOf } from '../mesh/cni-install.js';
import type { MeshName } from '../mesh/names.js';
import { printable } from '../util/errors.js';
import { arr, isObj, nameOf, nsOf, plural, str, time } from '../util/objects.js';
import type { K8sObject, ResourceRef } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';
import { MESHES } from '../facts/model.js';

/** A pod that has started a container since, or is no longer Pending: its sandbox exists. */
function started(pod: K8sObject): boolean {
  const st = isObj(pod.status) ? pod.status : {};
  if (str(st.phase) && st.phase !== 'Pending') return true;
  return [...arr(st.initContainerStatuses), ...arr(st.containerStatuses)]
    .filter(isObj)
    .some((s) => isObj(s.state) && (isObj(s.state.running) || isObj(s.state.terminated)));
}

/** A sandbox failure naming no plugin, of a pod injected for a mesh's CNI plugin (its validation init container). */
type GroupCause = SandboxCause | { kind: 'unnamed'; name: string };

/**
 * A message that names no CNI plugin at all (the runtime's bare "exit status N": kumahq/kuma#2046),
 * of a pod that carries the validation init container a mesh injects only for its CNI plugin: that
 * plugin, chained on the node, is the candidate. A message naming another plugin is that plugin's.
 */
function unnamedCause(message: string, pod: K8sObject | undefined, meshes: readonly MeshName[]) {
  // Only a bare exit status (containerd "failed to setup network for sandbox ...: exit status 1",
  // dockershim "NetworkPlugin cni failed to set up pod ... network: exit status 3"): any other
  // error text is its own (Calico's ClusterInformation) and says nothing of a mesh.
  const text = message.slice(0, 20000);
  if (!pod || /plugin type="|network "|in cni dir|network-attachment-definition/i.test(text)) return undefined;
  if (
    !/(?:failed to (?:setup|set up) network for sandbox "[^"]{0,200}"|NetworkPlugin cni failed to set up pod "[^"]{0,300}" network): exit status \d{1,3}\s*$/.test(
      text,
    )
  )
    return undefined;
  const inits = arr(isObj(pod.spec) ? pod.spec.initContainers : undefined)
    .filter(isObj)
    .map((c) => str(c.name) ?? '');
  for (const mesh of meshes) {
    const v = profileOf(mesh).cni?.validationInit;
    if (v && inits.includes(v)) return { kind: 'unnamed' as const, name: v, mesh };
  }
  return undefined;
}

interface Group {
  mesh: MeshName;
  cause: GroupCause;
  resource: ResourceRef;
  pods: Set<string>;
  nodes: Set<string>;
  count: number;
  last?: string;
  message: string;
}

/** Where each DaemonSet of this name installs the plugin binary: its hostPath volume cni-bin-dir, as read. */
function installDirs(m: Model, daemonSet: string): { ds: string; dir: string }[] {
  return daemonSetsNamed(m, daemonSet).flatMap((d) => {
    const dir = hostPathOf(d, CNI_BIN_VOLUME);
    return dir ? [{ ds: `${nsOf(d)}/${nameOf(d)}`, dir }] : [];
  });
}

/** The evidence of a plugin failure beyond its message: the runtime's plugin path and the install directories, the agent's gaps on the nodes. */
function pluginEvidence(m: Model, mesh: MeshName, message: string, nodes: readonly string[]) {
  const cni = profileOf(mesh).cni!;
  const notFound = pluginNotFound(sandboxQuote(message, 2000));
  const gaps = nodeAgentCoverage(m, mesh)
    .filter((c) => c.name === cni.daemonSet && m.seesNamespace(c.namespace))
    .flatMap((c) => c.gaps.filter((x) => nodes.includes(x.node)).map((x) => ({ node: x.node, why: x.why })))
    .slice(0, 5);
  return {
    ...(notFound ? { runtimePluginPath: notFound.path, installDirs: installDirs(m, cni.daemonSet) } : {}),
    ...(gaps.length ? { agentGaps: gaps } : {}),
  };
}

const MESSAGES = messages({
  'attachment-missing':
    'The kubelet cannot create the sandbox of {pods} of {workload}: Multus finds no NetworkAttachmentDefinition {attachment} in namespace {namespace}, which the pods name to run the {mesh} CNI plugin, so they stay in ContainerCreating ({quote}).',
  'attachment-missing-pending':
    '{pods} of {workload} {are} Pending with no container started, and of the NetworkAttachmentDefinitions read none is {attachment} in namespace {namespace}, which the pods name to run the {mesh} CNI plugin, so they stay in ContainerCreating ({quote}).',
  'plugin-unnamed':
    'The kubelet cannot create the sandbox of {pods} of {workload}{on}, and its message names no plugin ({quote}); the pods were injected for the {mesh} CNI plugin (init container {init}), which runs chained on the node: it is the candidate the message cannot name, so its installation on the node (its binary and configuration directories) is where to look.',
  'plugin-fails':
    'The kubelet cannot create the sandbox of {pods} of {workload}{on}: the {mesh} CNI plugin (type {type}) fails{why}{agent}',
});

export default defineCheck({
  ...meta('pod-sandbox-cni-failed'),
  facts: [WORKLOAD_INDEX, MESHES, NODE_AGENTS],
  messages: MESSAGES,
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
      if (e.reason !== SANDBOX_REASON) continue; // before eventInfo, which parses dates
      const ev = eventInfo(e);
      if (ev.kind !== 'Pod' || !m.inScope(ev.namespace)) continue;
      const pod = m.get('pods', ev.namespace, ev.name);
      const named = sandboxCauses(ev.message, [...byPlugin.keys()], [...byAttachment.keys()])[0];
      const unnamed = named ? undefined : unnamedCause(ev.message, pod, meshes);
      const cause: GroupCause | undefined = named ?? unnamed;
      if (!cause) continue;
      const mesh =
        cause.kind === 'unnamed'
          ? unnamed!.mesh
          : (cause.kind === 'attachment' ? byAttachment : byPlugin).get(cause.name)!;
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
    // From the spec: a Pending pod naming a mesh's attachment that is not there (no event needed).
    const nads = m.has('network-attachment-definitions') ? m.list('network-attachment-definitions') : [];
    if (nads.length && m.has('pods') && byAttachment.size) {
      const have = new Set(nads.map((n) => `${n.metadata?.namespace ?? ''}/${n.metadata?.name ?? ''}`));
      const answered = new Set(nads.map((n) => n.metadata?.namespace ?? ''));
      const covered = new Set(
        [...groups.values()].flatMap((g) => [...g.pods].map((p) => `${g.resource.namespace}/${p}`)),
      );
      let seen = 0;
      for (const pod of m.list('pods')) {
        if (++seen > 50000) break;
        const ns = pod.metadata?.namespace ?? '';
        const name = pod.metadata?.name ?? '';
        if (!m.inScope(ns) || started(pod) || covered.has(`${ns}/${name}`)) continue;
        const value = isObj(pod.metadata?.annotations) ? str(pod.metadata.annotations[NETWORKS]) : undefined;
        const missing = namedAttachments(value, ns).find(
          (a) =>
            byAttachment.has(a.name) &&
            answered.has(a.namespace) &&
            !have.has(`${a.namespace}/${a.name}`) &&
            m.inScope(a.namespace),
        );
        if (!missing) continue;
        const mesh = byAttachment.get(missing.name)!;
        const owner = arr(pod.metadata?.ownerReferences)
          .filter(isObj)
          .find((r) => r.controller === true);
        const w = owner ? workloadOfObject(m, String(owner.kind ?? ''), ns, String(owner.name ?? '')) : undefined;
        const resource = w?.ref ?? { kind: 'Pod', namespace: ns, name };
        const cause: SandboxCause = {
          kind: 'attachment',
          name: missing.name,
          ...(missing.namespace !== ns ? { namespace: missing.namespace } : {}),
        };
        const id = `${mesh}\u0000attachment/${missing.name}\u0000${resource.kind}/${resource.namespace}/${resource.name}`;
        const g = groups.get(id) ?? {
          mesh,
          cause,
          resource,
          pods: new Set<string>(),
          nodes: new Set<string>(),
          count: 0,
          message: '',
        };
        g.pods.add(name);
        const node = isObj(pod.spec) ? str(pod.spec.nodeName) : undefined;
        if (node) g.nodes.add(node);
        groups.set(id, g);
      }
    }
    const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, 200);
    for (const [, g] of sorted) {
      const p = profileOf(g.mesh);
      const cni = p.cni!;
      const pods = [...g.pods].sort();
      const nodes = [...g.nodes].sort();
      const ns = g.resource.namespace!;
      const quote = g.message
        ? printable(sandboxQuote(g.message), 400)
        : `no sandbox event read: the pods name it in their ${NETWORKS} annotation`;
      const what = `${g.resource.kind} ${ns}/${g.resource.name}`;
      let text: ReturnType<typeof say<typeof MESSAGES, keyof typeof MESSAGES & string>>;
      const fix: Step[] = [];
      if (g.cause.kind === 'attachment') {
        const where = ('namespace' in g.cause ? g.cause.namespace : undefined) ?? ns;
        const common = {
          pods: plural(pods.length, 'pod'),
          workload: what,
          attachment: g.cause.name,
          namespace: where,
          mesh: meshTitle(g.mesh),
          quote,
        };
        text = g.message
          ? say(MESSAGES, 'attachment-missing', common)
          : say(MESSAGES, 'attachment-missing-pending', { ...common, are: pods.length === 1 ? 'is' : 'are' });
        fix.push(
          ...(where === ns
            ? cni.attachment!.fix(ns)
            : [
                comment`the pods name ${where}/${g.cause.name}: create it there, or point the injected k8s.v1.cni.cncf.io/networks annotation at a namespace that has it`,
              ]),
        );
      } else if (g.cause.kind === 'unnamed') {
        const on = nodes.length ? ` on ${plural(nodes.length, 'node')} ${nodes.slice(0, 5).join(', ')}` : '';
        text = say(MESSAGES, 'plugin-unnamed', {
          pods: plural(pods.length, 'pod'),
          workload: what,
          on,
          quote,
          mesh: meshTitle(g.mesh),
          init: g.cause.name,
        });
        fix.push(
          comment`the pod of DaemonSet ${cni.daemonSet} on ${nodes[0] ?? 'the node of the pod'} installs the plugin, and its log says where it put the binary and the configuration, which must be the directories the container runtime of the node reads`,
          cmd`kubectl get pods -A -o wide --field-selector ${`spec.nodeName=${nodes[0] ?? 'NODE'}`}`,
        );
      } else {
        const on = nodes.length ? ` on ${plural(nodes.length, 'node')} ${nodes.slice(0, 5).join(', ')}` : '';
        const said = sandboxQuote(g.message, 2000);
        const known = (cni.failures ?? []).find((f) => f.line.test(said));
        // The runtime did not find the plugin's binary where it looks: the agent put it elsewhere.
        const notFound = known ? undefined : pluginNotFound(said);
        const installs = notFound ? installDirs(m, cni.daemonSet) : [];
        const elsewhere = installs.filter((d) => !notFound!.path.includes(d.dir));
        // The agent itself has no ready pod on the node of the failing pods (node-agent-incomplete's facts).
        const agentGaps = nodeAgentCoverage(m, g.mesh)
          .filter((c) => c.name === cni.daemonSet && m.seesNamespace(c.namespace))
          .flatMap((c) => c.gaps.filter((x) => g.nodes.has(x.node)).map((x) => ({ c, x })))
          .slice(0, 3);
        // The plugin calls the API server with the credentials its DaemonSet wrote on the node (a
        // kubeconfig with a ServiceAccount token): refused, they are stale (consul-k8s control-plane/cni
        // main.go "error retrieving pod"; hashicorp/consul-k8s#4106, #4442).
        const unauthorized = !known && /\bUnauthorized\b/.test(said);
        const why = known
          ? `: ${known.cause}`
          : unauthorized
            ? `: the API server refuses the credentials the plugin uses on the node (the kubeconfig its DaemonSet ${cni.daemonSet} wrote there, whose ServiceAccount token was rotated or belongs to a ServiceAccount since re-created)`
            : notFound
              ? `: the container runtime of the node looks for plugin binaries only in ${notFound.path.join(', ') || '(no directory)'}, ${
                  elsewhere.length
                    ? `but DaemonSet ${elsewhere.map((d) => `${d.ds} installs ${notFound.plugin} into ${d.dir}`).join(', and ')} (its hostPath volume ${CNI_BIN_VOLUME})`
                    : installs.length
                      ? `where DaemonSet ${installs.map((d) => d.ds).join(', ')} installs it: its pod on the node has not put it there yet`
                      : `and the binary ${notFound.plugin} is not there (the install directory of DaemonSet ${cni.daemonSet} was not read)`
                }`
              : '';
        const agent = agentGaps.length
          ? `; the ${meshTitle(g.mesh)} CNI node agent DaemonSet ${agentGaps[0]!.c.namespace}/${agentGaps[0]!.c.name} has no ready pod on ${agentGaps.map(({ x }) => `${x.node} (${x.why})`).join(', ')}`
          : '';
        text = say(MESSAGES, 'plugin-fails', {
          pods: plural(pods.length, 'pod'),
          workload: what,
          on,
          mesh: meshTitle(g.mesh),
          type: g.cause.name,
          why: `${why}${why ? ` (${quote})` : `: ${quote}`}`,
          agent,
        });
        // The control plane's default namespace: this check reads no webhook to find the installed one.
        if (known) fix.push(...known.fix(nodes[0], p.controlPlane.namespace));
        if (notFound && notFound.path.length)
          fix.push(
            comment`install the plugin where the container runtime of the node looks for it, ${notFound.path[0]!}: ${lit(cni.binDirSetting ?? `the binary directory setting of DaemonSet ${cni.daemonSet}`)}, then re-create the pods`,
          );
        if (unauthorized)
          fix.push(
            comment`delete the pod of DaemonSet ${cni.daemonSet} on the node: the DaemonSet re-creates it, and it writes the kubeconfig of the plugin anew with a current token`,
          );
        fix.push(
          comment`the pod of DaemonSet ${cni.daemonSet} on ${nodes[0] ?? 'the node of the pod'} installs and serves the plugin, and its log says why it fails`,
          cmd`kubectl get pods -A -o wide --field-selector ${`spec.nodeName=${nodes[0] ?? 'NODE'}`}`,
          comment`then read the log of the ${cni.daemonSet} pod listed there`,
        );
      }
      yield {
        mesh: g.mesh,
        ...text,
        resource: g.resource,
        affectedPods: pods.length,
        evidence: {
          cause: g.cause.kind,
          name: g.cause.name,
          ...('namespace' in g.cause && g.cause.namespace ? { attachmentNamespace: g.cause.namespace } : {}),
          pods: pods.slice(0, 20),
          nodes: nodes.slice(0, 20),
          events: g.count,
          ...(g.cause.kind === 'plugin' ? pluginEvidence(m, g.mesh, g.message, [...g.nodes]) : {}),
          ...(g.last ? { lastSeen: g.last } : {}),
          ...(g.message
            ? { message: printable(sandboxQuote(g.message, 1000), 1000) }
            : { from: `pod annotation ${NETWORKS}` }),
          ...(g.cause.kind === 'plugin' && cni.failures?.some((f) => f.line.test(sandboxQuote(g.message, 2000)))
            ? { source: cni.failures.find((f) => f.line.test(sandboxQuote(g.message, 2000)))!.source }
            : {}),
        },
        fix,
      };
    }
  },
});
