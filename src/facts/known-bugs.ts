/**
 * Known injector and proxy bugs the cluster shows (issue 31.9): a bug of the release tables
 * (src/mesh/<mesh>/releases.ts `bugs`, read through knownBugs in src/mesh/releases.ts) whose
 * affected versions hold the installed release's, and whose symptom the cluster shows now. A
 * release the tables cannot place or order names no bug; a fixed release showing the same
 * symptom names none either (other checks say what they see).
 */
import { WORKLOAD_DECISION_INPUTS } from './decision.js';
import { eventInfo, failedCreates } from '../k8s/events.js';
import { SANDBOX_REASON, sandboxCauses, sandboxQuote } from '../k8s/sandbox.js';
import { defineFact } from '../k8s/fact.js';
import { podHealth } from '../k8s/health.js';
import { containers, initContainers, isActive, podSpec } from '../k8s/pods.js';
import type { K8sObject } from '../util/types.js';
import { annotationsOf, arr, isObj, labelOf, labelsOf, nameOf, str } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import type { ControlPlaneComponent } from '../mesh/profile.js';
import type { VersionRead } from '../mesh/profile.js';
import type { BugTrigger, KnownBug } from '../mesh/release-table.js';
import { profileOf } from '../mesh/registry.js';
import { allBugs, knownBugs, knownBugsShared } from '../mesh/releases.js';
import { compareSemver, containerVersion } from '../mesh/versions.js';
import { injectedNames } from '../mesh/proxy.js';
import { podsCarrying } from './pods.js';
import { injectors, type Injector } from './controlplane.js';
import { MESHES, type Model, type Workload } from './model.js';
import { injectorsFor, proxyVersion } from './versions.js';

/** One bug shown: where, the version that places it in the affected range, and what the cluster shows. */
interface BugShown {
  mesh: MeshName;
  bug: KnownBug;
  version: VersionRead;
  /** The injector whose release is judged (injector and workload symptoms). */
  injector?: Injector;
  /** The workload whose pods show it (pod and workload symptoms). */
  workload?: Workload;
  /** The pods that show it (names), or the injector's. */
  pods: string[];
  /** What was seen, quoted (a status reason and message, an event's message). */
  seen: string;
}

const MAX_PODS = 50;

/** Init and app container statuses of a pod. */
const allStatuses = (pod: K8sObject): Record<string, any>[] =>
  isObj(pod.status)
    ? [...arr(pod.status.initContainerStatuses), ...arr(pod.status.containerStatuses)].filter(isObj)
    : [];

/**
 * A container name of a bug's symptom or trigger names that container, or (ending in `*`) every container whose name
 * starts with the rest: the containers an injector names after a service (consul-k8s's multi-port pods inject
 * `consul-dataplane-<service>` and `consul-connect-inject-init-<service>`).
 */
const named = (name: unknown, pattern: string): boolean =>
  typeof name === 'string' &&
  (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) && name.length >= pattern.length : name === pattern);

/** The pod's container of that name waits with that reason and a message holding the fragment: the message. */
function waitingWith(pod: K8sObject, s: Extract<KnownBug['symptom'], { shows: 'waiting' }>): string | undefined {
  const reasons: readonly string[] = typeof s.reason === 'string' ? [s.reason] : s.reason;
  for (const c of allStatuses(pod)
    .filter((x) => named(x.name, s.container))
    .slice(0, 16)) {
    const w = isObj(c.state?.waiting) ? c.state.waiting : undefined;
    const message = str(w?.message) ?? '';
    const reason = str(w?.reason) ?? '';
    if (w && reasons.includes(reason) && message.includes(s.message))
      return `container ${String(c.name)} waiting: ${reason}${message ? `: ${message.slice(0, 300)}` : ''}`;
  }
  return undefined;
}

