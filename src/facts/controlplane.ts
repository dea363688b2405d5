/**
 * The injection plumbing of each installed mesh, as the API server sees it: webhook -> Service
 * -> port -> endpoints -> injector Deployment and pods (docs/meshes/linkerd.md, docs/meshes/istio.md). Shared by the
 * control-plane checks (and the workload checks, for InjectionSkipped evidence). Pure: reads
 * the Model only.
 */
import type { KindKey } from '../k8s/kinds.js';
import { WORKLOAD_DECISION_INPUTS } from './decision.js';
import { defineFactFamily, inputsOf } from '../k8s/fact.js';
import { WORKLOAD_INPUTS } from '../k8s/workloads.js';
import { cmd } from '../fix/steps.js';
import { WORKLOAD_INDEX, eventInfo, workloadOfObject } from '../k8s/events.js';
import { ms, podHealth, statuses } from '../k8s/health.js';
import { containers, isActive, podSpec } from '../k8s/pods.js';
import { newPodLabels } from '../k8s/pod-labels.js';
import { evalWebhook, namespaceLabels } from '../mesh/webhooks.js';
import { deploymentBehind, evalSelector } from '../k8s/selectors.js';
import type { Model, Workload } from './model.js';
import { podStates } from './model.js';
import type { K8sObject } from '../util/types.js';
import { arr, isObj, labelsOf, nameOf, nsOf, str, strMap, time } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import { profileOf } from '../mesh/registry.js';
import type { MeshWebhook } from '../mesh/webhooks.js';
import type { Step, Word } from '../fix/steps.js';

interface EndpointAddress {
  ip: string;
  pod?: string;
}

/** One Service port that mesh webhooks call, resolved down to its endpoints. */
export interface WebhookBackend {
  mesh: MeshName;
  /** The webhooks that call this service port. */
  webhooks: MeshWebhook[];
  namespace: string;
  name: string;
  port: number;
  service?: K8sObject;
  /** The Service port the webhook calls (undefined: the Service has no such port). */
  servicePort?: { name: string; port: number; targetPort: number | string };
  /** The pods the Service's selector matches (the endpoints are built from these). */
  selectedPods: string[];
  /** The container port a named targetPort resolves to on the selected pods. */
  containerPort?: number;
  /** Where the endpoints were read from; undefined when neither kind was read (or `unread`). */
  endpointsFrom?: 'EndpointSlice' | 'Endpoints';
  /**
   * The Service's namespace could not be read (a kind of the control plane refused there,
   * Snapshot.unavailableIn): why. Its Service, endpoints and pods are then unknown, not missing.
   */
  unread?: string;
  ready: EndpointAddress[];
  notReady: EndpointAddress[];
  injector: Injector;
}

/** An injector Deployment (or where one is expected) and its pods. */
export interface Injector {
  mesh: MeshName;
  namespace: string;
  /**
   * The Deployment's name when `deployment` is set; else the name an install gives it, for fixes
   * only (never named as an object: it was not found).
   */
  name: string;
  /** The Deployment, read: the one owning the pods the webhook's Service selects, else the one whose template it selects. */
  deployment?: K8sObject;
  /**
   * The webhook's Service has no selector (its endpoints are kept by hand, an injector outside the
   * cluster or out of Kubernetes' sight, e.g. an external istiod): no Deployment is expected here.
   */
  external?: true;
  /** The injector's pods, in name order. */
  pods: K8sObject[];
  /** The webhooks this injector serves (empty when none points at it). */
  webhooks: MeshWebhook[];
}

const CONTROL_PLANE_KINDS = ['pods', 'services', 'deployments', 'replicasets', 'endpoints', 'endpointslices'] as const;

/** Why the control plane's objects in `ns` are not all known: the first of its kinds refused there ("services in namespace linkerd: forbidden: ..."). */
function namespaceUnread(m: Model, ns: string): string | undefined {
  const k = CONTROL_PLANE_KINDS.find((x) => m.refusedIn(x, ns) !== undefined);
  return k ? `${k} in namespace ${ns}: ${m.refusedIn(k, ns)}` : undefined;
}

