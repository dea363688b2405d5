/**
 * The shape of each mesh's release table (src/mesh/<mesh>/releases.ts): typed constants, no
 * functions, every row with its source. src/mesh/releases.ts reads them (`releaseFacts`).
 */
import type { Field, ReleaseMarkers } from './types.js';

export type { ReleaseMarkers } from './types.js';

/** A permission an injector needs from the API server, cluster-wide, and what it does with it. */
export interface InjectorPermission {
  readonly group: string;
  /** A resource, or resource/subresource. */
  readonly resource: string;
  readonly verbs: readonly string[];
  /** What the injector does with it (for evidence). */
  readonly why: string;
}

/** A key of the mesh's domain (label or annotation) a span of releases knows, from the mesh's own key table. */
interface KnownKey {
  readonly key: string;
  /** The first and last release (names of `ReleaseTable.order`) whose key table lists it; `to` undefined: still listed by the newest. */
  readonly from: string;
  readonly to?: string;
  /** What it does, from the comment or description beside it in the mesh's source (may be empty). */
  readonly does: string;
}

/** The containers a span of releases injects, by role. */
export interface InjectedNames {
  readonly proxy: readonly string[];
  readonly init: readonly string[];
  /** Injected beside the proxy, neither proxy nor init (Consul 0.x's lifecycle sidecar `consul-sidecar`). */
  readonly helpers?: readonly string[];
  /** The CNI plugin's validation init container. */
  readonly validation?: readonly string[];
}

/**
 * What a known bug does that the cluster shows (issue 31.9): the injector's pods crash-loop, an
 * injected container of a pod (by name) waits with a reason whose message says this text, or a
 * workload's pods are refused at creation. A container name here, in `versionFrom` and in a
 * trigger's `container`, that ends in `*` names every container whose name starts with the rest
 * (containers an injector names after a service: consul-k8s's multi-port `consul-dataplane-<service>`).
 */
/**
 * What the cluster shows that triggers a pod's bug, beside its symptom (undefined: nothing more):
 * `headless-service`, a Service of the pod's namespace with clusterIP None selects the pod;
 * `annotation`, the pod carries the annotation, its value matching `matches` (a regular expression
 * source; undefined: any value); `container` with `holds`, the pod's container of that name runs a
 * command, args or postStart hook holding the fragment (a flag the injector wrote for a setting);
 * `first-container-without-ports`, the pod's first container the mesh did not inject declares no ports and a later
 * one does (what an injection template that joins the containers' ports saw); `nativeSidecar`, the pod runs the
 * container of that name as an init container with restartPolicy Always (a proxy injected as a native sidecar).
 * A list: every trigger of it shows.
 */
export type BugTrigger =
  | 'headless-service'
  | 'first-container-without-ports'
  | { readonly annotation: string; readonly matches?: string }
  | { readonly container: string; readonly holds: string }
  | { readonly nativeSidecar: string };

