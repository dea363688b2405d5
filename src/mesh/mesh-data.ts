/**
 * A mesh as data (issue 32 item 4): the typed document of its constants (names, containers,
 * control-plane objects, webhooks, markers, prefixes and releases, endpoints, what its injected
 * containers need) and the small behaviour object of what cannot be data (its injector's decision,
 * what a marker asks for, how versions are read, ...). `profileFrom` (src/mesh/profile-from.ts)
 * derives every member of `MeshProfile` from the two, with a default where the data says nothing.
 * A new mesh is one data document and one behaviour object (docs/contributing.md "Adding a mesh").
 */
import type { Step } from '../fix/steps.js';
import type {
  ProxySkew,
  InjectedContainer,
  InjectorHostNetwork,
  KubernetesSupport,
  MeshProfile,
  MeshWarning,
  ProxyNetwork,
  ControlPlaneComponent,
  ProxyPin,
  ResourceKey,
} from './profile.js';
import type { DecisionInput, Field, InjectorStep } from './types.js';
import type { MarkerSetting, StrayKey } from './marker-table.js';
import type { InjectorPermission, ReleaseTable } from './release-table.js';
import type { MeshName } from './names.js';
import type { MeshContext } from './context.js';

/** Marker values: these exactly, or 'any' value at all (Istio's `istio.io/rev` names a revision). */
export type MarkerValues = readonly string[] | 'any';

/** A namespace marker as data: the key and the values that make the mesh inject every pod of the namespace. */
interface NamespaceKeyData {
  readonly field: Field;
  readonly key: string;
  readonly enabling: MarkerValues;
}

/**
 * A pod template marker as data: the values that inject, those that opt out, those read as no
 * marker; any other value is one the injector rejects or ignores ('invalid'), unless `otherwise` says.
 */
interface TemplateKeyData {
  readonly field: Field;
  readonly key: string;
  readonly inject: MarkerValues;
  readonly skip: readonly string[];
  /** The values that get the pod injected whatever its namespace says (a webhook's objectSelector takes them); default: `inject`. */
  readonly alone?: MarkerValues;
  /** The values read as no marker at all (Linkerd's empty value). */
  readonly ignore?: readonly string[];
  /** The value is lower-cased before it is compared with `inject`, `skip` and `ignore` (Istio before 1.27). */
  readonly caseInsensitive?: true;
  /** What any other value is: 'invalid' (rejected or ignored; the default) or 'skip' (an opt-out, as Istio before 1.27 read it). */
  readonly otherwise?: 'invalid' | 'skip';
}