/**
 * Whether the snapshot holds the namespaced objects of `ns`: none of the control plane's kinds
 * was refused there (Snapshot.unavailableIn), and, under -n, the namespace was read at all (a
 * kubectl dump of one namespace holds nothing of the control plane's). Otherwise the control
 * plane's Service, pods and Deployment are unknown, not missing.
 */
export function namespaceRead(m: Model, ns: string): boolean {
  if (namespaceUnread(m, ns)) return false;
  const s = m.snapshot.scope;
  if (s.allNamespaces || !s.namespace || s.namespace === ns) return true;
  return CONTROL_PLANE_KINDS.some((k) => m.inNamespace(k, ns).length > 0);
}

const selectorOf = (svc: K8sObject | undefined): Record<string, string> =>
  strMap(isObj(svc?.spec) ? svc!.spec.selector : undefined);

/** Pods in `ns` matched by a Service selector (an empty selector selects no pods). */
function selectedPods(m: Model, ns: string, selector: Record<string, string>): K8sObject[] {
  if (Object.keys(selector).length === 0) return [];
  return m.inNamespace('pods', ns).filter((p) => evalSelector({ matchLabels: selector }, labelsOf(p)).matched);
}

/** The controller ownerReference of an object. */
function controllerOf(o: K8sObject | undefined): Record<string, any> | undefined {
  return arr(o?.metadata?.ownerReferences).find((r) => isObj(r) && r.controller === true) as
    Record<string, any> | undefined;
}

/** The Deployment (read) that owns any of these pods through its ReplicaSet. */
function owningDeployment(m: Model, ns: string, pods: K8sObject[]): K8sObject | undefined {
  for (const pod of pods) {
    const rs = controllerOf(pod);
    if (rs?.kind !== 'ReplicaSet') continue;
    const dep = controllerOf(m.get('replicasets', ns, String(rs.name ?? '')));
    const d = dep?.kind === 'Deployment' ? m.get('deployments', ns, String(dep.name ?? '')) : undefined;
    if (d) return d;
  }
  return undefined;
}

/**
 * The injector behind a webhook's Service, as the cluster shows it (never a name guessed from the
 * Service's): the Deployment owning the pods the Service selects, else the one whose pod template
 * the selector matches, else (no Service to tell) a Deployment of the mesh's own names named like
 * the Service or as an install names it. None found: the name an install gives it, for fixes only.
 */
function injectorBehind(
  m: Model,
  mesh: MeshName,
  ns: string,
  svcName: string,
  svc: K8sObject | undefined,
  webhooks: MeshWebhook[],
): Injector {
  const { injector } = profileOf(mesh).controlPlane;
  const svcSel = selectorOf(svc);
  const external = svc !== undefined && Object.keys(svcSel).length === 0;
  const selected = selectedPods(m, ns, svcSel);
  const deployments = m.inNamespace('deployments', ns);
  const byName = (n: string) => (injector.isDeployment(n) ? m.get('deployments', ns, n) : undefined);
  const deployment =
    owningDeployment(m, ns, selected) ??
    (Object.keys(svcSel).length ? deploymentBehind(deployments, svc) : undefined) ??
    (svc ? undefined : (byName(svcName) ?? byName(injector.name)));
  const name = deployment ? nameOf(deployment) : injector.isDeployment(svcName) ? svcName : injector.name;
  const depSel = isObj(deployment?.spec) ? deployment!.spec.selector : undefined;
  let pods = selected;
  if (!pods.length && isObj(depSel))
    pods = m.inNamespace('pods', ns).filter((p) => evalSelector(depSel, labelsOf(p)).matched);
  return {
    mesh,
    namespace: ns,
    name,
    ...(deployment ? { deployment } : {}),
    ...(external && !deployment ? { external: true as const } : {}),
    pods: [...pods].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1)),
    webhooks,
  };
}

/** An injector Deployment found by its name (a control plane whose webhooks are gone), with its pods. */
function injectorNamed(m: Model, mesh: MeshName, ns: string, deployment: K8sObject): Injector {
  const depSel = isObj(deployment.spec) ? deployment.spec.selector : undefined;
  const pods = isObj(depSel) ? m.inNamespace('pods', ns).filter((p) => evalSelector(depSel, labelsOf(p)).matched) : [];
  return {
    mesh,
    namespace: ns,
    name: nameOf(deployment),
    deployment,
    pods: [...pods].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1)),
    webhooks: [],
  };
}

