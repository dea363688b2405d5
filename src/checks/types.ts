/** What a check is (its metadata) and what it yields (findings before the runner stamps them). */
import type { Cause } from '../facts/causes.js';
import type { KindKey } from '../k8s/kinds.js';
import type { ServerInputKey } from '../k8s/server.js';
import type { MeshName } from '../mesh/names.js';
import type { ResourceRef, Severity } from '../util/types.js';
import type { Step } from '../fix/steps.js';

/** What a check saw, as plain JSON values (the report's `evidence`); each check has its own shape. */
export type Evidence = Record<string, unknown>;

/**
 * A check's messages (as ESLint's `meta.messages`, Istio's galley messages.yaml): a stable id per
 * kind of finding, and its template with `{param}` slots (letters, digits, `_`; no other braces).
 * The runner renders the message from the template and the params a finding yields; the report
 * carries the id (`<check>/<id>`) and the params beside the text.
 */
export type Messages = Readonly<Record<string, string>>;

/** The `{param}` slots of a template, as a union of their names. */
export type Slots<T extends string> = T extends `${string}{${infer P}}${infer Rest}` ? P | Slots<Rest> : never;

/** A param's value: text or a number, rendered as String(value). */
export type Param = string | number;

/** The params a template needs: one per slot, no other (a missing or unknown one is a compile error). */
export type ParamsOf<T extends string> = { readonly [K in Slots<T>]: Param };

/** What a finding of a check with messages `M` says: one of its ids and that message's params. */
type MessageOf<M extends Messages> = {
  [K in keyof M & string]: { messageId: K; params: ParamsOf<M[K]>; message?: never };
}[keyof M & string];

/** A finding of a check not converted to messages yet: its text, without an id. */
interface Worded {
  message: string;
  messageId?: never;
  params?: never;
}

/**
 * What a finding says: with messages declared, an id of them and its params (never text: the
 * runner renders it); without, its text (the checks not converted yet). `Messages` itself (any
 * check): either.
 */
type Said<M extends Messages> = string extends keyof M
  ? Worded | { messageId: string; params: Readonly<Record<string, Param>>; message?: never }
  : [keyof M] extends [never]
    ? Worded
    : MessageOf<M>;

/**
 * What a check's run() yields; the runner stamps the rest. `E`: the check's evidence; `M`: its
 * messages (default: none, a finding with its own text; `Messages`: any finding).
 */
export type FindingInput<E extends Evidence = Evidence, M extends Messages = Record<never, string>> = FindingFields<E> &
  Said<M>;

interface FindingFields<E extends Evidence> {
  mesh: MeshName;
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
  /** The kinds it cannot run without: the runner skips it when one was not read. */
  inputs: readonly KindKey[];
  /**
   * The kinds it reads when present but can run without (e.g. events as extra evidence). In its
   * catalog entry, what the check reads itself; on the check (defineCheck), that and the inputs of
   * the facts it declares (src/checks/define.ts derivedInputs).
   */
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
  /**
   * Its findings sit in an app namespace but may rest on objects of namespaces `check -n` does not
   * read (the cluster DNS in kube-system, a CNI agent's DaemonSet): `watch` keeps them from its
   * full evaluations, which see those namespaces, never from one namespace's.
   */
  readsOtherNamespaces?: boolean;
}