type BugSymptom =
  | {
      readonly on: 'injector';
      readonly shows: 'crash-loop';
      /** The injector build the bug is in: its image (regular expression source); undefined: every build. */
      readonly image?: string;
    }
  | {
      readonly on: 'pod';
      readonly container: string;
      readonly shows: 'waiting';
      /** The waiting reason, or the reasons the container alternates between (PostStartHookError, CrashLoopBackOff). */
      readonly reason: string | readonly string[];
      /** A fragment of the kubelet's message (case-sensitive; empty: any message). */
      readonly message: string;
      /** The container of the pod whose image tag is the injecting release (undefined: the profile's proxy version). */
      readonly versionFrom?: string;
      /** A node agent's bug: the component (an id of the profile's `components`) whose pod on the pod's node runs the release judged, read from its image tag (x.y.z, a leading v dropped; `affected` and `fixedIn` in those numbers). */
      readonly componentFrom?: string;
      readonly when?: BugTrigger | readonly BugTrigger[];
    }
  /**
   * An injected container of a pod (by name) ended (now or last) with this reason, or with a
   * termination message holding this fragment (what the kubelet kept: `OOMKilled`, or the log's
   * tail under FallbackToLogsOnError); with `afterRunning`, only a run that lasted that long (a crash
   * of a serving proxy).
   */
  | {
      readonly on: 'pod';
      readonly container: string;
      readonly shows: 'terminated';
      readonly reason: string;
      readonly message?: string;
      /**
       * The ended run had lasted at least this many seconds (its startedAt to finishedAt): a proxy that crashed while
       * it served, not one that fails at start (a run whose times are not both read is not judged).
       */
      readonly afterRunning?: number;
      /** The container of the pod whose image tag is the injecting release (undefined: the profile's proxy version). */
      readonly versionFrom?: string;
      /** A node agent's bug: the component (an id of the profile's `components`) whose pod on the pod's node runs the release judged, read from its image tag (x.y.z, a leading v dropped; `affected` and `fixedIn` in those numbers). */
      readonly componentFrom?: string;
      readonly when?: BugTrigger | readonly BugTrigger[];
    }
  /**
   * The kubelet cannot create the pod's sandbox in the mesh's CNI plugin (FailedCreatePodSandBox about the pod, its
   * message naming the plugin and holding this fragment): a node agent's bug, judged with componentFrom.
   */
  | {
      readonly on: 'pod';
      readonly shows: 'sandbox-failed';
      readonly message: string;
      readonly container?: never;
      readonly reason?: never;
      readonly versionFrom?: string;
      readonly componentFrom?: string;
      readonly when?: BugTrigger | readonly BugTrigger[];
    }
  /**
   * The API server refuses a workload's pods (FailedCreate) with a message that says this text,
   * while the workload's own containers are not what it names (the injected ones are): a quota's
   * "must specify" with every container of the template setting the resource it names.
   */
  | {
      readonly on: 'workload';
      readonly shows: 'create-refused';
      readonly message: string;
      /**
       * How the refusal is known to be about the injected containers: `quota` (the quota's "must
       * specify" names none of the template's containers, or each of them sets what it names; the
       * default), `named` (it names `container`, which the template does not have), `matches` (the
       * message itself says so, matched by `pattern`, a regular expression source: a field of an injected
       * init container a template cannot lack, a patch of the injector that does not apply).
       */
      readonly about?: 'quota' | 'named' | 'matches';
      readonly container?: string;
      readonly pattern?: string;
      /** Only the mesh's own control-plane workloads show it (the bug is in a policy its chart installs for them). */
      readonly own?: true;
    };

/**
 * A known injector or proxy bug, and the release that fixed it: the patch-level versions it
 * affects (`from` to `to`, inclusive, as the mesh's `versions.compare` orders them: a version it
 * cannot order against them is not judged) and the symptom the cluster shows. The injector's
 * version is judged for an injector's or a workload's symptom (its pods are injected now), the
 * pod's proxy version (what injected it) for a pod's.
 */
export interface KnownBug {
  /** The issue or pull request ("linkerd/linkerd2#9671"). */
  readonly id: string;
  /** What it does to a pod, in words. */
  readonly text: string;
  readonly affected: { readonly from: string; readonly to: string };
  readonly fixedIn: string;
  readonly symptom: BugSymptom;
  /** The fix commit and the tag it shipped in. */
  readonly source: string;
}

/**
 * A feature of the injecting release that needs a newer companion than the one the pod runs
 * (issue 31.7, skew): consul-k8s 0.x has the Consul binary of the image it was configured with
 * run flags and commands that Consul release does not have. Judged on a pod: its container
 * `fails` runs a command line holding `command` (the feature's flag or subcommand, as the
 * injector wrote it), the companion's container runs an image of `companion.image` whose tag is
 * older than `companion.min` (as x.y.z), and `fails` is failing.
 */
export interface CompanionNeed {
  /** The feature, in words ("metrics merging"). */
  readonly feature: string;
  /** The fragment of the failing container's command or args that uses it (a flag, a subcommand). */
  readonly command: string;
  readonly companion: {
    readonly title: string;
    readonly container: string;
    /** The companion's image (regular expression source): another image in that container is not judged. */
    readonly image: string;
    readonly min: string;
    /** Where the install sets the companion's image (a Helm value), for the fix. */
    readonly setting: string;
  };
  /** The injected container that fails when the companion is too old. */
  readonly fails: string;
  /** What turns the feature off, for the fix (a pod annotation, a Helm value). */
  readonly off: string;
  /** The mesh's source and docs that say so (file and tag). */
  readonly source: string;
}