/** A webhook backend short of its endpoints: what the injector checks need (no Endpoints read). */
export type WebhookTarget = Omit<WebhookBackend, 'endpointsFrom' | 'ready' | 'notReady'>;

export const WEBHOOK_TARGETS = defineFactFamily({
  id: 'webhook-targets',
  inputs: ['deployments', 'mutatingwebhookconfigurations', 'pods', 'replicasets', 'services'],
  compute: (m: Model, mesh: MeshName): WebhookTarget[] => {
    const groups = new Map<string, MeshWebhook[]>();
    for (const h of m.webhooksOf(mesh)) {
      if (!h.service) continue; // a url webhook points outside the cluster: nothing here to follow
      const k = `${h.service.namespace}/${h.service.name}/${h.service.port}`;
      groups.set(k, [...(groups.get(k) ?? []), h]);
    }
    return [...groups.values()].map((webhooks) => {
      const { namespace, name, port } = webhooks[0]!.service!;
      const service = m.get('services', namespace, name);
      const injector = injectorBehind(m, mesh, namespace, name, service, webhooks);
      const sp = arr(isObj(service?.spec) ? service!.spec.ports : undefined).find((p) => isObj(p) && p.port === port);
      const servicePort = sp
        ? {
            name: str(sp.name) ?? '',
            port,
            targetPort: typeof sp.targetPort === 'number' || typeof sp.targetPort === 'string' ? sp.targetPort : port,
          }
        : undefined;
      const selected = selectedPods(m, namespace, selectorOf(service));
      const unread = namespaceUnread(m, namespace);
      const t: WebhookTarget = {
        mesh,
        webhooks,
        namespace,
        name,
        port,
        ...(unread ? { unread } : {}),
        ...(service ? { service } : {}),
        ...(servicePort ? { servicePort } : {}),
        selectedPods: selected.map(nameOf).sort(),
        injector,
      };
      if (!servicePort) return t;
      const tp = servicePort.targetPort;
      const cp = typeof tp === 'number' ? tp : namedContainerPort(selected, tp);
      if (cp !== undefined) t.containerPort = cp;
      return t;
    });
  },
});

/**
 * Every service port the mesh's webhooks call, resolved to the Service, its port, the pods it
 * selects and the injector Deployment (URL webhooks have no Service to follow). Reads
 * MutatingWebhookConfigurations, Services, Pods and Deployments; not the endpoints.
 */
export function webhookTargets(m: Model, mesh: MeshName): WebhookTarget[] {
  return m.fact(WEBHOOK_TARGETS, mesh);
}

export const WEBHOOK_BACKENDS = defineFactFamily({
  id: 'webhook-backends',
  inputs: [
    'deployments',
    'endpoints',
    'endpointslices',
    'mutatingwebhookconfigurations',
    'pods',
    'replicasets',
    'services',
  ],
  compute: (m: Model, mesh: MeshName): WebhookBackend[] =>
    webhookTargets(m, mesh).map((t): WebhookBackend => ({
      ...t,
      ready: [],
      notReady: [],
      ...(t.servicePort && !t.unread ? endpointsFor(m, t.namespace, t.name, t.servicePort.name) : {}),
    })),
});

/** Every service port the mesh's webhooks call, resolved down to its endpoints (also reads EndpointSlices, Endpoints). */
export function webhookBackends(m: Model, mesh: MeshName): WebhookBackend[] {
  return m.fact(WEBHOOK_BACKENDS, mesh);
}

/** The containerPort of a named port on any of these pods. */
function namedContainerPort(pods: K8sObject[], portName: string): number | undefined {
  for (const p of pods) {
    for (const c of containers(podSpec(p as { spec?: unknown }))) {
      const hit = arr(c.ports).find((cp) => isObj(cp) && cp.name === portName && typeof cp.containerPort === 'number');
      if (hit) return hit.containerPort;
    }
  }
  return undefined;
}

/**
 * Ready and not-ready addresses behind a Service port (matched by the Service port's name, as
 * the endpoint controllers name them): from EndpointSlices labelled with the service name, else
 * from the Endpoints object when no slices were read or none exist.
 */
