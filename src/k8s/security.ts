/**
 * What a pod grants one of its containers, as the kubelet applies it: the container's
 * securityContext over the pod's (kubernetes pkg/securitycontext/util.go DetermineEffectiveSecurityContext:
 * runAsUser and runAsNonRoot fall back to the pod's; capabilities, privileged and
 * allowPrivilegeEscalation are the container's own), and the kubelet's refusals to create a
 * container that breaks its own non-root policy (pkg/kubelet/kuberuntime/security_context_others.go
 * verifyRunAsNonRoot, the same three messages since Kubernetes 1.14).
 */
import { arr, isObj } from '../util/objects.js';

type From = 'container' | 'pod';

/** The securityContext fields a container runs with, and where each came from. */
interface EffectiveSecurity {
  runAsUser?: { value: number; from: From };
  runAsNonRoot?: { value: boolean; from: From };
  /** capabilities.add and .drop of the container (the pod has none). */
  add: string[];
  drop: string[];
  privileged?: boolean;
}

const names = (v: unknown) => arr(v).filter((x): x is string => typeof x === 'string');

export function effectiveSecurity(spec: Record<string, any>, container: Record<string, any>): EffectiveSecurity {
  const pod = isObj(spec.securityContext) ? spec.securityContext : {};
  const own = isObj(container.securityContext) ? container.securityContext : {};
  const pick = <T>(k: string, ok: (v: unknown) => v is T): { value: T; from: From } | undefined =>
    ok(own[k]) ? { value: own[k], from: 'container' } : ok(pod[k]) ? { value: pod[k], from: 'pod' } : undefined;
  const runAsUser = pick('runAsUser', (v): v is number => typeof v === 'number');
  const runAsNonRoot = pick('runAsNonRoot', (v): v is boolean => typeof v === 'boolean');
  const caps = isObj(own.capabilities) ? own.capabilities : {};
  return {
    ...(runAsUser ? { runAsUser } : {}),
    ...(runAsNonRoot ? { runAsNonRoot } : {}),
    add: names(caps.add),
    drop: names(caps.drop),
    ...(typeof own.privileged === 'boolean' ? { privileged: own.privileged } : {}),
  };
}

/**
 * Whether the container has a capability: privileged, or added and not dropped by name (the
 * runtime's default set is not assumed). The runtime drops `ALL` before it adds and a named
 * capability after it adds (containerd's CRI plugin, pkg/cri/server/container_create_linux.go;
 * CRI-O alike), so `add: [NET_RAW]` with `drop: [NET_RAW]` leaves the container without it
 * (linkerd/linkerd2#6254).
 */
export function grants(e: EffectiveSecurity, capability: string): boolean {
  if (e.privileged) return true;
  const up = (s: string) => s.toUpperCase().replace(/^CAP_/, '');
  if (e.drop.some((c) => up(c) === up(capability))) return false;
  return e.add.some((c) => up(c) === up(capability));
}

/** The kubelet refused to create the container for its non-root policy (the reason is CreateContainerConfigError). */
export type NonRootRefusal =
  { kind: 'runAsUser-root' } | { kind: 'image-root' } | { kind: 'image-non-numeric'; user: string };

export function nonRootRefusal(message: string): NonRootRefusal | undefined {
  const m = message.slice(0, 2048);
  if (m.includes("container's runAsUser breaks non-root policy")) return { kind: 'runAsUser-root' };
  if (m.includes('container has runAsNonRoot and image will run as root')) return { kind: 'image-root' };
  const n =
    /container has runAsNonRoot and image has non-numeric user \(([^()]{0,64})\), cannot verify user is non-root/.exec(
      m,
    );
  return n ? { kind: 'image-non-numeric', user: n[1]! } : undefined;
}
