/**
 * quota-blocks-proxy — a ResourceQuota in the namespace cannot admit the workload's next pod once
 * the mesh has added its proxy.
 *
 * Why: the injected proxy and its init container count against the quota like any container.
 * (a) A quota that tracks cpu/memory requests or limits makes the API server demand that value on
 * every container (kubernetes pkg/quota/v1/evaluator/core/pods.go Constraints), so a proxy
 * injected without it is rejected: "failed quota: q: must specify limits.cpu for:
 * linkerd-init,linkerd-proxy". Linkerd sets no proxy requests or limits by default. (b) The room
 * left (status.hard minus status.used) fits one more pod without the proxy but not with it.
 * When: workloads with a pod template that are meshed or would be meshed; quotas without scopes.
 * With namespace-only permissions (no Namespaces or webhooks: whether and with what a new pod is
 * injected is unknown), only where the namespace shows the mesh: the workload's pods run its proxy
 * (judged with the proxy resources those pods were given, where the template does not set them), or
 * a FailedCreate event for the quota names the proxy's containers as missing a required value.
 * Silent when an app container itself lacks a value the quota requires (a LimitRange, which we do
 * not read, then supplies it, or the pod never fit without the mesh either), and when one more pod
 * does not fit even without its proxy (an exhausted quota, not the mesh's doing).
 * Known false positives: a LimitRange whose defaults also reach the injected containers.
 * Fix: (a) give the proxy requests and limits with the mesh's annotations on the pod template, all
 * four (a missing request defaults to the limit: a whole CPU per pod for Linkerd's suggested
 * limit; Istio drops all its defaults once one is set), the values set already kept and the rest
 * sized to the mesh's defaults; when one more pod with those values does not fit the room the
 * quota has left (status.hard minus status.used), the message says so and the quota is raised
 * first, by exactly what is missing (hard = used + needed); (b) raise the quota so that one more
 * pod fits. A ResourceQuota or workload from the manifests (`check -f`) is fixed in its file.
 */
import { comment } from '../fix/steps.js';
import { parseQuantity } from '../k8s/quantity.js';
import {
  desiredPods,
  jobFinished,
  podStates,
  type Model,
  type Workload,
  APP_WORKLOADS,
  DECISIONS,
} from '../facts/model.js';
import { objectChange, setAnnotationsOnTemplate } from '../fix/commands.js';
import {
  failedCreateEvents,
  formatUnits,
  injectedPod,
  podDemand,
  quantityUnits,
  RESOURCE_KEYS,
  splitKey,
  type PodContainer,
  type ProxyConfig,
  type ResourceKey,
  type Resources,
} from '../facts/resources.js';
import { meshesAllowed } from '../facts/siblings.js';
import type { K8sObject } from '../util/types.js';
import type { FindingInput } from './define.js';
import type { Evidence } from './types.js';
import type { MeshName } from '../mesh/names.js';
import { isObj, nameOf, strMap } from '../util/objects.js';
import { profileOf } from '../mesh/registry.js';
import { defineCheck, messages, meta, say } from './define.js';
import type { Step } from '../fix/steps.js';

/** Quota resources the API server demands on every container, and the container value each needs. */
// A Map: a quota's resource names come from the cluster (a key "constructor" is no resource).
const REQUIRED = new Map<string, ResourceKey>([
  ['cpu', 'requests.cpu'],
  ['requests.cpu', 'requests.cpu'],
  ['memory', 'requests.memory'],
  ['requests.memory', 'requests.memory'],
  ['limits.cpu', 'limits.cpu'],
  ['limits.memory', 'limits.memory'],
]);

const has = (c: PodContainer, key: ResourceKey) => {
  const [kind, r] = splitKey(key);
  return c.resources[kind][r] !== undefined;
};
const units = (key: string, v: unknown) =>
  key === 'pods' ? parseQuantity(v) : quantityUnits(splitKey(REQUIRED.get(key)!)[1], v);
const format = (key: string, n: number) =>
  key === 'pods' ? String(n) : formatUnits(splitKey(REQUIRED.get(key)!)[1], n);
const need = (key: string, d: Resources) => {
  if (key === 'pods') return 1;
  const [kind, r] = splitKey(REQUIRED.get(key)!);
  return d[kind][r] ?? 0;
};

