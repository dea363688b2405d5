/**
 * The API server's admission flags, where the cluster shows them: the kube-apiserver static pod's
 * mirror pod (kubeadm, kind, minikube) and k3s's node annotation. Which of them switch the
 * MutatingAdmissionWebhook plugin off, for the server's version.
 *
 * Sources:
 * - kubeadm builds the control-plane static pods with labels `component: <container name>` and
 *   `tier: control-plane`, in kube-system, all flags in the container's `command`
 *   (kubernetes/kubernetes@011c4adea04f2596f361c3170f0e227113442ce4
 *   cmd/kubeadm/app/util/staticpod/utils.go, ComponentPod); the kubelet mirrors it as
 *   kube-apiserver-<node> with the annotation kubernetes.io/config.mirror.
 * - Plugins on by default: MutatingAdmissionWebhook is in DefaultOffAdmissionPlugins' default-on
 *   set (kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282
 *   pkg/kubeapiserver/options/plugins.go), since the default-on set appeared in 1.10
 *   (kubernetes/kubernetes#58684; the admission-controllers page: "For Kubernetes version 1.10
 *   and later, the recommended admission controllers are enabled by default").
 * - --enable-admission-plugins only adds to the defaults; the enabled set is
 *   (default-off + disabled) - enabled; a plugin in both lists stops the server from starting
 *   (kubernetes/apiserver@9529108a5dff5a998bca0afd61510c9c0e34b2e3 (v0.33.0)
 *   pkg/server/options/admission.go, Validate and enabledPluginNames). Both are pflag string
 *   slices: a flag given twice adds to the list.
 * - The deprecated --admission-control lists every enabled plugin and cannot be combined with the
 *   two others (kubernetes/kubernetes@18b46af2bc28de9f6f15b9359c8789735bef1b7e
 *   pkg/kubeapiserver/options/admission.go, Validate and computePluginNames).
 * - --admission-control-config-file only configures plugins (AdmissionConfiguration has no
 *   switch, pkg/apis/apiserver/v1/types.go at v0.33.0): evidence, never a cause.
 * - k3s runs the API server in its own process and records its command line (config file
 *   included, `--x=y` split into two words, secrets replaced) as the node annotation
 *   k3s.io/node-args (k3s-io/k3s@0ba4732c1f0640031f33477fe4fe8419c83b150c
 *   pkg/nodeconfig/nodeconfig.go, getNodeArgs): API server flags are the values after
 *   `--kube-apiserver-arg`.
 */
import type { K8sObject } from '../util/types.js';
import { annotationsOf, arr, labelsOf, str } from '../util/objects.js';
import { containers, isActive, podSpec } from './pods.js';
import { atLeast, imageVersion, type ServerVersion } from './server.js';

export const APISERVER_NAMESPACE = 'kube-system';
/** kubeadm's labels of the API server's static pod (ComponentPod), as a label selector. */
export const APISERVER_SELECTOR = 'component=kube-apiserver,tier=control-plane';
export const MUTATING_PLUGIN = 'MutatingAdmissionWebhook';
export const K3S_NODE_ARGS = 'k3s.io/node-args';
const MIRROR = 'kubernetes.io/config.mirror';

/**
 * kube-apiserver's admission plugins by name (AllOrderedPlugins, kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282
 * pkg/kubeapiserver/options/plugins.go, plus PersistentVolumeLabel and SecurityContextDeny of older
 * versions): public names, the only words of a flag's separate value a snapshot keeps.
 */
const PLUGIN_NAMES = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'AlwaysPullImages',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PersistentVolumeLabel',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'PodSecurity',
  'PodSecurityPolicy',
  'ImagePolicyWebhook',
  'SecurityContextDeny',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
  'PodGroupProtection',
  'PodGroupWorkloadExists',
  'NodeDeclaredFeatureValidator',
  'JobValidation',
  'PodResizeValidator',
].join('|');

const ENABLE = 'enable-admission-plugins';
const DISABLE = 'disable-admission-plugins';
const CONTROL = 'admission-control';
const CONFIG = 'admission-control-config-file';

/**
 * The words of a command line snapshots keep so that the flags above can be read (docs/snapshot.md):
 * the flags with their values (plugin names, a file path), and the plugin's own name where a value
 * is a word of its own. Nothing else of any command line.
 */
export const ADMISSION_WORDS: readonly string[] = [
  `--(?:${ENABLE}|${DISABLE}|${CONTROL})(?:=[A-Za-z0-9,]*)?(?![\\w-])`,
  `--${CONFIG}(?:=[\\w./-]*)?`,
  // A flag's value as a word of its own (`--disable-admission-plugins X,Y`): a whole word made of
  // known plugin names only, so that nothing else of a command line is ever kept by this rule.
  `^(?:${PLUGIN_NAMES})(?:,(?:${PLUGIN_NAMES}))*$`,
  MUTATING_PLUGIN,
];

/** A kube-apiserver pod of the control plane: kube-system, kubeadm's labels. */
export function isApiserverPod(p: K8sObject): boolean {
  // The namespace first: asked of every pod.
  if (p.metadata?.namespace !== APISERVER_NAMESPACE) return false;
  const l = labelsOf(p);
  return l.component === 'kube-apiserver' && l.tier === 'control-plane';
}

