/**
 * The Model: a frozen snapshot plus the indexes and derived facts every check shares, each built
 * once on first use (by namespace, by owner uid, workloads, installed meshes, decisions). Checks
 * read only this; nothing here does I/O.
 */
import type { KindKey } from '../k8s/kinds.js';
import { meshNamespaces } from '../mesh/read-plan.js';
import { isActive, podSpec } from '../k8s/pods.js';
import { decide, type Decision } from './decision.js';
import { MESH_NAMES, type MeshName } from '../mesh/names.js';
import { injectedMesh } from '../mesh/proxy.js';
import { PROFILE_LIST, profileOf } from '../mesh/registry.js';
import { meshWebhooks, namespaceLabels, type MeshWebhook } from '../mesh/webhooks.js';
import type { CheckContext, K8sObject, ManifestSource, ResourceRef, Snapshot } from '../util/types.js';
import { newPodLabels } from '../k8s/pod-labels.js';
import { annotationsOf, cmp, groupBy, isObj, labelsOf, nameOf, nsOf, str } from '../util/objects.js';

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'CronJob' | 'Pod' | string;

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

export interface MeshInstall {
  mesh: MeshName;
  /** Control-plane namespaces. */
  namespaces: string[];
  webhooks: MeshWebhook[];
}

const TEMPLATE_KINDS: [KindKey, string, string][] = [
  ['deployments', 'Deployment', '/spec/template'],
  ['statefulsets', 'StatefulSet', '/spec/template'],
  ['daemonsets', 'DaemonSet', '/spec/template'],
  ['jobs', 'Job', '/spec/template'],
  ['cronjobs', 'CronJob', '/spec/jobTemplate/spec/template'],
];

function at(obj: unknown, path: string): Record<string, any> | undefined {
  let cur: unknown = obj;
  for (const part of path.split('/').filter(Boolean)) cur = isObj(cur) ? cur[part] : undefined;
  return isObj(cur) ? cur : undefined;
}

export class Model {
  readonly snapshot: Snapshot;
  readonly now: Date;
  readonly options: CheckContext['options'];
  private readonly memos = new Map<string, unknown>();
  private readonly deadline: CheckContext['deadline'];

  constructor(ctx: CheckContext) {
    this.snapshot = ctx.snapshot;
    this.now = ctx.now;
    this.options = ctx.options;
    this.deadline = ctx.deadline;
  }

  /** Ends the run (DeadlineError) once --timeout has passed; called where work grows with the cluster. */
  checkDeadline(): void {
    this.deadline?.check();
  }

