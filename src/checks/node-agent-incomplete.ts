/**
 * node-agent-incomplete — a mesh's node agent (its CNI plugin's DaemonSet: istio-cni-node,
 * linkerd-cni, kuma-cni-node, consul-cni; its sidecar-less node agent and node proxy: ztunnel) has
 * no ready pod on nodes where pods need it, and why: a taint it does not tolerate, a node selection
 * leaving the node out, its pod there not ready (an image it cannot pull, a crash), or no pod
 * created at all (the DaemonSet's FailedCreate events: a priority class kept to other namespaces,
 * "pods with system-node-critical priorityClass is not permitted in istio-system namespace", a
 * quota).
 *
 * Why: the CNI agent sets up the pod's redirection when its sandbox is created; on a node without
 * it, injected pods fail their validation init container (istio-validation,
 * linkerd-network-validator, kuma-validation) or run unredirected, and ambient pods are never
 * enrolled or have no ztunnel. The DaemonSet shows desired/ready counts but not which nodes or why;
 * the failing pods show the symptom, not the agent (istio/istio#14977, #16577, #19791, #34371:
 * system-node-critical outside kube-system; mojaloop/project#4355: istio-cni-node and ztunnel not
 * on tainted nodes, pods there failing sandbox creation; linkerd/linkerd2#9699: linkerd-cni not
 * on tainted nodes). The charts give istio-cni-node and kuma-cni-node `NoSchedule` tolerations only
 * (a `NoExecute` taint keeps them out), consul-cni `NoExecute` and CriticalAddonsOnly only, and
 * run them at priority class system-node-critical (istio/istio@86c9f01f
 * manifests/charts/istio-cni/values.yaml and templates/daemonset.yaml; kumahq/kuma@348b6528
 * deployments/charts/kuma/templates/cni-daemonset.yaml; hashicorp/consul-k8s@a507b1d1
 * charts/consul/templates/cni-daemonset.yaml; linkerd/linkerd2@b24cd405 charts/linkerd2-cni
 * values.yaml: `operator: Exists`, no priority class).
 * A CNI plugin owning the nodes' configuration (issue 31): a CNI agent whose pods run but never become ready beside
 * Cilium (src/k8s/cluster-cni.ts: unless cni.exclusive=false it removes or rewrites the configuration the agent
 * chains onto it; nforgeio/neonKUBE#1880, kubernetes/minikube#20286, cilium/cilium#26760) names Cilium and its
 * setting, which is not read (ConfigMap cilium-config), and the fix sets it.
 * An agent pod the scheduler cannot place (issue 31, round 7): its node from the DaemonSet controller's node affinity
 * (src/k8s/scheduling.ts daemonPodNode), the scheduler's message quoted, and a DaemonSet without a priority class named
 * (istio/istio#47867: ztunnel before c8f97d09 could not preempt on a full node).
 * A client agent the injected pods register with (issue 31, gen8agents): Consul's client agents before consul-k8s 1.0,
 * their DaemonSet found by its selector (the name follows the Helm release), a node without one leaving its pods'
 * consul-connect-inject-init failing against HOST_IP:8500 (src/mesh/consul/client-agent.ts; hashicorp/consul-helm#19,
 * hashicorp/consul-k8s#945, #1435).
 * The order of the CNI agents on a node (issue 31, gen9path; src/facts/cni-chain.ts): the mesh's plugin is chained onto
 * the configuration list the cluster's own agent writes when it starts (calico-node, Cilium, aws-node). Where that agent
 * started on a node after the mesh's agent last started there, the list was rewritten without the mesh's entry: said
 * with the pods created there since where the release's agent writes its entry once (the release tables' `cniRechains`:
 * linkerd-cni before 2.13, linkerd/linkerd2#4029, #4789, #7855), else only where such a pod shows it (its validation
 * failing: linkerd/linkerd2#12490). Where the mesh's agent exited after the cluster's agent started and came back
 * (Kuma's installer exits when its entry is gone), the pods created in between that fail are named (kumahq/kuma#6906);
 * an agent that restarted on a new node before the cluster's agent started there is explained (kumahq/kuma#6907).
 * When: the DaemonSets the profiles name were read. With the nodes and the agent's pods read,
 * every node that is not NotReady is judged (src/k8s/scheduling.ts: the DaemonSet controller's own
 * tolerations, the template's tolerations, nodeSelector and required node affinity): a node left
 * out by design (a taint, a selection) counts only where pods that need the agent run on it; an
 * agent pod younger than two minutes is starting. Without them, the DaemonSet's status counts
 * (numberReady below desiredNumberScheduled) and the agent pods read.
 * Known false positives: a rollout in progress; a node whose pods do not use the mesh there.
 * Fix: for the cause found: Cilium's cni.exclusive=false and the agent restarted; a ResourceQuota admitting the priority class in the agent's namespace;
 * a toleration for the taint (in the install's values, or patched); the agent pod's own failure;
 * then re-create the pods that need the agent.
 */
