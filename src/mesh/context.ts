/**
 * What a mesh profile may ask of the cluster: the snapshot's objects (never the whole Model), the
 * installs the facts layer found, and its facts (src/k8s/fact.ts). The Model (src/facts/model.ts) implements it; a
 * profile that needs more than this says so here, where the seam is reviewed.
 */
import type { Fact, FactFamily } from '../k8s/fact.js';
import type { KindKey } from '../k8s/kinds.js';
import type { SnapshotView } from '../k8s/snapshot.js';
import type { Workload } from '../k8s/workloads.js';
import type { K8sObject } from '../util/types.js';
import type { MeshName } from './names.js';
import type { Decision, MeshWebhook } from './types.js';

/** One installed mesh: its control-plane namespaces and its injection webhooks. */
export interface MeshInstall {
  mesh: MeshName;
  /** Control-plane namespaces. */
  namespaces: string[];
  webhooks: MeshWebhook[];
}

/** A workload's active pods, split by the proxy they run. */
export interface PodStates {
  readonly active: readonly K8sObject[];
  readonly meshed: ReadonlyMap<MeshName, readonly K8sObject[]>;
  readonly unmeshed: readonly K8sObject[];
  readonly hostNetwork: boolean;
}

export interface MeshContext extends Omit<SnapshotView, 'workloads' | 'fact'> {
  /** A fact (src/k8s/fact.ts) over this context, computed once per Model. */
  fact<T>(f: Fact<T, MeshContext>): T;
  fact<K, T>(f: FactFamily<K, T, MeshContext>, key: K): T;
  /** "now" for anything time-based. */
  readonly now: Date;
  /**
   * A namespace whose objects this run reads whatever its scope: every namespace with -A, else the
   * one asked about and the meshes' control-plane namespaces (what `check -n` lists live). Evidence
   * from another namespace (the cluster DNS, a CNI agent's DaemonSet) is used only where this holds,
   * so that `-n` judges alike live and from a snapshot.
   */
  seesNamespace(ns: string): boolean;
  /** The mesh as installed (undefined: not installed, or left out by --mesh). */
  mesh(name: MeshName): MeshInstall | undefined;
  /** The mesh's injection webhooks ([] for a mesh --mesh leaves out). */
  webhooksOf(mesh: MeshName): MeshWebhook[];
  /** The mesh may be installed: detected, or not ruled out because the webhook configurations were not read. */
  meshPossible(name: MeshName): boolean;
  /** Namespaces and MutatingWebhookConfigurations were both read: the injection decision can be made. */
  readonly injectionConfigRead: boolean;
  /** Why the mesh's control plane was not read whole (the first of `kinds` refused in one of its namespaces). */
  controlPlaneRefused(mesh: MeshName, kinds: readonly KindKey[]): string | undefined;
  /** A workload's active pods, split by the proxy they run. */
  podStates(w: Workload): PodStates;
  /** What the mesh would do with a pod created now from the workload's template (the facts layer decides it once). */
  decision(w: Workload, mesh: MeshName): Decision | undefined;
}
