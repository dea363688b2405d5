export type Severity = 'error' | 'warning' | 'info';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/** --fail-on: the lowest severity that fails a run (exit 1), or none. */
export type FailOn = Severity | 'none';

/** Whether a finding of this severity fails a run under --fail-on (README "Exit codes"). */
export const atOrAbove = (severity: Severity, failOn: FailOn): boolean =>
  failOn !== 'none' && SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(failOn);

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
  /** The line (from 1) the document's content starts on (SARIF regions, editors' file:line). */
  line?: number;
}

/** What was asked for: one namespace or all of them. */
export interface Scope {
  allNamespaces: boolean;
  namespace?: string;
}

export interface ResourceRef {
  kind: string;
  namespace?: string;
  name: string;
}