/** Everything about a mesh that is a constant. No functions: a document the tests can read and compare. */
export interface MeshData {
  readonly name: MeshName;
  /** "Linkerd". */
  readonly title: string;
  readonly containers: {
    /** The proxy container (or native sidecar). */
    readonly proxy: string;
    /** The init containers (the CNI variant's name too). */
    readonly init: readonly string[];
    /** The proxy image. */
    readonly image: RegExp;
    /** A container that is the mesh's data plane itself (a gateway). */
    readonly gateway?: string;
    /**
     * The injector names the proxy `<proxy>-<service>` in a pod that registers several services (one proxy per
     * service): such a container is the proxy all the same.
     */
    readonly perService?: true;
    /** The injector's mark on a pod it injected (an annotation or label with its value) and the containers it announces. */
    readonly announced?: {
      readonly field: Field;
      readonly key: string;
      readonly value: string;
      readonly containers: readonly string[];
      readonly source: string;
    };
  };
  readonly controlPlane: {
    /** The default install namespace. */
    readonly namespace: string;
    readonly ownNamespaces: readonly string[];
    readonly excludedNamespaces?: readonly string[];
    /** The label marking a Namespace as the control plane's (none: no namespace is marked). */
    readonly namespaceLabel?: { readonly key: string; readonly value: string };
    /** The pod template label (and its values) of the mesh's own workloads (none: `extend` says, or no workload is). */
    readonly workloads?: { readonly key: string; readonly values: readonly string[] };
    /** The labels of the control plane's own pods (none: `extend` says, or no pod is). */
    readonly podLabels?: Readonly<Record<string, string>>;
    readonly injector: {
      /** Deployment and Service. */
      readonly name: string;
      readonly container: string;
      readonly webhookPort: number;
      /** Default: `podLabels` as a selector. */
      readonly podSelector?: string;
      /** The chart values that run the injector on the node's network, where the chart has them (profile.ts). */
      readonly hostNetwork?: InjectorHostNetwork;
    };
    readonly webhooks: {
      /** The MutatingWebhookConfiguration an install creates. */
      readonly config: string;
      /** The injection webhooks' names end so... */
      readonly nameSuffix?: string;
      /** ...or are exactly these. */
      readonly names?: readonly string[];
      /** Secrets holding the injector's serving certificate: [name, key]. */
      readonly servingCertSecrets?: readonly (readonly [string, string])[];
    };
    readonly selfExclusion: MeshProfile['controlPlane']['selfExclusion'];
    /** What meshdoctor reads by name in the control-plane namespaces, and the env and flags snapshots keep. */
    readonly reads?: {
      readonly secrets?: readonly string[];
      /** ConfigMap name -> the data key(s) read. */
      readonly configMaps?: Readonly<Record<string, string | readonly string[]>>;
      readonly env?: readonly string[];
      readonly args?: readonly string[];
    };
  };
  readonly markers: {
    readonly namespace: readonly NamespaceKeyData[];
    readonly template: readonly TemplateKeyData[];
    readonly strays: readonly StrayKey[];
    readonly ask: MarkerSetting;
    readonly optOut: MarkerSetting;
    /** The marker to set on a namespace (none: pods opt in one by one). */
    readonly enable?: MarkerSetting;
    readonly advisesPodOptIn?: true;
    readonly injectsAllWhen?: string;
    readonly podOptInNamespaceLabel?: { readonly key: string; readonly value: string };
  };
  readonly injector?: {
    readonly skippedEventPrefix?: string;
    readonly skipReasons?: readonly string[];
    /** The Warning events its controllers record about a pod (profile.ts MeshWarning). */
    readonly warnings?: readonly MeshWarning[];
    readonly reinjects?: true;
    /** The RBAC its chart grants the injector, in ClusterRole and ClusterRoleBinding named after the injector Deployment. */
    readonly rbac?: {
      readonly needs: readonly InjectorPermission[];
      readonly without: string;
      readonly source: string;
    };
  };
  readonly proxy: {
    readonly annotations: Readonly<Partial<Record<ResourceKey, string>>>;
    readonly onNamespace: boolean;
    readonly suggested: Readonly<Record<ResourceKey, string>>;
    /** The pod template annotation making the proxy a native sidecar. */
    readonly nativeAnnotation?: string;
  };
  readonly jobs: {
    readonly shutdown: RegExp;
    readonly shutdownWords: readonly string[];
    readonly alternatives: readonly Step[];
    readonly controlPlaneStops?: string;
  };
  readonly install: {
    /** The Helm chart ("repo/chart") and the value of the injector's memory limit. */
    readonly helm?: { readonly chart: string; readonly memoryLimit: string };
    readonly emptyCaBundle?: string;
    readonly restartReloads: string;
  };
  /** The injected containers as admission judges them; default: the proxy and init containers with no securityContext. */
  readonly runtime?: {
    readonly injected: readonly InjectedContainer[];
    /** With the mesh's CNI plugin; default: `injected`. */
    readonly injectedWithCni?: readonly InjectedContainer[];
    readonly injectedFrom: string;
    /** How the mesh is admitted on OpenShift (a comment line). */
    readonly openshift?: string;
    /** How the images of the injected containers are chosen (a comment line). */
    readonly image?: string;
    readonly startOrder: {
      readonly setting: string;
      readonly since?: string;
      readonly source: string;
      /** The pod template annotation holding the app until the proxy is ready (set to "true"). */
      readonly annotation?: string;
    };
  };
  /** Versions: the Kubernetes versions each release supports, the release table, the skew. */
  readonly versions?: {
    readonly kubernetes: readonly KubernetesSupport[];
    readonly releases?: ReleaseTable;
    readonly skew?: ProxySkew;
    /** The pod template annotations that pin the proxy image or its version (the profile's `versions.pins`). */
    readonly pins?: readonly ProxyPin[];
  };
  readonly network?: ProxyNetwork;
  /** Its control-plane components (profile.ts ControlPlaneComponent). */
  readonly components?: readonly ControlPlaneComponent[];
}