/** How long a terminated run lasted, in seconds (startedAt to finishedAt); undefined: either time not read. */
function runSeconds(t: Record<string, any>): number | undefined {
  const from = Date.parse(str(t.startedAt) ?? '');
  const to = Date.parse(str(t.finishedAt) ?? '');
  return Number.isFinite(from) && Number.isFinite(to) && to >= from ? (to - from) / 1000 : undefined;
}

/**
 * The pod's container of that name ended (now, or its last run) with that reason or a message holding the fragment,
 * after a run of at least `afterRunning` seconds where the bug says so: what it says.
 */
function terminatedWith(pod: K8sObject, s: Extract<KnownBug['symptom'], { shows: 'terminated' }>): string | undefined {
  for (const c of allStatuses(pod)
    .filter((x) => named(x.name, s.container))
    .slice(0, 16))
    for (const t of [c.state?.terminated, c.lastState?.terminated]) {
      if (!isObj(t)) continue;
      const message = (str(t.message) ?? '').slice(0, 300).replace(/\s+/g, ' ').trim();
      const reason = str(t.reason) ?? '';
      const ran = runSeconds(t);
      if (s.afterRunning !== undefined && (ran === undefined || ran < s.afterRunning)) continue;
      if (reason === s.reason || (s.message !== undefined && message.includes(s.message)))
        return `container ${String(c.name)} terminated: ${reason || 'no reason'}${t.exitCode !== undefined ? ` (exit code ${String(t.exitCode)})` : ''}${message ? `: ${message}` : ''}`;
    }
  return undefined;
}

/**
 * What the cluster shows of a bug's trigger for the pod, as text to add to what it shows (undefined:
 * not shown; a list: every trigger shows): `headless-service`, the Services of its namespace with
 * clusterIP None selecting it; an annotation of the pod (with a value matching); a container of the
 * pod whose command, args or postStart hook hold a fragment.
 */
function triggered(
  m: Model,
  pod: K8sObject,
  when: BugTrigger | readonly BugTrigger[],
  injected: readonly string[],
): string | undefined {
  const all: readonly BugTrigger[] = Array.isArray(when) ? (when as readonly BugTrigger[]) : [when as BugTrigger];
  let seen = '';
  for (const t of all.slice(0, 8)) {
    const one = triggeredBy(m, pod, t, injected);
    if (one === undefined) return undefined;
    seen += one;
  }
  return seen;
}

function triggeredBy(m: Model, pod: K8sObject, when: BugTrigger, injected: readonly string[]): string | undefined {
  if (when === 'headless-service') return headlessSelecting(m, pod);
  if (when === 'first-container-without-ports') return firstWithoutPorts(pod, injected);
  if ('nativeSidecar' in when) {
    const c = initContainers(podSpec(pod as { spec?: unknown })).find((x) => x.name === when.nativeSidecar);
    return c?.restartPolicy === 'Always'
      ? `; container ${when.nativeSidecar} runs as a native sidecar (an init container with restartPolicy: Always)`
      : undefined;
  }
  if ('annotation' in when) {
    const value = annotationsOf(pod)[when.annotation];
    if (value === undefined || (when.matches !== undefined && !new RegExp(when.matches).test(value))) return undefined;
    return `; annotation ${when.annotation}: ${JSON.stringify(value.slice(0, 80))}`;
  }
  const spec = podSpec(pod as { spec?: unknown });
  for (const c of [...initContainers(spec), ...containers(spec)]
    .filter((x) => named(x.name, when.container))
    .slice(0, 16)) {
    const hook = isObj(c.lifecycle?.postStart?.exec) ? c.lifecycle.postStart.exec.command : undefined;
    const words = [...arr(c.command), ...arr(c.args), ...arr(hook)].slice(0, 200).filter((w) => typeof w === 'string');
    if (words.some((w) => w.includes(when.holds))) return `; container ${String(c.name)} runs ${when.holds}`;
  }
  return undefined;
}

