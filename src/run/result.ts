/** What a run produced: the findings, what was suppressed or skipped, and what was examined. */
import type { Cause } from '../facts/causes.js';
import type { CheckMeta } from '../checks/define.js';
import type { KindKey } from '../k8s/kinds.js';
import type { ServerInputLabel } from '../k8s/server.js';
import type { MeshName } from '../mesh/names.js';
import type { ManifestSource, ResourceRef, Scope, Severity, SnapshotSource } from '../util/types.js';

export interface Finding {
  id: string;
  code: string;
  severity: Severity;
  mesh: MeshName;
  title: string;
  message: string;
  /** The message's stable id, `<check>/<id>` (src/checks/define.ts), for a check that declares its messages. */
  messageId?: string;
  /** The values the message's template was rendered with, by slot name (with messageId). */
  params?: Record<string, string | number>;
  resource: ResourceRef;
  evidence: Record<string, unknown>;
  /** The fix, rendered: lines to paste (comment lines say what to choose or edit). */
  fix: string[];
  /** The fix as data (src/fix/steps.ts): edits (target, path, set, remove), restarts, commands as argv, notes, choices. */
  fixData: unknown[];
  /** The check's published page, only when MESHDOCTOR_DOCS_URL configures one. */
  docsUrl?: string;
  affectedPods: number;
  /** The key other findings name in causedBy (the cause's key, src/facts/causes.ts). */
  causeKey?: string;
  /** The cause this finding is the root of, as data. */
  cause?: Cause;
  causedBy?: string;
  /** `check -f`: the manifest document that holds the resource. */
  source?: ManifestSource;
  /** `watch` only: a kind its check reads could not be read again; this is the last finding seen, not examined now (why). */
  stale?: string;
  /**
   * Consequences of this finding with the very same fix (src/run/fold.ts), folded into it: an
   * invalid marker and the workload it leaves unmeshed are one finding, not two with one fix.
   */
  also?: AlsoFinding[];
}

/** A finding folded into its root cause (Finding.also): what it said, without its fix (the root's). */
export interface AlsoFinding {
  id: string;
  code: string;
  severity: Severity;
  title: string;
  message: string;
  resource: ResourceRef;
  affectedPods: number;
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
   * what they look for there was not examined). Also what was not read of the API server itself
   * (`GET /metrics`, `GET /version`, `kube-apiserver flags`): never required, `checks` empty.
   */
  unavailable: {
    kind: KindKey | ServerInputLabel;
    namespace?: string;
    reason: string;
    checks: string[];
    /** Not read on purpose (--no-secrets): its checks are not run, and this alone leaves the run complete. */
    declined?: true;
  }[];
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
type RunCheck = Pick<CheckMeta, 'id' | 'code' | 'title' | 'description' | 'severity'> & {
  /** Its messages by id (templates with `{param}` slots), when it declares them (SARIF's messageStrings). */
  messages?: Readonly<Record<string, string>>;
};

/** -l/--selector and --field-selector: what narrowed the workloads checked (src/run/select.ts). */
export interface SelectionInfo {
  /** -l as given. */
  selector?: string;
  /** --field-selector as given. */
  fieldSelector?: string;
  /** The app workloads in scope that match, and all of them. */
  workloads: { selected: number; total: number };
}

/**
 * `check -n NS`: the findings read beside the namespace that do not concern it (another mesh's
 * control plane, which no workload of NS would be injected by or asks for). Counted, never in
 * `findings`, never in the exit code; `meshdoctor check -A` reports them.
 */
export interface Elsewhere {
  namespace: string;
  error: number;
  warning: number;
  info: number;
  total: number;
  meshes: MeshName[];
  findings: { id: string; code: string; severity: Severity; mesh: MeshName; resource: ResourceRef }[];
}

export interface RunResult {
  source: SnapshotSource;
  scope: Scope;
  /** Set when -l or --field-selector narrowed the workloads checked. */
  selection?: SelectionInfo;
  /** `check -n`: what was found outside the namespace's concern (see Elsewhere). */
  elsewhere?: Elsewhere;
  meshes: MeshName[];
  /** A mesh asked for with --mesh that nothing shows in the cluster (the webhook configurations were read). */
  meshesNotInstalled?: MeshName[];
  /** The selected checks, in registry order. */
  checks: RunCheck[];
  findings: Finding[];
  suppressed: SuppressedFinding[];
  skipped: SkippedCheck[];
  coverage: Coverage;
  /**
   * `.meshdoctor.yaml` / --config and --baseline, when given: the file, how many suppressions are
   * active, those past their expiry (no longer suppressing), the severity overrides, the baseline.
   */
  config?: {
    file?: string;
    suppressions: number;
    expiredSuppressions: { check: string; resource: string; reason: string; owner: string; expires: string }[];
    severity?: Record<string, Severity>;
    baseline?: { file: string; findings: number };
  };
  /** MESHDOCTOR_DOCS_URL: where the check pages are published (docsUrl, SARIF helpUri). */
  docsBase?: string;
  /** Checks that failed internally (the run is incomplete: exit 2). */
  errors?: string[];
  summary: {
    error: number;
    warning: number;
    info: number;
    total: number;
    suppressed: number;
    checksRun: number;
    checksSkipped: number;
  };
}