/** What a profile's member is, by path, for a behaviour that replaces the derived one. */
type P = MeshProfile;

/**
 * The members a mesh fills itself where its data does not say enough (Kuma's mounted serving
 * Secret, its Helm fixes read from the installed release): each replaces the derived member of
 * the same path (members of `controlPlane`, `markers`, `injector`, `proxy`... one by one).
 */
interface ProfileExtensions {
  readonly containers?: Partial<P['containers']>;
  readonly controlPlane?: Partial<Omit<P['controlPlane'], 'webhooks' | 'reads' | 'injector'>> & {
    readonly webhooks?: Partial<P['controlPlane']['webhooks']>;
    readonly reads?: Partial<P['controlPlane']['reads']>;
    readonly injector?: Partial<P['controlPlane']['injector']>;
  };
  readonly markers?: Partial<Omit<P['markers'], 'intent' | 'rules'>>;
  readonly injector?: Partial<Omit<P['injector'], 'decide'>>;
  readonly proxy?: {
    readonly resources?: Partial<Omit<P['proxy']['resources'], 'of'>>;
    readonly native?: Partial<Omit<P['proxy']['native'], 'decide'>>;
  };
  readonly jobs?: Partial<P['jobs']>;
  readonly install?: Partial<P['install']>;
  readonly runtime?: Partial<P['runtime']>;
  readonly versions?: Partial<NonNullable<P['versions']>>;
  readonly revisions?: P['revisions'];
  readonly sidecarless?: P['sidecarless'];
  readonly cni?: P['cni'];
  readonly identity?: P['identity'];
  readonly references?: P['references'];
  readonly ranges?: P['ranges'];
}

/**
 * What cannot be data: about eight functions. Only the first two are required; the others have
 * defaults from the data (no marker mistakes of the mesh's own, versions from image tags, the
 * proxy's resources from its annotations, no native sidecar setting, no hold known).
 */
export interface MeshBehaviour {
  /** 1. The namespace or the template asks this mesh to inject (whether or not it will). */
  intent(input: DecisionInput, m: MeshContext): boolean;
  /** 2. The injector's own decision for a pod it is called for, rule by rule. */
  decide(m: MeshContext, input: DecisionInput): InjectorStep[];
  /** 3. The marker mistakes only this mesh's rules find; default: none (the generic marker engine still runs). */
  readonly markerRules?: P['markers']['rules'];
  /** 4. How versions are read; default: the injector container's and the proxy container's image tags, ordered as x.y.z. */
  readonly version?: Partial<
    Pick<
      NonNullable<P['versions']>,
      'release' | 'compare' | 'controlPlane' | 'injects' | 'proxy' | 'servers' | 'templateKeys'
    >
  >;
  /** 5. The proxy resources of a workload's next pod; default: the observed proxy, else the template's annotations. */
  readonly resources?: P['proxy']['resources']['of'];
  /** 6. Whether the proxy is a native sidecar by the mesh's settings; default: not known. */
  readonly native?: P['proxy']['native']['decide'];
  /** 7. Whether a pod's app containers were held until the proxy was ready; default: not known. */
  readonly held?: P['runtime']['startOrder']['held'];
  /** 8. The containers the injector adds to a workload's pods; default: the data's. */
  readonly injected?: P['runtime']['injected'];
  /** Members the mesh fills itself beyond the data (see ProfileExtensions). */
  readonly extend?: ProfileExtensions;
}
