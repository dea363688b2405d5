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
 * Fix: (a) give the proxy the missing values with the mesh's annotations on the pod template
 * (Istio: all of them at once, since any one replaces the global defaults); (b) raise the quota
 * so that one more pod fits.
 */
import { desiredPods, jobFinished, podStates, type Model, type Workload } from '../model.js';
import { setAnnotationsOnTemplate } from '../fix.js';
import {
  failedCreateEvents,
  formatUnits,
  injectedPod,
  parseQuantity,
  podDemand,
  proxyConfig,
  PROXY_RESOURCE_ANNOTATION,
  quantityUnits,
  RESOURCE_KEYS,
  splitKey,
  type PodContainer,
  type ProxyConfig,
  type ResourceKey,
  type Resources,
} from '../mesh/resources.js';
import { INIT_CONTAINER, PROXY_CONTAINER } from '../mesh/pods.js';
import { meshesAllowed } from '../mesh/siblings.js';
import type { FindingInput, K8sObject, MeshName } from '../types.js';
import { isObj, nameOf, shq, strMap } from '../util.js';
import { WORKLOAD_KINDS, defineCheck } from './define.js';

/** Quota resources the API server demands on every container, and the container value each needs. */
const REQUIRED: Record<string, ResourceKey> = {
  cpu: 'requests.cpu',
  'requests.cpu': 'requests.cpu',
  memory: 'requests.memory',
  'requests.memory': 'requests.memory',
  'limits.cpu': 'limits.cpu',
  'limits.memory': 'limits.memory',
};

/** Proxy values suggested when the quota needs one that is not set (Linkerd: values-ha.yaml; Istio: its defaults). */
const SUGGEST: Record<MeshName, Record<ResourceKey, string>> = {
  linkerd: { 'requests.cpu': '100m', 'requests.memory': '20Mi', 'limits.cpu': '1', 'limits.memory': '250Mi' },
  istio: { 'requests.cpu': '100m', 'requests.memory': '128Mi', 'limits.cpu': '2000m', 'limits.memory': '1024Mi' },
};

const has = (c: PodContainer, key: ResourceKey) => {
  const [kind, r] = splitKey(key);
  return c.resources[kind][r] !== undefined;
};
const units = (key: string, v: unknown) => (key === 'pods' ? parseQuantity(v) : quantityUnits(splitKey(REQUIRED[key]!)[1], v));
const format = (key: string, n: number) => (key === 'pods' ? String(n) : formatUnits(splitKey(REQUIRED[key]!)[1], n));
const need = (key: string, d: Resources) => {
  if (key === 'pods') return 1;
  const [kind, r] = splitKey(REQUIRED[key]!);
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
  return { container: PROXY_CONTAINER[p.mesh], native: p.native, resources, source: p.source };
}

/**
 * Annotations that give the proxy the values the quota needs. Linkerd merges them with its other
 * settings: only the missing ones. Istio replaces all of its defaults once one is set: all four,
 * keeping the values set explicitly and Istio's defaults for the rest.
 */
function proxyAnnotations(p: ProxyConfig, missing: ResourceKey[]): Record<string, string> {
  const out: Record<string, string> = {};
  const chosen: Partial<Record<ResourceKey, number>> = {};
  for (const key of RESOURCE_KEYS) {
    const [kind, r] = splitKey(key);
    const suggest = quantityUnits(r, SUGGEST[p.mesh][key])!;
    // A limit below the request is invalid: never suggest less than the request.
    if (p.mesh === 'linkerd') {
      if (!missing.includes(key)) continue;
      chosen[key] = Math.max(suggest, kind === 'limits' ? (p.resources.requests[r] ?? 0) : 0);
    } else {
      const explicit = p.source[key]?.startsWith('defaulted') ? undefined : p.resources[kind][r];
      chosen[key] = explicit ?? Math.max(suggest, kind === 'limits' ? (chosen[`requests.${r}`] ?? 0) : 0);
    }
    out[PROXY_RESOURCE_ANNOTATION[p.mesh][key]] = formatUnits(r, chosen[key]!);
  }
  return out;
}