/**
 * The pod's first container the mesh did not inject declares no ports while a later one does (as the injector saw the
 * pod: its own containers, in order), as text; undefined: not so.
 */
function firstWithoutPorts(pod: K8sObject, injected: readonly string[]): string | undefined {
  const own = containers(podSpec(pod as { spec?: unknown }))
    .filter((c) => !injected.includes(str(c.name) ?? ''))
    .slice(0, 64);
  const ported = (c: Record<string, any>) => arr(c.ports).length > 0;
  const later = own.slice(1).find(ported);
  return own[0] && !ported(own[0]) && later
    ? `; its first container ${String(own[0].name)} declares no ports, container ${String(later.name)} does`
    : undefined;
}

/** The headless Services (clusterIP None) of the pod's namespace selecting it, as text; undefined: none, or Services not read. */
function headlessSelecting(m: Model, pod: K8sObject): string | undefined {
  const ns = str(pod.metadata?.namespace) ?? '';
  if (!m.readIn('services', ns)) return undefined;
  const labels = labelsOf(pod);
  const headless = m
    .inNamespace('services', ns)
    .filter((s) => {
      const spec = isObj(s.spec) ? s.spec : {};
      const sel = isObj(spec.selector) ? (spec.selector as Record<string, unknown>) : {};
      const keys = Object.keys(sel).slice(0, 64);
      return spec.clusterIP === 'None' && keys.length > 0 && keys.every((k) => labels[k] === sel[k]);
    })
    .map(nameOf)
    .sort()
    .slice(0, 8);
  return headless.length
    ? `; headless Service ${headless.map((n) => `${ns}/${n}`).join(', ')} (clusterIP: None) selects it`
    : undefined;
}

/**
 * The pod may show a pod symptom: a container (init or app) waiting, or terminated now or last, or a sandbox failure
 * about it. False: every pod symptom (waitingWith, terminatedWith, sandboxWith) is absent, whatever the bug.
 */
function mayShow(pod: K8sObject, sandbox: ReadonlyMap<string, string[]>): boolean {
  if (sandbox.size && sandbox.has(`${str(pod.metadata?.namespace) ?? ''}/${nameOf(pod)}`)) return true;
  if (!isObj(pod.status)) return false;
  for (const list of [pod.status.initContainerStatuses, pod.status.containerStatuses]) {
    if (!Array.isArray(list)) continue;
    for (const c of list)
      if (isObj(c) && (isObj(c.state?.waiting) || isObj(c.state?.terminated) || isObj(c.lastState?.terminated)))
        return true;
  }
  return false;
}

/** What a pod shows of a pod symptom, quoted; undefined: not shown. */
const podShows = (
  pod: K8sObject,
  s: Extract<KnownBug['symptom'], { on: 'pod' }>,
  sandbox: ReadonlyMap<string, string[]>,
): string | undefined =>
  s.shows === 'waiting'
    ? waitingWith(pod, s)
    : s.shows === 'terminated'
      ? terminatedWith(pod, s)
      : sandboxWith(pod, s, sandbox);

/** The kubelet's sandbox failures of the pod naming the mesh's CNI plugin and holding the fragment: the last, quoted. */
function sandboxWith(
  pod: K8sObject,
  s: Extract<KnownBug['symptom'], { shows: 'sandbox-failed' }>,
  sandbox: ReadonlyMap<string, string[]>,
): string | undefined {
  const messages = sandbox.get(`${str(pod.metadata?.namespace) ?? ''}/${nameOf(pod)}`) ?? [];
  const hit = messages.find((msg) => msg.includes(s.message));
  return hit ? `${SANDBOX_REASON}: ${sandboxQuote(hit)}` : undefined;
}

/**
 * The pods' sandbox failures (FailedCreatePodSandBox about a pod) whose message names the mesh's CNI plugin, by
 * namespace/name, last seen first (bounded).
 */