function endpointsFor(
  m: Model,
  ns: string,
  svc: string,
  portName: string,
): Pick<WebhookBackend, 'endpointsFrom' | 'ready' | 'notReady'> {
  const ready: EndpointAddress[] = [];
  const notReady: EndpointAddress[] = [];
  const hasPort = (ports: unknown) => arr(ports).some((p) => isObj(p) && (str(p.name) ?? '') === portName);
  const podOf = (ref: unknown) => (isObj(ref) && ref.kind === 'Pod' && str(ref.name) ? { pod: str(ref.name)! } : {});
  const slices = m.inNamespace('endpointslices', ns).filter((s) => labelsOf(s)['kubernetes.io/service-name'] === svc);
  if (slices.length) {
    for (const s of slices) {
      if (!hasPort(s.ports)) continue;
      for (const e of arr(s.endpoints).filter(isObj)) {
        // A nil `ready` condition means ready (discovery.k8s.io/v1 EndpointConditions).
        const list = isObj(e.conditions) && e.conditions.ready === false ? notReady : ready;
        for (const ip of arr(e.addresses)) list.push({ ip: String(ip), ...podOf(e.targetRef) });
      }
    }
    return { endpointsFrom: 'EndpointSlice', ready, notReady };
  }
  if (!m.has('endpoints'))
    return m.has('endpointslices') ? { endpointsFrom: 'EndpointSlice', ready, notReady } : { ready, notReady };
  for (const sub of arr(m.get('endpoints', ns, svc)?.subsets).filter(isObj)) {
    if (!hasPort(sub.ports)) continue;
    for (const a of arr(sub.addresses).filter(isObj)) ready.push({ ip: String(a.ip ?? ''), ...podOf(a.targetRef) });
    for (const a of arr(sub.notReadyAddresses).filter(isObj))
      notReady.push({ ip: String(a.ip ?? ''), ...podOf(a.targetRef) });
  }
  return { endpointsFrom: 'Endpoints', ready, notReady };
}

/** The kinds finding a mesh's injectors reads (`injectors`): a fact built on them declares these and its own. */
export const INJECTOR_INPUTS = [
  'deployments',
  'mutatingwebhookconfigurations',
  'namespaces',
  'pods',
  'replicasets',
  'services',
] as const satisfies readonly KindKey[];

export const INJECTORS = defineFactFamily({
  id: 'injectors',
  inputs: INJECTOR_INPUTS,
  compute: (m: Model, mesh: MeshName): Injector[] => {
    const out = new Map<string, Injector>();
    for (const b of webhookTargets(m, mesh)) {
      const k = `${b.injector.namespace}/${b.injector.name}`;
      const seen = out.get(k);
      if (seen) seen.webhooks = [...seen.webhooks, ...b.webhooks];
      else out.set(k, { ...b.injector, webhooks: [...b.webhooks] });
    }
    for (const ns of m.mesh(mesh)?.namespaces ?? []) {
      for (const d of m.inNamespace('deployments', ns)) {
        const name = nameOf(d);
        const conventional = profileOf(mesh).controlPlane.injector.isDeployment(name);
        if (conventional && !out.has(`${ns}/${name}`)) out.set(`${ns}/${name}`, injectorNamed(m, mesh, ns, d));
      }
    }
    return [...out.values()].sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1));
  },
});

/**
 * The mesh's injector Deployments: the ones its webhooks' Services lead to, plus (for an install
 * whose webhooks are gone) the conventionally named ones in its control-plane namespaces.
 */
export function injectors(m: Model, mesh: MeshName): Injector[] {
  return m.fact(INJECTORS, mesh);
}

/** Evidence for webhooks: name, configuration, failurePolicy. */
export const webhookEvidence = (hooks: MeshWebhook[]) =>
  hooks.map((h) => ({ name: h.name, configuration: h.configName, failurePolicy: h.failurePolicy }));

export const PODS_MISSING_PROXY = defineFactFamily({
  id: 'pods-missing-proxy',
  inputs: [...WORKLOAD_DECISION_INPUTS],
  compute: (m: Model, mesh: MeshName): number =>
    m.appWorkloads.reduce((n, w) => {
      const d = m.decision(w, mesh);
      return d && d.intent && !d.unknown && d.injector.every((s) => s.ok) ? n + podStates(w).unmeshed.length : n;
    }, 0),
});