  /** Compute once per model: the one memo the model, the mesh helpers and checks share. */
  memo<T>(key: string, f: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, f());
    return this.memos.get(key) as T;
  }

  /** The objects of a kind (empty when not read). */
  list(key: KindKey): K8sObject[] {
    return this.snapshot.objects[key] ?? [];
  }

  has(key: KindKey): boolean {
    return this.snapshot.objects[key] !== undefined;
  }

  /**
   * The kind was read in namespace `ns` (for a cluster-scoped kind, pass ''): read at all, and not
   * refused there (Snapshot.unavailableIn: a Role covering -n's namespace but not a mesh's).
   * Where it is false, the namespace's objects of that kind are unknown, never "none".
   */
  readIn(key: KindKey, ns: string): boolean {
    return this.has(key) && this.refusedIn(key, ns) === undefined;
  }

  /** Why a kind that was read could not be read in `ns` (Snapshot.unavailableIn); undefined when it was, or was not read at all. */
  refusedIn(key: KindKey, ns: string): string | undefined {
    return this.snapshot.unavailableIn?.[key]?.[ns];
  }

  /**
   * Why a mesh's control plane was not read whole: the first of `kinds` refused in one of its
   * namespaces (its control-plane namespaces and its webhooks' Services'), else undefined. What a
   * profile reads there (an injector's flags, a CNI setting) is then unknown, not the chart default.
   */
  controlPlaneRefused(mesh: MeshName, kinds: readonly KindKey[]): string | undefined {
    const namespaces = new Set([...(this.mesh(mesh)?.namespaces ?? []), ...this.webhooksOf(mesh).flatMap((h) => (h.service ? [h.service.namespace] : []))]);
    for (const ns of [...namespaces].sort(cmp)) {
      for (const k of kinds) {
        const why = this.refusedIn(k, ns);
        if (why !== undefined) return `cannot read ${k} in namespace ${ns}: ${why}`;
      }
    }
    return undefined;
  }

  /** Why `key` is not known in `ns` ("pods in namespace linkerd: forbidden: ..."), or undefined when it was read. */
  unread(key: KindKey, ns = ''): string | undefined {
    if (!this.has(key)) return `${key}: ${this.snapshot.unavailable[key] ?? 'not in the snapshot'}`;
    const why = this.refusedIn(key, ns);
    return why === undefined ? undefined : `${key} in namespace ${ns}: ${why}`;
  }

  /** Objects of a kind by namespace. */
  byNamespace(key: KindKey): Map<string, K8sObject[]> {
    return this.memo(`ns:${key}`, () => groupBy(this.list(key), nsOf));
  }

  inNamespace(key: KindKey, ns: string): K8sObject[] {
    return this.byNamespace(key).get(ns) ?? [];
  }

  /** One object by namespace and name. */
  get(key: KindKey, ns: string, name: string): K8sObject | undefined {
    const idx = this.memo(`name:${key}`, () => new Map(this.list(key).map((o) => [`${nsOf(o)}/${nameOf(o)}`, o])));
    return idx.get(`${ns}/${name}`);
  }

  namespace(name: string): K8sObject | undefined {
    return this.get('namespaces', '', name);
  }

  /** Namespaces whose workloads the run reports on: the -n namespace, or all of them. */
  inScope(ns: string): boolean {
    const s = this.snapshot.scope;
    return s.allNamespaces || !s.namespace || s.namespace === ns;
  }

  /**
   * A mesh's injection webhooks, read from the MutatingWebhookConfigurations alone ([] for a mesh
   * left out by --mesh). Every mesh with a webhook is in `meshes`; checks about the webhooks
   * themselves use this, so that they read no pods, Deployments or Namespaces to find the meshes.
   */
  webhooksOf(mesh: MeshName): MeshWebhook[] {
    const all = this.memo('mesh-webhooks', () => meshWebhooks(this.list('mutatingwebhookconfigurations')));
    const chosen = this.options.mesh;
    return chosen !== 'auto' && chosen !== mesh ? [] : all.filter((w) => w.mesh === mesh);
  }

  /** The meshes that have injection webhooks, with them (MutatingWebhookConfigurations only). */
  get webhookMeshes(): { mesh: MeshName; webhooks: MeshWebhook[] }[] {
    return this.memo('webhook-meshes', () => MESH_NAMES.map((mesh) => ({ mesh, webhooks: this.webhooksOf(mesh) })).filter((x) => x.webhooks.length > 0));
  }

  /**
   * The installed meshes: their webhooks, control-plane namespaces, injector or meshed pods. Reads
   * MutatingWebhookConfigurations, Namespaces, Pods and Deployments: a check using it declares them.
   */
  get meshes(): MeshInstall[] {
    return this.memo('meshes', () => {
      const cpNs = meshNamespaces(this.list('namespaces'), this.list('mutatingwebhookconfigurations'));
      const out: MeshInstall[] = [];
      for (const mesh of MESH_NAMES) {
        const hooks = this.webhooksOf(mesh);
        const namespaces = cpNs[mesh].filter((n) => hooks.length > 0 || this.namespace(n) !== undefined);
        const chosen = this.options.mesh;
        if (chosen !== 'auto' && chosen !== mesh) continue; // --mesh limits the run to one mesh
        if (this.detected(mesh) || chosen === mesh) out.push({ mesh, namespaces, webhooks: hooks });
      }
      return out;
    });
  }

  /** A mesh shows in the cluster: its webhooks, its injector or istiod, its meshed pods, its control-plane namespace. */
  private detected(mesh: MeshName): boolean {
    return this.memo(`detected:${mesh}`, () => {
      const all = this.memo('mesh-webhooks', () => meshWebhooks(this.list('mutatingwebhookconfigurations')));
      const meshedPods = this.list('pods').some((p) => injectedMesh(p as { spec?: unknown }) === mesh);
      const p = profileOf(mesh);
      const controlPlane = this.list('deployments').some((d) => p.isInjectorDeployment(nameOf(d)));
      return all.some((w) => w.mesh === mesh) || controlPlane || meshedPods || this.list('namespaces').some((n) => p.isControlPlaneNamespace(n));
    });
  }

  /**
   * The mesh is installed, whatever --mesh says: for advice that must not add a mesh beside one
   * the run leaves out (--mesh limits what is reported, not what runs in the cluster).
   */
  meshInstalled(name: MeshName): boolean {
    return !!this.mesh(name) || this.detected(name);
  }

  mesh(name: MeshName): MeshInstall | undefined {
    return this.meshes.find((m) => m.mesh === name);
  }

  /**
   * Namespaces and MutatingWebhookConfigurations were both read: the injection decision can be
   * made. Without them (a namespaced Role, deploy/rbac.yaml) only what the namespace itself shows
   * can be judged.
   */
  get injectionConfigRead(): boolean {
    return this.has('namespaces') && this.has('mutatingwebhookconfigurations');
  }

  /**
   * A mesh that may be installed: detected, or, where the webhook configurations could not be
   * read (so an install cannot be ruled out), one that --mesh does not leave out. For evidence
   * that names a mesh itself: a marker of its own, an event from its webhook.
   */
  meshPossible(name: MeshName): boolean {
    if (this.mesh(name)) return true;
    const chosen = this.options.mesh;
    return !this.has('mutatingwebhookconfigurations') && (chosen === 'auto' || chosen === name);
  }

  /** Namespaces that belong to a mesh's control plane (never reported as unmeshed). */
  isControlPlaneNamespace(ns: string): boolean {
    return this.meshes.some((m) => m.namespaces.includes(ns));
  }

  /** Every workload: controllers listed, plus bare and orphaned pods, in a stable order. */
  get workloads(): Workload[] {
    return this.memo('workloads', () => buildWorkloads(this));
  }

  /** The workloads of namespaces in scope, excluding the meshes' own control planes. */
  get appWorkloads(): Workload[] {
    return this.memo('app-workloads', () =>
      this.workloads.filter(
        (w) => this.inScope(w.namespace) && !this.isControlPlaneNamespace(w.namespace) && !isControlPlaneWorkload(w) && !isSidecarlessInfrastructure(w),
      ),
    );
  }

  /** The app workloads of one namespace (see appWorkloads). */
  appWorkloadsIn(ns: string): Workload[] {
    return this.memo('app-workloads-by-ns', () => groupBy(this.appWorkloads, (w) => w.namespace)).get(ns) ?? [];
  }

  /** `check -f`: the manifest document that holds this resource (undefined: not in the manifests). */
  manifestSource(ref: ResourceRef): ManifestSource | undefined {
    const key = (r: ResourceRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;
    return this.memo('manifest-sources', () => new Map((this.snapshot.manifests ?? []).map((x) => [key(x.ref), x.source]))).get(key(ref));
  }

  /** `check -f`: the app workloads the manifests hold (none without manifests). */
  get manifestWorkloads(): Workload[] {
    return this.memo('manifest-workloads', () => this.appWorkloads.filter((w) => this.manifestSource(w.ref)));
  }

  /** What each installed mesh would do with a pod created now from this workload's template. */
  decisions(w: Workload): Decision[] {
    const cache = this.memo('decisions', () => new Map<Workload, Decision[]>());
    let d = cache.get(w);
    if (!d) {
      this.checkDeadline();
      const ns = this.namespace(w.namespace);
      // One label set per namespace: evalWebhook caches selector results by its identity.
      const nsLabels = this.memo(`ns-labels:${w.namespace}`, () => namespaceLabels(ns, w.namespace));
      // Selectors see the pod, with the labels its controller adds (job-name, pod-template-hash, ...).
      const input = { namespace: w.namespace, nsLabels, nsAnnotations: annotationsOf(ns), template: w.template, podLabels: newPodLabels(w) };
      d = this.meshes.map((x) => decide(this, x.mesh, x.webhooks, input));
      cache.set(w, d);
    }
    return d;
  }

  decision(w: Workload, mesh: MeshName): Decision | undefined {
    return this.decisions(w).find((d) => d.mesh === mesh);
  }
}