function sandboxFailures(m: Model, plugin: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!plugin) return out;
  const events = m.list('events');
  for (let i = 0; i < events.length && i < 50_000; i++) {
    const e = events[i]!;
    if (e.reason !== SANDBOX_REASON) continue;
    const ev = eventInfo(e);
    if (ev.kind !== 'Pod' || !m.inScope(ev.namespace)) continue;
    if (!sandboxCauses(ev.message, [plugin], []).length) continue;
    const key = `${ev.namespace}/${ev.name}`;
    const list = out.get(key) ?? [];
    if (list.length < 8) list.push(ev.message);
    out.set(key, list);
  }
  return out;
}

/**
 * The version of the release that injected a pod, read from the image tag of its container `name`
 * (a helper the injector adds with its own image, consul-k8s 0.x's lifecycle sidecar).
 */
function injectedBy(pod: K8sObject, name: string): VersionRead | undefined {
  const spec = podSpec(pod as { spec?: unknown });
  const c = [...containers(spec), ...initContainers(spec)].find((x) => named(x.name, name));
  return containerVersion(c, `container ${String(c?.name ?? name)}`);
}

/** The node agents (component ids) whose release a pod bug of the mesh is judged by (componentFrom). */
function agentIds(p: ReturnType<typeof profileOf>): string[] {
  return [
    ...new Set(
      allBugs(p.versions?.releases).flatMap((b) =>
        b.symptom.on === 'pod' && b.symptom.componentFrom ? [b.symptom.componentFrom] : [],
      ),
    ),
  ];
}

/**
 * The release of each installed mesh's node agents per node (the components a pod bug's componentFrom names: the CNI
 * installer), read from the image tag of their pods' first container whose tag is x.y.z: mesh -> component id -> node
 * -> version. One pass over the pods for every mesh (issue 33: not one per mesh), each pod asked one label of each
 * component before anything else. Pods of namespaces the run does not see are left out (live and offline runs agree);
 * a node whose agent pods disagree is left out (a rollout: not told).
 */
const NODE_AGENT_RELEASES = defineFact({
  id: 'node-agent-releases',
  inputs: [...new Set([...MESHES.inputs, 'pods' as const])],
  compute: (m: Model): Map<MeshName, Map<string, Map<string, VersionRead>>> => {
    const out = new Map<MeshName, Map<string, Map<string, VersionRead>>>();
    const wanted: {
      c: ControlPlaneComponent;
      sets: (readonly [string, string])[][];
      byNode: Map<string, VersionRead>;
      mixed: Set<string>;
    }[] = [];
    const agentsOf: { byId: Map<string, Map<string, VersionRead>>; mixed: Set<string> }[] = [];
    for (const { mesh } of m.meshes) {
      const p = profileOf(mesh);
      const ids = agentIds(p);
      const byId = new Map<string, Map<string, VersionRead>>();
      out.set(mesh, byId);
      const comps = (p.components ?? []).filter((c) => ids.includes(c.id));
      for (const c of comps) byId.set(c.id, new Map());
      const mixed = new Set<string>();
      agentsOf.push({ byId, mixed });
      for (const c of comps)
        wanted.push({ c, sets: c.podLabels.map((set) => Object.entries(set)), byNode: byId.get(c.id)!, mixed });
    }
    if (!wanted.length) return out;
    const pods = m.list('pods');
    for (let i = 0; i < pods.length && i < 20_000; i++) {
      const pod = pods[i]!;
      let spec: Record<string, any> | undefined;
      let node: string | undefined;
      for (const w of wanted) {
        if (!w.sets.some((set) => set.every(([k, v]) => labelOf(pod, k) === v))) continue;
        if (!spec) {
          spec = podSpec(pod as { spec?: unknown });
          node = str(spec.nodeName);
        }
        if (!node || !isActive(pod) || !m.seesNamespace(str(pod.metadata?.namespace) ?? '')) break;
        const c = w.c;
        const read = containers(spec)
          .slice(0, 8)
          .map((x) =>
            containerVersion(
              x,
              `${c.title} pod ${str(pod.metadata?.namespace)}/${nameOf(pod)} container ${str(x.name)}`,
            ),
          )
          .find((v) => v !== undefined);
        if (!read) continue;
        const had = w.byNode.get(node);
        if (had && had.version !== read.version) w.mixed.add(`${c.id}\u0000${node}`);
        else w.byNode.set(node, read);
      }
    }
    for (const { byId, mixed } of agentsOf)
      for (const k of mixed) {
        const [id, node] = k.split('\u0000') as [string, string];
        byId.get(id)?.delete(node);
      }
    return out;
  },
});