/**
 * The proxy versions each release of a companion supports (issue 31, skew as data): consul-k8s 0.x injects
 * the Envoy image it was configured with (Helm value global.imageEnvoy) beside the Consul binary of another
 * image (global.image), and each Consul release supports a few Envoy minor releases, by Consul's own table
 * (older and newer ones are not supported). Judged on a pod whose proxy container (one of `proxy.containers`)
 * fails: its image matches `proxy.image`, a container of `companion.containers` runs an image of
 * `companion.image`, the companion's minor is a key of `supports` (else not judged) and the proxy's minor is
 * not in its list, nor allowed by an `onlyWith` entry whose flag the pod's injected command lines pass.
 */
export interface ProxyPairing {
  readonly proxy: {
    readonly title: string;
    readonly containers: readonly string[];
    /** The proxy's image (regular expression source): another image in those containers is not judged. */
    readonly image: string;
    /** Where the install sets it (a Helm value), for the fix. */
    readonly setting: string;
  };
  readonly companion: {
    readonly title: string;
    readonly containers: readonly string[];
    readonly image: string;
    readonly setting: string;
  };
  /** Companion minor ("1.7") -> the proxy minors it supports ("1.13", ...), newest first. */
  readonly supports: Readonly<Record<string, readonly string[]>>;
  /** A proxy minor a companion minor supports only when its command passes `flag` (Consul 1.7 and Envoy 1.10 with -envoy-version). */
  readonly onlyWith?: readonly { readonly companion: string; readonly proxy: string; readonly flag: string }[];
  /** The mesh's source that says so (file and tag or commit). */
  readonly source: string;
}

/**
 * How releases read a pod template marker's value: the values that inject, that opt out, that are
 * no marker at all; any other value is rejected or ignored ('invalid', the default) or opts out
 * ('skip'); `caseInsensitive`: the value is lower-cased first. The shape of a template key's values
 * in a mesh's data document (src/mesh/mesh-data.ts).
 */
export interface ValueReading {
  readonly key: string;
  readonly inject: readonly string[];
  readonly skip: readonly string[];
  readonly ignore?: readonly string[];
  readonly caseInsensitive?: true;
  readonly otherwise?: 'invalid' | 'skip';
}

/**
 * How a span of releases lets a pod meant to end (restartPolicy Never or OnFailure: a Job's, a Workflow's, a bare
 * pod's) end while its proxy runs as an ordinary container (issue 31, gen10life): what stops the proxy, what the app
 * can call, what undoes that call, and the known bugs in it. Read through src/mesh/ending.ts; the newest row that says
 * a field wins.
 */
export interface EndingSupport {
  /**
   * The control plane stops the proxy once the pod's other containers have ended: in the pods of a Job only
   * (`job`: a pod whose controller is of any other kind keeps its proxy) or of any owner (`any`); how, in words.
   */
  readonly stopsProxy?: { readonly owners: 'job' | 'any'; readonly how: string };
  /** The call the app makes to end the proxy, in words, and what must be set for the proxy to answer it; or why there is none (printed in a fix: no parentheses, semicolons or apostrophes). */
  readonly shutdown?: { readonly call: string; readonly needs?: string } | { readonly none: string };
  /**
   * The shutdown call ends the proxy process but its container's liveness probe then fails, so under restartPolicy
   * OnFailure (or Always) the kubelet restarts the proxy and the pod never ends: why, in words.
   */
  readonly restartedAfterShutdown?: string;
  /**
   * How these releases make the proxy a native sidecar, which ends with the app: the pod annotation (null: none, only
   * the control plane's setting; undefined: the profile's), in words; or why they cannot. Words a fix prints: no
   * parentheses, semicolons or apostrophes.
   */
  readonly native?: { readonly annotation?: string | null; readonly how: string } | { readonly none: string };
  /** A bug of these releases by which the control plane does not stop the proxy it should stop (patch versions, inclusive). */
  readonly broken?: {
    readonly id: string;
    readonly text: string;
    readonly affected: { readonly from: string; readonly to: string };
    readonly fixedIn: string;
  };
}

