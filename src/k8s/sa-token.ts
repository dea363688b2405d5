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
  /** Where automounting is turned off. */
  setIn: 'pod';
  /** The container mounts nothing of its own at the token's directory. */
  ownMount: false;
}

/**
 * The pod turns the token's automount off and the container mounts nothing at its directory: the file the message
 * names is missing because of that. A pod that leaves the field unset is not judged here (its ServiceAccount decides).
 */
export function tokenUnmounted(podSpec: Record<string, unknown>, container: unknown): TokenUnmounted | undefined {
  if (podSpec.automountServiceAccountToken !== false) return undefined;
  const mounts = isObj(container) && Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
  const own = mounts.some(
    (v) => isObj(v) && typeof v.mountPath === 'string' && v.mountPath.replace(/\/+$/, '').startsWith(SA_TOKEN_DIR),
  );
  return own ? undefined : { setIn: 'pod', ownMount: false };
}