import { recreateAll } from '../fix/commands.js';
import { cmd, comment, type Step } from '../fix/steps.js';
import { nodeAgentCoverage, type NodeAgentCoverage, NODE_AGENTS } from '../facts/node-agents.js';
import { meshesAllowed } from '../facts/siblings.js';
import type { Workload } from '../facts/model.js';
import { podSpec } from '../k8s/pods.js';
import { meshTitle } from '../mesh/registry.js';
import { hasControl } from '../util/errors.js';
import { arr, isObj, nameOf, nsOf, plural, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';
import { exclusiveCni } from '../facts/cluster-cni.js';
import type { ExclusiveCni } from '../k8s/cluster-cni.js';
import { APP_WORKLOADS, MESHES } from '../facts/model.js';
import { CNI_CHAIN_ORDER, cniChainOrder } from '../facts/cni-chain.js';
import { INJECTOR_RELEASES, cniRechains } from '../facts/releases.js';
import type { MeshName } from '../mesh/names.js';
import { COMPONENT_STATES, downDependency } from '../facts/components.js';

/** A step applying JSON from stdin, unless a cluster value in it holds a control character. */
function apply(obj: unknown): Step | undefined {
  const json = JSON.stringify(obj);
  return hasControl(json) ? undefined : cmd`printf %s ${json} | kubectl apply -f -`;
}

/** Let the mesh's plugin chain onto the cluster's: the owner's setting, then the agent's pods restarted. */
function ownerFix(c: NodeAgentCoverage, x: ExclusiveCni): Step[] {
  return [
    comment`${x.product} must not own the CNI configuration of the nodes alone: set ${x.setting} in the values of its install, below for a Helm release named ${x.helm.release}: use your release name. Then restart the agent`,
    cmd`helm upgrade ${x.helm.release} ${x.helm.chart} -n ${x.namespace} --reuse-values --set ${x.helm.set}`,
    cmd`kubectl -n ${c.namespace} rollout restart daemonset ${c.name}`,
  ];
}

function fixFor(c: NodeAgentCoverage): Step[] {
  const steps: Step[] = [];
  const { namespace: ns, name } = c;
  const fc = c.failedCreate;
  const tmpl = podSpec(isObj(c.ds.spec) && isObj(c.ds.spec.template) ? c.ds.spec.template : undefined);
  const pc = fc?.priorityClass ?? (typeof tmpl.priorityClassName === 'string' ? tmpl.priorityClassName : undefined);
  if (fc?.priorityClass || (fc?.quota && pc)) {
    steps.push(
      comment`a ResourceQuota scoped to priority class ${pc!} lets the DaemonSet create its pods in ${ns}: the API server admits that class outside kube-system only where such a quota exists`,
    );
    const q = apply({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: `${pc}-pods`.slice(0, 63), namespace: ns },
      spec: {
        hard: { pods: '1000' },
        scopeSelector: { matchExpressions: [{ operator: 'In', scopeName: 'PriorityClass', values: [pc] }] },
      },
    });
    if (q) steps.push(q);
  } else if (fc?.quota)
    steps.push(
      comment`a ResourceQuota of ${ns} refuses the pods of the agent`,
      cmd`kubectl -n ${ns} describe resourcequota`,
    );
  const taints = new Map<string, { key: string; value?: string; effect: string }>();
  for (const g of c.gaps) for (const t of g.taints ?? []) taints.set(`${t.key}:${t.effect}`, t);
  if (taints.size) {
    const tolerations = [
      ...(Array.isArray(tmpl.tolerations) ? tmpl.tolerations : []),
      ...[...taints.values()].map((t) => ({ key: t.key, operator: 'Exists', effect: t.effect })),
    ];
    const patch = JSON.stringify([{ op: 'add', path: '/spec/template/spec/tolerations', value: tolerations }]);
    steps.push(
      comment`the agent must run on every node where meshed pods run: tolerate the taints, and set the same tolerations in the values of the install, or the next upgrade removes them`,
      ...(hasControl(patch) ? [] : [cmd`kubectl -n ${ns} patch daemonset ${name} --type json -p ${patch}`]),
    );
  }
  if (c.gaps.some((g) => g.kind === 'selection'))
    steps.push(
      comment`the nodeSelector or node affinity of the DaemonSet leaves nodes out where meshed pods run: widen it in the values of the install`,
      cmd`kubectl -n ${ns} get daemonset ${name} -o ${'jsonpath={.spec.template.spec.nodeSelector} {.spec.template.spec.affinity}'}`,
    );
  const unplaced = c.gaps.find((g) => g.kind === 'unschedulable');
  if (unplaced?.noPriority) {
    const patch = JSON.stringify({ spec: { template: { spec: { priorityClassName: 'system-node-critical' } } } });
    steps.push(
      comment`a node agent must preempt the pods of a full node: give the DaemonSet priority class system-node-critical, in the values of the install too, or the next upgrade removes it, and outside kube-system a ResourceQuota scoped to that class in ${ns} where the API server asks for one`,
      cmd`kubectl -n ${ns} patch daemonset ${name} --type merge -p ${patch}`,
    );
  }
  if (unplaced?.pod)
    steps.push(
      comment`the scheduler cannot place the pod of the agent on node ${unplaced.node}: its events say why, and the allocated resources of the node what fills it`,
      cmd`kubectl -n ${ns} describe pod ${unplaced.pod}`,
      cmd`kubectl describe node ${unplaced.node}`,
    );
  const notReady = c.gaps.find((g) => g.kind === 'not-ready');
  if (notReady?.pod)
    steps.push(
      comment`the pod of the agent on node ${notReady.node} is not ready: its events and log say why`,
      cmd`kubectl -n ${ns} describe pod ${notReady.pod}`,
    );
  if (!steps.length)
    steps.push(comment`why the DaemonSet has no ready pod there`, cmd`kubectl -n ${ns} describe daemonset ${name}`);
  return steps;
}