/**
 * What a span of releases does with the cluster's addresses (issue 31, gen10net): `probes`, whether the kubelet's
 * probes from a node address outside the mesh's cluster ranges are refused by default ('refused': the proxy admits
 * unauthenticated clients only from the cluster ranges where a policy applies; 'admitted': probes are authorized from
 * any network); `ipv6`, whether the proxy serves a pod whose address is IPv6: 'no' (it listens on IPv4 only),
 * 'setting' (only where the install turns IPv6 on: ProxyRanges.ipv6Setting), 'yes'. `how` says it in words.
 */
interface RangeBehaviour {
  readonly probes?: { readonly outside: 'refused' | 'admitted'; readonly how: string };
  readonly ipv6?: { readonly serves: 'no' | 'setting' | 'yes'; readonly how: string };
}

/** A probe of a container (issue 31, gen12probes): its kind, and the handler the kubelet runs. */
export type ProbeKind = 'liveness' | 'readiness' | 'startup';
export type ProbeHandler = 'httpGet' | 'tcpSocket' | 'grpc';

/**
 * What a span of releases does with the app's probes (issue 31, gen12probes; read by src/mesh/app-probes.ts): the
 * kubelet probes from the node, in plaintext, and a proxy that intercepts the port meets the probe first.
 * `rewrites`: the probes the injector points at the proxy's own probe listener (`port`, or the one its
 * `portAnnotation` names; Consul's `port` is the first of a range, one port per container), on by default or not,
 * turned off or on per pod by `annotation` (values read as off / on) or install-wide by `setting`.
 * `unrewritten`: what a probe left alone meets at the proxy's inbound: `mtls`, the proxy resets a plaintext
 * connection where the mesh requires mutual TLS (a STRICT policy, mTLS on the Mesh, always for Consul's
 * transparent proxy), `authz`, it answers 403 where the pod's default inbound policy (`policyAnnotation`, on the pod
 * or its namespace) is one of `refusing`, except the probes the release authorizes (`authorized`), `passes`, it
 * forwards it. `shows`: regular expression sources of the kubelet's failure text that refusal gives.
 * `exclude`/`include`: pod annotations listing the inbound ports the proxy does (not) intercept; `redirect`: the
 * pod annotation that turns inbound redirection off (and its off values), with `redirectByDefault`.
 * Words a fix prints (`fix`): no parentheses, semicolons or apostrophes.
 */
export interface ProbeHandling {
  readonly rewrites?: {
    readonly handlers: readonly ProbeHandler[];
    readonly kinds: readonly ProbeKind[];
    readonly port: number;
    readonly range?: number;
    readonly portAnnotation?: string;
    readonly annotation?: string;
    readonly off?: readonly string[];
    readonly on?: readonly string[];
    readonly byDefault: boolean;
    readonly setting: string;
  };
  readonly unrewritten: {
    readonly refused: 'mtls' | 'authz' | 'passes';
    readonly when: string;
    readonly shows: readonly string[];
    readonly policyAnnotation?: string;
    readonly refusing?: readonly string[];
    /** The probes authorized despite a refusing policy: handlers, and a path shape left out until a patch release. */
    readonly authorized?: {
      readonly handlers: readonly ProbeHandler[];
      readonly except?: {
        readonly path: string;
        readonly what: string;
        readonly fixedIn?: string;
        readonly source: string;
      };
    };
  };
  readonly exclude?: readonly string[];
  readonly include?: string;
  readonly redirect?: { readonly annotation: string; readonly off: readonly string[]; readonly byDefault: boolean };
  /** How, in words (evidence). */
  readonly how: string;
  /** What fixes a probe the proxy refuses, in words a fix prints. */
  readonly fix: string;
}

