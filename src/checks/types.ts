/** What a check is (its metadata) and what it yields (findings before the runner stamps them). */
import type { Cause } from '../facts/causes.js';
import type { KindKey } from '../k8s/kinds.js';
import type { ServerInputKey } from '../k8s/server.js';
import type { MeshName } from '../mesh/names.js';
import type { ResourceRef, Severity } from '../util/types.js';
import type { Step } from '../fix/steps.js';

/** What a check saw, as plain JSON values (the report's `evidence`); each check has its own shape. */
export type Evidence = Record<string, unknown>;

/** What a check's run() yields; the runner stamps the rest. `E`: the check's evidence. */
export interface FindingInput<E extends Evidence = Evidence> {
  mesh: MeshName;
  message: string;
  resource: ResourceRef;
  evidence: E;
  /** The fix, as data (src/fix/steps.ts); the runner renders it. */
  fix: Step[];
  /** Overrides the check's default severity for this one finding. */
  severity?: Severity;
  /** Overrides the check's title for this one finding, where the catalog's would not fit its mesh. */
  title?: string;
  /** Number of pods this finding affects (blast radius, for ranking). */
  affectedPods?: number;
  /** Root-cause linking (src/facts/causes.ts): the cause this finding is the root of, and the cause that explains it. */
  causeKey?: Cause;
  causedBy?: Cause;
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
  /** What the check reads of the API server itself (src/k8s/server.ts): always optional. */
  serverInputs?: readonly ServerInputKey[];
  /**
   * Its findings sit in one namespace but concern pods of every namespace (a node agent's
   * DaemonSet and the pods on its nodes; the API server's own pod): `watch` keeps them from its
   * full evaluations, never from one namespace's, and `check -n` keeps them for a namespace that
   * uses the finding's mesh, as a control plane's.
   */
  spansNamespaces?: boolean;
}
