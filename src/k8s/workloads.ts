/**
 * Workloads: the controllers that own pods (Deployment, StatefulSet, DaemonSet, Job, CronJob) or
 * a bare pod, resolved through ownerReferences (Pod -> ReplicaSet -> Deployment), with the pod
 * template new pods come from. Findings are per workload: 50 replicas make one finding. A pod whose
 * owner is of a kind meshdoctor does not read (a Workflow, a TaskRun, a SparkApplication, any custom
 * resource) belongs to a workload of that kind and name, judged by its pods (`judgedByPod`); a pod
 * owned by a pod (Spark's executors) belongs to its owner pod's workload.
 */
import { KINDS, POD_TEMPLATE_PATH, type KindKey } from './kinds.js';
import { isActive } from './pods.js';
import type { K8sObject, ManifestSource, ResourceRef } from '../util/types.js';
import { cmp, isObj, labelsOf, nameOf, nsOf, str } from '../util/objects.js';

type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'CronJob' | 'Pod' | string;

export interface Workload {
  ref: ResourceRef & { namespace: string };
  kind: WorkloadKind;
  namespace: string;
  name: string;
  /** The controller object (or the bare Pod); undefined when only known from ownerReferences. */
  obj?: K8sObject;
  /** The pod template new pods are created from (the pod itself for bare or orphaned pods). */
  template: { metadata?: unknown; spec?: unknown };
  /** JSON path of the template inside the object, for patch commands ('' for a Pod). */
  templatePath: string;
  /** The workload's pods (all phases), in name order. */
  pods: K8sObject[];
  /** `check -f`: the manifest document the workload comes from (its fixes edit that file, not the cluster). */
  manifest?: ManifestSource;
}

/** The kinds whose pod template makes a workload (src/k8s/kinds.ts POD_TEMPLATE_PATH; a ReplicaSet's pods are its Deployment's). */
const TEMPLATE_KINDS: [KindKey, string, string][] = (Object.keys(POD_TEMPLATE_PATH) as KindKey[])
  .filter((k) => k !== 'replicasets')
  .map((k) => [k, KINDS[k].kind, POD_TEMPLATE_PATH[k]!]);

/** The parts of each template path, split once (at() is asked per pod). */
const PARTS = new Map<string, string[]>();

function at(obj: unknown, path: string): Record<string, any> | undefined {
  let parts = PARTS.get(path);
  if (!parts) PARTS.set(path, (parts = path.split('/').filter(Boolean)));
  let cur: unknown = obj;
  for (const part of parts) cur = isObj(cur) ? cur[part] : undefined;
  return isObj(cur) ? cur : undefined;
}

/** The kinds buildWorkloads reads: Pods, ReplicaSets and every kind with a pod template. */
export const WORKLOAD_INPUTS: readonly KindKey[] = ['pods', 'replicasets', ...TEMPLATE_KINDS.map((t) => t[0])];

/** What buildWorkloads reads: objects by kind and by namespace/name, and the manifests of `check -f`. */
interface Objects {
  list(key: KindKey): K8sObject[];
  get(key: KindKey, ns: string, name: string): K8sObject | undefined;
  manifestSource(ref: ResourceRef): ManifestSource | undefined;
}