/** The proxy's resources as quota-style strings, for evidence. */
function proxyEvidence(p: ProxyConfig) {
  const resources: Record<string, string> = {};
  for (const key of RESOURCE_KEYS) {
    const [kind, r] = splitKey(key);
    const v = p.resources[kind][r];
    if (v !== undefined) resources[key] = formatUnits(r, v);
  }
  return { container: profileOf(p.mesh).containers.proxy, native: p.native, resources, source: p.source };
}

/**
 * Annotations that give the proxy requests and limits, all four: the values set already (on the
 * template, the namespace or in the mesh's configuration) kept, the others the mesh's suggested
 * defaults (a request never above a limit set, a limit never below the request). A request left
 * unset would default to the limit (Linkerd's suggested 1 CPU per pod); Istio replaces all its
 * defaults once one annotation is set.
 */
function proxyProposal(p: ProxyConfig): { annotations: Record<string, string>; resources: Resources } {
  const annotations: Record<string, string> = {};
  const resources: Resources = { requests: {}, limits: {} };
  for (const key of RESOURCE_KEYS) {
    const [kind, r] = splitKey(key);
    const explicit = p.source[key]?.startsWith('defaulted') ? undefined : p.resources[kind][r];
    const suggest = quantityUnits(r, profileOf(p.mesh).proxy.resources.suggested[key])!;
    const limit = p.source[`limits.${r}`] ? p.resources.limits[r] : undefined;
    const value =
      explicit ??
      (kind === 'requests' ? Math.min(suggest, limit ?? Infinity) : Math.max(suggest, resources.requests[r] ?? 0));
    resources[kind][r] = value;
    const ann = profileOf(p.mesh).proxy.resources.annotations[key];
    if (ann) annotations[ann] = formatUnits(r, value); // a mesh without resource annotations: resourceFix says how
  }
  return { annotations, resources };
}

type InjectedPod = ReturnType<typeof injectedPod>;

/** The same pod with the proxy (and its init container) given these resources. */
function withProxyResources(pod: InjectedPod, resources: Resources): InjectedPod {
  const give = (c: PodContainer) => (c.proxy ? { ...c, resources } : c);
  return { ...pod, containers: pod.containers.map(give), initContainers: pod.initContainers.map(give) };
}

/**
 * One more pod against the room the quota has left (status.hard minus status.used), per resource
 * the quota tracks (cpu/memory requests and limits, pods). Undefined when the quota controller
 * has not counted usage yet.
 */
function measure(hard: Record<string, string>, status: Record<string, any>, pod: InjectedPod) {
  const r = roomLeft(hard, status);
  if (!r) return undefined;
  const { keys, room, usedUnits } = r;
  const total = podDemand(pod);
  const app = podDemand({
    containers: pod.containers.filter((c) => !c.proxy),
    initContainers: pod.initContainers.filter((c) => !c.proxy),
  });
  const asStrings = (f: (k: string) => number) => Object.fromEntries(keys.map((k) => [k, format(k, f(k))]));
  return {
    keys,
    room,
    /** Not even the app alone fits: the quota is exhausted, whatever the mesh adds. */
    appAloneExceeds: keys.some((k) => need(k, app) > room.get(k)!),
    exceeded: keys.filter((k) => need(k, total) > room.get(k)!),
    needs: (k: string) => need(k, total),
    proxyNeeds: (k: string) => need(k, total) - need(k, app),
    /** hard = used + needed: the quota that fits exactly one more pod. */
    raised: (k: string) => format(k, usedUnits.get(k)! + need(k, total)),
    /** Formatted only where a finding quotes it (most workloads fit). */
    get evidence() {
      return {
        used: asStrings((k) => usedUnits.get(k)!),
        remaining: asStrings((k) => room.get(k)!),
        demand: { pod: asStrings((k) => need(k, total)), proxy: asStrings((k) => need(k, total) - need(k, app)) },
      };
    },
  };
}

type Room = { keys: string[]; room: Map<string, number>; usedUnits: Map<string, number> };
/** The room a quota has left, by its status (frozen snapshot objects): worked out once per status, not per workload and mesh. */
const ROOMS = new WeakMap<object, Map<string, Room | undefined>>();