/** Pods of the meshes' own control planes are never reported as missing a proxy. */
export function isControlPlaneWorkload(w: Workload): boolean {
  const labels = labelsOf(w.template);
  return PROFILE_LIST.some((p) => p.isControlPlaneWorkload(labels));
}

/** Infrastructure of a sidecar-less data plane (waypoints, node proxies): mesh components, not app workloads. */
export function isSidecarlessInfrastructure(w: Workload): boolean {
  const labels = labelsOf(w.template);
  return PROFILE_LIST.some((p) => p.sidecarless?.isInfrastructure(labels));
}

function buildWorkloads(m: Model): Workload[] {
  const byUid = new Map<string, { key: KindKey; obj: K8sObject }>();
  for (const key of ['replicasets', ...TEMPLATE_KINDS.map((t) => t[0])] as KindKey[]) {
    for (const obj of m.list(key)) {
      const uid = str(obj.metadata?.uid);
      if (uid) byUid.set(uid, { key, obj });
    }
  }
  const controllerOf = (o: K8sObject): Record<string, any> | undefined => {
    const refs = Array.isArray(o.metadata?.ownerReferences) ? o.metadata!.ownerReferences.filter(isObj) : [];
    return refs.find((r) => r.controller === true) ?? refs[0];
  };
  const workloads = new Map<string, Workload>();
  const make = (kind: string, obj: K8sObject | undefined, ns: string, name: string, template: Workload['template'], templatePath: string) => {
    const id = `${kind}/${ns}/${name}`;
    let w = workloads.get(id);
    if (!w) {
      w = { ref: { kind, namespace: ns, name }, kind, namespace: ns, name, ...(obj ? { obj } : {}), template, templatePath, pods: [] };
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
  for (const pod of m.list('pods')) {
    const ns = nsOf(pod);
    // Walk up the controller chain as far as the snapshot knows it.
    let owner: Record<string, any> | undefined = controllerOf(pod);
    let top: { kind: string; name: string; obj?: K8sObject; key?: KindKey } | undefined;
    for (let depth = 0; owner && depth < 4; depth++) {
      const known = owner.uid ? byUid.get(String(owner.uid)) : undefined;
      top = known
        ? { kind: String(owner.kind ?? ''), name: nameOf(known.obj), obj: known.obj, key: known.key }
        : { kind: String(owner.kind ?? ''), name: String(owner.name ?? '') };
      owner = known ? controllerOf(known.obj) : undefined;
    }
    if (top && !top.obj && top.kind === 'ReplicaSet') {
      // ReplicaSets not read: the Deployment is the ReplicaSet's name less the pod-template-hash.
      const hash = labelsOf(pod)['pod-template-hash'];
      const deploy = hash && top.name.endsWith(`-${hash}`) ? m.get('deployments', ns, top.name.slice(0, -hash.length - 1)) : undefined;
      if (deploy) top = { kind: 'Deployment', name: nameOf(deploy), obj: deploy, key: 'deployments' };
    }
    let w: Workload;
    if (!top) w = make('Pod', pod, ns, nameOf(pod), pod, '');
    else {
      const tk = TEMPLATE_KINDS.find((t) => t[1] === top!.kind);
      const template = top.obj && tk ? at(top.obj, tk[2]) : undefined;
      w = template
        ? make(top.kind, top.obj, ns, top.name, template, tk![2])
        : // The controller is not in the snapshot (or not a kind we know): judge by the pod.
          make(top.kind, top.obj, ns, top.name, pod, '');
    }
    w.pods.push(pod);
  }
  const out = [...workloads.values()];
  for (const w of out) {
    w.pods.sort((a, b) => cmp(nameOf(a), nameOf(b)));
    const manifest = m.manifestSource(w.ref);
    if (manifest) w.manifest = manifest;
  }
  return out.sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.kind, b.kind) || cmp(a.name, b.name));
}