const MESSAGES = messages({
  'no-ready-pod':
    "DaemonSet {daemonSet} ({mesh}'s {agent}) has no ready pod on {nodeCount}: {nodes}{counts}{failedCreate}{exclusive}{affected}.",
  'fewer-ready': "DaemonSet {daemonSet} ({mesh}'s {agent}) has {counts}{failedCreate}{exclusive}{affected}.",
  'chain-rewritten':
    "On node {node}, {product}'s agent {primaryPod} (DaemonSet {primaryDs}) started at {primaryStarted}, after {mesh}'s CNI node agent {agentPod} (DaemonSet {agentDs}) last started there at {agentStarted}: {product}'s agent writes the node's CNI configuration anew when it starts, without the entry of {agentDs}, and {readds}; {pods} on {node} since then {effect}.",
  'chain-window':
    "On node {node}, {product}'s agent {primaryPod} (DaemonSet {primaryDs}) started at {primaryStarted} and wrote the node's CNI configuration anew, without {mesh}'s plugin; {mesh}'s CNI node agent {agentPod} (DaemonSet {agentDs}) exited after it ({exit}) and put its plugin back only when it started again at {agentStarted}: {pods} created on {node} in between {effect}.",
  'agent-before-primary':
    "{mesh}'s CNI node agent {agentPod} (DaemonSet {agentDs}) started on node {node} before {product}'s agent there ({primaryPod}, DaemonSet {primaryDs}, started at {primaryStarted}) and exited {restarts} ({exit}) before that one started: it chains its plugin onto {product}'s configuration, which did not exist yet on the new node; it is running now.",
});