export function buildWorkloads(m: Objects): Workload[] {
  const byUid = new Map<string, { key: KindKey; obj: K8sObject }>();
  for (const key of ['replicasets', ...TEMPLATE_KINDS.map((t) => t[0])] as KindKey[]) {
    for (const obj of m.list(key)) {
      const uid = str(obj.metadata?.uid);
      if (uid) byUid.set(uid, { key, obj });
    }
  }
  // The controller reference, else the first reference (one loop, no copy: asked per pod).
  const controllerOf = (o: K8sObject): Record<string, any> | undefined => {
    const refs: unknown = o.metadata?.ownerReferences;
    if (!Array.isArray(refs)) return undefined;
    let first: Record<string, any> | undefined;
    for (const r of refs) {
      if (!isObj(r)) continue;
      if (r.controller === true) return r;
      first ??= r;
    }
    return first;
  };
  const workloads = new Map<string, Workload>();
  const make = (
    kind: string,
    obj: K8sObject | undefined,
    ns: string,
    name: string,
    template: Workload['template'],
    templatePath: string,
  ) => {
    const id = `${kind}/${ns}/${name}`;
    let w = workloads.get(id);
    if (!w) {
      w = {
        ref: { kind, namespace: ns, name },
        kind,
        namespace: ns,
        name,
        ...(obj ? { obj } : {}),
        template,
        templatePath,
        pods: [],
      };
      workloads.set(id, w);
    }
    return w;
  };
  for (const [key, kind, path] of TEMPLATE_KINDS) {
    for (const obj of m.list(key)) {
      // A Job created by a CronJob is judged through its CronJob (where the template lives).
      if (key === 'jobs' && controllerOf(obj)?.kind === 'CronJob') continue;
      make(kind, obj, nsOf(obj), nameOf(obj), at(obj, path) ?? {}, path);
    }
  }
  // The workload of the pods whose controller reference (uid, kind, name) and namespace are the same: the
  // chain above a known owner is walked once per owner, not once per pod (the pods of a ReplicaSet).
  const byOwner = new Map<string, { kind: string; name: string; ns: string; w: Workload }>();
  // Pods owned by a pod (Spark's executors by their driver): the owner pod by uid, built on first need.
  let podsByUid: Map<string, K8sObject> | undefined;
  const podByUid = (uid: string): K8sObject | undefined => {
    if (!podsByUid) {
      podsByUid = new Map();
      for (const p of m.list('pods')) {
        const u = str(p.metadata?.uid);
        if (u) podsByUid.set(u, p);
      }
    }
    return podsByUid.get(uid);
  };
  for (const pod of m.list('pods')) {
    const ns = nsOf(pod);
    // Walk up the controller chain as far as the snapshot knows it: through the kinds with a pod template, through
    // an owner pod, and to an owner of any other kind, named as its ownerReference names it (its object not read).
    let owner: Record<string, any> | undefined = controllerOf(pod);
    const ownerKey = owner?.uid ? String(owner.uid) : undefined;
    const refKind = String(owner?.kind ?? '');
    const refName = String(owner?.name ?? '');
    const seen = ownerKey !== undefined ? byOwner.get(ownerKey) : undefined;
    if (seen && seen.kind === refKind && seen.name === refName && seen.ns === ns) {
      seen.w.pods.push(pod);
      continue;
    }
    let top: { kind: string; name: string; obj?: K8sObject; key?: KindKey } | undefined;
    for (let depth = 0; owner && depth < 4; depth++) {
      const ownerPod = owner.kind === 'Pod' && owner.uid ? podByUid(String(owner.uid)) : undefined;
      if (ownerPod && ownerPod !== pod) {
        // The owner pod's own workload (a bare driver pod), or its owner's, above it.
        top = { kind: 'Pod', name: nameOf(ownerPod), obj: ownerPod };
        owner = controllerOf(ownerPod);
        continue;
      }
      const known = owner.uid ? byUid.get(String(owner.uid)) : undefined;
      top = known
        ? { kind: String(owner.kind ?? ''), name: nameOf(known.obj), obj: known.obj, key: known.key }
        : { kind: String(owner.kind ?? ''), name: String(owner.name ?? '') };
      owner = known ? controllerOf(known.obj) : undefined;
    }
    // Whether the workload came from the owners alone (not from this pod's labels): then it is every such pod's.
    let byOwners = true;
    if (top && !top.obj && top.kind === 'ReplicaSet') {
      byOwners = false;
      // ReplicaSets not read: the Deployment is the ReplicaSet's name less the pod-template-hash.
      const hash = labelsOf(pod)['pod-template-hash'];
      const deploy =
        hash && top.name.endsWith(`-${hash}`)
          ? m.get('deployments', ns, top.name.slice(0, -hash.length - 1))
          : undefined;
      if (deploy) top = { kind: 'Deployment', name: nameOf(deploy), obj: deploy, key: 'deployments' };
    }
    let w: Workload;
    if (!top) w = make('Pod', pod, ns, nameOf(pod), pod, '');
    else if (top.kind === 'Pod' && top.obj)
      w = make('Pod', top.obj, ns, top.name, top.obj, ''); // an owner pod's workload
    else {
      const tk = TEMPLATE_KINDS.find((t) => t[1] === top!.kind);
      const template = top.obj && tk ? at(top.obj, tk[2]) : undefined;
      w = template
        ? make(top.kind, top.obj, ns, top.name, template, tk![2])
        : // The controller is not in the snapshot (or not a kind we know): judge by the pod.
          make(top.kind, top.obj, ns, top.name, pod, '');
      if (ownerKey !== undefined && byOwners && !seen) byOwner.set(ownerKey, { kind: refKind, name: refName, ns, w });
    }
    w.pods.push(pod);
  }
  const out = [...workloads.values()];
  for (const w of out) {
    // Usually in name order already (a List is): sorted only when not.
    if (!inNameOrder(w.pods)) w.pods.sort((a, b) => cmp(nameOf(a), nameOf(b)));
    const manifest = m.manifestSource(w.ref);
    if (manifest) w.manifest = manifest;
  }
  return out.sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.kind, b.kind) || cmp(a.name, b.name));
}

function inNameOrder(pods: K8sObject[]): boolean {
  for (let i = 1; i < pods.length; i++) if (cmp(nameOf(pods[i - 1]!), nameOf(pods[i]!)) > 0) return false;
  return true;
}

/**
 * The workload is judged by its pods, not by a pod template of its own: a bare pod, or the pods of an owner whose
 * object was not read or whose kind meshdoctor does not know (an Argo Workflow, a Tekton TaskRun, an operator's
 * resource, a PersistentVolumeClaim), named as their ownerReference names it. Its next pods are its owner's to make,
 * from a template meshdoctor has not seen: what the pods say is all that is known.
 */
export const judgedByPod = (w: Workload): boolean => !w.templatePath && !w.manifest;

/**
 * How many pods a workload wants: spec.replicas (default 1), a DaemonSet's desired count, a Job's
 * parallelism; at least the pods it has.
 */
export function desiredPods(w: Workload): number {
  const spec = isObj(w.obj?.spec) ? w.obj!.spec : {};
  const status = isObj(w.obj?.status) ? w.obj!.status : {};
  const want = [spec.replicas, status.desiredNumberScheduled, spec.parallelism].find((n) => typeof n === 'number') ?? 1;
  return Math.max(want, w.pods.filter(isActive).length);
}

/** A Job that has completed or failed for good: it creates no more pods. */
export function jobFinished(job: K8sObject | undefined): boolean {
  const status = isObj(job?.status) ? job!.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return (
    !!status.completionTime ||
    conditions.some((c: unknown) => isObj(c) && (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')
  );
}