export interface PodStates {
  readonly active: readonly K8sObject[];
  readonly meshed: ReadonlyMap<MeshName, readonly K8sObject[]>;
  readonly unmeshed: readonly K8sObject[];
  readonly hostNetwork: boolean;
}

const podStatesCache = new WeakMap<Workload, PodStates>();

/** Active pods of a workload, split by the proxy they run (computed once per workload). */
export function podStates(w: Workload): PodStates {
  let s = podStatesCache.get(w);
  if (!s) {
    const active = w.pods.filter(isActive);
    const meshed = new Map<MeshName, K8sObject[]>();
    const unmeshed: K8sObject[] = [];
    for (const p of active) {
      const mesh = injectedMesh(p);
      if (!mesh) unmeshed.push(p);
      else if (meshed.has(mesh)) meshed.get(mesh)!.push(p);
      else meshed.set(mesh, [p]);
    }
    s = { active, meshed, unmeshed, hostNetwork: podSpec(w.template).hostNetwork === true };
    podStatesCache.set(w, s);
  }
  return s;
}

/**
 * How many pods a workload wants: spec.replicas (default 1), a DaemonSet's desired count, a Job's
 * parallelism; at least the pods it has.
 */
export function desiredPods(w: Workload): number {
  const spec = isObj(w.obj?.spec) ? w.obj!.spec : {};
  const status = isObj(w.obj?.status) ? w.obj!.status : {};
  const want = [spec.replicas, status.desiredNumberScheduled, spec.parallelism].find((n) => typeof n === 'number') ?? 1;
  return Math.max(want, podStates(w).active.length);
}

/** A Job that has completed or failed for good: it creates no more pods. */
export function jobFinished(job: K8sObject | undefined): boolean {
  const status = isObj(job?.status) ? job!.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return !!status.completionTime || conditions.some((c: unknown) => isObj(c) && (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}