/** The quota's room per resource it tracks (status.hard, or spec.hard, minus status.used); undefined before usage is counted. */
function roomLeft(hard: Record<string, string>, status: Record<string, any>): Room | undefined {
  if (!isObj(status.used)) return undefined;
  // The same status with the same hard values (a string of them: the caller's map is made per call) is the same room.
  const hardKey = JSON.stringify(hard);
  let byHard = ROOMS.get(status);
  if (!byHard) ROOMS.set(status, (byHard = new Map()));
  if (byHard.has(hardKey)) return byHard.get(hardKey);
  const used = strMap(status.used);
  const room = new Map<string, number>();
  const usedUnits = new Map<string, number>();
  for (const k of Object.keys(hard)
    .filter((k) => REQUIRED.get(k) || k === 'pods')
    .sort()) {
    const h = units(k, hard[k]);
    if (h === undefined) continue;
    usedUnits.set(k, units(k, used[k] ?? '0') ?? 0);
    room.set(k, h - usedUnits.get(k)!);
  }
  const out = { keys: [...room.keys()], room, usedUnits };
  if (byHard.size < 16) byHard.set(hardKey, out);
  return out;
}

/** "limits.cpu needs 1500m (1 for the proxy) but 1 is left". */
const shortfall = (fit: NonNullable<ReturnType<typeof measure>>, k: string) =>
  `${k} needs ${format(k, fit.needs(k))} (${format(k, fit.proxyNeeds(k))} for the proxy) but ${format(k, fit.room.get(k)!)} is left`;

/** Raise the quota's hard values for these resources to used + needed (a manifest edit for a quota in the manifests). */
function raiseQuota(
  m: Model,
  q: K8sObject,
  ns: string,
  fit: NonNullable<ReturnType<typeof measure>>,
  keys: string[],
): Step[] {
  const hard = Object.fromEntries(keys.map((k) => [k, fit.raised(k)]));
  const name = nameOf(q);
  return objectChange(
    m,
    { kind: 'ResourceQuota', namespace: ns, name },
    'spec.hard',
    Object.entries(hard).map(([key, value]) => ({ key, value })),
  );
}

/**
 * (a) The proxy lacks values the quota requires: the annotations that set them, checked against
 * the quota's room; when one more pod with them does not fit, the quota is raised first.
 */
function missingValues(
  m: Model,
  w: Workload,
  mesh: MeshName,
  q: K8sObject,
  pod: InjectedPod,
  hard: Record<string, string>,
) {
  const status = isObj(q.status) ? q.status : {};
  const proposal = proxyProposal(pod.proxy);
  const fit = measure(hard, status, withProxyResources(pod, proposal.resources));
  const exceeded = fit?.exceeded ?? [];
  return {
    fit,
    exceeded,
    fix: [
      ...(fit && exceeded.length ? raiseQuota(m, q, w.namespace, fit, exceeded) : []),
      ...(Object.keys(proposal.annotations).length ? setAnnotationsOnTemplate(w, proposal.annotations) : []),
      ...(profileOf(mesh).proxy.resources.fix?.(m) ?? []),
      // Linkerd reads its config annotations from the namespace too (a fixed-text alternative).
      ...(profileOf(mesh).proxy.resources.onNamespace
        ? [comment`or: set the same annotations on the namespace, for all its workloads, and restart them`]
        : []),
    ],
    text:
      fit && exceeded.length
        ? `; with the proxy resources the fix sets, one more pod still does not fit: ${exceeded.map((k) => shortfall(fit, k)).join('; ')}, so the fix raises the quota too`
        : '',
    evidence: {
      proposed: proposal.annotations,
      ...(fit ? { ...fit.evidence, exceeded } : { used: 'not counted yet (no status.used)' }),
    },
  };
}

