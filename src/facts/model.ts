/**
 * The Model: the snapshot's index (src/k8s/snapshot.ts) plus the derived facts every check shares,
 * each built once on first use (installed meshes, app workloads, decisions). It is the context
 * the mesh profiles are given (src/mesh/context.ts). Checks read only this; nothing here does I/O.
 */
import { defineFact, defineFactFamily, inputsOf } from '../k8s/fact.js';
import type { KindKey } from '../k8s/kinds.js';
import { SnapshotIndex, type Snapshot } from '../k8s/snapshot.js';
import { WORKLOAD_INPUTS, type Workload } from '../k8s/workloads.js';
import { newPodLabels } from '../k8s/pod-labels.js';
import { containers, podSpec } from '../k8s/pods.js';
import type { MeshContext, MeshInstall } from '../mesh/context.js';
import { MESH_NAMES, type MeshName } from '../mesh/names.js';
import { injectedMesh } from '../mesh/proxy.js';
import { meshNamespaces } from '../mesh/read-plan.js';
import { PROFILE_LIST, profileOf } from '../mesh/registry.js';
import { meshWebhooks, namespaceLabels, type MeshWebhook } from '../mesh/webhooks.js';
import { annotationsOf, cmp, groupBy, labelsOf, nameOf } from '../util/objects.js';
import { DECISION_INPUTS, decide, type Decision } from './decision.js';
import { podStates, type PodStates } from './pods.js';

export type { Workload } from '../k8s/workloads.js';
export { desiredPods, jobFinished } from '../k8s/workloads.js';
export { podStates } from './pods.js';

/** What a Model is made from: the snapshot, "now", the run's options and its deadline. */
interface ModelInput {
  snapshot: Snapshot;
  /** "now" for time-based checks (injected for tests). */
  now: Date;
  /** expectMeshed (--expect-meshed, default false): manifest workloads no mesh injects are errors. */
  options: { certExpiryWarningDays: number; mesh: 'auto' | MeshName; expectMeshed?: boolean };
  /** --timeout over the checks too: asked between checks and per workload (src/util/deadline.ts). */
  deadline?: { check(): void };
}

export class Model extends SnapshotIndex implements MeshContext {
  readonly now: Date;
  readonly options: ModelInput['options'];
  private readonly deadline: ModelInput['deadline'];

  constructor(input: ModelInput) {
    super(input.snapshot);
    this.now = input.now;
    this.options = input.options;
    this.deadline = input.deadline;
  }

  /** Ends the run (DeadlineError) once --timeout has passed; called where work grows with the cluster. */
  checkDeadline(): void {
    this.deadline?.check();
  }

  /**
   * Why a mesh's control plane was not read whole: the first of `kinds` refused in one of its
   * namespaces (its control-plane namespaces and its webhooks' Services'), else undefined. What a
   * profile reads there (an injector's flags, a CNI setting) is then unknown, not the chart default.
   */
  controlPlaneRefused(mesh: MeshName, kinds: readonly KindKey[]): string | undefined {
    const namespaces = new Set([
      ...(this.mesh(mesh)?.namespaces ?? []),
      ...this.webhooksOf(mesh).flatMap((h) => (h.service ? [h.service.namespace] : [])),
    ]);
    for (const ns of [...namespaces].sort(cmp)) {
      for (const k of kinds) {
        const why = this.refusedIn(k, ns);
        if (why !== undefined) return `cannot read ${k} in namespace ${ns}: ${why}`;
      }
    }
    return undefined;
  }

  /**
   * A mesh's injection webhooks, read from the MutatingWebhookConfigurations alone ([] for a mesh
   * left out by --mesh). Every mesh with a webhook is in `meshes`; checks about the webhooks
   * themselves use this, so that they read no pods, Deployments or Namespaces to find the meshes.
   */
  webhooksOf(mesh: MeshName): MeshWebhook[] {
    return this.fact(WEBHOOKS_OF, mesh);
  }

  /** The meshes that have injection webhooks, with them (MutatingWebhookConfigurations only). */
  get webhookMeshes(): { mesh: MeshName; webhooks: MeshWebhook[] }[] {
    return this.fact(WEBHOOK_MESHES);
  }

  /**
   * The installed meshes: their webhooks, control-plane namespaces, injector or meshed pods. Reads
   * MutatingWebhookConfigurations, Namespaces, Pods and Deployments: a check using it declares them.
   */
  get meshes(): MeshInstall[] {
    return this.fact(MESHES);
  }