/** One row of a mesh's release table: what the releases `from` to `to` (inclusive, names of `order`; no `to`: to the newest) do. */
export interface ReleaseRow {
  readonly from: string;
  /** Undefined: to the newest release of `order`, whichever it is (adding a release edits no such row). */
  readonly to?: string;
  /** Repository, file, and tag or commit the row's facts come from. */
  readonly source: string;
  /** How these releases are recognised on a cluster (image tags, chart labels, ConfigMap fields), in words. */
  readonly recognise?: string;
  /** Marker keys these releases still read in a field today's release no longer reads them in (Kuma 1.x's annotation). */
  readonly reads?: readonly { readonly field: Field; readonly key: string; readonly on: 'namespace' | 'template' }[];
  /** The only injection markers these releases read, where they are not today's (undefined: today's, with `reads` beside them). */
  readonly markers?: ReleaseMarkers;
  /** How these releases' injector reads a pod template marker's value (Istio's sidecar.istio.io/inject changed in 1.27). */
  readonly parses?: readonly ValueReading[];
  /** The injected containers (undefined: today's, the profile's `containers`). */
  readonly containers?: InjectedNames;
  /** The webhook configuration these releases install, in words. */
  readonly webhook?: string;
  /**
   * The cluster-wide permissions the chart grants the injector for injection: 'today' (the
   * profile's `injector.rbac`), or these needs (empty: no ClusterRole the injection depends on).
   */
  readonly injectorRbac?: 'today' | readonly InjectorPermission[];
  /**
   * The names of the ClusterRole and ClusterRoleBinding these releases' chart grants the injector
   * its permissions by, where they are not today's (the profile's `injector.rbac.names`):
   * `<namespace>` stands for the injector's namespace.
   */
  readonly injectorRbacNames?: { readonly clusterRole: string; readonly clusterRoleBinding: string };
  readonly bugs?: readonly KnownBug[];
  /**
   * Whether these releases' CNI node agent puts its plugin back into the node's CNI configuration when another agent
   * (the cluster's own CNI plugin starting again) rewrites it: false where it writes it once at start (issue 31,
   * gen9path: node-agent-incomplete then reads the order in which the agents started on each node); `how` in words.
   */
  readonly cniRechains?: { readonly readds: boolean; readonly how: string };
  /** What these releases' proxies do with addresses outside the mesh's ranges, and with IPv6 pods (RangeBehaviour). */
  readonly ranges?: RangeBehaviour;
  /** Features these releases inject that need a newer companion image (CompanionNeed). */
  readonly needs?: readonly CompanionNeed[];
  /** The proxy versions the companion these releases inject beside it supports (ProxyPairing). */
  readonly pairs?: readonly ProxyPairing[];
  /** How these releases let a pod meant to end end (EndingSupport). */
  readonly ending?: EndingSupport;
  /** What these releases do with the app's probes (ProbeHandling). */
  readonly probes?: ProbeHandling;
}

/**
 * How a distribution's control plane is installed and changed: by its operator, from a resource the
 * operator renders the mesh's charts from (no chart of the mesh is installed, and the distribution's
 * version is no chart version): what a fix changes instead of a Helm value.
 */
export interface OperatorInstall {
  /** Who renders it ("the OpenShift Service Mesh operator"). */
  readonly operator: string;
  /** The resource's kind, as kubectl names it (singular), and its plural API resource. */
  readonly kind: string;
  readonly resource: string;
  /** How the resource is found from the injector Deployment: its label naming the resource, else its name after this prefix. */
  readonly nameLabel: string;
  readonly namePrefix: string;
  /**
   * The chart values the resource's fields render (chart key, field path), and the field's value
   * for each chart value (`values`; undefined: the same value).
   */
  readonly values: readonly {
    readonly key: string;
    readonly field: string;
    readonly values?: Readonly<Record<string, string | number | boolean>>;
  }[];
  /** The operator's files and commit that say so. */
  readonly source: string;
}

/** A distribution that rebuilds the mesh under its own version numbers (OpenShift Service Mesh). */
interface Distribution {
  readonly title: string;
  /** An image of its control plane (regular expression source, matched against the image the version was read from). */
  readonly image: string;
  /** Its versions ("1." prefix) and the release of `order` each one is. */
  readonly versions: readonly { readonly prefix: string; readonly release: string; readonly source: string }[];
  /** The permissions its own chart grants the injector for injection, where they differ from its release's (empty: none judged). */
  readonly injectorRbac?: readonly InjectorPermission[];
  /** The chart file and commit `injectorRbac` comes from. */
  readonly injectorRbacSource?: string;
  /** Installed by its operator, not a chart of the mesh: what fixes change instead of Helm values. */
  readonly installedBy?: OperatorInstall;
}

/** An injector build recognised by its image whose chart RBAC differs from its release's (Istio's standalone sidecar injector). */
interface InjectorBuild {
  readonly title: string;
  /** Its image (regular expression source, matched against the image the version was read from). */
  readonly image: string;
  readonly injectorRbac: readonly InjectorPermission[];
  readonly source: string;
}