/**
 * The cluster's CNI plugin that owns the nodes' CNI configuration (Cilium with cni.exclusive) beside a CNI agent whose
 * pods run but never become ready: the agent keeps re-adding the plugin the owner removes (nforgeio/neonKUBE#1880,
 * kubernetes/minikube#20286, cilium/cilium#26760). Only for an agent that writes CNI configuration, and only where its
 * pods are running with no container waiting (a crash or a pull is their own cause).
 */
function exclusiveOwner(m: Parameters<typeof nodeAgentCoverage>[0], c: NodeAgentCoverage) {
  if (!c.cni) return undefined;
  const running = c.gaps.filter((g) => g.kind === 'not-ready' && g.running && g.pod);
  if (!running.length) return undefined;
  const x = exclusiveCni(m);
  if (!x) return undefined;
  const pods = running.map((g) => g.pod!).sort();
  return {
    x,
    pods,
    clause: `; ${x.product} is the cluster's CNI plugin (DaemonSet ${x.namespace}/${x.daemonSet}${x.image ? `, ${x.image}` : ''}) and ${pods.length === 1 ? `the agent pod ${pods[0]} runs` : `the agent pods ${pods.slice(0, 5).join(', ')} run`} but never ${pods.length === 1 ? 'becomes' : 'become'} ready: unless ${x.setting}, ${x.product} owns the nodes' CNI configuration directory and removes or rewrites the configuration the agent chains onto it, so the agent keeps re-adding its plugin (${x.readFrom} was not read)`,
  };
}

/** A time as the API writes it, to the second. */
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * What a pod set up in the gap shows: its validation (or any init) container failing, or the pod stuck creating its
 * containers; undefined where it runs (a pod that runs unredirected shows nothing the API can tell).
 */
function symptom(pod: K8sObject): string | undefined {
  const st = isObj(pod.status) ? pod.status : {};
  for (const c of [...arr(st.initContainerStatuses), ...arr(st.containerStatuses)].slice(0, 20)) {
    if (!isObj(c)) continue;
    const waiting = isObj(c.state) && isObj(c.state.waiting) ? str(c.state.waiting.reason) : undefined;
    const last = isObj(c.lastState) && isObj(c.lastState.terminated) ? c.lastState.terminated : undefined;
    if (waiting === 'CrashLoopBackOff' || (last && typeof last.exitCode === 'number' && last.exitCode !== 0 && waiting))
      return `${str(c.name) ?? 'a container'} ${waiting ?? 'failing'}${last && typeof last.exitCode === 'number' ? `, exit code ${last.exitCode}` : ''}`;
  }
  const stuck = arr(st.containerStatuses).some(
    (c) => isObj(c) && isObj(c.state) && isObj(c.state.waiting) && c.state.waiting.reason === 'ContainerCreating',
  );
  return st.phase === 'Pending' && stuck ? 'stuck in ContainerCreating' : undefined;
}

/**
 * The order the cluster's CNI agent and the mesh's wrote a node's CNI configuration (src/facts/cni-chain.ts): the
 * mesh's plugin dropped from the chain and not put back (a release whose agent writes it once: the release tables'
 * `cniRechains`), or dropped while pods were created (their validation fails), or the agent restarting on a new node
 * until the cluster's plugin wrote its configuration. Where the release puts the plugin back by itself, or is not
 * known, a gap counts only where a pod created in it shows it (a container failing, a sandbox never made).
 */