/** Active pods of app workloads that ask for this mesh, would be injected, and have no proxy. */
export function podsMissingProxy(m: Model, mesh: MeshName): number {
  return m.fact(PODS_MISSING_PROXY, mesh);
}

export interface InjectionSkip {
  reasons: string[];
  count: number;
  lastTimestamp?: string;
  /** The object the event was recorded on, e.g. "Deployment/web". */
  object: string;
}

export const INJECTION_SKIPS = defineFactFamily({
  id: 'injection-skips',
  // the events, and the workload each was recorded on (workloadOfObject)
  inputs: inputsOf(WORKLOAD_INDEX, ['events']),
  compute: (m: Model, mesh: MeshName) => {
    const prefix = profileOf(mesh).injector.skippedEventPrefix ?? '';
    const out = new Map<Workload, InjectionSkip>();
    for (const e of m.list('events')) {
      if (e.reason !== 'InjectionSkipped') continue; // before eventInfo, which parses dates
      const ev = eventInfo(e);
      if (!ev.message.startsWith(prefix)) continue;
      const wl = workloadOfObject(m, ev.kind, ev.namespace, ev.name);
      if (!wl) continue; // the workload is not in the snapshot
      const prev = out.get(wl);
      if (prev && ms(prev.lastTimestamp) >= ms(ev.lastTimestamp)) continue; // keep the latest
      out.set(wl, {
        reasons: splitReasons(ev.message.slice(prefix.length), profileOf(mesh).injector.skipReasons ?? []),
        count: ev.count,
        ...(ev.lastTimestamp ? { lastTimestamp: ev.lastTimestamp } : {}),
        object: `${ev.kind}/${ev.name}`,
      });
    }
    return out;
  },
});

/**
 * The injector's own account of why it skipped a workload (Linkerd's `InjectionSkipped` events):
 * the latest such event on the workload (or its ReplicaSet/Job), its readable reasons split out.
 * Undefined when none was read, or the mesh records none.
 */
export function injectionSkip(m: Model, mesh: MeshName, w: Workload): InjectionSkip | undefined {
  const prefix = profileOf(mesh).injector.skippedEventPrefix;
  if (!prefix) return undefined;
  const byWorkload = m.fact(INJECTION_SKIPS, mesh);
  return byWorkload.get(w);
}

/**
 * The reasons of a skip event, joined by ", " (Linkerd's webhook.go), where a reason the injector
 * knows may itself hold ", ": at each place the longest known reason that ends there or before a
 * ", " is taken, else the text up to the next ", ". Bounded: at most 16 reasons, 256 characters each.
 */
function splitReasons(text: string, known: readonly string[]): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest && out.length < 16) {
    const k = known.find((r) => rest === r || rest.startsWith(`${r}, `));
    const cut = k ? k.length : rest.indexOf(', ') >= 0 ? rest.indexOf(', ') : rest.length;
    const reason = rest.slice(0, cut);
    if (reason) out.push(reason.slice(0, 256));
    rest = rest.slice(cut + 2);
  }
  return out;
}

/** How to re-render a mesh's control plane (webhook, Service, Deployment) as it was installed. */
export const reinstallCommands = (
  m: Model,
  mesh: MeshName,
  ns: string,
  injector = profileOf(mesh).controlPlane.injector.name,
): Step[] => profileOf(mesh).install.reinstall(ns, injector, m);

/** The Service selector as kubectl -l syntax (the injector's pods), or the mesh's usual label. */
export function injectorPodSelector(mesh: MeshName, svc: K8sObject | undefined): string {
  const sel = Object.entries(selectorOf(svc)).map(([k, v]) => `${k}=${v}`);
  if (sel.length) return sel.sort().join(',');
  return profileOf(mesh).controlPlane.injector.podSelector;
}

/**
 * The injector's pods as kubectl addresses them: `deploy/<name>` where its Deployment was read,
 * else by the label selector of the webhook's Service (or the mesh's usual pod label): never a
 * Deployment name that was not found.
 */
export function injectorAt(
  mesh: MeshName,
  inj: Pick<Injector, 'name' | 'deployment'> | undefined,
  svc: K8sObject | undefined,
): { args: Word[] } {
  if (inj?.deployment) return { args: [['deploy/', { value: inj.name }]] };
  return { args: [['-l'], [{ value: injectorPodSelector(mesh, svc) }]] };
}