function quotaFindings(m: Model, w: Workload, mesh: MeshName, q: K8sObject) {
  const status = isObj(q.status) ? q.status : {};
  const spec = isObj(q.spec) ? q.spec : {};
  const hard = strMap(isObj(status.hard) ? status.hard : spec.hard);
  const pod = injectedPod(m, mesh, w);
  const all = [...pod.containers, ...pod.initContainers];
  const required = Object.keys(hard).filter((k) => REQUIRED[k]).sort();
  const missingIn = (cs: PodContainer[]) => {
    const out: Record<string, string[]> = {};
    for (const k of required) {
      const names = cs.filter((c) => !has(c, REQUIRED[k]!)).map((c) => c.name);
      if (names.length) out[k] = names.sort();
    }
    return out;
  };
  // An app container without the value: a LimitRange we do not read fills it, or the pod never fit.
  if (Object.keys(missingIn(all.filter((c) => !c.proxy))).length) return undefined;
  const name = nameOf(q);
  const failedCreate = failedCreateEvents(m, w, (msg) => msg.includes(`quota: ${name}:`) || msg.includes(`quota: ${name},`));
  const base = { quota: name, hard, ...(failedCreate.length ? { failedCreate } : {}) };
  const missing = missingIn(all.filter((c) => c.proxy));
  if (Object.keys(missing).length) {
    const containers = [...new Set(Object.values(missing).flat())].sort();
    return {
      message: `${w.kind} ${w.namespace}/${w.name} cannot create pods: ResourceQuota ${name} requires ${Object.keys(missing).join(', ')} on every container, which the injected ${containers.join(' and ')} do not set.`,
      affectedPods: desiredPods(w),
      evidence: { ...base, missing, proxy: proxyEvidence(pod.proxy) },
      fix: [
        ...setAnnotationsOnTemplate(w, proxyAnnotations(pod.proxy, [...new Set(Object.keys(missing).map((k) => REQUIRED[k]!))])),
        // Linkerd reads its config annotations from the namespace too (a fixed-text alternative).
        ...(mesh === 'linkerd' ? ['# or: set the same annotations on the namespace, for all its workloads, and restart them'] : []),
      ],
    };
  }
  const used = strMap(status.used);
  if (!isObj(status.used)) return undefined; // the quota controller has not counted usage yet
  const tracked = Object.keys(hard).filter((k) => REQUIRED[k] || k === 'pods').sort();
  const room = new Map<string, number>();
  for (const k of tracked) {
    const h = units(k, hard[k]);
    if (h !== undefined) room.set(k, h - (units(k, used[k] ?? '0') ?? 0));
  }
  const total = podDemand(pod);
  const app = podDemand({ containers: pod.containers.filter((c) => !c.proxy), initContainers: pod.initContainers.filter((c) => !c.proxy) });
  const keys = [...room.keys()];
  // Not even the app alone fits: the quota is exhausted, whatever the mesh adds.
  if (keys.some((k) => need(k, app) > room.get(k)!)) return undefined;
  const exceeded = keys.filter((k) => need(k, total) > room.get(k)!);
  if (!exceeded.length) return undefined;
  const asStrings = (f: (k: string) => number) => Object.fromEntries(keys.map((k) => [k, format(k, f(k))]));
  const proxyName = PROXY_CONTAINER[mesh];
  return {
    message: `One more pod of ${w.kind} ${w.namespace}/${w.name} does not fit ResourceQuota ${name} with its ${proxyName}: ${exceeded
      .map((k) => `${k} needs ${format(k, need(k, total))} (${format(k, need(k, total) - need(k, app))} for the proxy) but ${format(k, room.get(k)!)} is left`)
      .join('; ')}.`,
    affectedPods: 1,
    evidence: {
      ...base,
      used: asStrings((k) => units(k, used[k] ?? '0') ?? 0),
      remaining: asStrings((k) => room.get(k)!),
      demand: { pod: asStrings((k) => need(k, total)), proxy: asStrings((k) => need(k, total) - need(k, app)) },
      exceeded,
      proxy: proxyEvidence(pod.proxy),
    },
    fix: [
      `kubectl patch resourcequota ${shq(name)} -n ${shq(w.namespace)} --type=merge -p ${shq(
        JSON.stringify({ spec: { hard: Object.fromEntries(exceeded.map((k) => [k, format(k, units(k, hard[k])! + need(k, total) - room.get(k)!)])) } }),
      )}`,
    ],
  };
}

