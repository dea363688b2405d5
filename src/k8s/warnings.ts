/**
 * Warning events, read whole (issue 31, round 9: evidence read whole): every Event of type Warning, from any component
 * (the kubelet, a controller, a mesh's own controller), indexed by the object it is about, so that a check that sees a
 * pod visibly unhappy quotes what the cluster said about it, its owners and the objects tied to it.
 *
 * What a snapshot keeps of them (src/cluster/sanitize.ts, docs/snapshot.md): the kubelet's volume warnings below
 * (their messages are formed by Kubernetes from volume and object names and the mount's error), the meshes' own warning
 * reasons (their profiles' `injector.warnings`), and the other shapes the checks read (src/k8s/events.ts).
 */
import { defineFact } from './fact.js';
import type { SnapshotView } from './snapshot.js';
import type { K8sObject } from '../util/types.js';
import { isObj, str } from '../util/objects.js';
import { eventInfo } from './events.js';
import { printable } from '../util/errors.js';

/**
 * The kubelet's volume warnings (kubernetes pkg/kubelet/events/event.go, v1.20 to v1.34: FailedAttachVolume,
 * FailedMountVolume = "FailedMount", FailedMapVolume), recorded on the pod by the volume manager
 * (pkg/kubelet/volumemanager/reconciler, pkg/kubelet/kubelet.go "Unable to attach or mount volumes: unmounted
 * volumes=[...]"; before 1.17 "Unable to mount volumes for pod ...: list of unmounted volumes=[...]"). A pod whose
 * volume cannot be mounted never starts any container: they all wait in ContainerCreating or PodInitializing.
 */
export const VOLUME_WARNINGS: readonly string[] = ['FailedMount', 'FailedAttachVolume', 'FailedMapVolume'];

/**
 * A volume warning of the kubelet that could not get the token of a projected serviceAccountToken volume because the API
 * server answered its TokenRequest (serviceaccounts/<name>/token) with 404: the API is not served. TokenRequest and
 * projected ServiceAccount token volumes are on by default from Kubernetes 1.20; before, the API server serves them only
 * with --service-account-issuer and --service-account-signing-key-file (kubernetes/enhancements
 * keps/sig-auth/1205-bound-service-account-tokens). A mesh that injects or mounts such a token (Istio's third-party JWT,
 * istio/istio 1.5.0 manifests/global.yaml jwtPolicy third-party-jwt, volume istio-token) then never starts the pod
 * (istio/istio#22249: "failed to fetch token: the server could not find the requested resource" on Kubernetes 1.12;
 * older kubelets say "the API server does not have TokenRequest endpoints enabled").
 */
export const TOKEN_REQUEST_UNSERVED =
  /failed to fetch token: (?:the server could not find the requested resource|the API server does not have TokenRequest endpoints enabled)/i;

/** One Warning event, as a check quotes it. */
export interface WarningSeen {
  reason: string;
  /** Bounded, printable. */
  message: string;
  /** The component that recorded it (source.component, else reportingComponent), when kept. */
  component?: string;
  /** The object it is about ("Pod/web-1"). */
  on: string;
  count: number;
  last?: string;
}

/** Every Warning event by the object it is about ("Kind/namespace/name"), newest first within each. */
export const WARNING_EVENTS = defineFact({
  id: 'warning-events',
  inputs: ['events'],
  compute: (m: SnapshotView): Map<string, WarningSeen[]> => {
    const out = new Map<string, WarningSeen[]>();
    if (!m.has('events')) return out;
    for (const e of m.list('events')) {
      if (e.type !== 'Warning') continue;
      const ev = eventInfo(e);
      if (!ev.kind || !ev.name || !ev.reason) continue;
      const message = printable(ev.message, 600);
      // A message the snapshot did not keep says nothing.
      if (!message || message === '(redacted)') continue;
      const src = isObj(e.source) ? str(e.source.component) : undefined;
      const component = src ?? str(e.reportingComponent);
      const key = `${ev.kind}/${ev.namespace}/${ev.name}`;
      const list = out.get(key) ?? [];
      if (list.length >= 50) continue; // bounded per object
      list.push({
        reason: ev.reason,
        message,
        ...(component ? { component: printable(component, 100) } : {}),
        on: `${ev.kind}/${ev.name}`,
        count: ev.count,
        ...(ev.lastTimestamp ? { last: ev.lastTimestamp } : {}),
      });
      out.set(key, list);
    }
    for (const list of out.values())
      list.sort((a, b) => (b.last ?? '').localeCompare(a.last ?? '') || a.message.localeCompare(b.message));
    return out;
  },
});

/** The Warning events about one object (newest first; none when events were not read). */
export function warningsAbout(m: SnapshotView, kind: string, ns: string, name: string): readonly WarningSeen[] {
  return m.fact(WARNING_EVENTS).get(`${kind}/${ns}/${name}`) ?? [];
}

/**
 * The volumes a kubelet volume warning names: `for volume "x"` (MountVolume.SetUp, MapVolume, AttachVolume) and the
 * list of `unmounted volumes=[a b]`.
 */
export function volumesNamed(message: string): string[] {
  const out = new Set<string>();
  for (const mm of message.matchAll(/ for volume "([^"]{1,253})"/g)) out.add(mm[1]!);
  const list = /unmounted volumes=\[([^\]]{0,2000})\]/.exec(message)?.[1];
  if (list) for (const v of list.split(/[\s,]+/).slice(0, 64)) if (v) out.add(v);
  return [...out];
}

/** The pod's owners a Warning may be about: its controller, and a ReplicaSet's or Job's own controller. */
export function ownersOf(m: SnapshotView, pod: K8sObject): { kind: string; name: string }[] {
  const ns = str(pod.metadata?.namespace) ?? '';
  const out: { kind: string; name: string }[] = [];
  const ctl = (o: K8sObject | undefined) => {
    const refs = Array.isArray(o?.metadata?.ownerReferences) ? o!.metadata!.ownerReferences.filter(isObj) : [];
    return refs.find((r: any) => r.controller === true) ?? refs[0];
  };
  const first = ctl(pod);
  if (!first || !str(first.kind) || !str(first.name)) return out;
  out.push({ kind: first.kind, name: first.name });
  const key = first.kind === 'ReplicaSet' ? 'replicasets' : first.kind === 'Job' ? 'jobs' : undefined;
  const up = key ? ctl(m.get(key, ns, first.name)) : undefined;
  if (up && str(up.kind) && str(up.name)) out.push({ kind: up.kind, name: up.name });
  return out;
}

/** A Warning event as a message quotes it: `FailedMount (kubelet, 62 times): "..."`. */
export function warningText(w: WarningSeen): string {
  const by = [w.component, w.count > 1 ? `${w.count} times` : undefined].filter(Boolean).join(', ');
  return `${w.reason}${by ? ` (${by})` : ''} on ${w.on}: "${w.message}"`;
}