function quotaFindings(m: Model, w: Workload, mesh: MeshName, q: K8sObject) {
  const status = isObj(q.status) ? q.status : {};
  const spec = isObj(q.spec) ? q.spec : {};
  const hard = strMap(isObj(status.hard) ? status.hard : spec.hard);
  const pod = injectedPod(m, mesh, w);
  const all = [...pod.containers, ...pod.initContainers];
  const required = Object.keys(hard)
    .filter((k) => REQUIRED.get(k))
    .sort();
  const missingIn = (cs: PodContainer[]) => {
    const out: Record<string, string[]> = {};
    for (const k of required) {
      const names = cs.filter((c) => !has(c, REQUIRED.get(k)!)).map((c) => c.name);
      if (names.length) out[k] = names.sort();
    }
    return out;
  };
  // An app container without the value: a LimitRange we do not read fills it, or the pod never fit; unless the API
  // server's own refusal names the mesh's containers (its verdict, whatever fills the app's).
  if (Object.keys(missingIn(all.filter((c) => !c.proxy))).length) return rejectedProxy(m, w, mesh, q, true);
  const name = nameOf(q);
  const failedCreate = failedCreateEvents(
    m,
    w,
    (msg) => msg.includes(`quota: ${name}:`) || msg.includes(`quota: ${name},`),
  );
  const base = { quota: name, hard, ...(failedCreate.length ? { failedCreate } : {}) };
  const missing = missingIn(all.filter((c) => c.proxy));
  if (Object.keys(missing).length) {
    const containers = [...new Set(Object.values(missing).flat())].sort();
    const a = missingValues(m, w, mesh, q, pod, hard);
    return {
      ...say(MESSAGES, 'proxy-lacks-values', {
        workload: `${w.kind} ${w.namespace}/${w.name}`,
        quota: name,
        resources: Object.keys(missing).join(', '),
        containers: containers.join(' and '),
        values: a.text,
      }),
      affectedPods: desiredPods(w),
      evidence: { ...base, missing, proxy: proxyEvidence(pod.proxy), ...a.evidence },
      fix: a.fix,
    };
  }
  // The configuration read gives the proxy every value, yet the API server refused the injected containers for
  // lacking one (an injector whose template is not what its configuration says): its verdict stands.
  const refused = rejectedProxy(m, w, mesh, q, true);
  if (refused) return refused;
  const fit = measure(hard, status, pod);
  if (!fit) return undefined; // the quota controller has not counted usage yet
  // Not even the app alone fits: the quota is exhausted, whatever the mesh adds.
  if (fit.appAloneExceeds || !fit.exceeded.length) return undefined;
  const proxyName = profileOf(mesh).containers.proxy;
  return {
    ...say(MESSAGES, 'proxy-does-not-fit', {
      workload: `${w.kind} ${w.namespace}/${w.name}`,
      quota: name,
      proxy: proxyName,
      shortfall: fit.exceeded.map((k) => shortfall(fit, k)).join('; '),
    }),
    affectedPods: 1,
    evidence: { ...base, ...fit.evidence, exceeded: fit.exceeded, proxy: proxyEvidence(pod.proxy) },
    fix: raiseQuota(m, q, w.namespace, fit, fit.exceeded),
  };
}

const MESSAGES = messages({
  'proxy-lacks-values':
    '{workload} cannot create pods: ResourceQuota {quota} requires {resources} on every container, which the injected {containers} do not set{values}.',
  'proxy-lacks-values-event':
    '{workload} cannot create pods: ResourceQuota {quota} requires {resources} on every container, which the injected {containers} do not set (FailedCreate){values}.',
  'proxy-does-not-fit': 'One more pod of {workload} does not fit ResourceQuota {quota} with its {proxy}: {shortfall}.',
});

export default defineCheck({
  ...meta('quota-blocks-proxy'),
  facts: [APP_WORKLOADS, DECISIONS],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      if (w.kind === 'Pod' || !w.templatePath) continue; // no template: no new pod to admit
      if (w.kind === 'Job' && jobFinished(w.obj)) continue; // a finished Job creates no more pods
      // Scoped quotas count only some pods (BestEffort, Terminating, PriorityClass): not modelled.
      const quotas = m
        .inNamespace('resourcequotas', w.namespace)
        .filter((q) => isObj(q.spec) && !q.spec.scopes && !q.spec.scopeSelector);
      if (!quotas.length) continue;
      if (!m.injectionConfigRead) {
        yield* namespaceOnly(m, w, quotas);
        continue;
      }
      for (const { mesh } of m.meshes) {
        if (!m.decision(w, mesh)?.inject && !podStates(w).meshed.has(mesh)) continue;
        for (const q of quotas) {
          const f = quotaFindings(m, w, mesh, q);
          if (f) yield { mesh, resource: w.ref, ...f };
        }
      }
    }
  },
});

