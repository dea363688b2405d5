/**
 * What meshdoctor reads of the API server itself, beside its objects (docs/snapshot.md "The API
 * server"): its version (GET /version, read once for every check that declares it: the version
 * checks and the admission plugin's defaults), its admission metrics (GET /metrics, the relevant
 * series only), and whether the kube-apiserver pods of kube-system were read. Checks declare them
 * like kinds (CheckMeta.serverInputs), so that coverage can say when one was not examined. Each is optional: absent
 * when it was not read (not asked for, an older snapshot, a kubectl dump), and when asked for it
 * was either read or refused/failed with the reason. Absent is never "empty".
 */
import { isObj } from '../util/objects.js';
import { metricsFromJson, type AdmissionMetrics } from './admission-metrics.js';

/** What the API server says of itself (GET /version; k8s.io/apimachinery version.Info). */
export interface ServerVersion {
  major: number;
  minor: number;
  /** As the server says it, e.g. v1.32.13 or v1.31.4-gke.1200. */
  gitVersion: string;
}

/** One read of the server: done (with what it gave), refused (401/403) or failed (anything else: 404, timeout, a bad body). */
export type Probe<T> = { state: 'read'; value: T } | { state: 'refused' | 'failed'; reason: string };

/** The reads of the server itself, by key. */
export interface ServerInfo {
  version?: Probe<ServerVersion>;
  metrics?: Probe<AdmissionMetrics>;
  /**
   * The kube-apiserver pods of kube-system (labelled component=kube-apiserver,tier=control-plane),
   * read into `objects.pods` by a labelled list when the pods of kube-system are not listed
   * anyway (-n): `read` says they were looked for, even when there are none.
   */
  apiserverPods?: Probe<true>;
}

export const SERVER_INPUTS = ['version', 'metrics', 'apiserverPods'] as const;
export type ServerInputKey = (typeof SERVER_INPUTS)[number];

/** How coverage names each read (README "Exit codes"). */
export const SERVER_INPUT_LABEL = {
  version: 'GET /version',
  metrics: 'GET /metrics',
  apiserverPods: 'kube-apiserver flags',
} as const satisfies Record<ServerInputKey, string>;
export type ServerInputLabel = (typeof SERVER_INPUT_LABEL)[ServerInputKey];

/** The non-resource URLs among those reads, which RBAC grants by URL (a ClusterRole's nonResourceURLs). */
export const SERVER_URL = { version: '/version', metrics: '/metrics' } as const satisfies Partial<
  Record<ServerInputKey, string>
>;

/** A version from major/minor strings as servers send them ("1", "31+" on GKE), or a gitVersion ("v1.32.13"). */
export function parseVersion(v: unknown): ServerVersion | undefined {
  if (!isObj(v)) return undefined;
  const git = typeof v.gitVersion === 'string' ? v.gitVersion.slice(0, 100) : '';
  const fromGit = /^v?(\d+)\.(\d+)/.exec(git);
  const major = Number.parseInt(String(v.major ?? fromGit?.[1] ?? ''), 10);
  const minor = Number.parseInt(String(v.minor ?? fromGit?.[2] ?? ''), 10);
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor) || major < 0 || minor < 0) return undefined;
  return { major, minor, gitVersion: /^[\w.+-]*$/.test(git) ? git : '' };
}

/** The version in an image tag (registry.k8s.io/kube-apiserver:v1.32.13), if it has one. */
export function imageVersion(image: unknown): ServerVersion | undefined {
  if (typeof image !== 'string' || image.includes('@')) return undefined;
  const tag = image.slice(image.lastIndexOf(':') + 1);
  return /^v\d+\.\d+/.test(tag) ? parseVersion({ gitVersion: tag }) : undefined;
}

/** a is at least major.minor. */
export const atLeast = (a: ServerVersion, major: number, minor: number): boolean =>
  a.major > major || (a.major === major && a.minor >= minor);

function probeFromJson<T>(v: unknown, value: (x: unknown) => T | undefined): Probe<T> | undefined {
  if (!isObj(v)) return undefined;
  if ((v.state === 'refused' || v.state === 'failed') && typeof v.reason === 'string')
    return { state: v.state, reason: v.reason.slice(0, 2000) };
  if (v.state !== 'read') return undefined;
  const x = value(v.value);
  return x === undefined ? undefined : { state: 'read', value: x };
}

/** The `server` section of a saved snapshot, checked as untrusted input: what is not well-formed is not read. */
export function serverFromJson(v: unknown): ServerInfo | undefined {
  if (!isObj(v)) return undefined;
  const version = probeFromJson(v.version, parseVersion);
  const metrics = probeFromJson(v.metrics, metricsFromJson);
  const apiserverPods = probeFromJson(v.apiserverPods, (x) => (x === true ? (true as const) : undefined));
  const out: ServerInfo = {
    ...(version ? { version } : {}),
    ...(metrics ? { metrics } : {}),
    ...(apiserverPods ? { apiserverPods } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}

/** A Kubernetes version, as the API server's gitVersion or a kubelet's version says it. */
export interface KubeVersion {
  major: number;
  minor: number;
  patch: number;
  /** As written ("v1.29.3-eks-4f4795d"). */
  text: string;
}

/**
 * `v1.29.3`, `v1.29.3-eks-4f4795d`, `v1.30.2+k3s1`, `1.28.0-gke.1`: the leading major.minor.patch
 * (providers append their own build after it). Undefined when the text names no version.
 */
export function kubeVersion(text: string | undefined): KubeVersion | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^v?(\d{1,4})\.(\d{1,4})(?:\.(\d{1,6}))?(?:[-+.][0-9A-Za-z.+-]*)?$/.exec(text);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0), text } : undefined;
}

/** Order of two Kubernetes versions by major.minor only (support tables and feature gates are per minor release). */
export const compareMinor = (a: { major: number; minor: number }, b: { major: number; minor: number }): number =>
  a.major - b.major || a.minor - b.minor;

/** "1.29" of a version. */
export const minorText = (v: { major: number; minor: number }): string => `${v.major}.${v.minor}`;

/**
 * Native sidecars (an init container with `restartPolicy: Always`, KEP-753): feature gate
 * SidecarContainers, alpha and off in 1.28, beta and on by default from 1.29, GA (locked on) in
 * 1.33 (kubernetes/kubernetes@20b2eef9 pkg/features/versioned_kube_features.go). Where it is off, the
 * API server drops the field and the init container never ends ("init containers are not
 * recognized as sidecars and block the Pod in initialization"), and a kubelet without it rejects
 * the pod or leaves it Pending (kubernetes/enhancements@015890a5
 * keps/sig-node/753-sidecar-containers/README.md, "Rollout, Upgrade and Rollback Planning").
 */
export const NATIVE_SIDECARS_ON = { major: 1, minor: 29 } as const;
