/**
 * The pod's service account token, where a container expects it and why it is not there.
 *
 * A process in a pod finds its ServiceAccount's token in the file client-go reads for an in-cluster client,
 * `/var/run/secrets/kubernetes.io/serviceaccount/token` (kubernetes staging/src/k8s.io/client-go/rest/config.go,
 * `InClusterConfig`, v1.30.0). The ServiceAccount admission plugin mounts it into every container unless the pod's
 * `automountServiceAccountToken` is false, or the pod leaves it unset and its ServiceAccount sets it false
 * (kubernetes plugin/pkg/admission/serviceaccount/admission.go, `shouldAutomount`, v1.30.0). A mesh container that
 * reads that file to authenticate to its control plane (a data plane proxy, an init container logging in) then exits
 * with the error of a missing file naming that path: its own words, quoted by the checks, never the token.
 */
import { isObj } from '../util/objects.js';

/** The path of the token the ServiceAccount admission plugin mounts. */
export const SA_TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A line of a container's termination message that says it cannot read the mounted token (kept in snapshots). */
export const SA_TOKEN_LINE =
  /\/var\/run\/secrets\/kubernetes\.io\/serviceaccount\/token\b.*(?:no such file|not found|not exist|cannot|could not|failed|unable)|(?:no such file|not found|not exist|cannot|could not|failed|unable).*\/var\/run\/secrets\/kubernetes\.io\/serviceaccount\/token\b/i;

/** What a pod spec says about mounting its token, when the container's message says it is missing. */
interface TokenUnmounted {
  /** Where automounting is turned off: the pod, or its ServiceAccount (the pod leaves the field unset). */
  setIn: 'pod' | 'serviceaccount';
  /** The container mounts nothing of its own at the token's directory. */
  ownMount: false;
}

/** The container mounts something at the token's directory (a projected token put there by hand), or a volume of this name. */
export function mountsOwnToken(container: unknown, volume?: string): boolean {
  const mounts = isObj(container) && Array.isArray(container.volumeMounts) ? container.volumeMounts.slice(0, 64) : [];
  return mounts.some(
    (v) =>
      isObj(v) &&
      ((typeof v.mountPath === 'string' && v.mountPath.replace(/\/+$/, '').startsWith(SA_TOKEN_DIR)) ||
        (volume !== undefined && v.name === volume)),
  );
}

/**
 * The pod turns the token's automount off (or leaves it unset and its ServiceAccount, where given, turns it off) and
 * the container mounts nothing at its directory: the file is missing because of that. A pod that leaves the field
 * unset is judged only with its ServiceAccount (admission.go shouldAutomount: the pod's field wins).
 */
export function tokenUnmounted(
  podSpec: Record<string, unknown>,
  container: unknown,
  serviceAccount?: Record<string, unknown>,
): TokenUnmounted | undefined {
  const setIn =
    podSpec.automountServiceAccountToken === false
      ? 'pod'
      : podSpec.automountServiceAccountToken === undefined && serviceAccount?.automountServiceAccountToken === false
        ? 'serviceaccount'
        : undefined;
  if (!setIn || mountsOwnToken(container)) return undefined;
  return { setIn, ownMount: false };
}