/**
 * How an injector parses a known key's value (issue 31, gen10values): the parsers of src/mesh/key-values.ts, each
 * the one of a mesh's source (Go's strconv.ParseBool, a uint16 port list as Istio's parsePorts reads it, a Kubernetes
 * quantity, Go's time.ParseDuration, ...).
 */
export type ValueType =
  | { readonly kind: 'go-bool' }
  /** Kuma's GetBooleanWithDefault: true/yes/false/no, and enabled/disabled where `enabled` says so. */
  | { readonly kind: 'word-bool'; readonly enabled: boolean }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** Go's strconv.ParseUint(v, 10, bits) (`trim`: after strings.TrimSpace); `min`: a lower bound (Kuma's ports: 1). */
  | { readonly kind: 'uint'; readonly bits: 16 | 32 | 64; readonly trim?: true; readonly min?: number }
  /** Go's strconv.ParseInt(v, 10, bits). */
  | { readonly kind: 'int'; readonly bits: 32 | 64 }
  /** Go's strconv.ParseFloat, strictly between `above` and `below`. */
  | { readonly kind: 'float'; readonly above: number; readonly below: number }
  /**
   * Comma-separated ports: each (trimmed) a uint16 of at least `min`; `skipEmpty`: empty items are skipped (else refused);
   * `any`: this value (Istio's "*") stands for every port.
   */
  | { readonly kind: 'port-list'; readonly min: number; readonly skipEmpty?: true; readonly any?: string }
  /** Comma-separated prefixes as Go's netip.ParsePrefix reads them (address/bits); `any`: a value that stands for all. */
  | { readonly kind: 'cidr-list'; readonly any?: string }
  /** A Kubernetes resource quantity (resource.ParseQuantity). */
  | { readonly kind: 'quantity' }
  /** Go's time.ParseDuration. */
  | { readonly kind: 'go-duration' }
  /** Kuma's GetMap: key1=value1;key2=value2. */
  | { readonly kind: 'pair-map' }
  /** A YAML document holding a mapping (Istio's ProxyConfig, protomarshal.ApplyYAML); its fields are not judged. */
  | { readonly kind: 'yaml-map' }
  /** A JSON document (`of`: array or object), as encoding/json Unmarshal reads it into the type the injector gives. */
  | { readonly kind: 'json'; readonly of: 'array' | 'object' }
  /**
   * Consul's upstream list: comma-separated `name[.ns[.partition]]:port[:dc]`, `name.svc[...]:port`, or
   * `prepared_query:name:port`; the port a positive integer or a named port of the pod's containers (common.PortValue).
   * `panicsWithoutColon`: an item without a colon makes the injector panic (`crash`, whatever the rule's onBad says).
   */
  | { readonly kind: 'upstream-list'; readonly panicsWithoutColon?: true }
  /** Comma-separated network interface names (each trimmed, 1 to 15 characters, a letter first): Istio's ValidateInterfaceNames. */
  | { readonly kind: 'interface-list' }
  /** Comma-separated object names (DNS-1123 subdomains): Kuma's kuma.io/container-patches. */
  | { readonly kind: 'name-list' };

/**
 * What an injector does with a value it cannot parse, from its source: `refuse` (it answers the admission request with
 * an error: the API server denies the pod, whatever the webhook's failurePolicy, which only decides on calls that fail);
 * `crash` (the injector panics on it: the call fails, so failurePolicy Fail refuses the pod and Ignore admits it without
 * a proxy); `ignore` (it logs a warning and uses the default: the setting silently does nothing); `proxy-fails` (it
 * passes the value on unparsed, and an injected container, or the mesh's registration of the pod, fails on it).
 */
type OnBadValue = 'refuse' | 'crash' | 'ignore' | 'proxy-fails';

