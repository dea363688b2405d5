import type { KindKey } from '../k8s/kinds.js';
import type { MeshName } from '../mesh/names.js';

export type { MeshName } from '../mesh/names.js';
export type Severity = 'error' | 'warning' | 'info';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/** A Kubernetes object as read from the API or a file: untrusted, any field may be missing. */
export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    ownerReferences?: { kind?: string; name?: string; uid?: string; controller?: boolean }[];
    managedFields?: unknown[];
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** Where a snapshot came from. */
export interface SnapshotSource {
  type: 'live' | 'file';
  /** kubeconfig context (live) or file paths (file). */
  context?: string;
  server?: string;
  files?: string[];
  /** When the data was read (ISO time); the clock checks use for "now" unless told otherwise. */
  readAt?: string;
  /** `check -f`: the manifest files overlaid on the cluster ('-' for stdin). */
  manifests?: string[];
  /** Live: the identity the credentials name, when they tell it (a ServiceAccount token's subject). */
  user?: string;
}

/** Where a manifest object came from: its file ('-' for stdin) and document (from 1). */
export interface ManifestSource {
  file: string;
  document: number;
}

/** What was asked for: one namespace or all of them. */
export interface Scope {
  allNamespaces: boolean;
  namespace?: string;
}

/**
 * Everything meshdoctor read from one cluster, once. Checks only ever see this (frozen).
 * `objects[kind]` is present for every kind that was read (possibly empty); a kind that could
 * not be read is absent from `objects` and named in `unavailable` with the reason.
 */
export interface Snapshot {
  source: SnapshotSource;
  scope: Scope;
  objects: Partial<Record<KindKey, K8sObject[]>>;
  unavailable: Partial<Record<KindKey, string>>;
  /**
   * A kind read in some namespaces and not in others: per kind in `objects`, the namespaces it
   * could not be read in, with the reason (a Role that covers the -n namespace but not a mesh's
   * control-plane namespace). Its objects there are unknown, not absent (Model.readIn).
   */
  unavailableIn?: Partial<Record<KindKey, Record<string, string>>>;
  /**
   * `check -f`: the objects the manifests hold (overlaid on `objects`). When present, findings
   * are limited to them (and the control-plane causes that stop them being injected).
   */
  manifests?: { ref: ResourceRef; source: ManifestSource }[];
}

export interface ResourceRef {
  kind: string;
  namespace?: string;
  name: string;
}

/** What a check's run() yields; the runner stamps the rest. */
export interface FindingInput {
  mesh: MeshName;
  message: string;
  resource: ResourceRef;
  evidence: Record<string, unknown>;
  fix: string[];
  /** Overrides the check's default severity for this one finding. */
  severity?: Severity;
  /** Number of pods this finding affects (blast radius, for ranking). */
  affectedPods?: number;
  /**
   * Root-cause linking. `rootCauseOf` names a cause key this finding is the root of; `causedBy`
   * names the key of a finding that explains this one. Keys are free-form strings agreed between
   * checks (e.g. "injector:linkerd").
   */
  causeKey?: string;
  causedBy?: string;
}

export interface Finding {
  id: string;
  code: string;
  severity: Severity;
  mesh: MeshName;
  title: string;
  message: string;
  resource: ResourceRef;
  evidence: Record<string, unknown>;
  fix: string[];
  /** The check's published page, only when MESHDOCTOR_DOCS_URL configures one. */
  docsUrl?: string;
  affectedPods: number;
  causeKey?: string;
  causedBy?: string;
  /** `check -f`: the manifest document that holds the resource. */
  source?: ManifestSource;
}

export interface CheckMeta {
  id: string;
  code: string;
  title: string;
  description: string;
  severity: Severity;
  inputs: readonly KindKey[];
  /** Inputs the check uses when present but can run without (e.g. events as extra evidence). */
  optionalInputs?: readonly KindKey[];
}

export interface CheckContext {
  snapshot: Snapshot;
  /** "now" for time-based checks (injected for tests). */
  now: Date;
  /** expectMeshed (--expect-meshed, default false): manifest workloads no mesh injects are errors. */
  options: { certExpiryWarningDays: number; mesh: 'auto' | MeshName; expectMeshed?: boolean };
  /** --timeout over the checks too: asked between checks and per workload (src/util/deadline.ts). */
  deadline?: { check(): void };
}

export interface SkippedCheck {
  check: string;
  /** Short: which kinds it could not read (their reasons are in Coverage.unavailable), or the internal error. */
  reason: string;
}

/** What a run examined: README "Exit codes" (3: incomplete). */
export interface Coverage {
  /** Every selected check ran, on everything it reads. */
  complete: boolean;
  /**
   * Kinds the checks needed or use and could not have: the reason once, and the checks it kept
   * from running. With `namespace`: the kind was read, but not in that namespace (the checks ran;
   * what they look for there was not examined).
   */
  unavailable: { kind: KindKey; namespace?: string; reason: string; checks: string[] }[];
  /** One-line kubectl commands granting the read access that would let the skipped checks run. */
  rbac: string[];
}

/** A finding left out of `findings` by --suppress or a meshdoctor.io/ignore annotation, and why. */
export interface SuppressedFinding {
  finding: Finding;
  /** 'flag --suppress SPEC' or 'annotation meshdoctor.io/ignore on WHERE'. */
  reason: string;
}

/** A check selected for the run (it ran, or is in `skipped`): what reporters that list checks need. */
export type RunCheck = Pick<CheckMeta, 'id' | 'code' | 'title' | 'description' | 'severity'>;

export interface RunResult {
  source: SnapshotSource;
  scope: Scope;
  meshes: MeshName[];
  /** The selected checks, in registry order. */
  checks: RunCheck[];
  findings: Finding[];
  suppressed: SuppressedFinding[];
  skipped: SkippedCheck[];
  coverage: Coverage;
  /** MESHDOCTOR_DOCS_URL: where the check pages are published (docsUrl, SARIF helpUri). */
  docsBase?: string;
  /** Checks that failed internally (the run is incomplete: exit 2). */
  errors?: string[];
  summary: { error: number; warning: number; info: number; total: number; suppressed: number; checksRun: number; checksSkipped: number };
}
