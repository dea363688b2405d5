/** What a check is (its metadata) and what it yields (findings before the runner stamps them). */
import type { KindKey } from '../k8s/kinds.js';
import type { MeshName } from '../mesh/names.js';
import type { ResourceRef, Severity } from '../util/types.js';

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