/** A known key's value type in a span of releases, and what their injector does with a value it cannot parse. */
export interface KeyValueRule {
  readonly key: string;
  /** The field it is read from, and on what: pods (templates and pods; the default) and namespaces. */
  readonly on: 'annotation' | 'label';
  readonly where?: readonly ('pod' | 'namespace')[];
  readonly type: ValueType;
  /** The first and last release (names of `ReleaseTable.order`); no `to`: to the newest. */
  readonly from: string;
  readonly to?: string;
  readonly onBad: OnBadValue;
  /** The injector's (or container's) error as its source writes it, for evidence and for matching a denial's message. */
  readonly says?: string;
  /** For `proxy-fails`: what fails, in words. */
  readonly fails?: string;
  /** The file, function and tag or commit that say so. */
  readonly source: string;
}

/**
 * A value of the mesh's own configuration, stored in the cluster by its install, that a span of releases cannot use
 * (issue 31.6 and 31.7, gen13values): a Helm value kept in a ConfigMap of the control plane (a key of an older or newer
 * release, a boolean where these releases read an object, a string they parse as a time), or an image these releases'
 * injector takes from its configuration that no registry serves any more. The symptom is downstream (the injector
 * refuses every pod, an injected container's image cannot be pulled): `fails` says which, so the finding about the
 * symptom names the stored value.
 */
export interface StoredValueRule {
  /**
   * Where the install keeps it: `path` (dotted) of the Helm values in data key `key` of ConfigMap `configMap` in the
   * control plane's namespace (revisioned copies `<configMap>-<revision>` too). Without `configMap`, a setting the
   * injector takes from its own Deployment (`path` names it, the Helm value in `helm`): judged on the image injected.
   */
  readonly configMap?: string;
  readonly key?: string;
  readonly path: string;
  /** The Helm value that sets it, where `path` is not one. */
  readonly helm?: string;
  /** The first and last release (names of `ReleaseTable.order`) that cannot use it; no `to`: to the newest. */
  readonly from: string;
  readonly to?: string;
  /**
   * What these releases cannot use there: a value of this YAML type; a string matching `matches`; a string not
   * matching `unless` (regular expression sources).
   */
  readonly bad: {
    readonly type?: 'boolean' | 'string' | 'number' | 'object';
    readonly matches?: string;
    readonly unless?: string;
  };
  /** What these releases read there instead, in words (a message says it after "which {release} reads as"). */
  readonly expects: string;
  /**
   * What fails on it: the injector refuses the pods with a reason matching `says` (a regular expression source,
   * case-insensitive); or the image of one of `containers` that the injector wrote from it cannot be pulled.
   */
  readonly fails:
    | { readonly on: 'injection'; readonly says: string }
    | { readonly on: 'image'; readonly containers: readonly string[] };
  /** The chart files, templates or code and the tags or commits that say so. */
  readonly source: string;
}

/** A mesh's releases: their order, the rows, the keys of its domain, and where the key tables come from. */
export interface ReleaseTable {
  /** Release names, oldest first ("2.10", ..., "2.19"). */
  readonly order: readonly string[];
  /** Edge builds (or other channels) and the release each belongs to, oldest first: a build at or after `from` belongs to `release`. */
  readonly channels?: readonly {
    readonly prefix: string;
    readonly from: readonly number[];
    readonly release: string;
  }[];
  readonly distributions?: readonly Distribution[];
  readonly injectorBuilds?: readonly InjectorBuild[];
  readonly rows: readonly ReleaseRow[];
  /**
   * Known bugs of releases older than the first of `order` (issue 31.7): the tables judge no rule
   * of those releases, but a bug whose versions and symptom are known names its cause on them
   * (a release outside the tables says so once, and what can be said is said).
   */
  readonly olderBugs?: readonly KnownBug[];
  /** The annotation and label prefixes of the mesh's domain (issue 31.6). */
  readonly domains: readonly string[];
  readonly keys: readonly KnownKey[];
  /** The files and tags the key table was read from. */
  readonly keySource: string;
  /**
   * Keys only the injection template reads (no code of the injector does), where the profile reads the
   * installed templates (`versions.templateKeys`): an installed template that does not mention one does
   * not read it, whatever release the tables place it in.
   */
  readonly templateOnly?: { readonly keys: readonly string[]; readonly source: string };
  /** The value types of known keys and what each release's injector does with a value it cannot parse (KeyValueRule). */
  readonly values?: readonly KeyValueRule[];
  /** Values of the mesh's own stored configuration that spans of releases cannot use (StoredValueRule). */
  readonly stored?: readonly StoredValueRule[];
}
