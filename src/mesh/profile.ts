/**
 * A mesh profile: everything one mesh means to meshdoctor, behind one interface the compiler
 * checks for every mesh (src/mesh/registry.ts). Checks, `explain` and the mesh-generic helpers in
 * src/mesh/ ask the profile; they never name a mesh. Each mesh's profile lives in
 * src/mesh/<mesh>/ (docs/contributing.md "Adding a mesh"), with the source of each fact beside it.
 */
import type { References } from './references.js';
import type { Word } from '../fix/steps.js';
import type { MeshContext } from './context.js';
import type { Workload } from '../k8s/workloads.js';
import type { NamedRef } from '../cluster/gather.js';
import type { Cert } from '../k8s/x509.js';

export type { NamedRef } from '../cluster/gather.js';
export type { Decision, DecisionInput, Field, InjectorStep, MeshWebhook, Template, WebhookCall } from './types.js';
import type { DecisionInput, Field, InjectorStep, MeshWebhook, Template } from './types.js';
import type { K8sObject, ResourceRef } from '../util/types.js';
import type { MarkerTable, NamespaceMarker } from './marker-table.js';
import type { MeshName } from './names.js';
import type { Step } from '../fix/steps.js';

export type ResourceKey = 'requests.cpu' | 'requests.memory' | 'limits.cpu' | 'limits.memory';

export interface EnableMarker {
  field: Field;
  key: string;
  value: string;
  text: string;
  command: string;
}

/** A marker problem a profile finds (injection-marker-invalid); the resource and pods are stamped by the caller. */
export interface MarkerProblemDraft {
  message: string;
  evidence: Record<string, unknown>;
  /** The commands correcting the marker. */
  fix: Step[];
  /** The commands removing the marker instead. */
  remove: Step[];
  /** Namespace problems: workloads whose pods must be re-created once the marker is right. */
  recreate?: Workload[];
  /** Namespace problems: pods affected, when not the recreated workloads' unmeshed pods. */
  affectedPods?: number;
  /** Workload problems: the pod template as the fix changes it. */
  templateChanges?: { field: Field; key: string; value?: string }[];
  /**
   * The marker is wrong, but the injector injects the pods anyway (a value the version ignores
   * while the namespace's policy injects): it is not why pods lack the proxy, so their missing
   * proxy is reported beside it (sidecar-missing, pod-predates-enablement).
   */
  notWhyMissing?: boolean;
}

/** What a profile's marker rules need from the namespace problem finder. */
export interface NamespaceProblemContext {
  ns: string;
  obj: K8sObject;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Commands setting or removing namespace markers (live: kubectl; -f: file edits). */
  set(field: Field, key: string, value: string): Step[];
  unset(field: Field, ...keys: string[]): Step[];
  /** The app workloads of the namespace. */
  workloads: Workload[];
  /** Workloads with unmeshed pods a working marker of this mesh would mesh on re-creation. */
  waiting(): Workload[];
}