/** The component's release holds the bug: inside its affected x.y.z range (a version not x.y.z is not judged). */
const componentAffected = (b: KnownBug, version: string): boolean => {
  const lo = compareSemver(version, b.affected.from);
  const hi = compareSemver(version, b.affected.to);
  return lo !== undefined && hi !== undefined && lo >= 0 && hi <= 0;
};

/** A workload of the mesh's own control plane (its labels, as the profile knows them). */
const ownControlPlane = (p: ReturnType<typeof profileOf>, w: Workload): boolean =>
  p.controlPlane.isWorkload(labelsOf(w.template));

/** The refusal is about the injected containers, as the bug's symptom says it is known. */
function refusesInjected(
  w: Workload,
  message: string,
  s: Extract<KnownBug['symptom'], { shows: 'create-refused' }>,
): boolean {
  if (!message.includes(s.message)) return false;
  switch (s.about ?? 'quota') {
    case 'quota':
      return refusesInjectedOnly(w, message);
    case 'named': {
      const spec = podSpec(w.template as { spec?: unknown });
      const own = new Set([...containers(spec), ...initContainers(spec)].map((c) => str(c.name)));
      return !!s.container && message.includes(`"${s.container}"`) && !own.has(s.container);
    }
    case 'matches':
      return !!s.pattern && new RegExp(s.pattern).test(message);
  }
}

/**
 * The resources a quota's refusal names as missing ("must specify limits.cpu,limits.memory", or
 * since Kubernetes 1.28 "must specify limits.cpu for: noop; limits.memory for: noop"), with the
 * containers it names (empty: not named). kubernetes/kubernetes
 * staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go.
 */
