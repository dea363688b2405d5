/**
 * What meshdoctor reads of the API server itself rather than of its objects: `GET /version` (issue
 * 25). Kept apart from the kinds (src/k8s/kinds.ts) because it is one document, not a list, and
 * because a snapshot records it beside the objects (Snapshot.server). Checks declare it like a kind
 * (CheckMeta.serverInputs), so that coverage can say when it was not examined.
 */
import { isObj } from '../util/objects.js';

/** The server documents meshdoctor may read, by name, and their paths. */
export const SERVER_PATHS = { version: '/version' } as const;
export type ServerInput = keyof typeof SERVER_PATHS;
export const SERVER_INPUTS = Object.keys(SERVER_PATHS) as ServerInput[];

/**
 * What `GET /version` answers (k8s.io/apimachinery pkg/version/types.go `Info`): the fields
 * meshdoctor keeps. Only `gitVersion` is compared; the rest is evidence.
 */
interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  platform?: string;
}

/** What was read of the API server itself, and why what was not could not be. */
export interface ServerInfo {
  version?: ServerVersion;
  /** Why a server document could not be read ("forbidden: ..."); absent: read, or not asked for. */
  unavailable?: Partial<Record<ServerInput, string>>;
}

/** A field of a version document: a short printable string (the server is untrusted). */
const field = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 128 && /^[\x21-\x7e]*$/.test(v) ? v : undefined);

/** The version document as meshdoctor keeps it, or undefined when it is not one (no gitVersion naming a version). */
export function serverVersionOf(json: unknown): ServerVersion | undefined {
  if (!isObj(json)) return undefined;
  const gitVersion = field(json.gitVersion);
  if (!gitVersion || !kubeVersion(gitVersion)) return undefined;
  const platform = field(json.platform);
  return { major: field(json.major) ?? '', minor: field(json.minor) ?? '', gitVersion, ...(platform ? { platform } : {}) };
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
export const compareMinor = (a: { major: number; minor: number }, b: { major: number; minor: number }): number => a.major - b.major || a.minor - b.minor;

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