/** First-line inspection of an injector Deployment. */
export function injectorDebugCommands(inj: Injector, container: string): Step[] {
  const dep = `deploy/${inj.name}`;
  return [
    cmd`kubectl -n ${inj.namespace} describe ${dep}`,
    cmd`kubectl -n ${inj.namespace} logs ${dep} -c ${container} --previous`,
    cmd`kubectl -n ${inj.namespace} rollout restart ${dep}`,
  ];
}

/** A time span when no replica of a mesh's injector could serve the webhook. */
export interface InjectorOutage {
  from: Date;
  /** undefined: still down. */
  to?: Date;
  /** Why, when one termination explains it (e.g. OOMKilled, Error). */
  reason?: string;
}

type Span = { from: number; to: number; reason?: string };

/** One injector pod's down spans, from its injector container's status (last termination, now). */
function podDownSpans(pod: K8sObject, container: string, now: number): Span[] {
  const cs = statuses(pod).find((c) => c.name === container);
  if (!cs) return [];
  const spans: Span[] = [];
  const last = isObj(cs.lastState?.terminated) ? cs.lastState.terminated : undefined;
  const running = isObj(cs.state?.running) ? cs.state.running : undefined;
  const lastEnd = ms(last?.finishedAt);
  if (running && cs.ready !== false) {
    // Down between the last termination and the current start.
    const start = ms(running.startedAt);
    if (lastEnd && start > lastEnd)
      spans.push({ from: lastEnd, to: start, ...(str(last?.reason) ? { reason: str(last!.reason) } : {}) });
  } else {
    // Not running or not ready now: down since the last termination (or the current one), else,
    // running but not ready without a termination, since its Ready condition turned False.
    const cur = isObj(cs.state?.terminated) ? cs.state.terminated : last;
    const notReady = arr(isObj(pod.status) ? pod.status.conditions : undefined).find(
      (c) => isObj(c) && c.type === 'Ready' && c.status === 'False',
    ) as Record<string, any> | undefined;
    const from = ms(cur?.finishedAt) || lastEnd || (running ? ms(notReady?.lastTransitionTime) : 0);
    if (from) spans.push({ from, to: now, ...(str(cur?.reason) ? { reason: str(cur!.reason) } : {}) });
  }
  return spans;
}

/**
 * How long before a replacement replica's creation a pod still counts as created in its gap: the
 * replica it replaced was gone by then (its ReplicaSet re-created it), but when it went is not
 * recorded; a whole-cluster restart or a node pool scaled up from zero re-creates the app's pods
 * and the injector's in the same minute or two (linkerd/linkerd2#13702, #11623, #3290).
 */
const REPLACED_SLACK_MS = 2 * 60 * 1000;
/** A ReplicaSet this much older than its pod made that pod to replace a lost one, not in a rollout or install. */
const REPLACEMENT_AGE_MS = 10 * 60 * 1000;

/**
 * An injector pod that replaced a lost replica (its ReplicaSet is much older than it, its
 * container never restarted): not serving from a little before its creation until it was Ready
 * (its Ready condition's lastTransitionTime, else its container's start). A rollout's or an
 * install's new pod (its ReplicaSet as young as it) is not one: the old replicas served meanwhile.
 */
function replacementSpan(m: Model, pod: K8sObject, container: string): Span | undefined {
  const created = ms(pod.metadata?.creationTimestamp);
  const owner = arr(pod.metadata?.ownerReferences).find((r) => isObj(r) && r.kind === 'ReplicaSet') as
    Record<string, any> | undefined;
  const rs = owner ? m.get('replicasets', nsOf(pod), String(owner.name ?? '')) : undefined;
  const rsCreated = ms(rs?.metadata?.creationTimestamp);
  if (!created || !rsCreated || created - rsCreated < REPLACEMENT_AGE_MS) return undefined;
  const cs = statuses(pod).find((c) => c.name === container);
  if (!cs || cs.restartCount !== 0) return undefined;
  const ready = arr(isObj(pod.status) ? pod.status.conditions : undefined).find(
    (c) => isObj(c) && c.type === 'Ready' && c.status === 'True',
  ) as Record<string, any> | undefined;
  const at = ms(ready?.lastTransitionTime) || ms(cs.state?.running?.startedAt);
  if (!at || at <= created) return undefined;
  return {
    from: created - REPLACED_SLACK_MS,
    to: at,
    reason: `replica ${nameOf(pod)} re-created at ${new Date(created).toISOString()}`,
  };
}