/** The API server container of such a pod: the one named kube-apiserver, else the only one. */
function apiserverContainer(p: K8sObject): Record<string, any> | undefined {
  const cs = containers(podSpec(p));
  return cs.find((c) => c.name === 'kube-apiserver') ?? (cs.length === 1 ? cs[0] : undefined);
}

/** The admission flags of a command line; the values of a flag given twice add up (pflag string slices). */
interface AdmissionFlags {
  enable: string[];
  disable: string[];
  /** The deprecated --admission-control list (undefined: not given). */
  admissionControl?: string[];
  configFile?: string;
  /** The admission words as written, for evidence. */
  words: string[];
}

export function admissionFlags(argv: readonly string[]): AdmissionFlags {
  const out: AdmissionFlags = { enable: [], disable: [], words: [] };
  const list = (v: string) =>
    v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    const m = /^--?([a-z-]+)(?:=(.*))?$/s.exec(w);
    if (!m || ![ENABLE, DISABLE, CONTROL, CONFIG].includes(m[1]!)) continue;
    const flag = m[1]!;
    let value = m[2];
    if (value === undefined && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) value = argv[++i]!;
    value ??= '';
    out.words.push(`--${flag}=${value}`);
    if (flag === ENABLE) out.enable.push(...list(value));
    else if (flag === DISABLE) out.disable.push(...list(value));
    else if (flag === CONTROL) (out.admissionControl ??= []).push(...list(value));
    else out.configFile = value;
  }
  return out;
}

/** Whether MutatingAdmissionWebhook runs, from the flags and the version, and what decides it. */
export interface PluginState {
  on: boolean;
  /**
   * default: on by default (1.10 and later) and no flag turns it off; enabled: listed in
   * --enable-admission-plugins; disabled: listed in --disable-admission-plugins;
   * admission-control: the deprecated list names it or leaves it out; not-default: before 1.10
   * nothing is on by default; invalid: flags the server refuses to start with (no verdict).
   */
  by: 'default' | 'enabled' | 'disabled' | 'admission-control' | 'not-default' | 'invalid';
  /** The flag that decides, as written. */
  flag?: string;
}

export function mutatingPlugin(f: AdmissionFlags, version: ServerVersion | undefined): PluginState {
  const word = (name: string) => f.words.filter((w) => w.startsWith(`--${name}=`)).join(' ');
  if (f.admissionControl) {
    if (f.enable.length || f.disable.length || word(ENABLE) || word(DISABLE)) return { on: false, by: 'invalid' };
    return { on: f.admissionControl.includes(MUTATING_PLUGIN), by: 'admission-control', flag: word(CONTROL) };
  }
  const enabled = f.enable.includes(MUTATING_PLUGIN);
  const disabled = f.disable.includes(MUTATING_PLUGIN);
  if (enabled && disabled) return { on: false, by: 'invalid' };
  if (enabled) return { on: true, by: 'enabled', flag: word(ENABLE) };
  if (disabled) return { on: false, by: 'disabled', flag: word(DISABLE) };
  // Unknown version: every version a mesh supports has it on by default (1.10 and later).
  if (version && !atLeast(version, 1, 10)) return { on: false, by: 'not-default' };
  return { on: true, by: 'default' };
}

/**
 * Whether an admission plugin that is off by default (SecurityContextDeny, AlwaysPullImages, ...) runs: listed in
 * --enable-admission-plugins and not in --disable-admission-plugins, or listed in the deprecated --admission-control
 * (pkg/kubeapiserver/options/admission.go; flags the server refuses to start with: off, no verdict).
 */
export function optInPlugin(f: AdmissionFlags, name: string): { on: boolean; flag?: string } {
  const word = (flag: string) => f.words.filter((w) => w.startsWith(`--${flag}=`)).join(' ');
  if (f.admissionControl) {
    if (f.enable.length || f.disable.length) return { on: false };
    return f.admissionControl.includes(name) ? { on: true, flag: word(CONTROL) } : { on: false };
  }
  if (f.enable.includes(name) && !f.disable.includes(name)) return { on: true, flag: word(ENABLE) };
  return { on: false };
}

/** One API server whose flags the cluster shows. */
export interface ApiserverInstance {
  /** "Pod kube-system/kube-apiserver-cp1" or "Node cp1 (k3s)". */
  source: { kind: 'Pod' | 'Node'; namespace?: string; name: string };
  node?: string;
  /** A mirror pod of a static pod (kubernetes.io/config.mirror), not a pod someone created. */
  mirror?: boolean;
  flags: AdmissionFlags;
  /** The version its image tag says (kube-apiserver:v1.32.13). */
  imageVersion?: ServerVersion;
  /**
   * The proxy variables its container sets with a value (PROXY_ENV), by name; a snapshot keeps of
   * them only what src/cluster/sanitize.ts lets through (a proxy URL never: "(redacted)").
   */
  proxyEnv?: Record<string, string>;
}

