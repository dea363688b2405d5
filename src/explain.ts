/**
 * `meshdoctor explain <kind>/<name>`: one workload walked through the injection decision as the
 * API server and each installed mesh's injector would make it now, next to what runs today.
 */
import { UserError } from './errors.js';
import type { Decision } from './mesh/decision.js';
import { namespaceMarker } from './mesh/markers.js';
import { PROXY_CONTAINER } from './mesh/pods.js';
import { podStates, type Model, type Workload } from './model.js';
import type { Finding, MeshName, ResourceRef } from './types.js';
import { nameOf } from './util.js';

const KIND_ALIASES: Record<string, string> = {
  deployment: 'Deployment', deployments: 'Deployment', deploy: 'Deployment',
  statefulset: 'StatefulSet', statefulsets: 'StatefulSet', sts: 'StatefulSet',
  daemonset: 'DaemonSet', daemonsets: 'DaemonSet', ds: 'DaemonSet',
  job: 'Job', jobs: 'Job',
  cronjob: 'CronJob', cronjobs: 'CronJob', cj: 'CronJob',
  pod: 'Pod', pods: 'Pod', po: 'Pod',
};

/** Parse `deployment/web` (kubectl's TYPE/NAME, with its short names). */
export function parseTarget(arg: string): { kind: string; name: string } {
  const m = /^([A-Za-z]+)(?:\.[a-z.]+)?\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(arg);
  const kind = m ? KIND_ALIASES[m[1]!.toLowerCase()] : undefined;
  if (!m || !kind) {
    throw new UserError(`cannot explain "${arg}": expected KIND/NAME with KIND one of deployment, statefulset, daemonset, job, cronjob, pod`);
  }
  return { kind, name: m[2]! };
}

export interface MeshExplanation {
  mesh: MeshName;
  namespaceMarker: string | null;
  webhooks: {
    configuration: string;
    webhook: string;
    failurePolicy: string;
    called: boolean;
    rulesMatchPodCreate: boolean;
    namespaceSelector: { matched: boolean; terms: { term: string; matched: boolean }[] };
    objectSelector: { matched: boolean; terms: { term: string; matched: boolean }[] };
  }[];
  injector: { rule: string; ok: boolean; detail: string }[];
  wouldInject: boolean;
  verdict: string;
}

export interface Explanation {
  workload: ResourceRef;
  /** When a pod was asked about, the workload whose template it comes from. */
  via?: string;
  meshes: MeshExplanation[];
  now: { pods: number; meshed: Partial<Record<MeshName, string[]>>; unmeshed: string[] };
  onRestart: string;
  findings: Finding[];
}

function verdict(d: Decision): string {
  if (!d.called) {
    return d.calls.length === 0 ? `no ${d.mesh} injection webhook is installed` : `no ${d.mesh} webhook would be called: the API server never asks the injector`;
  }
  const failed = d.injector.find((s) => !s.ok);
  return failed ? `the ${d.mesh} injector would skip it: ${failed.detail}` : `a pod created now would get ${PROXY_CONTAINER[d.mesh]}`;
}

function findWorkload(m: Model, kind: string, ns: string, name: string): { w: Workload; via?: string } {
  if (kind === 'Pod') {
    const owner = m.workloads.find((w) => w.namespace === ns && w.pods.some((p) => nameOf(p) === name));
    if (owner) return owner.kind === 'Pod' ? { w: owner } : { w: owner, via: `pod ${name} belongs to ${owner.kind} ${owner.name}: its template decides` };
  }
  const w = m.workloads.find((x) => x.kind === kind && x.namespace === ns && x.name === name);
  if (!w) throw new UserError(`${kind.toLowerCase()} "${name}" not found in namespace "${ns}"`);
  return { w };
}

export function explain(m: Model, target: { kind: string; name: string }, ns: string, findings: Finding[]): Explanation {
  const { w, via } = findWorkload(m, target.kind, ns, target.name);
  const nsObj = m.namespace(ns);
  const decisions = m.decisions(w);
  const states = podStates(w);
  const meshes = decisions.map((d): MeshExplanation => ({
    mesh: d.mesh,
    namespaceMarker: namespaceMarker(d.mesh, nsObj).text ?? null,
    webhooks: d.calls.map((c) => ({
      configuration: c.webhook.configName,
      webhook: c.webhook.name,
      failurePolicy: c.webhook.failurePolicy,
      called: c.called,
      rulesMatchPodCreate: c.rules,
      namespaceSelector: c.namespaceSelector,
      objectSelector: c.objectSelector,
    })),
    injector: d.injector,
    wouldInject: d.inject,
    verdict: verdict(d),
  }));
  const injecting = decisions.filter((d) => d.inject).map((d) => d.mesh);
  return {
    workload: w.ref,
    ...(via ? { via } : {}),
    meshes,
    now: {
      pods: states.active.length,
      meshed: Object.fromEntries([...states.meshed].map(([mesh, pods]) => [mesh, pods.map(nameOf)])),
      unmeshed: states.unmeshed.map(nameOf),
    },
    onRestart:
      meshes.length === 0
        ? 'no mesh is installed: pods are never injected'
        : injecting.length
          ? `new pods get ${injecting.map((x) => PROXY_CONTAINER[x]).join(' and ')}`
          : 'new pods get no proxy',
    findings: findings.filter((f) => f.resource.kind === w.kind && f.resource.namespace === w.namespace && f.resource.name === w.name),
  };
}