/** Intersect two sorted span lists: the times both are down. */
function intersect(a: Span[], b: Span[]): Span[] {
  const out: Span[] = [];
  for (const x of a)
    for (const y of b) {
      const from = Math.max(x.from, y.from);
      const to = Math.min(x.to, y.to);
      if (from < to) out.push({ from, to, ...(x.reason === y.reason && x.reason ? { reason: x.reason } : {}) });
    }
  return out;
}

const INJECTOR_OUTAGES = defineFactFamily({
  id: 'injector-outages',
  inputs: INJECTOR_INPUTS, // the injectors' Deployments and pods (injectors), nothing else
  compute: (m: Model, mesh: MeshName): InjectorOutage[] => {
    const now = m.now.getTime();
    const out: InjectorOutage[] = [];
    for (const inj of injectors(m, mesh)) {
      if (inj.pods.length === 0) {
        // No pod left (scaled to 0, every pod evicted): its Deployment's Available=False condition dates the outage.
        const cond = arr(isObj(inj.deployment?.status) ? inj.deployment!.status.conditions : undefined).find(
          (c) => isObj(c) && c.type === 'Available' && c.status === 'False',
        ) as Record<string, any> | undefined;
        const from = ms(cond?.lastTransitionTime);
        if (from && from < now)
          out.push({ from: new Date(from), ...(str(cond?.reason) ? { reason: str(cond!.reason) } : {}) });
        continue;
      }
      let down: Span[] | undefined;
      for (const pod of inj.pods) {
        const container = profileOf(mesh).controlPlane.injector.container;
        const spans = podDownSpans(pod, container, now);
        const replaced = replacementSpan(m, pod, container);
        if (replaced) spans.push(replaced);
        spans.sort((a, b) => a.from - b.from);
        down = down === undefined ? spans : intersect(down, spans);
      }
      for (const s of down ?? [])
        out.push({
          from: new Date(s.from),
          ...(s.to < now ? { to: new Date(s.to) } : {}),
          ...(s.reason ? { reason: s.reason } : {}),
        });
    }
    return out.sort((a, b) => a.from.getTime() - b.from.getTime());
  },
});

/**
 * When a mesh's injector was down, as far as its pods' statuses tell (each container keeps only
 * its last termination): the spans when no injector replica was running. Pods created in such
 * a span under failurePolicy Ignore were admitted without a proxy.
 */
export function injectorOutages(m: Model, mesh: MeshName): InjectorOutage[] {
  return m.fact(INJECTOR_OUTAGES, mesh);
}

/** An injector whose own webhooks (failurePolicy Fail) are called for the pods of its Deployment. */
export interface SelfBlock {
  injector: Injector & { deployment: K8sObject };
  /** Its webhooks that are called for its own new pods and refuse them when the call fails. */
  webhooks: MeshWebhook[];
  /** The labels a new pod of it carries, and its namespace's (what the selectors were evaluated on). */
  podLabels: Readonly<Record<string, string>>;
  nsLabels: Record<string, string>;
  /** No replica of it is available now: its pods cannot be created until the webhooks leave them alone. */
  down: boolean;
}