function* chainFindings(m: Parameters<typeof nodeAgentCoverage>[0], mesh: MeshName) {
  const rechains = cniRechains(m, mesh);
  for (const o of cniChainOrder(m, mesh)) {
    const base = {
      node: o.node,
      product: o.primary.product,
      primaryPod: `${o.primary.namespace}/${o.primary.pod}`,
      primaryDs: `${o.primary.namespace}/${o.primary.daemonSet}`,
      primaryStarted: iso(o.primary.started),
      mesh: meshTitle(mesh),
      agentPod: `${o.agent.namespace}/${o.agent.pod}`,
      agentDs: o.agent.daemonSet,
      agentStarted: iso(o.agent.started),
    };
    const ids = o.pods.map((p) => `${nsOf(p)}/${nameOf(p)}`);
    const shown = o.pods.flatMap((p) => {
      const s = symptom(p);
      return s ? [`${nsOf(p)}/${nameOf(p)}: ${s}`] : [];
    });
    const exit = o.agent.lastExit
      ? `last exit${o.agent.lastExit.code !== undefined ? ` code ${o.agent.lastExit.code}` : ''} at ${iso(o.agent.lastExit.at)}`
      : 'its last exit not kept';
    const podList = `${plural(ids.length, 'pod')} created (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''})`;
    const effect = shown.length
      ? `were set up without the plugin: ${shown.slice(0, 3).join('; ')}`
      : 'were set up without the plugin: their traffic bypasses the proxy, or, where the agent wrote a configuration of its own first, they have no working network';
    const restartAgent = [
      comment`put the plugin back into the configuration of node ${o.node}: restart the agent pod there, then re-create the pods created on that node since ${base.primaryStarted}`,
      cmd`kubectl -n ${o.agent.namespace} delete pod ${o.agent.pod}`,
    ];
    const podsFix = o.pods.slice(0, 10).map((p) => cmd`kubectl -n ${nsOf(p)} delete pod ${nameOf(p)}`);
    const evidence = {
      daemonSet: `${o.agent.namespace}/${o.agent.daemonSet}`,
      node: o.node,
      order: o.kind,
      agent: {
        pod: base.agentPod,
        started: base.agentStarted,
        restarts: o.agent.restarts,
        lastExit: o.agent.lastExit ? iso(o.agent.lastExit.at) : null,
      },
      cniAgent: {
        product: o.primary.product,
        pod: base.primaryPod,
        daemonSet: base.primaryDs,
        started: base.primaryStarted,
      },
      podsInGap: ids.slice(0, 20),
      failing: shown.slice(0, 20),
      rechains: rechains ? { readds: rechains.readds, how: rechains.how, source: rechains.source } : null,
    };
    const resource = { kind: 'Pod' as const, namespace: o.agent.namespace, name: o.agent.pod };
    // One shape for the three findings of an order: the agent pod, its evidence, what it said and the fix.
    const finding = <S extends ReturnType<typeof say>>(said: S, affectedPods: number, fix: Step[]) => ({
      mesh,
      ...said,
      resource,
      affectedPods,
      evidence,
      fix,
    });
    if (o.kind === 'open') {
      if (!ids.length || (rechains?.readds !== false && !shown.length)) continue;
      const readds =
        rechains?.readds === false
          ? `${meshTitle(mesh)}'s agent of this release does not add it back: ${rechains.how} (${rechains.source})`
          : `the agent has not started again since to add it back${rechains ? ` (${rechains.how}: a change it missed)` : ''}`;
      yield finding(say(MESSAGES, 'chain-rewritten', { ...base, readds, pods: podList, effect }), ids.length, [
        ...restartAgent,
        ...podsFix,
        ...(rechains?.readds === false
          ? [
              comment`for good: a release of the mesh whose CNI agent watches the configuration directory and adds its plugin back`,
            ]
          : []),
      ]);
    } else if (o.kind === 'window') {
      if (!shown.length) continue;
      yield finding(say(MESSAGES, 'chain-window', { ...base, exit, pods: podList, effect }), ids.length, [
        comment`the plugin is back on node ${o.node}: re-create the pods set up while it was missing`,
        ...podsFix,
      ]);
    } else {
      yield finding(
        say(MESSAGES, 'agent-before-primary', { ...base, restarts: plural(o.agent.restarts, 'time'), exit }),
        0,
        [
          comment`nothing to repair while the agent runs: on new nodes it restarts until the cluster CNI plugin has written its configuration. Its previous log says why it exited`,
          cmd`kubectl -n ${o.agent.namespace} logs ${o.agent.pod} --previous`,
        ],
      );
    }
  }
}

/** Its evidence: the agent's DaemonSet (namespace/name), and what each finding saw. */
type AgentEvidence = { daemonSet: string; [more: string]: unknown };

