/**
 * The data shapes a mesh profile, the context it is given and the facts layer share: a mesh's
 * webhooks, the injector's decision input and steps, and the decision. A leaf of src/mesh/ (types
 * only), so that the profile interface and the context interface both stand on it.
 */
import type { Call } from '../k8s/webhook.js';
import type { K8sObject } from '../util/types.js';
import type { MeshName } from './names.js';
import type { Step } from '../fix/steps.js';

export type Field = 'labels' | 'annotations';

export type Template = { metadata?: unknown; spec?: unknown };

/** A mutating webhook that injects a mesh's proxy, flattened from its configuration. */
export interface MeshWebhook {
  mesh: MeshName;
  configName: string;
  config: K8sObject;
  name: string;
  service?: { namespace: string; name: string; port: number; path?: string };
  url?: string;
  caBundle?: string;
  failurePolicy: 'Ignore' | 'Fail';
  namespaceSelector: unknown;
  objectSelector: unknown;
  rules: unknown[];
  /** Its CEL matchConditions (admissionregistration v1, Kubernetes 1.28+), when it has some. */
  matchConditions?: unknown[];
  /** The values of the mesh's revision label (Istio's `istio.io/rev`) this webhook selects: revision or tag names. */
  revisions: string[];
}

/** What the API server does with one of a mesh's webhooks for a pod CREATE. */
export type WebhookCall = Call<MeshWebhook>;

/** One rule of an injector's decision, for `explain` and evidence. */
/**
 * What an injector step examines, the same for every mesh: checks test kinds, never one mesh's rule
 * names. The pod's host network; a namespace the injector never injects, by design (Istio's ignored
 * namespaces, Consul's kube-system and kube-public); a namespace its settings leave out (Consul's
 * allow and deny lists); the mesh's own marker on the pod or its namespace; the injector's settings
 * deciding for the pod (Istio's policy and never/always selectors, Consul's -default-inject); its
 * configuration itself (Istio's injector ConfigMap); a proxy already in the pod; a pod label the
 * injector skips (Kuma's exceptions); the ServiceAccount token; the proxy's UID taken by an app
 * container; the injector's version.
 */
type StepKind =
  | 'host-network'
  | 'system-namespace'
  | 'namespace-setting'
  | 'marker'
  | 'injector-setting'
  | 'injector-config'
  | 'already-injected'
  | 'exception'
  | 'token'
  | 'proxy-uid'
  | 'version';

export interface InjectorStep {
  kind: StepKind;
  /** The mesh's own name for the rule (its source's), for evidence. */
  rule: string;
  ok: boolean;
  detail: string;
  /**
   * A step decided by the injector's own configuration (Istio's policy and never-selectors in
   * its ConfigMap): what it read, for evidence, and the fix (injector-config-excludes).
   */
  config?: {
    evidence: Record<string, unknown>;
    /** A pod template label or annotation that gets the pod past this step, when one does. */
    templateFix?: { field: Field; key: string; value: string };
    /** Commands changing the configuration instead. */
    fix: Step[];
  };
  /** A failed step at which the injector returns an error, so the API server denies the pod (Kuma's and Consul's invalid values), rather than admitting it without a proxy. */
  denies?: boolean;
  /**
   * What the step depends on could not be read (the injector's flags in a namespace the Role does
   * not reach): its outcome is unknown, so the decision is too (Decision.unknown). `ok` is true
   * (nothing says it fails) and `detail` says what was not examined.
   */
  unknown?: boolean;
}

/**
 * The injection markers a span of releases reads, where they are not today's (the profile's marker
 * table): the namespace keys and the values that enable, the pod template keys and how their values
 * read (in the injector's precedence), and the markers fixes set (Kuma 1.0 to 1.4 read only the
 * annotation kuma.io/sidecar-injection, today's release only the label).
 */
export interface ReleaseMarkers {
  readonly namespace: readonly { readonly field: Field; readonly key: string; readonly enabling: readonly string[] }[];
  readonly template: readonly {
    readonly field: Field;
    readonly key: string;
    readonly inject: readonly string[];
    readonly skip: readonly string[];
  }[];
  /** The marker that enables a namespace, one pod template asks with, one opts out with. */
  readonly enable: { readonly field: Field; readonly key: string; readonly value: string };
  readonly ask: { readonly field: Field; readonly key: string; readonly value: string };
  readonly optOut: { readonly field: Field; readonly key: string; readonly value: string };
}

/** What a pod created now meets: its namespace's labels and annotations, and its template. */
export interface DecisionInput {
  namespace: string;
  nsLabels: Record<string, string>;
  nsAnnotations: Record<string, string>;
  template: Template;
  /**
   * The labels a pod created now carries: the template's plus those its controller adds
   * (src/k8s/pod-labels.ts newPodLabels). Selectors are evaluated against these; absent: the template's.
   */
  podLabels?: Readonly<Record<string, string>>;
  /** The API server's calls to this mesh's webhooks for the pod (made once by the facts layer). */
  calls?: WebhookCall[];
  /** A proxy or proxy-init container of any mesh already in the template (the injectors' "already injected" test). */
  proxyPresent?: string;
  /** The only markers the installed release reads, where they are not today's (src/mesh/releases.ts; set by the facts layer). */
  markers?: ReleaseMarkers;
}

/** What one mesh would do with a pod created now from this template in this namespace. */
export interface Decision {
  mesh: MeshName;
  /** The namespace or template asks this mesh for injection. */
  intent: boolean;
  /** Every injection webhook of the mesh, evaluated as the API server would. */
  calls: WebhookCall[];
  /** Some webhook of the mesh would be called. */
  called: boolean;
  /** The injector's steps (evaluated whether or not a webhook is called, for explain). */
  injector: InjectorStep[];
  /** The verdict: a pod created now gets this mesh's proxy (false also when `unknown`). */
  inject: boolean;
  /** A step's outcome could not be examined (InjectorStep.unknown): whether the pod is injected is not known, nor that it is not. */
  unknown?: string;
}