export const SELF_BLOCKS = defineFactFamily({
  id: 'self-blocks',
  // the injectors, and the workloads to find each one's Deployment among
  inputs: inputsOf(INJECTOR_INPUTS, WORKLOAD_INPUTS),
  compute: (m: Model, mesh: MeshName): SelfBlock[] => {
    const out: SelfBlock[] = [];
    for (const inj of injectors(m, mesh)) {
      const dep = inj.deployment;
      const nsObj = m.namespace(inj.namespace);
      if (!dep || !nsObj) continue; // which webhooks its pods meet needs its template and its namespace's labels
      const w = m.workloads.find(
        (x) => x.kind === 'Deployment' && x.namespace === inj.namespace && x.name === inj.name,
      );
      const podLabels = w ? newPodLabels(w) : labelsOf(isObj(dep.spec) ? dep.spec.template : undefined);
      const nsLabels = namespaceLabels(nsObj, inj.namespace);
      const webhooks = inj.webhooks.filter(
        (h) => h.failurePolicy === 'Fail' && evalWebhook(h, nsLabels, podLabels).called,
      );
      if (!webhooks.length) continue;
      const spec = isObj(dep.spec) ? dep.spec : {};
      const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
      const available =
        isObj(dep.status) && typeof dep.status.availableReplicas === 'number'
          ? dep.status.availableReplicas
          : isObj(dep.status)
            ? 0
            : undefined;
      const ready = inj.pods.filter(isActive).some((p) => podHealth(p).ready);
      const down = desired > 0 && (available === 0 || (m.has('pods') && !ready));
      out.push({ injector: { ...inj, deployment: dep }, webhooks, podLabels, nsLabels, down });
    }
    return out;
  },
});

/**
 * Injectors locked out by their own webhook: a webhook they serve, with failurePolicy Fail, is
 * called for their own new pods. While no replica answers (after a restart, a node drain, an
 * OOM kill of all of them) the API server refuses every one of their pods, so they never come
 * back (linkerd/linkerd2#6530, #7699: Linkerd HA needs its namespace labelled
 * config.linkerd.io/admission-webhooks: disabled). Needs the control plane's Namespace (its labels).
 */
export function selfBlocks(m: Model, mesh: MeshName): SelfBlock[] {
  return m.fact(SELF_BLOCKS, mesh);
}

/** When a mesh's injector was installed and first ready: pods created before then were admitted without it. */
interface InjectorFirstReady {
  /** The injector Deployment (namespace/name) and its creation: the install. */
  deployment: string;
  installedAt: Date;
  /** The earliest time one of its install's pods was Ready. */
  readyAt: Date;
}

/** Pods created this long after their Deployment are of its install (a later rollout creates them much later). */
const INSTALL_WINDOW_MS = 10 * 60 * 1000;

const INJECTOR_FIRST_READY = defineFactFamily({
  id: 'injector-first-ready',
  inputs: INJECTOR_INPUTS, // the injectors' Deployments and pods (injectors), nothing else
  compute: (m: Model, mesh: MeshName): InjectorFirstReady | undefined => {
    const container = profileOf(mesh).controlPlane.injector.container;
    let best: InjectorFirstReady | undefined;
    for (const inj of injectors(m, mesh)) {
      const installedAt = time(inj.deployment?.metadata?.creationTimestamp);
      const pods = inj.pods.filter(isActive);
      if (!installedAt || !pods.length) continue;
      let readyAt: number | undefined;
      let known = true;
      for (const pod of pods) {
        const created = ms(pod.metadata?.creationTimestamp);
        const cs = statuses(pod).find((c) => c.name === container);
        const ready = arr(isObj(pod.status) ? pod.status.conditions : undefined).find(
          (c) => isObj(c) && c.type === 'Ready' && c.status === 'True',
        ) as Record<string, any> | undefined;
        const at = ms(ready?.lastTransitionTime) || ms(cs?.state?.running?.startedAt);
        if (!created || created - installedAt.getTime() > INSTALL_WINDOW_MS || !cs || cs.restartCount !== 0 || !at) {
          known = false;
          break;
        }
        readyAt = readyAt === undefined ? at : Math.min(readyAt, at);
      }
      if (!known || readyAt === undefined) continue;
      if (!best || readyAt < best.readyAt.getTime())
        best = { deployment: `${inj.namespace}/${inj.name}`, installedAt, readyAt: new Date(readyAt) };
    }
    return best;
  },
});

/**
 * When the mesh's injector was first ready, where its pods show it: every current pod of it is
 * one of the install's (created within minutes of the Deployment, so no rollout replaced any) and
 * its injector container never restarted (Ready's lastTransitionTime, else the container's start,
 * is then the first readiness). Undefined when that cannot be known: then nothing is claimed.
 */
export function injectorFirstReady(m: Model, mesh: MeshName): InjectorFirstReady | undefined {
  return m.fact(INJECTOR_FIRST_READY, mesh);
}