function quotaMissing(message: string): { resource: string; containers: string[] }[] {
  const i = message.indexOf('must specify ');
  if (i < 0) return [];
  return message
    .slice(i + 'must specify '.length)
    .split('; ')
    .slice(0, 20)
    .flatMap((part) => {
      const [res, names] = part.split(' for: ');
      const containers = (names ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      return (res ?? '')
        .split(',')
        .map((r) => r.trim())
        .filter((r) => /^(limits|requests)\.[a-z-]+$/.test(r))
        .map((resource) => ({ resource, containers }));
    });
}

/** The resource ("limits.cpu") is set on the container. */
function sets(c: Record<string, any>, resource: string): boolean {
  const [kind, name] = resource.split('.') as [string, string];
  const r = isObj(c.resources) ? c.resources[kind] : undefined;
  return isObj(r) && r[name] !== undefined;
}

/**
 * The refusal is about containers the workload's template does not have itself (the injected
 * ones): every container it names is not the template's, or (not named) every container of the
 * template sets every resource it names.
 */
function refusesInjectedOnly(w: Workload, message: string): boolean {
  const missing = quotaMissing(message);
  if (!missing.length) return false;
  const spec = podSpec(w.template as { spec?: unknown });
  const own = [...containers(spec), ...initContainers(spec)];
  const names = new Set(own.map((c) => str(c.name)));
  return missing.every((m) =>
    m.containers.length ? m.containers.every((n) => !names.has(n)) : own.every((c) => sets(c, m.resource)),
  );
}

/** Every known bug the cluster shows, per mesh, in a stable order. */
export function bugsShown(m: Model): BugShown[] {
  return m.fact(BUGS_SHOWN);
}

export const BUGS_SHOWN = defineFact({
  id: 'known-bugs-shown',
  inputs: [...WORKLOAD_DECISION_INPUTS, 'events', 'services'],
  compute: (m: Model): BugShown[] => {
    const out: BugShown[] = [];
    for (const { mesh } of m.meshes) {
      const p = profileOf(mesh);
      if (!allBugs(p.versions?.releases).length || !p.versions) continue;
      // The injector's own pods crash-loop.
      for (const inj of injectors(m, mesh)) {
        if (!inj.deployment) continue;
        const read = p.versions.controlPlane(m, inj.deployment);
        const bugs = knownBugs(p, read, 'injector');
        if (!read || !bugs.length) continue;
        const crashing = inj.pods
          .filter(isActive)
          .map(podHealth)
          .filter((h) => h.waiting === 'CrashLoopBackOff');
        if (!crashing.length) continue;
        const image = /(?:image|runs) (\S+)/.exec(read.from)?.[1] ?? '';
        const inBuild = (b: KnownBug) =>
          b.symptom.on === 'injector' && (b.symptom.image === undefined || new RegExp(b.symptom.image).test(image));
        for (const bug of bugs.filter(inBuild))
          out.push({
            mesh,
            bug,
            version: read,
            injector: inj,
            pods: crashing.slice(0, MAX_PODS).map((h) => h.name),
            seen: `CrashLoopBackOff${crashing[0]!.lastTermination?.exitCode !== undefined ? ` (exit code ${crashing[0]!.lastTermination.exitCode})` : ''}`,
          });
      }
      // An injected container of a pod, judged by the proxy version the pod runs (what injected it).
      const versionFrom = [
        ...new Set(
          allBugs(p.versions.releases).flatMap((b) =>
            b.symptom.on === 'pod' && b.symptom.versionFrom ? [b.symptom.versionFrom] : [],
          ),
        ),
      ];
      // Node agents whose release a bug is judged by (componentFrom): their version on each node.
      const componentIds = agentIds(p);
      // The pods' sandbox failures in the mesh's CNI plugin, read once when a bug shows as one.
      const sandbox = allBugs(p.versions.releases).some(
        (b) => b.symptom.on === 'pod' && b.symptom.shows === 'sandbox-failed',
      )
        ? sandboxFailures(m, p.cni?.pluginType)
        : new Map<string, string[]>();
      // Asked when a pod that may show a symptom runs on a node (the pass over every pod is shared by the meshes).
      let agents: Map<string, Map<string, VersionRead>> | undefined;
      const podBugs = allBugs(p.versions.releases).some((b) => b.symptom.on === 'pod');
      // A pod is judged by containers the mesh injects (its proxy, the helper of versionFrom): one
      // without any (podsCarrying) has nothing to judge, unless a versionFrom names another container.
      const byName = versionFrom.every((n) => injectedNames(p).includes(n));
      // The mesh's own control plane too: its pods carry the containers its chart injects from the same release.
      const own = (m.mesh(mesh)?.namespaces ?? []).flatMap((ns) =>
        m.seesNamespace(ns) ? m.workloads.filter((w) => w.namespace === ns && ownControlPlane(p, w)) : [],
      );
      for (const w of podBugs ? [...m.appWorkloads, ...own] : []) {
        const hits = new Map<string, { bug: KnownBug; version: VersionRead; pods: string[]; seen: string }>();
        const judged = byName ? podsCarrying(w, mesh, MAX_PODS) : w.pods.filter(isActive).slice(0, MAX_PODS);
        for (const pod of judged) {
          // A pod whose containers neither wait nor ended, without a sandbox failure, shows no pod symptom: not read.
          if (!mayShow(pod, sandbox)) continue;
          // The proxy's version judges the pod, or (a bug that says so) the image of the helper that tells the injecting release.
          const reads = [
            { read: proxyVersion(pod, mesh), from: undefined as string | undefined },
            ...versionFrom.map((n) => ({ read: injectedBy(pod, n), from: n })),
          ];
          // In the order of the reads, then of each read's bugs (the shared list of its version: not copied per pod).
          const bugs: { bug: KnownBug; read: VersionRead | undefined }[] = [];
          for (const { read, from } of reads)
            for (const b of knownBugsShared(p, read, 'pod'))
              if (b.symptom.on === 'pod' && b.symptom.versionFrom === from && !b.symptom.componentFrom)
                bugs.push({ bug: b, read });
          // A node agent's bug: the release of the component's pod on the pod's node.
          const node = str(podSpec(pod as { spec?: unknown }).nodeName);
          for (const id of componentIds) {
            const read = node
              ? (agents ??= m.fact(NODE_AGENT_RELEASES).get(mesh) ?? new Map()).get(id)?.get(node)
              : undefined;
            if (!read) continue;
            for (const bug of allBugs(p.versions.releases))
              if (bug.symptom.on === 'pod' && bug.symptom.componentFrom === id && componentAffected(bug, read.version))
                bugs.push({ bug, read });
          }
          for (const { bug, read } of bugs) {
            const shows = bug.symptom.on === 'pod' ? podShows(pod, bug.symptom, sandbox) : undefined;
            const trigger =
              bug.symptom.on === 'pod' && bug.symptom.when ? triggered(m, pod, bug.symptom.when, injectedNames(p)) : '';
            if (!shows || !read || trigger === undefined) continue;
            const seen = `${shows}${trigger}`;
            const h = hits.get(bug.id) ?? { bug, version: read, pods: [], seen };
            h.pods.push(nameOf(pod));
            hits.set(bug.id, h);
          }
        }
        for (const h of hits.values()) out.push({ mesh, workload: w, ...h });
      }
      // A workload's pods refused at creation, judged by the release of the injector its next pod is sent to.
      const workloadBugs = new Map<string, { read: VersionRead; bugs: KnownBug[] }>();
      for (const inj of injectors(m, mesh)) {
        const read = inj.deployment ? p.versions.controlPlane(m, inj.deployment) : undefined;
        const bugs = knownBugs(p, read, 'workload');
        if (read && bugs.length) workloadBugs.set(`${inj.namespace}/${inj.name}`, { read, bugs });
      }
      if (!workloadBugs.size) continue;
      const refused = failedCreates(
        m,
        (msg) => msg,
        () => 'refused',
      );
      for (const r of refused) {
        const w = r.workload;
        if (!w) continue;
        // The mesh's own control-plane workload is not sent to its injector (its namespace opts out): its chart
        // rendered the injected containers from the release of the injector beside it, judged for refusals that
        // name them (not a quota's, which its own containers may also miss).
        const ownCp = ownControlPlane(p, w) && (m.mesh(mesh)?.namespaces ?? []).includes(w.namespace);
        const sent = injectorsFor(m, w, mesh);
        const judged =
          sent.length === 0 && ownCp ? injectors(m, mesh).filter((i) => i.namespace === w.namespace) : sent;
        if (judged.length !== 1) continue; // no injector, or two: which release injects is not told
        const wb = workloadBugs.get(`${judged[0]!.namespace}/${judged[0]!.name}`);
        if (!wb) continue;
        for (const bug of wb.bugs) {
          const s = bug.symptom;
          if (s.shows !== 'create-refused' || !refusesInjected(w, r.message, s)) continue;
          if (sent.length === 0 && (s.about ?? 'quota') === 'quota') continue;
          if (s.own && !ownCp) continue;
          out.push({ mesh, bug, version: wb.read, injector: judged[0]!, workload: w, pods: [], seen: r.message });
        }
      }
    }
    return out;
  },
});