export default defineCheck({
  id: 'quota-blocks-proxy',
  code: 'MD1008',
  title: 'ResourceQuota rejects the injected proxy',
  description:
    "A ResourceQuota in the namespace rejects the workload's next pod once the proxy is injected: the proxy lacks a request or limit the quota requires, or its share no longer fits.",
  severity: 'error',
  // Namespace-only permissions: only workloads whose pods are meshed, with the proxy they were given.
  inputs: ['resourcequotas'],
  optionalInputs: [...WORKLOAD_KINDS, 'pods', 'events', 'configmaps', 'namespaces', 'mutatingwebhookconfigurations'],
  *run(m) {
    for (const w of m.appWorkloads) {
      if (w.kind === 'Pod' || !w.templatePath) continue; // no template: no new pod to admit
      if (w.kind === 'Job' && jobFinished(w.obj)) continue; // a finished Job creates no more pods
      // Scoped quotas count only some pods (BestEffort, Terminating, PriorityClass): not modelled.
      const quotas = m.inNamespace('resourcequotas', w.namespace).filter((q) => isObj(q.spec) && !q.spec.scopes && !q.spec.scopeSelector);
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
function* namespaceOnly(m: Model, w: Workload, quotas: K8sObject[]): Generator<FindingInput> {
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
 * mesh's proxy or init container lacks.
 */
function proxyMissingIn(message: string, mesh: MeshName): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const spec = /must specify (.+)$/.exec(message)?.[1] ?? '';
  for (const part of spec.split(';')) {
    const hit = /^\s*([a-z.]+(?:,[a-z.]+)*) for: ([A-Za-z0-9.,-]+)/.exec(part);
    if (!hit) continue;
    const names = hit[2]!.split(',').filter((n) => n === PROXY_CONTAINER[mesh] || n === INIT_CONTAINER[mesh]);
    for (const key of hit[1]!.split(',')) if (REQUIRED[key] && names.length) out[key] = names.sort();
  }
  return out;
}

/** The FailedCreate event of this quota naming the mesh's containers, as a finding (namespace-only). */
function rejectedProxy(m: Model, w: Workload, mesh: MeshName, q: K8sObject) {
  const name = nameOf(q);
  const failedCreate = failedCreateEvents(m, w, (msg) => msg.includes(`quota: ${name}:`));
  const latest = failedCreate.find((e) => Object.keys(proxyMissingIn(e.message, mesh)).length > 0);
  if (!latest) return undefined;
  const missing = proxyMissingIn(latest.message, mesh);
  const status = isObj(q.status) ? q.status : {};
  const hard = strMap(isObj(status.hard) ? status.hard : isObj(q.spec) ? q.spec.hard : undefined);
  const proxy = proxyConfig(m, mesh, w);
  const containers = [...new Set(Object.values(missing).flat())].sort();
  return {
    message: `${w.kind} ${w.namespace}/${w.name} cannot create pods: ResourceQuota ${name} requires ${Object.keys(missing).join(', ')} on every container, which the injected ${containers.join(' and ')} do not set (FailedCreate).`,
    affectedPods: desiredPods(w),
    evidence: {
      quota: name,
      hard,
      failedCreate,
      missing,
      proxy: { container: PROXY_CONTAINER[mesh], source: "the FailedCreate event: the proxy's configuration (Namespace, webhooks) could not be read" },
    },
    fix: [
      ...setAnnotationsOnTemplate(w, proxyAnnotations(proxy, [...new Set(Object.keys(missing).map((k) => REQUIRED[k]!))])),
      ...(mesh === 'linkerd' ? ['# or: set the same annotations on the namespace, for all its workloads, and restart them'] : []),
    ],
  };
}