export default defineCheck<AgentEvidence, typeof MESSAGES>({
  ...meta('node-agent-incomplete'),
  facts: [APP_WORKLOADS, NODE_AGENTS, MESHES, CNI_CHAIN_ORDER, INJECTOR_RELEASES, COMPONENT_STATES],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      yield* chainFindings(m, mesh);
      for (const c of nodeAgentCoverage(m, mesh)) {
        const affected = [
          ...new Map(c.gaps.flatMap((g) => g.affected).map((p) => [`${nsOf(p)}/${nameOf(p)}`, p])).values(),
        ];
        const ids = affected.map((p) => `${nsOf(p)}/${nameOf(p)}`).sort();
        const counts =
          c.desired !== undefined && c.ready !== undefined
            ? `${c.ready} of ${c.desired} desired pods ready`
            : undefined;
        const failedCreate = c.failedCreate
          ? `; the DaemonSet controller cannot create its pods: "${c.failedCreate.message}"`
          : '';
        const tie = ids.length
          ? `; ${plural(ids.length, 'pod')} on ${c.gaps.length === 1 ? 'that node' : 'those nodes'} ${ids.length === 1 ? 'needs' : 'need'} it (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}) and ${c.without ?? `${ids.length === 1 ? 'fails' : 'fail'} validation or ${ids.length === 1 ? 'runs' : 'run'} outside the mesh`}`
          : '';
        const owner = exclusiveOwner(m, c);
        // The workloads of the affected pods, to re-create once the agent runs.
        const byPod = new Set(affected);
        const ws: Workload[] = m.appWorkloads.filter((w) => w.pods.some((p: K8sObject) => byPod.has(p)));
        const fix = [...(owner ? ownerFix(c, owner.x) : []), ...fixFor(c)];
        if (ws.length)
          fix.push(comment`once the agent is ready on the nodes, re-create the pods that need it`, ...recreateAll(ws));
        const common = {
          daemonSet: `${c.namespace}/${c.name}`,
          mesh: meshTitle(mesh),
          agent: c.title,
          failedCreate,
          exclusive: owner?.clause ?? '',
          affected: tie,
        };
        const said = c.gaps.length
          ? say(MESSAGES, 'no-ready-pod', {
              ...common,
              nodeCount: plural(c.gaps.length, 'node'),
              nodes: `${c.gaps
                .slice(0, 5)
                .map((g) => `${g.node} (${g.why})`)
                .join(', ')}${c.gaps.length > 5 ? ', ...' : ''}`,
              counts: counts ? `; ${counts}` : '',
            })
          : say(MESSAGES, 'fewer-ready', { ...common, counts: counts ?? 'fewer ready pods than desired' });
        // Its pods run but wait for another component that does not run (Consul's servers): that one is the cause.
        const needed = c.gaps.every((g) => g.kind === 'not-ready') ? downDependency(m, mesh, c.ds) : undefined;
        yield {
          mesh,
          ...(needed ? { causedBy: { kind: 'component-down' as const, mesh, component: needed.component.id } } : {}),
          ...said,
          resource: { kind: 'DaemonSet', namespace: c.namespace, name: c.name },
          affectedPods: ids.length,
          evidence: {
            daemonSet: `${c.namespace}/${c.name}`,
            agent: c.title,
            desired: c.desired ?? null,
            ready: c.ready ?? null,
            nodesExamined: c.nodesRead,
            nodes: c.gaps.slice(0, 50).map((g) => ({
              node: g.node,
              cause: g.kind,
              why: g.why,
              affectedPods: g.affected.slice(0, 20).map((p) => `${nsOf(p)}/${nameOf(p)}`),
            })),
            ...(c.failedCreate ? { failedCreate: c.failedCreate } : {}),
            ...(owner
              ? {
                  exclusiveCni: {
                    product: owner.x.product,
                    daemonSet: `${owner.x.namespace}/${owner.x.daemonSet}`,
                    image: owner.x.image ?? null,
                    setting: owner.x.setting,
                    settingRead: false,
                    source: owner.x.source,
                  },
                }
              : {}),
          },
          fix,
        };
      }
    }
  },
});