/** What a profile's marker rules need from the workload problem finder. */
export interface WorkloadProblemContext {
  w: Workload;
  /** "Deployment shop/web". */
  id: string;
  /** "pod template" or "pod". */
  where: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Certificates that make up a mesh's identity: its trust anchors and its issuer certificate. */
export interface IdentityCerts {
  role: 'trust anchor' | 'issuer';
  ref: { kind: 'ConfigMap' | 'Secret'; namespace: string; name: string };
  key: string;
  obj: K8sObject;
  certs: Cert[];
}

/** The proxy resources a profile resolves for a workload's next pod (before admission defaults). */
interface ProxyResourceValue {
  value: unknown;
  from: string;
}

/**
 * A data plane that meshes pods with no proxy container in them (Istio's ambient mode): a node
 * agent enrols the pods and a node proxy on their node carries their traffic.
 */
export interface SidecarlessMode {
  /** "ambient mode". */
  readonly title: string;
  /** The label enrolling a namespace or a pod, its enrolling value, and the pod value opting out. */
  readonly label: { key: string; value: string; optOut: string };
  /** The pod (or pod template) is enrolled by the labels, its own and its namespace's (undefined: the namespace was not read). */
  enrols(pod: Template, nsLabels: Record<string, string> | undefined): boolean;
  /** What the node agent left on a running pod: enrolled, only partly ('pending'), or nothing. */
  enrolment(pod: K8sObject): { state: 'enrolled' | 'pending' | 'none'; text: string };
  /** The namespace's sidecar injection markers that conflict with the label, and the mesh's own rule saying so. */
  conflict(nsLabels: Record<string, string>): { markers: string[]; rule: string } | undefined;
  /** The node proxy every enrolled pod's node must run. */
  readonly nodeProxy: { title: string; daemonSet: string; isPod(pod: K8sObject): boolean };
  /** The node agent that enrols pods. */
  readonly nodeAgent: { title: string; daemonSet: string; podSelector: string };
  /** A pod template of its infrastructure (waypoints, node proxies, node agents): never an app workload. */
  isInfrastructure(templateLabels: Record<string, string>): boolean;
  /** A pod meshed with no proxy container, by design (enrolled, or enrolled by its labels and its namespace's); `ns`: its Namespace, when read. */
  meshedWithoutProxy(pod: K8sObject, ns?: K8sObject): boolean;
}

/** The mesh's CNI plugin, which replaces the init container that needs network capabilities. */
/** A line of a mesh CNI plugin's error and what it means (pod-sandbox-cni-failed). */
interface CniFailure {
  /** Anchored to the plugin's own words; the message is untrusted, bounded before it is tested. */
  readonly line: RegExp;
  /** What it means: a clause, no final period. */
  readonly cause: string;
  /** The mesh's file and commit, and the reports that confirm it. */
  readonly source: string;
  /** What to change, on `node` (where the pod's node was read), with the mesh's control-plane namespace. */
  fix(node: string | undefined, controlPlaneNamespace: string): Step[];
}

/**
 * How the plugin runs under Multus: installed standalone (not chained onto the cluster's own plugin),
 * Multus runs it only for the pods whose `k8s.v1.cni.cncf.io/networks` names its attachment; a pod
 * naming none gets no redirection, and the mesh's validation or init container fails.
 */
interface CniMultus {
  /** Whether the plugin's DaemonSet installs it standalone, from its own setting as read (undefined: not read). */
  standalone(m: MeshContext): { standalone: boolean; from: string } | undefined;
  /** Whether the injector adds the attachment to the pods it injects, from its configuration (undefined: not read). */
  annotates?(m: MeshContext, w?: Workload): { annotates: boolean; from: string } | undefined;
  /** What makes the pods name the attachment: a clause. */
  readonly setting: string;
  /** The mesh's files and commit. */
  readonly source: string;
}

export interface CniPlugin {
  /** The init container the injector adds without the plugin, and the capabilities it adds. */
  readonly privilegedInit: { name: string; capabilities: readonly string[] };
  /** The init container the injector adds instead with the plugin (it adds no capability); undefined when it keeps the same name. */
  readonly validationInit?: string;
  /**
   * The validation container can complete on a pod the plugin never set up (a reported bug of the mesh): then a pod
   * that started on its node before the agent there was ready runs unredirected though validation passed
   * (pod-predates-node-agent). A clause, and the thread that confirms it.
   */
  readonly validationPasses?: { readonly why: string; readonly source: string };
  /**
   * The pod annotation the injector writes for the plugin and the plugin rewrites once it has set the pod up: a pod
   * still carrying the injector's value was never set up by the plugin (pod-predates-node-agent), whatever the name
   * of its init container. Undefined: the mesh writes none.
   */
  readonly setUpMark?: { readonly key: string; readonly injected: string; readonly source: string };
  /** The plugin's node DaemonSet. */
  readonly daemonSet: string;
  /**
   * The plugin's `type` in the node's CNI configuration, as the kubelet's FailedCreatePodSandBox
   * events name it (`plugin type="istio-cni" name="istio-cni" failed (add): ...`): pod-sandbox-cni-failed.
   */
  readonly pluginType: string;
  /**
   * Where Multus runs it (OpenShift): the NetworkAttachmentDefinition the injected pods name in
   * `k8s.v1.cni.cncf.io/networks`, and how to get it into a namespace that lacks it.
   */
  readonly attachment?: { readonly name: string; fix(namespace: string): Step[] };
  /**
   * Lines of the plugin's own error (what libcni quotes after `failed (add): `) that say why it
   * fails, in the mesh's words: pod-sandbox-cni-failed names the cause instead of only quoting it (issue 31).
   */
  readonly failures?: readonly CniFailure[];
  /**
   * The install setting naming the host directory its DaemonSet puts the plugin's binary in (the
   * DaemonSet's hostPath volume `cni-bin-dir`): what to set where the node's container runtime looks
   * for plugins elsewhere (pod-sandbox-cni-failed, issue 31).
   */
  readonly binDirSetting?: string;
  /** The plugin installed standalone for Multus instead of chained: then it runs only for pods that name `attachment` (issue 31). */
  readonly multus?: CniMultus;
  /** Whether the injector injects for the plugin (for the workload's injector), from the mesh's own configuration (undefined: not read). */
  enabled(m: MeshContext, w?: Workload): { enabled: boolean; from: string } | undefined;
  /**
   * Without the plugin, whether the init container of this workload's pods adds the capabilities,
   * where a setting decides it (Consul: only with transparent proxy); undefined: it always does, or nothing tells.
   */
  privilegedFor?(m: MeshContext, w: Workload): { privileged: boolean; from: string } | undefined;
  /** How to install the plugin and turn it on for the injector: comment lines, one per install method. */
  install(ns: string): Step[];
  /**
   * Why the plugin sets no traffic redirection for a pod that runs the proxy as a sidecar and has
   * no privileged init container (the plugin's own exclusions: Istio's pods without its status
   * annotation); undefined: it redirects the pod, or the init container does. `optedOut`: the pod
   * asks for it (a marker set to off), rather than missing the injector's mark.
   */
  skips?(pod: K8sObject): { reason: string; key: string; optedOut: boolean; source: string } | undefined;
}

/** A Pod Security `restricted` requirement (kubernetes pod-security-admission policy/check_*.go), by the reason its message gives. */
export type RestrictedRule =
  'allowPrivilegeEscalation' | 'capabilities' | 'runAsNonRoot' | 'runAsUser' | 'seccompProfile' | 'privileged';

/** The fields of a securityContext that Pod Security and OpenShift's SCCs judge, as the injector writes them. */
interface SecurityFields {
  readonly runAsUser?: number;
  readonly runAsNonRoot?: boolean;
  readonly allowPrivilegeEscalation?: boolean;
  readonly privileged?: boolean;
  readonly add?: readonly string[];
  readonly drop?: readonly string[];
  /** seccompProfile.type. */
  readonly seccomp?: string;
}

/** A container the injector adds, with the securityContext its template or code gives it. */
export interface InjectedContainer {
  readonly name: string;
  readonly init: boolean;
  readonly securityContext: SecurityFields;
}

/** Where a failure of an injected container happened: what its mesh-specific fix needs. */
export interface StartContext {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** The mesh's control-plane namespace. */
  readonly controlPlaneNamespace: string;
}

/**
 * A way one of the containers the injector added fails once the pod runs, as the mesh's own code
 * (an exit code it defines) or a line it writes to its termination message says it.
 */
export interface StartFailure {
  readonly container: string;
  /**
   * The exit code of its last termination that means this (the mesh's own constant), or the codes it
   * has used for it across releases (Istio's istio-iptables: a Go panic, 2, before 1.11; 255 since).
   */
  readonly exitCode?: number | readonly number[];
  /**
   * A line of its termination message that means this: only where the injector sets
   * `terminationMessagePolicy: FallbackToLogsOnError` (the kubelet fills the message from the log).
   * Anchored and bounded: the message is the container's untrusted output.
   */
  readonly line?: RegExp;
  /** What it means: a clause, no final period. */
  readonly cause: string;
  /** The node decides it (its kernel, its iptables): the finding names the node's OS image and kernel, where Nodes were read. */
  readonly node?: true;
  /** The mesh's file and commit, or the issue thread that confirms it. */
  readonly source: string;
  /** What to change. */
  fix(c: StartContext): Step[];
}

/**
 * A control-plane endpoint the injected containers must reach over the pod network before the
 * proxy is ready: the Service they dial in the control-plane namespace, the container ports behind
 * it (any one of `ports` suffices: Consul's HTTP or HTTPS), and the pods' labels when the Service
 * was not read.
 */
export interface ControlPlaneEndpoint {
  /** What it serves the proxy: a clause ("destinations", "certificates and xDS"). */
  readonly role: string;
  /** The Service name as installs create it (a revision may add a suffix: `servicePrefix`). */
  readonly service: string;
  /** The Service's name may carry a suffix (Istio's `istiod-<revision>`). */
  readonly servicePrefix?: true;
  /** The pods' container ports (the Service's targetPorts), TCP; any one of them suffices. */
  readonly ports: readonly number[];
  /** The labels of the pods behind it, as the chart sets them. */
  readonly podLabels: Readonly<Record<string, string>>;
  /** Which injected container dials it ("the proxy", "the init container"). */
  readonly from: string;
  /** The chart or code and commit that say so. */
  readonly source: string;
}

/**
 * What the pods of the mesh show when a control-plane component does not run (issue 31, gen10cp): their proxy runs
 * and is never ready (it cannot get its certificate or configuration), its init container never finishes (it cannot
 * register), or a pod cannot mount a Secret the component writes (`secrets`).
 */
export type ComponentSymptom = 'proxy-not-ready' | 'init-not-finished' | 'secret-missing';

/**
 * One component of a mesh's control plane, as the charts install it (issue 31, gen10cp): how its workload is found (the
 * labels of its pods, in the control-plane namespaces: names follow the release name, labels do not), what it provides
 * and what breaks without it. A release that does not install it simply has no such workload: the table needs no
 * version, and a component is said missing only where a pod shows what only it provides (a Secret it writes).
 */
export interface ControlPlaneComponent {
  /** Short id, unique in the mesh ("identity", "citadel", "server"). */
  readonly id: string;
  /** As the mesh calls it ("the identity service linkerd-identity"). */
  readonly title: string;
  readonly kind: 'Deployment' | 'StatefulSet' | 'DaemonSet';
  /** Each set of labels its pod template carries in some release (all of one set must match). */
  readonly podLabels: readonly Readonly<Record<string, string>>[];
  /** What it provides: a clause ("signs the proxies' certificates"). */
  readonly provides: string;
  /** What breaks while it does not run: a clause ("no proxy can get a certificate, so none becomes ready"). */
  readonly without: string;
  /** What the pods it serves show while it does not run. */
  readonly symptoms: readonly ComponentSymptom[];
  /** The Secrets it writes that pods mount, by name (a regular expression source, anchored): a pod failing to mount one shows it. */
  readonly secrets?: string;
  /** The component it needs to become ready itself (Consul's client agents wait for a server leader): its id. */
  readonly needs?: string;
  /** Another check judges it (the injector: injector-unavailable; a node agent: node-agent-incomplete). */
  readonly judgedBy?: 'injector-unavailable' | 'node-agent-incomplete';
  /** The releases that install it, in words, and how to turn it on where an install can leave it out. */
  readonly releases: string;
  readonly enable?: string;
  /** The chart or code, and its tag or commit. */
  readonly source: string;
}

/**
 * The network path of the injected containers: the control-plane endpoints they dial (and the
 * cluster DNS, to find them), and what they log when a policy drops the packets (issue 31).
 */
export interface ProxyNetwork {
  readonly endpoints: readonly ControlPlaneEndpoint[];
  /** What the proxy logs and shows while it cannot reach them, for messages (a clause). */
  readonly symptom: string;
  /** What the injected containers need from the pod's own spec (issue 31, gen10spec): src/facts/pod-needs.ts reads it. */
  readonly podSpec?: PodSpecNeeds;
}

/**
 * What a mesh's injected containers need from the pod's own spec, per release (issue 31): each row applies to a pod
 * that carries its `container` (the releases differ in the containers they inject, so the container present is the
 * release the pod was injected by; a template not injected yet is judged by the containers the profile injects today).
 */
export interface PodSpecNeeds {
  /** The control-plane address a container resolves through the pod's DNS before it is ready. */
  readonly dns: readonly {
    readonly container: string;
    /** Only beside this container (a name several releases inject alike, whose release the other one tells). */
    readonly beside?: string;
    /** The name it dials, as the injector writes it (`<ns>`: the control plane's namespace). */
    readonly address: string;
    /** What the address serves it (a clause). */
    readonly role: string;
    readonly source: string;
  }[];
  /**
   * A container that reads the ServiceAccount token the API server mounts, unless it carries its own projected token
   * (a volumeMount named `ownMount`, which the release's injector adds where the mesh's setting asks for it).
   */
  readonly token: readonly {
    readonly container: string;
    /** What it needs the token for (a clause). */
    readonly role: string;
    /** The name of the volume its own projected token is mounted from, where the mesh has one. */
    readonly ownMount?: string;
    /** The mesh's setting that gives it its own token (a clause), where the mesh has one. */
    readonly setting?: string;
    readonly source: string;
  }[];
  /** The operating systems its images are built for (every mesh: Linux only). */
  readonly os: { readonly images: 'linux'; readonly source: string };
  /**
   * The TCP ports a container binds in the pod's network namespace, which every container of the pod shares: an app
   * container listening on one of them cannot start, or the proxy cannot (app-port-taken-by-proxy).
   */
  readonly ports?: readonly ProxyPort[];
}

/** A port an injected container binds (its default), and the pod annotation that moves it, where the mesh has one. */
interface ProxyPort {
  readonly container: string;
  readonly port: number;
  /** What it serves (a noun phrase: "its admin server"). */
  readonly serves: string;
  /** The pod annotation whose value is the port instead (the namespace's too where `onNamespace`). */
  readonly annotation?: string;
  readonly onNamespace?: true;
  readonly source: string;
}

/** One setting of address ranges as read (mesh-wide or a pod's annotations): CIDR text, `*` for every address. */
export interface RangeSetting {
  /** What the user writes ("clusterNetworks", "traffic.sidecar.istio.io/includeOutboundIPRanges"). */
  readonly name: string;
  /** The ranges it admits ('*': every address). */
  readonly include: readonly string[] | '*';
  /** The ranges it leaves out of `include`. */
  readonly exclude: readonly string[];
  /** Where it was read, in words ("values of ConfigMap linkerd/linkerd-config", "the chart's default"). */
  readonly from: string;
}

/**
 * The address ranges a mesh's proxies are configured with, and what an address outside them means (issue 31,
 * gen10net). `cluster`: the ranges the mesh counts as the cluster's (Linkerd's clusterNetworks: the proxy discovers
 * and mTLS-es only destinations inside them, and its policy admits unauthenticated clients only from them);
 * `captured`: the outbound ranges the init container redirects to the proxy (Istio's include/exclude ranges, Kuma's
 * and Consul's excluded CIDRs): a destination outside leaves the pod without the proxy.
 */
export interface ProxyRanges {
  readonly role: 'cluster' | 'captured';
  /** The mesh-wide setting, from the control plane's namespaces as read (undefined: not read, nothing judged). */
  meshWide(m: MeshContext, namespaces: readonly string[]): RangeSetting | undefined;
  /** The setting a pod's (or template's) annotations give over the mesh-wide one (undefined: the mesh-wide one). */
  forPod(annotations: Readonly<Record<string, string>>, meshWide: RangeSetting | undefined): RangeSetting | undefined;
  /** What a destination (a Service's ClusterIP, a pod's address) outside the ranges means, a clause. */
  readonly outside: string;
  /** The mesh's source (repository, file, tag or commit). */
  readonly source: string;
  /** The fix: the setting with `add` added (CIDRs), in the control-plane namespace `ns` (a pod annotation's: `pod`). */
  fix(setting: RangeSetting, add: readonly string[], ns: string): Step[];
  /** Whether the mesh's proxy serves IPv6, as its install is configured (the release tables say which releases can). */
  ipv6Setting?(m: MeshContext, namespaces: readonly string[]): { on: boolean; from: string; fix: Step[] } | undefined;
}

/** The iptables backend a release of the mesh's init container runs, where it runs iptables-legacy only (issue 31). */
export interface InitBackend {
  /** The release, as the container's image names it. */
  readonly release: string;
  /** What it runs, as a clause: the legacy backend only, and why (its image, its setting). */
  readonly runs: string;
  readonly source: string;
  /** The setting that switches it to a backend the node offers, or the upgrade that adds one. */
  fix(controlPlaneNamespace: string): Step[];
}

/** Something the mesh's init container needs from the cluster that is missing: why it keeps failing. */
export interface InitNeed {
  readonly cause: string;
  readonly evidence: Record<string, unknown>;
  readonly source: string;
  readonly fix: Step[];
}

/** Whether a pod's app containers were held until its proxy was ready, and what says so (issue 31). */
interface Hold {
  readonly held: boolean;
  /** What in the pod (or the mesh's settings) says it: a clause, for evidence. */
  readonly how: string;
}

/**
 * How the mesh holds the app containers of a pod until its proxy is ready (a postStart hook on
 * the proxy as the first container, or the proxy as a native sidecar with a startup probe), read
 * from the pod as it was injected, and the setting that turns it on, with the releases that have it.
 */
interface StartOrder {
  /** Whether this pod (as injected) holds its app until the proxy is ready; undefined when nothing read tells. */
  held(m: MeshContext, pod: K8sObject): Hold | undefined;
  /** The setting that holds the app, and since which release: a clause for messages. */
  readonly setting: string;
  /** The release that introduced it (a version `versions.compare` orders), where the proxy's version tells it. */
  readonly since?: string;
  /** The mesh's file and commit that say it. */
  readonly source: string;
  /** Turn it on for this workload (or, where the mesh has no switch per workload, mesh-wide). */
  fix(w: Workload, controlPlaneNamespace: string): Step[];
  /** How an app init container reaches the network while the proxy does not run yet (init-before-proxy). */
  readonly initTraffic?: InitTraffic;
  /**
   * Why the hold cannot complete for this pod where the mesh's settings or the pod show it (proxy-hold-stuck, issue
   * 31); undefined where they do not.
   */
  stuck?(m: MeshContext, pod: K8sObject, w: Workload, controlPlaneNamespace: string): HoldStuck | undefined;
}

/**
 * A hold that cannot complete (issue 31): the proxy's postStart hook waits for something that comes only once the
 * hook has returned (the kubelet publishes the pod's IP only then: kubernetes/kubernetes#85966), or polls the wrong
 * place.
 */
export interface HoldStuck {
  /** The cause: a clause. */
  readonly cause: string;
  /** The mesh's files, commits and threads. */
  readonly source: string;
  /** What to change. */
  readonly fix: Step[];
}

/**
 * The traffic of the app's init containers (issue 31.10): the kubelet runs them one by one before
 * any ordinary container, so a proxy that is an ordinary container does not run yet; once the
 * pod's outbound traffic is redirected (by the mesh's iptables init container, from where it sits,
 * or by its CNI plugin, from the pod's start) their connections go to a port nothing listens on.
 * The redirection leaves the proxy's own UID alone, and the pod annotations below exclude ports,
 * address ranges or UIDs from it.
 */
export interface InitTraffic {
  /** The UID the redirection leaves alone: the proxy's. */
  readonly proxyUid: number;
  /** The pod annotation the injector records another proxy UID in (Kuma's kuma.io/sidecar-uid). */
  readonly uidAnnotation?: string;
  /** Pod template annotations that exclude outbound traffic from the redirection, and what they take. */
  readonly exclude: readonly { readonly key: string; readonly takes: string }[];
  /** The pod template annotations that make the proxy a native sidecar (which runs before the app's init containers placed after it), newest first. */
  readonly native?: readonly string[];
  /** A pod template annotation (and its value) that puts the mesh's iptables init container after the app's. */
  readonly initLast?: { readonly key: string; readonly value: string };
  /** The mesh's files and commits that say where it puts its init container and what the redirection leaves alone. */
  readonly source: string;
}

/** A mesh's per-node agent the injected pods need (not a CNI plugin), found by its DaemonSet's selector. */
export interface NodeClientAgent {
  /** "client agent". */
  readonly title: string;
  /** The labels its DaemonSet's spec.selector.matchLabels has (the chart's; the name follows the release). */
  readonly selector: Readonly<Record<string, string>>;
  /** The pod needs it on its node. */
  needs(pod: K8sObject): boolean;
  /** What the pods without it do: a clause ("cannot register ..."). */
  readonly without: string;
  /** The chart file and commit. */
  readonly source: string;
}

/**
 * The containers the injector adds, as admission judges them and as they run: their security
 * contexts (Pod Security, SCCs), the init container's resources (LimitRange), how they fail to
 * start and what fixes each failure (issue 24).
 */
interface Runtime {
  /** The containers the injector adds to this workload's pods, with (`cni`) or without its CNI plugin, as its template writes them. */
  injected(m: MeshContext, w: Workload, cni: boolean): readonly InjectedContainer[];
  /** Where the template says it (file and commit), for evidence. */
  readonly injectedFrom: string;
  /**
   * A `restricted` requirement an injected container misses that the pod template's own
   * securityContext cannot meet (Linkerd's proxy drops no capability unless its values say so),
   * or can also be met in the mesh's settings: how (comment lines and commands).
   */
  restrictedFix?(rule: RestrictedRule, container: string, controlPlaneNamespace: string): Step[] | undefined;
  /** How the injected containers are admitted on OpenShift (its SecurityContextConstraints), as the mesh documents it. */
  openshift(ns: string, controlPlaneNamespace: string): Step[];
  /** The init containers' own resources where they differ from the proxy's (LimitRange); undefined: the proxy's. */
  initResources?(
    m: MeshContext,
  ): { requests: Record<string, string>; limits: Record<string, string>; from: string } | undefined;
  /** The failures the injected containers' statuses show, in the mesh's own words. */
  readonly failures: readonly StartFailure[];
  /**
   * A node agent the injected pods need on their node other than a CNI plugin (Consul's client agents before
   * consul-k8s 1.0: the init container registers the pod with the agent on its node): node-agent-incomplete.
   */
  readonly nodeAgent?: NodeClientAgent;
  /**
   * What the mesh's init container `container`, failing in `pod`, needs of the cluster that this
   * pod lacks (Consul: one Service selecting it; Istio: a CNI agent that does not skip its namespace).
   */
  initNeeds?(m: MeshContext, w: Workload, pod: K8sObject, container: string): InitNeed[];
  /**
   * How the mesh runs its iptables init container privileged, where the mesh has such a setting:
   * what an SELinux-enforcing node (RHEL-family images) needs before it lets the container program
   * the pod's iptables (issue 31).
   */
  privileged?(controlPlaneNamespace: string): Step[];
  /**
   * How the mesh's iptables init container chooses its iptables backend, where a setting decides it
   * (Linkerd's proxyInit.iptablesMode): the steps switching it to `to`, for a node whose kernel
   * offers the other backend only (issue 31, src/mesh/iptables.ts).
   */
  iptablesBackend?(to: 'legacy' | 'nf_tables', controlPlaneNamespace: string): Step[];
  /**
   * The iptables backend the mesh's iptables init container `container` of `pod` runs, where its release (read
   * from its image) runs iptables-legacy only: what a node whose OS offers nf_tables only cannot give it (issue 31,
   * src/mesh/node-images.ts). Undefined where the release detects the node's backend or runs nf_tables, or the
   * image names no release of the tables.
   */
  initBackend?(pod: K8sObject, container: string): InitBackend | undefined;
  /** How the images of the injected containers are chosen (for an image the nodes cannot pull). */
  image(controlPlaneNamespace: string): Step[];
  /** How the app is held until the proxy is ready (app-starts-before-proxy). */
  readonly startOrder: StartOrder;
  /** The labels the injector writes on the pod from the name of the pod's owner (none: it writes no such label). */
  readonly ownerLabels?: readonly OwnerLabel[];
}

/**
 * A label the injector writes on each pod it injects, its value the name of the pod's owner (issue 31, gen13events):
 * a name may be 253 characters and a label value 63 at most, starting and ending alphanumeric, so a long owner name
 * makes the injected pod invalid (`metadata.labels: Invalid value: "<name>": must be no more than 63 characters`).
 */
export interface OwnerLabel {
  readonly key: string;
  /** The owner kinds whose name it writes (the pod's top owner: a Deployment for a ReplicaSet's pods); `*`: any owner. */
  readonly owners: readonly string[] | '*';
  /** The pod labels the injector copies instead, in its order: the owner's name only where the pod has none. */
  readonly unless: readonly string[];
  /** How the release cuts the name (`trunc max` and one trailing `-` trimmed), from which release on. */
  readonly truncated?: { readonly max: number; readonly since: string };
  /** What gives the pods a valid value: a comment line. */
  readonly fix: string;
  /** The template or code that writes it (repository, commit or tag, file). */
  readonly source: string;
}

/** The containers the injector adds. */
interface Containers {
  /** The proxy container (or native sidecar). */
  readonly proxy: string;
  /** The init containers (the CNI variant's name too, when it has one). */
  readonly init: readonly string[];
  /** The proxy image, for templates injected by hand under another name. */
  readonly image: RegExp;
  /**
   * A container that is the mesh's data plane itself, not an app beside a proxy (Kuma's builtin
   * gateway, `kuma-gateway`): a workload running it is the mesh's own, never reported as unmeshed.
   */
  readonly gateway?: string;
  /** The proxy of a multi-service pod is named `<proxy>-<service>`, one per service (src/mesh/mesh-data.ts). */
  readonly perService?: true;
  /**
   * The injector's own mark on a pod it injected, and the containers the mark announces
   * (proxy-removed): a mark on a pod without them means a later admission layer removed them.
   */
  readonly announced?: (pod: K8sObject) => Announcement | undefined;
}

/** An injector's mark on a pod it injected (its status annotation or label) and what it announces. */
export interface Announcement {
  /** `annotation sidecar.istio.io/status`. */
  readonly mark: string;
  /** The containers (or init containers) the mark says were injected. */
  readonly containers: readonly string[];
  /** Repository, file and tag the mark is set in. */
  readonly source: string;
}

/**
 * Chart values that put the injector on the node's network, so that an API server outside the
 * pods' network (a managed control plane beside an overlay CNI) reaches it on a node address.
 */
export interface InjectorHostNetwork {
  /** The Helm chart (repo/name). */
  readonly chart: string;
  /** `key=value` settings, in order. */
  readonly set: readonly string[];
  /** What else to mind (a port that must be free on the nodes). */
  readonly note: string;
  /** Where the values are (repository, file, commit). */
  readonly source: string;
}

/** The control plane: where it runs, its injector, its webhooks, and what meshdoctor reads of it. */
/**
 * A control-plane container that serves TLS with the certificate of a Secret it mounts, and the first
 * release that reloads it when the Secret changes: older releases read it once, at start, and serve
 * that certificate until restarted (issue 31, gen9time). Judged by the container's image tag through
 * `versions.compare`; a tag it cannot order is not judged.
 */
export interface MountedCertLoad {
  /** The container's name in the component's pod. */
  readonly container: string;
  /** What it serves with the certificate, a clause ("the proxy injector webhook"). */
  readonly serves: string;
  /** The first version that reloads the certificate from the mounted file. */
  readonly reloadsFrom: string;
  /** The mesh's source that says so (repository, file, tags). */
  readonly source: string;
}

interface ControlPlane {
  /** Where the control plane is installed by default. */
  readonly namespace: string;
  /** Namespaces holding this mesh's components (or left alone by its installs): no mesh's findings there. */
  readonly ownNamespaces: readonly string[];
  /** Containers of its components that serve TLS from a mounted Secret, and the releases that reload it (MountedCertLoad). */
  readonly certLoads?: readonly MountedCertLoad[];
  /** Namespaces this mesh's webhook leaves out by design: none of its findings there. */
  readonly excludedNamespaces: readonly string[];
  /** A Namespace object marked as this mesh's control plane. */
  isNamespace(ns: K8sObject): boolean;
  /** A pod template of the mesh's own control plane or extensions (never reported as unmeshed). */
  isWorkload(templateLabels: Record<string, string>): boolean;
  /** A pod of the mesh's control plane or extensions in namespace `ns`. */
  isOwnPod(podLabels: Record<string, string>, ns: string): boolean;
  /**
   * The mesh's own workloads (an extension's) that its charts expect meshed through their namespace's injection
   * marker, not their pod templates: installed into a namespace created without the marker (Helm's
   * --create-namespace), they run without the proxy the extension needs. The extension, where its charts put the
   * marker (a clause), and the source that says so;
   * undefined for any other pod template (and for every template of a mesh with none).
   */
  meshedByNamespace?(
    templateLabels: Record<string, string>,
  ): { extension: string; where: string; source: string } | undefined;
  readonly injector: {
    /** The injector's Deployment and Service name when nothing else tells. */
    readonly name: string;
    /** The injector Deployment's main container. */
    readonly container: string;
    /**
     * The container port the injector serves its webhook on (the webhook Service's targetPort), as
     * installs set it: the port a firewall between the API server and the nodes must open. The
     * cluster's own Service and pods say it when read; this is for when they were not.
     */
    readonly webhookPort: number;
    /** The injector pods' usual label selector (kubectl -l syntax), when no Service tells. */
    readonly podSelector: string;
    /** A Deployment named like this mesh's injector (the one behind a webhook's Service is found from the cluster: facts/controlplane.ts). */
    isDeployment(name: string): boolean;
    /** The chart values that run the injector on the node's network, where the mesh's chart has them (undefined: none). */
    readonly hostNetwork?: InjectorHostNetwork;
  };
  readonly webhooks: {
    /** The MutatingWebhookConfiguration an install creates, when nothing else tells. */
    readonly defaultConfig: string;
    /** The one decision of which webhooks are this mesh's injection webhooks. */
    owns(hook: { name: string; configName: string; serviceName?: string }): boolean;
    /** A webhook of this mesh switched off in place (Istio's `istio.io/deactivated: never-match`): left out of every check. */
    inactive?(hook: { namespaceSelector: unknown; objectSelector: unknown }): boolean;
    /**
     * A webhook that injects pods carrying no marker of this mesh at all (Istio's `auto.` webhook of
     * enableNamespacesByDefault): a pod it is called for counts as asking for injection.
     */
    injectsUnmarked?(hook: { name: string; configName: string }): boolean;
    /** The webhook configurations an install with these injector Deployments creates. */
    expectedConfigs(injectors: string[]): string[];
    /** The command that lists this mesh's webhook configurations. */
    list(expected: string): Step;
    /** Secrets holding the injector's serving certificate: [name, key]. */
    readonly servingCertSecrets?: readonly (readonly [string, string])[];
    /**
     * The Secret holding the injector's serving certificate in control-plane namespace `ns`, as the
     * cluster names it (Kuma: the volume its Deployment mounts); replaces servingCertSecrets.
     * Undefined when what names it was not read: nothing is compared.
     */
    servingCertSecretIn?(m: MeshContext, ns: string): readonly [string, string] | undefined;
  };
  /**
   * How an install keeps the mesh's own injection webhooks away from the control plane's pods, in
   * the mesh's order of preference: a label on the control plane's namespace, or on the
   * injector's pod template. With failurePolicy Fail, an injector whose webhook is called for its
   * own pods cannot create them while no replica answers (webhook-blocks-injector). Empty where
   * nothing the user sets does it (Consul: its objectSelector `app NotIn [consul]` always holds).
   */
  readonly selfExclusion: readonly {
    readonly on: 'namespace' | 'template';
    readonly key: string;
    readonly value: string;
  }[];
  /** What meshdoctor reads of the control plane beyond the listed kinds, and what snapshots keep of it. */
  readonly reads: {
    /** The ConfigMaps and Secrets its checks read, by name, in its control-plane namespaces (`deployments`: as read, maybe none). */
    named(namespaces: string[], webhookConfigs: K8sObject[], deployments: K8sObject[]): NamedRef[];
    /** The `data` key (or keys) of a ConfigMap of this mesh that its checks read (snapshots keep only them). */
    configMapKeys(name: string): string | readonly string[] | undefined;
    /** The part of a kept ConfigMap key its checks read, when less than all of it (undefined: none of it is kept). */
    slimConfigMap?(name: string, key: string, text: string): string | undefined;
    /** Env variables of its control plane that the profile reads (snapshots keep their boolean, quantity or `auto` values). */
    readonly env?: readonly string[];
    /** Words of its control plane's command lines the profile reads (regular expression sources): Consul's injector flags. */
    readonly args?: readonly string[];
  };
}

/**
 * What a namespace or a pod template says to this mesh: its marker table (data, read the same way
 * for every mesh by src/mesh/marker-table.ts and src/facts/marker-problems.ts), and the rules that
 * need the mesh's webhooks or settings.
 */
interface Markers extends MarkerTable {
  /** The namespace or the template asks this mesh to inject (whether or not it will); `m` for settings of the injector itself (Consul's -default-inject). */
  intent(input: DecisionInput, m: MeshContext): boolean;
  /**
   * What the namespace says, where the injector's settings stand in for a namespace marker
   * (Consul: `-default-inject` with its allow and deny lists of namespaces); default: the table.
   */
  namespaceMarker?(ns: K8sObject | undefined, m: MeshContext): NamespaceMarker;
  /**
   * The marker to set on a namespace; undefined for a mesh with no namespace marker, whose pods opt
   * in one by one (Consul).
   */
  enableMarker(ns: string, webhooks: MeshWebhook[]): EnableMarker | undefined;
  /**
   * The template's `ask` is advised to opt one workload in on its own: where the mesh has no
   * namespace marker (Consul), or where the namespace's marker keeps the mesh off on purpose (Kuma).
   */
  readonly advisesPodOptIn?: true;
  /**
   * Where the mesh has no namespace marker: the injector setting that injects every pod without
   * one (Consul's -default-inject), said when a namespace asked about with -n has nothing asking.
   */
  readonly injectsAllWhen?: string;
  /**
   * A namespace label under which the mesh's webhooks are called for the pods that ask themselves
   * while the namespace stays off for every other pod (Kuma >= 2.11: its pods webhook selects
   * namespaces where kuma.io/sidecar-injection exists; `disabled` keeps the rest unmeshed).
   */
  readonly podOptInNamespaceLabel?: { key: string; value: string };
  /**
   * For a mesh with no namespace marker whose injector's own settings enable a namespace: how those
   * settings leave namespace `ns` out instead (comment lines).
   */
  namespaceSettingOff?(m: MeshContext, ns: string): Step[];
  /** The mistakes with this mesh's markers that only its own rules find (invalid values, its webhooks' selectors, its versions). */
  readonly rules: {
    namespace(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[];
    workload(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[];
  };
}

/** What one reason of the injector's own skip event means for a workload the model says it should have injected. */
export interface SkipReading {
  /** The reason, as the injector wrote it. */
  readonly reason: string;
  /** What it means here: a clause, no final period. */
  readonly means: string;
  /** The mesh's file at the release that writes it, or the issue thread that shows it. */
  readonly source: string;
  readonly evidence?: Record<string, unknown>;
  /** What to change before the pods are re-created (empty: re-creating them is the fix). */
  readonly fix: Step[];
}

export type { InjectorPermission } from './release-table.js';
import type { InjectorPermission, ReleaseTable } from './release-table.js';

/**
 * What a mesh's chart grants its injector's ServiceAccount, as far as injection needs it: the
 * ClusterRole and ClusterRoleBinding it creates (named after the release), the permissions, and
 * what the injector does without them.
 */
export interface InjectorRbac {
  /** The ClusterRole and ClusterRoleBinding the chart creates for the injector Deployment `injector` installed in `ns`. */
  names(ns: string, injector: string): { clusterRole: string; clusterRoleBinding: string };
  readonly needs: readonly InjectorPermission[];
  /** What the injector does when it lacks them (one clause, for messages). */
  readonly without: string;
  /** The chart template and commit the permissions come from. */
  readonly source: string;
}

/**
 * A Warning event a mesh's own controller records about a pod (its reason, the component that records it, the source
 * file and tag that record it), and what it means for the pod's proxy: quoted with that meaning where the pod is unhappy.
 */
export interface MeshWarning {
  readonly reason: string;
  /** The recorder's component (the event's source.component). */
  readonly component: string;
  /** What it means for the pod (one clause, for messages). */
  readonly means: string;
  /**
   * The control-plane object it is recorded on, in the mesh's control-plane namespace (a component that serves every
   * meshed pod: an identity issuer); absent: recorded on the pod itself.
   */
  readonly on?: { readonly kind: string; readonly name: string };
  readonly source: string;
}

/** The injector's own decision for a pod it is called for, and what it records. */
interface Injector {
  /** Every rule the injector applies to a pod it is called for, in its order. */
  decide(m: MeshContext, input: DecisionInput): InjectorStep[];
  /** The injector's own events about a workload it skipped: the message prefix before its reasons. */
  readonly skippedEventPrefix?: string;
  /** Every reason its skip events may give, longest first (the event joins them with ", ", which a reason may contain). */
  readonly skipReasons?: readonly string[];
  /** The Warning events its own controllers record about a pod (issue 31: evidence read whole), with what each means. */
  readonly warnings?: readonly MeshWarning[];
  /**
   * What a reason of its skip event means for this workload, whose pods (`pods`, the ones it
   * skipped) the model says it should have injected; undefined for a reason it does not know.
   */
  readSkip?(m: MeshContext, w: Workload, reason: string, pods: readonly K8sObject[]): SkipReading | undefined;
  /** The injector skips pods without their ServiceAccount token here (or denies them: `denies`, Consul with ACLs): why (for a message), with evidence. */
  token?(m: MeshContext): { why: string; evidence: Record<string, unknown>; denies?: boolean } | undefined;
  /** The RBAC its chart grants the injector (injector-rbac-missing). */
  readonly rbac?: InjectorRbac;
  /**
   * A pod the injector is called for a second time (two of its webhook configurations select it)
   * is injected again from its own template, the last call winning (Istio), rather than skipped
   * as already injected (the first call winning).
   */
  readonly reinjects?: true;
}

/** The proxy the injector adds: its resources, and whether it is a native sidecar. */
interface Proxy {
  readonly resources: {
    /** The pod annotations that set each proxy resource (none for a mesh without them: Kuma). */
    readonly annotations: Readonly<Partial<Record<ResourceKey, string>>>;
    /** The annotations also work on the namespace (for all its workloads). */
    readonly onNamespace: boolean;
    /** The proxy resources quota advice suggests when none are set. */
    readonly suggested: Readonly<Record<ResourceKey, string>>;
    /** How the proxy's resources are set where no annotation does (comment lines, for quota advice). */
    fix?(m: MeshContext): Step[];
    /** The proxy resources of the workload's next pod, from the mesh's own configuration. */
    of(
      m: MeshContext,
      w: Workload,
      observed: Record<string, unknown> | undefined,
      observedFrom: string | undefined,
    ): Partial<Record<ResourceKey, ProxyResourceValue>>;
  };
  readonly native: {
    /**
     * Whether the proxy would be a native sidecar by the mesh's own settings (undefined: none found).
     * `uncertain`: it depends on something not read (Istio 1.27+'s "auto": the nodes' kubelet
     * version); `native` is then the likelier answer, and no check asserts a finding on it.
     */
    decide(m: MeshContext, w: Workload): { native: boolean; reason: string; uncertain?: boolean } | undefined;
    /** The pod template annotation that makes the proxy a native sidecar (none where only the control plane's setting decides: Kuma). */
    readonly annotation?: string;
    /** The installed version does not know the annotation yet: why (for a comment), else undefined (known to, or not read). */
    unsupported?(m: MeshContext): Word | undefined;
  };
}

/** How a Job's proxy is told to exit when the app is done. */
interface Jobs {
  /** A call in the app's command line that stops the proxy when the app is done. */
  readonly shutdown: RegExp;
  /** Words of such calls a snapshot keeps in command lines (regular expression sources). */
  readonly shutdownWords: readonly string[];
  /** The other ways out, as comments. */
  readonly alternatives: readonly Step[];
  /** Relieve the Job's hung pods now. */
  relief(pods: string[], ns: string, job: string): Step[];
  /**
   * Relieve hung pods that no Job owns (a Workflow's, a TaskRun's, a bare pod's): their owner, which meshdoctor
   * does not read, decides what a deleted pod means; default: delete them, saying so.
   */
  releasePods(pods: string[], ns: string, owner: string, proxy: string): Step[];
  /** The control plane stops the proxy itself once the app exits (Kuma's Job syncer): why, for the template warning to stay silent. */
  readonly controlPlaneStops?: string;
}

/** The object holding an injector's own configuration, named by a denial that says the injector could not read or render it. */
export interface InjectorOwnConfig {
  /** The ConfigMap, in the injector's namespace. */
  readonly configMap: string;
  /** Its data key the injector read (Istio: the template in `config`; Linkerd: the file under its mount). */
  readonly key: string;
  /** What the injector does with it, for the message: `renders its injection template from`. */
  readonly does: string;
  /**
   * The object's kind where it is no ConfigMap (`configMap` then names it, in the injector's namespace, and `key`
   * its field): a resource of the mesh that this run does not read (Kuma's ContainerPatch).
   */
  readonly kind?: string;
  /** For such an object, what the field must hold and why it failed, in words. */
  readonly means?: string;
}

/** Repairs of the install: re-rendering it, its injector's memory, its webhook certificate. */
interface Install {
  /**
   * A denial reason whose structure says the injector failed on its OWN configuration (its template
   * rendered YAML it cannot parse, its values file does not parse), per the mesh's source: the
   * object holding it. Undefined when the reason is about the pod, or the mesh reads no
   * configuration per request. `service`: the webhook's Service name (names the revision).
   */
  ownConfig?(reason: string, service: string | undefined): InjectorOwnConfig | undefined;
  /** How to re-render the control plane as it was installed (alternatives); `m` to read the install (Helm release and chart version). */
  reinstall(ns: string, injector: string, m?: MeshContext): Step[];
  /** The durable way to raise the injector's memory limit. */
  memoryFix(ns: string, injector: string, limit: string, m?: MeshContext): Step[];
  /** How the webhook's caBundle and serving certificate are renewed (after cert-manager's, if any). */
  certFix(ns: string, injector: string, certManager: boolean, m?: MeshContext): Step[];
  /** Why an empty caBundle happens for this mesh, when the mesh fills it itself. */
  readonly emptyCaBundle?: string;
  /**
   * The Deployment that fills the caBundle of the webhook served by `<ns>/<injector>`, where it is not the injector and
   * the install shows it (Consul's webhook-cert-manager): a finding on an empty caBundle follows its pods.
   */
  caBundleFiller?(m: MeshContext, ns: string, injector: string): { namespace: string; name: string } | undefined;
  /** What a restart of the injector does to the caBundle (appended to the restart command). */
  readonly restartReloads: string;
}

/** Revisions of the control plane that webhooks select by a label (Istio's istio.io/rev and its tags). */
interface Revisions {
  /** The label naming a revision, on namespaces and pods. */
  readonly label: string;
  /** The revisions the installed webhook configurations serve ('default' for the unrevisioned one). */
  served(webhookConfigs: K8sObject[]): string[];
  /**
   * A revision label value (namespace or pod template) that no installed webhook serves: the
   * revisions and tags that are installed (evidence) and one fix per choice: relabel to each of
   * them with `relabel(value)`, or install (restore) the missing one.
   */
  unserved(
    m: MeshContext,
    requested: string,
    relabel: (value: string) => Step[],
  ): { evidence: Record<string, unknown>; fix: Step[] };
}

/** A version read from the cluster, and where from (evidence). */
export interface VersionRead {
  version: string;
  from: string;
}

/** A pod template annotation that overrides the proxy image (or its tag) the injector injects, with its source. */
export interface ProxyPin {
  readonly key: string;
  /** What its value replaces: the whole image reference, its name (the tag stays the injector's), or its tag. */
  readonly sets: 'image' | 'name' | 'version';
  readonly source: string;
}

/** One row of a mesh's own support table: the Kubernetes minor versions a release supports. */
export interface KubernetesSupport {
  /** The release, as `release()` names it ("2.19", "1.28"). */
  readonly release: string;
  /** Lowest and highest supported Kubernetes minor version ("1.29"). */
  readonly min: string;
  readonly max: string;
  /** The support table's page or file (and commit) that says so. */
  readonly source: string;
}

/**
 * The mesh's versions: its control plane's and its proxies', how they order, which Kubernetes
 * versions each release supports (its own support table, newest first: extend it as releases
 * come), and how far a data plane may trail its control plane.
 */
interface Versions {
  readonly kubernetes: readonly KubernetesSupport[];
  /** The release (a row of `kubernetes`) a version belongs to; undefined when the table cannot place it (not examined). */
  release(version: string): string | undefined;
  /** Order of two versions (<0, 0, >0); undefined when they cannot be ordered (different release channels). */
  compare(a: string, b: string): number | undefined;
  /** The version an injector Deployment of this mesh runs (its control plane's). */
  controlPlane(m: MeshContext, injector: K8sObject): VersionRead | undefined;
  /** The proxy version that injector injects into a pod created now; undefined when it cannot be read. */
  injects(m: MeshContext, injector: K8sObject): VersionRead | undefined;
  /** The proxy version a pod runs (its proxy container's image tag, or the mesh's annotation). */
  proxy(pod: K8sObject): VersionRead | undefined;
  /**
   * How many releases a data plane may trail its control plane (`releases`), and lead it (`ahead`;
   * undefined: not judged), in the mesh's own words.
   */
  readonly skew?: ProxySkew;
  /**
   * The pod template annotations that override the proxy image or its version the injector would
   * inject (Istio's sidecar.istio.io/proxyImage, Linkerd's config.linkerd.io/proxy-version): a pod
   * with one runs the proxy it names whatever the control plane's release, and a restart keeps it.
   */
  readonly pins?: readonly ProxyPin[];
  /** Its releases as data (src/mesh/<mesh>/releases.ts), read through releaseFacts (src/mesh/releases.ts). */
  readonly releases?: ReleaseTable;
  /**
   * The keys of its domain the installed injection templates read (Istio's ConfigMap templates), with
   * the objects read; undefined where no template was read (issue 31.6: the tables trail the code).
   */
  templateKeys?(m: MeshContext): { keys: ReadonlySet<string>; from: string } | undefined;
  /**
   * Servers the control plane depends on, run apart from it (Consul's): the version they run, read
   * from the cluster, and the server releases the control plane's release is compatible with, per
   * the mesh's own compatibility table; undefined where either is not read or not in the table.
   */
  servers?(
    m: MeshContext,
    controlPlane: string,
  ): { object: ResourceRef; version: string; supported: readonly string[]; source: string } | undefined;
}

/** The mesh's identity certificates, when it keeps them where meshdoctor can read them. */
interface Identity {
  /** The component that signs the proxies' certificates with the issuer. */
  readonly issuer: string;
  sources(m: MeshContext): IdentityCerts[];
  /** The documented rotation for one source; anyValidAnchor: some trust anchor is still valid. */
  fix(src: IdentityCerts, anyValidAnchor: boolean): Step[];
}

/**
 * A mesh: everything one mesh means to meshdoctor, grouped by capability. Data first; functions
 * take the small context a profile may ask (src/mesh/context.ts), never the whole Model.
 */
export interface MeshProfile {
  readonly name: MeshName;
  /** "Linkerd". */
  readonly title: string;
  readonly containers: Containers;
  readonly controlPlane: ControlPlane;
  readonly markers: Markers;
  readonly injector: Injector;
  readonly proxy: Proxy;
  readonly jobs: Jobs;
  readonly install: Install;
  /** Its revisions, when its webhooks select them by label. */
  readonly revisions?: Revisions;
  /** Its sidecar-less data plane, when it has one. */
  readonly sidecarless?: SidecarlessMode;
  /** Its CNI plugin, when it has one. */
  readonly cni?: CniPlugin;
  /** Its identity certificates, when it keeps them where meshdoctor can read them. */
  readonly identity?: Identity;
  /** The injected containers as admission judges them and as they run. */
  readonly runtime: Runtime;
  /** Its versions and the Kubernetes versions it supports (issue 25). */
  readonly versions?: Versions;
  /** The control-plane endpoints its injected containers dial (issue 31). */
  readonly network?: ProxyNetwork;
  /** Its control-plane components, their workloads and what breaks without them (issue 31, gen10cp). */
  readonly components?: readonly ControlPlaneComponent[];
  /** Its markers and settings that name an object that must exist (src/mesh/references.ts). */
  readonly references?: References;
  /** The address ranges the mesh is configured with (issue 31, gen10net): src/mesh/<mesh>/network.ts; behaviour, not data. */
  readonly ranges?: ProxyRanges;
}

/** How many releases a data plane may trail its control plane and lead it, in the mesh's own words (`versions.skew`). */
export interface ProxySkew {
  readonly releases: number;
  /** Undefined: a data plane ahead is not judged. */
  readonly ahead?: number;
  readonly text: string;
  readonly source: string;
}