/**
 * The variables Go's ProxyFromEnvironment reads (golang.org/x/net/http/httpproxy FromEnvironment:
 * upper case first, an empty value is unset). kube-apiserver dials a webhook Service through them:
 * its webhook client (k8s.io/apiserver pkg/util/webhook/client.go, HookClient, at
 * kubernetes/kubernetes@05c351a9 and still in the release with httpClientFor) sets no Proxy of its
 * own, so client-go's transport uses http.ProxyFromEnvironment for `https://<name>.<namespace>.svc:<port>`
 * (kubernetes/kubernetes#107501, which would have bypassed it, was closed unmerged).
 */
const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'] as const;

/** The proxy variables a container sets with a literal value, a proxy only when non-empty (valueFrom: not known, left out). */
function proxyEnvOf(c: Record<string, any>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const e of arr(c.env).slice(0, 500)) {
    const name = str((e as { name?: unknown } | undefined)?.name);
    const value = (e as { value?: unknown } | undefined)?.value;
    if (!name || !(PROXY_ENV as readonly string[]).includes(name) || typeof value !== 'string') continue;
    // An empty NO_PROXY is kept (a snapshot reduces it to its Service entries, possibly none); an empty proxy is unset.
    if (value !== '' || /^no_proxy$/i.test(name)) out[name] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The API servers an active kube-apiserver pod stands for. */
export function podInstance(p: K8sObject): ApiserverInstance | undefined {
  if (!isApiserverPod(p) || !isActive(p)) return undefined;
  const c = apiserverContainer(p);
  if (!c) return undefined;
  const argv = [...arr(c.command), ...arr(c.args)].map((w) => String(w));
  const v = imageVersion(c.image);
  const node = str(podSpec(p).nodeName);
  const proxyEnv = proxyEnvOf(c);
  return {
    source: { kind: 'Pod', namespace: APISERVER_NAMESPACE, name: str(p.metadata?.name) ?? '' },
    ...(node ? { node } : {}),
    mirror: annotationsOf(p)[MIRROR] !== undefined,
    flags: admissionFlags(argv),
    ...(v ? { imageVersion: v } : {}),
    ...(proxyEnv ? { proxyEnv } : {}),
  };
}

/** k3s's API server flags from a node's k3s.io/node-args: each value after --kube-apiserver-arg, as --flag=value. */
function k3sApiserverArgs(annotation: string): string[] | undefined {
  let args: unknown;
  try {
    args = JSON.parse(annotation);
  } catch {
    return undefined;
  }
  if (!Array.isArray(args)) return undefined;
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== '--kube-apiserver-arg' && a !== '--kube-apiserver-arg=') continue;
    const v = args[i + 1];
    if (typeof v === 'string') out.push(v.startsWith('-') ? v : `--${v}`);
    i++;
  }
  return out;
}

/** A k3s server node's API server (its node-args annotation names it "server"). */
export function k3sInstance(node: K8sObject): ApiserverInstance | undefined {
  const value = annotationsOf(node)[K3S_NODE_ARGS];
  if (value === undefined) return undefined;
  let first: unknown;
  try {
    first = (JSON.parse(value) as unknown[])[0];
  } catch {
    return undefined;
  }
  if (first !== 'server') return undefined; // an agent node runs no API server
  const args = k3sApiserverArgs(value);
  if (!args) return undefined;
  const name = str(node.metadata?.name) ?? '';
  return { source: { kind: 'Node', name }, node: name, flags: admissionFlags(args) };
}

/**
 * What a snapshot keeps of k3s.io/node-args (docs/snapshot.md): the role word and the API server
 * arguments that are admission flags, as the same JSON array; nothing else of the command line.
 */
export function slimK3sNodeArgs(value: string): string {
  let args: unknown;
  try {
    args = JSON.parse(value);
  } catch {
    return '[]';
  }
  if (!Array.isArray(args)) return '[]';
  const out: string[] = [];
  if (args[0] === 'server' || args[0] === 'agent') out.push(args[0]);
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--kube-apiserver-arg') continue;
    const v = args[i + 1];
    if (typeof v === 'string' && new RegExp(`^-{0,2}(${ENABLE}|${DISABLE}|${CONTROL})=[A-Za-z0-9,]*$`).test(v))
      out.push('--kube-apiserver-arg', v);
  }
  return JSON.stringify(out);
}

/** Every API server whose flags the cluster shows: its kube-apiserver pods, else k3s's server nodes. */
export function apiserverInstances(pods: readonly K8sObject[], nodes: readonly K8sObject[]): ApiserverInstance[] {
  // A loop (asked of every pod of the cluster, twice a run): no array per pod.
  const fromPods: ApiserverInstance[] = [];
  for (const p of pods) {
    const i = podInstance(p);
    if (i) fromPods.push(i);
  }
  if (fromPods.length) return fromPods.sort((a, b) => (a.source.name < b.source.name ? -1 : 1));
  return nodes.flatMap((n) => k3sInstance(n) ?? []).sort((a, b) => (a.source.name < b.source.name ? -1 : 1));
}