/**
 * Namespace-only permissions (no Namespaces or webhooks: whether a new pod is injected, and with
 * what, is unknown). Judged only where the namespace shows the mesh: the workload's pods run its
 * proxy (their proxy is what the next pod gets: proxyConfig), or a FailedCreate event for the
 * quota names the proxy's containers as missing a value (the API server's own verdict).
 */
function* namespaceOnly(
  m: Model,
  w: Workload,
  quotas: K8sObject[],
): Generator<FindingInput<Evidence, typeof MESSAGES>> {
  for (const mesh of meshesAllowed(m)) {
    for (const q of quotas) {
      if (podStates(w).meshed.has(mesh)) {
        const f = quotaFindings(m, w, mesh, q);
        if (f) yield { mesh, resource: w.ref, ...f };
        continue;
      }
      const f = rejectedProxy(m, w, mesh, q);
      if (f) yield { mesh, resource: w.ref, ...f };
    }
  }
}

/**
 * "failed quota: q: must specify limits.cpu for: linkerd-init,linkerd-proxy; limits.memory for:
 * ..." (Kubernetes 1.26+ names the containers): the required values, by quota resource, that the
 * mesh's proxy or init container lacks. Before 1.26 the API server named no container ("must specify
 * limits.cpu,limits.memory"): a value every container of the workload's own sets can only be missing
 * from the containers the mesh injected (`pod`, the next pod as injected), so those are named.
 */
function proxyMissingIn(message: string, mesh: MeshName, pod?: InjectedPod): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const spec = /must specify (.+)$/.exec(message)?.[1] ?? '';
  let named = false;
  for (const part of spec.split(';')) {
    const hit = /^\s*([a-z.]+(?:,[a-z.]+)*) for: ([A-Za-z0-9.,-]+)/.exec(part);
    if (!hit) continue;
    named = true;
    const names = hit[2]!
      .split(',')
      .filter((n) => n === profileOf(mesh).containers.proxy || profileOf(mesh).containers.init.includes(n));
    for (const key of hit[1]!.split(',')) if (REQUIRED.get(key) && names.length) out[key] = names.sort();
  }
  if (named || !pod) return out;
  const all = [...pod.containers, ...pod.initContainers];
  const apps = all.filter((c) => !c.proxy);
  const injected = all
    .filter((c) => c.proxy)
    .map((c) => c.name)
    .sort();
  if (!apps.length || !injected.length) return out;
  for (const key of spec.split(',').map((k) => k.trim())) {
    const need = REQUIRED.get(key);
    if (need && apps.every((c) => has(c, need))) out[key] = injected;
  }
  return out;
}

/** The FailedCreate event of this quota naming the mesh's containers, as a finding (namespace-only). */
function rejectedProxy(m: Model, w: Workload, mesh: MeshName, q: K8sObject, configRead = false) {
  const name = nameOf(q);
  const failedCreate = failedCreateEvents(m, w, (msg) => msg.includes(`quota: ${name}:`));
  const pod = injectedPod(m, mesh, w);
  const latest = failedCreate.find((e) => Object.keys(proxyMissingIn(e.message, mesh, pod)).length > 0);
  if (!latest) return undefined;
  const missing = proxyMissingIn(latest.message, mesh, pod);
  const status = isObj(q.status) ? q.status : {};
  const hard = strMap(isObj(status.hard) ? status.hard : isObj(q.spec) ? q.spec.hard : undefined);
  const containers = [...new Set(Object.values(missing).flat())].sort();
  const a = missingValues(m, w, mesh, q, pod, hard);
  return {
    ...say(MESSAGES, 'proxy-lacks-values-event', {
      workload: `${w.kind} ${w.namespace}/${w.name}`,
      quota: name,
      resources: Object.keys(missing).join(', '),
      containers: containers.join(' and '),
      values: a.text,
    }),
    affectedPods: desiredPods(w),
    evidence: {
      quota: name,
      hard,
      failedCreate,
      missing,
      ...a.evidence,
      proxy: {
        container: profileOf(mesh).containers.proxy,
        source: configRead
          ? "the FailedCreate event: the API server found the injected containers without these values, whatever the injector's configuration read says"
          : "the FailedCreate event: the proxy's configuration (Namespace, webhooks) could not be read",
      },
    },
    fix: a.fix,
  };
}