  /** A mesh shows in the cluster: its webhooks, its injector or istiod, its meshed pods, its control-plane namespace. */
  private detected(mesh: MeshName): boolean {
    return this.fact(DETECTED, mesh);
  }

  /**
   * The mesh is installed, whatever --mesh says: for advice that must not add a mesh beside one
   * the run leaves out (--mesh limits what is reported, not what runs in the cluster).
   */
  meshInstalled(name: MeshName): boolean {
    return !!this.mesh(name) || this.detected(name);
  }

  /**
   * `--mesh M` names a mesh nothing shows in the cluster (no webhook, control plane, namespace or
   * meshed pod of it), where the webhook configurations were read (else an install cannot be ruled out).
   */
  askedNotInstalled(): MeshName | undefined {
    const chosen = this.options.mesh;
    if (chosen === 'auto' || !this.has('mutatingwebhookconfigurations')) return undefined;
    return this.detected(chosen) ? undefined : chosen;
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

  /** See MeshContext.seesNamespace. */
  seesNamespace(ns: string): boolean {
    const s = this.snapshot.scope;
    return s.allNamespaces || !s.namespace || s.namespace === ns || this.isControlPlaneNamespace(ns);
  }

  /** Namespaces that belong to a mesh's control plane (never reported as unmeshed). */
  isControlPlaneNamespace(ns: string): boolean {
    return this.meshes.some((m) => m.namespaces.includes(ns));
  }

  /** The workloads of namespaces in scope, excluding the meshes' own control-plane workloads (not their namespaces' other workloads). */
  get appWorkloads(): Workload[] {
    return this.fact(APP_WORKLOADS);
  }

  /** The app workloads of one namespace (see appWorkloads). */
  appWorkloadsIn(ns: string): Workload[] {
    return this.fact(APP_WORKLOADS_BY_NS).get(ns) ?? [];
  }

  /** `check -f`: the app workloads the manifests hold (none without manifests). */
  get manifestWorkloads(): Workload[] {
    return this.fact(MANIFEST_WORKLOADS);
  }

  /** What each installed mesh would do with a pod created now from this workload's template. */
  decisions(w: Workload): Decision[] {
    return this.fact(DECISIONS, w);
  }

  decision(w: Workload, mesh: MeshName): Decision | undefined {
    return this.decisions(w).find((d) => d.mesh === mesh);
  }

  /** A workload's active pods, split by the proxy they run (src/facts/pods.ts). */
  podStates(w: Workload): PodStates {
    return podStates(w);
  }
}

/** The injection webhooks of every mesh (MutatingWebhookConfigurations only; --mesh not applied). */
const MESH_WEBHOOKS = defineFact({
  id: 'mesh-webhooks',
  inputs: ['mutatingwebhookconfigurations'],
  compute: (m: Model) => meshWebhooks(m.list('mutatingwebhookconfigurations')),
});

/** Model.webhooksOf: one mesh's webhooks, filtered once per model (asked for every decision). */
const WEBHOOKS_OF = defineFactFamily({
  id: 'webhooks-of',
  inputs: ['mutatingwebhookconfigurations'],
  compute: (m: Model, mesh: MeshName): MeshWebhook[] => {
    const all = m.fact(MESH_WEBHOOKS);
    const chosen = m.options.mesh;
    return chosen !== 'auto' && chosen !== mesh ? [] : all.filter((w) => w.mesh === mesh);
  },
});

const WEBHOOK_MESHES = defineFact({
  id: 'webhook-meshes',
  inputs: ['mutatingwebhookconfigurations'],
  compute: (m: Model) =>
    MESH_NAMES.map((mesh) => ({ mesh, webhooks: m.webhooksOf(mesh) })).filter((x) => x.webhooks.length > 0),
});

/** A mesh shows in the cluster: its webhooks, its injector or istiod, its meshed pods, its control-plane namespace. */
const DETECTED = defineFactFamily({
  id: 'detected',
  inputs: ['deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: Model, mesh: MeshName): boolean => {
    const all = m.fact(MESH_WEBHOOKS);
    const meshedPods = m.list('pods').some((p) => injectedMesh(p as { spec?: unknown }) === mesh);
    const p = profileOf(mesh);
    const controlPlane = m.list('deployments').some((d) => p.controlPlane.injector.isDeployment(nameOf(d)));
    return (
      all.some((w) => w.mesh === mesh) ||
      controlPlane ||
      meshedPods ||
      m.list('namespaces').some((n) => p.controlPlane.isNamespace(n))
    );
  },
});

/** The installed meshes (Model.meshes). */
export const MESHES = defineFact({
  id: 'meshes',
  // the control-plane namespaces, the webhooks of each mesh and what shows it is installed
  inputs: inputsOf(DETECTED, MESH_WEBHOOKS, ['namespaces']),
  compute: (m: Model): MeshInstall[] => {
    const cpNs = meshNamespaces(m.list('namespaces'), m.list('mutatingwebhookconfigurations'));
    const out: MeshInstall[] = [];
    for (const mesh of MESH_NAMES) {
      const hooks = m.webhooksOf(mesh);
      const namespaces = cpNs[mesh].filter((n) => hooks.length > 0 || m.namespace(n) !== undefined);
      const chosen = m.options.mesh;
      if (chosen !== 'auto' && chosen !== mesh) continue; // --mesh limits the run to one mesh
      if (m.fact(DETECTED, mesh) || chosen === mesh) out.push({ mesh, namespaces, webhooks: hooks });
    }
    return out;
  },
});

/** Model.appWorkloads. */
export const APP_WORKLOADS = defineFact({
  id: 'app-workloads',
  inputs: WORKLOAD_INPUTS,
  compute: (m: Model) =>
    m.workloads.filter(
      (w) =>
        m.inScope(w.namespace) &&
        // A mesh's namespace holds more than its control plane (dashboards, Prometheus, Grafana, an
        // extension's own workloads): those are examined like any other workload (issue 31 item 12).
        !isControlPlaneWorkload(w) &&
        !isSidecarlessInfrastructure(w),
    ),
});

export const APP_WORKLOADS_BY_NS = defineFact({
  id: 'app-workloads-by-ns',
  inputs: WORKLOAD_INPUTS,
  compute: (m: Model) => groupBy(m.appWorkloads, (w) => w.namespace),
});

const MANIFEST_WORKLOADS = defineFact({
  id: 'manifest-workloads',
  inputs: [...WORKLOAD_INPUTS],
  compute: (m: Model) => m.appWorkloads.filter((w) => m.manifestSource(w.ref)),
});

/** A namespace's labels, with kubernetes.io/metadata.name (one set per namespace: evalWebhook caches selector results by its identity). */
export const NS_LABELS = defineFactFamily({
  id: 'ns-labels',
  inputs: ['namespaces'],
  compute: (m: Model, ns: string) => namespaceLabels(m.namespace(ns), ns),
});

/** What each installed mesh would do with a pod created now from the workload's template (Model.decisions). */
export const DECISIONS = defineFactFamily({
  id: 'decisions',
  inputs: DECISION_INPUTS,
  compute: (m: Model, w: Workload): Decision[] => {
    m.checkDeadline();
    const ns = m.namespace(w.namespace);
    // One label set per namespace: evalWebhook caches selector results by its identity.
    const nsLabels = m.fact(NS_LABELS, w.namespace);
    // Selectors see the pod, with the labels its controller adds (job-name, pod-template-hash, ...).
    const input = {
      namespace: w.namespace,
      nsLabels,
      nsAnnotations: annotationsOf(ns),
      template: w.template,
      podLabels: newPodLabels(w),
    };
    return m.meshes.map((x) => decide(m, x.mesh, x.webhooks, input));
  },
});

/** Pods of the meshes' own control planes are never reported as missing a proxy. */
export function isControlPlaneWorkload(w: Workload): boolean {
  const labels = labelsOf(w.template);
  if (PROFILE_LIST.some((p) => p.controlPlane.isWorkload(labels))) return true;
  // A mesh's own data plane running as a workload (Kuma's builtin gateway): the proxy, not an opted-out app.
  const names = new Set(containers(podSpec(w.template)).map((c) => c.name));
  return PROFILE_LIST.some((p) => p.containers.gateway !== undefined && names.has(p.containers.gateway));
}

/** Infrastructure of a sidecar-less data plane (waypoints, node proxies): mesh components, not app workloads. */
function isSidecarlessInfrastructure(w: Workload): boolean {
  const labels = labelsOf(w.template);
  return PROFILE_LIST.some((p) => p.sidecarless?.isInfrastructure(labels));
}
