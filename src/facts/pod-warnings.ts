/**
 * The Warning events about a mesh pod, read whole (issue 31, round 9): about the pod and its owners (ReplicaSet and its
 * Deployment, Job and its CronJob, StatefulSet, DaemonSet), from any component, kept by the snapshot in the shapes of
 * src/k8s/warnings.ts: the kubelet's volume warnings (a volume of the mesh's it cannot mount holds the pod before any
 * container starts: istio/istio#22463, #43824) and the meshes' own controllers' warnings (their profiles'
 * `injector.warnings`: Kuma's pod controller that cannot create the pod's Dataplane, kumahq/kuma#1216). A check that
 * sees a mesh container unhappy for a reason it does not know quotes them, with what a mesh's own warning means.
 */
import { nameOf, nsOf, str, time, isObj } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import type { Model } from './model.js';
import {
  ownersOf,
  TOKEN_REQUEST_UNSERVED,
  VOLUME_WARNINGS,
  volumesNamed,
  warningsAbout,
  warningText,
  type WarningSeen,
} from '../k8s/warnings.js';
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import { unschedulableMessage } from '../k8s/scheduling.js';
import { printable } from '../util/errors.js';
import { networkFailure } from '../k8s/network-error.js';
import type { MeshName } from '../mesh/names.js';
import { meshTitle, profileOf, PROFILE_LIST } from '../mesh/registry.js';

export { WARNING_EVENTS } from '../k8s/warnings.js';

/** Every mesh's own warning reasons. */
const MESH_REASONS = new Set(PROFILE_LIST.flatMap((p) => (p.injector.warnings ?? []).map((w) => w.reason)));

/** The Warning events about the pod and its owners, newest first (bounded); pod-creation failures are other checks'. */
function podWarnings(m: Model, pod: K8sObject): WarningSeen[] {
  const ns = nsOf(pod);
  return [
    ...warningsAbout(m, 'Pod', ns, nameOf(pod)),
    ...ownersOf(m, pod).flatMap((o) => warningsAbout(m, o.kind, ns, o.name)),
  ]
    .filter((w) => w.reason !== 'FailedCreate')
    .slice(0, 20);
}

/** The volumes one container of the pod mounts (undefined: any of its containers). */
function mountsOf(pod: K8sObject, container: string | undefined): Set<string> {
  const spec = podSpec(pod);
  const cs = [...initContainers(spec), ...containers(spec)]
    .filter((x) => container === undefined || str(x.name) === container)
    .slice(0, 32);
  const mounts = cs.flatMap((c) => (Array.isArray(c.volumeMounts) ? c.volumeMounts.slice(0, 64) : []));
  return new Set(mounts.flatMap((v: unknown) => (isObj(v) && str(v.name) ? [v.name as string] : [])));
}

/**
 * What holds a mesh container (undefined: any container of a control-plane pod) that has not started
 * (ContainerCreating, PodInitializing), `minMs` after the pod was created: the kubelet's volume warnings naming a volume it mounts, and a mesh's own warnings about the pod. Empty when
 * the events say nothing of the kind (a pod that is just starting, an app volume's failure: not the mesh's).
 */
export function heldBy(m: Model, pod: K8sObject, container: string | undefined, minMs: number): WarningSeen[] {
  const created = time(pod.metadata?.creationTimestamp);
  if (!created || m.now.getTime() - created.getTime() < minMs || pod.metadata?.deletionTimestamp) return [];
  // A container of the pod that ran: its volumes were mounted, so no volume holds the pod now.
  const st = isObj(pod.status) ? pod.status : {};
  const statuses = [
    ...(Array.isArray(st.initContainerStatuses) ? st.initContainerStatuses : []),
    ...(Array.isArray(st.containerStatuses) ? st.containerStatuses : []),
  ].slice(0, 128);
  const ran = statuses.some(
    (cs) => isObj(cs) && isObj(cs.state) && (isObj(cs.state.running) || isObj(cs.state.terminated)),
  );
  const mounts = mountsOf(pod, container);
  // A warning last seen more than `minMs` ago may be over (the kubelet repeats a failing mount every few minutes).
  const recent = (w: WarningSeen) => {
    const last = time(w.last);
    return !last || m.now.getTime() - last.getTime() <= minMs;
  };
  return podWarnings(m, pod)
    .filter(
      (w) =>
        (recent(w) && w.on.startsWith('Pod/') && MESH_REASONS.has(w.reason)) ||
        // A volume it mounts that the kubelet could not mount, while no container of the pod has run: still unmounted,
        // however long ago the event was last updated (a snapshot's events may be older than the pod's state).
        (!ran && VOLUME_WARNINGS.includes(w.reason) && volumesNamed(w.message).some((v) => mounts.has(v))),
    )
    .slice(0, 3);
}

/**
 * A mesh's own warnings recorded on a control-plane object that serves every meshed pod (Linkerd's identity issuer),
 * in the control-plane namespaces the model sees (evidence from another namespace: Model.seesNamespace).
 */
function controlPlaneWarnings(m: Model, mesh: MeshName): WarningSeen[] {
  const p = profileOf(mesh);
  const namespaces = m.mesh(mesh)?.namespaces ?? [p.controlPlane.namespace];
  return (p.injector.warnings ?? []).flatMap((o) =>
    o.on
      ? namespaces
          .filter((ns) => m.seesNamespace(ns))
          .flatMap((ns) => warningsAbout(m, o.on!.kind, ns, o.on!.name).filter((w) => w.reason === o.reason))
      : [],
  );
}

/**
 * The Warning events a finding about an unhappy mesh container quotes: the mesh's own warnings about the pod (with what
 * they mean) and the kubelet's volume warnings (with the volume and the object they name); `given` when already chosen.
 */
export function warningsClause(m: Model, pod: K8sObject, mesh: MeshName, given?: readonly WarningSeen[]) {
  const own = profileOf(mesh).injector.warnings ?? [];
  const list = (
    given ?? [
      // A container that ran had its volumes mounted: only the mesh's own warnings about the pod, not the kubelet's
      // volume warnings (held pods are given theirs by heldBy).
      ...podWarnings(m, pod).filter((w) => w.on.startsWith('Pod/') && own.some((o) => !o.on && o.reason === w.reason)),
      ...controlPlaneWarnings(m, mesh),
    ]
  ).slice(0, 3);
  const meant: string[] = [];
  const vols = new Set<string>();
  const missing = new Set<string>();
  for (const w of list) {
    const o = own.find((x) => x.reason === w.reason);
    if (o) meant.push(`${meshTitle(mesh)}'s ${o.component} says ${o.means}`);
    else if (VOLUME_WARNINGS.includes(w.reason)) {
      for (const v of volumesNamed(w.message)) vols.add(v);
      const gone = /\b(configmap|secret) "([^"]{1,253})" not found/i.exec(w.message);
      if (gone) missing.add(`${gone[1]!.toLowerCase() === 'secret' ? 'Secret' : 'ConfigMap'} ${gone[2]}`);
    }
  }
  // The kubelet cannot get a projected ServiceAccount token: the API server does not serve TokenRequest.
  const unserved = list.find((w) => VOLUME_WARNINGS.includes(w.reason) && TOKEN_REQUEST_UNSERVED.test(w.message));
  if (unserved)
    meant.push(
      `the API server does not serve the TokenRequest API the kubelet needs for the projected ServiceAccount token volume ${volumesNamed(unserved.message).slice(0, 1).join('') || 'of the pod'}: Kubernetes serves it by default from 1.20, before only with --service-account-issuer and --service-account-signing-key-file, so a mesh release that mounts such a token (a third-party JWT) needs that, or its first-party token setting`,
    );
  if (vols.size)
    meant.push(
      `the kubelet cannot mount its volume ${[...vols].sort().slice(0, 3).join(', ')}${
        missing.size
          ? ` (the ${[...missing].sort().join(' and the ')} was not found in namespace ${nsOf(pod)}, as the kubelet says)`
          : ''
      }`,
    );
  const uniq = [...new Set(meant)];
  return {
    meant: uniq.length ? uniq.join('; ') : undefined,
    text: list.length ? `; the events about the pod say: ${list.map(warningText).join('; ')}` : '',
    warnings: list.map((w) => ({
      reason: w.reason,
      message: w.message,
      ...(w.component ? { component: w.component } : {}),
      on: w.on,
      count: w.count,
    })),
  };
}

/** A pod not yet scheduled waits this long before the scheduler's or the kubelet's words are quoted as why. */
const HELD_MS = 5 * 60_000;

/**
 * Why a control-plane pod does not run, as the cluster says it (issue 31, rounds 10 and 11): `kind` says which reading
 * (for fixes), `text` is a clause beginning "; ", `warnings` the events quoted.
 */
export interface NotRunning {
  kind: 'unscheduled' | 'image' | 'config' | 'crash' | 'held' | 'not-created';
  text: string;
  /** The container it is about (image, config, crash). */
  container?: string;
  /** The scheduler's, the kubelet's or the controller's own words, bounded. */
  said?: string;
  warnings: ReturnType<typeof warningsClause>['warnings'];
}

/** Waiting reasons of a container the kubelet cannot pull, create or keep running (kubernetes pkg/kubelet/images/types.go, kuberuntime). */
const IMAGE_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
const CONFIG_REASONS = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/**
 * A container of the pod that cannot run, in the kubelet's words: an image it cannot pull or parse (its waiting message,
 * and its latest "Failed to pull image" event about the pod), a container it cannot create (its message), or a crash
 * loop (the last exit code and reason, and the termination message the control plane's own container wrote).
 */
function containerTrouble(m: Model, pod: K8sObject): NotRunning | undefined {
  const st = isObj(pod.status) ? pod.status : {};
  const list = [
    ...(Array.isArray(st.initContainerStatuses) ? st.initContainerStatuses : []),
    ...(Array.isArray(st.containerStatuses) ? st.containerStatuses : []),
  ].slice(0, 32);
  for (const cs of list) {
    if (!isObj(cs) || !isObj(cs.state) || !isObj(cs.state.waiting)) continue;
    const reason = str(cs.state.waiting.reason) ?? '';
    const name = str(cs.name) ?? 'a container';
    const raw = cs.state.waiting.message;
    const message = typeof raw === 'string' ? printable(raw, 400) : '';
    if (IMAGE_REASONS.has(reason) || CONFIG_REASONS.has(reason)) {
      const pulled = IMAGE_REASONS.has(reason)
        ? warningsAbout(m, 'Pod', nsOf(pod), nameOf(pod)).find(
            (w) => w.reason === 'Failed' && w.message.startsWith('Failed to pull image') && w.message !== message,
          )
        : undefined;
      const said = [message, pulled?.message].filter(Boolean).join('; ');
      if (!said) return undefined; // the reason alone is already in the pod's state: nothing more to say
      return {
        kind: IMAGE_REASONS.has(reason) ? 'image' : 'config',
        container: name,
        ...(said ? { said } : {}),
        text: `; its container ${name} waits in ${reason}${message ? `, the kubelet says: "${message}"` : ''}${pulled ? `; ${warningText(pulled)}` : ''}`,
        warnings: pulled
          ? [{ reason: pulled.reason, message: pulled.message, on: pulled.on, count: pulled.count }]
          : [],
      };
    }
    if (reason === 'CrashLoopBackOff') {
      const t = isObj(cs.lastState) && isObj(cs.lastState.terminated) ? cs.lastState.terminated : undefined;
      const code = typeof t?.exitCode === 'number' ? t.exitCode : undefined;
      const why = str(t?.reason);
      // Its termination message is the tail of the component's log (FallbackToLogsOnError): free text a snapshot does
      // not keep, so it is not quoted live either (the same finding from both); only the transport error it names,
      // which snapshots keep (src/k8s/network-error.ts). The exit code and reason are the kubelet's.
      const said = networkFailure(t?.message);
      return {
        kind: 'crash',
        container: name,
        ...(said ? { said } : {}),
        text: `; its container ${name} keeps exiting${code !== undefined ? ` with code ${code}` : ''}${why ? ` (${why})` : ''}${
          said ? `, its termination message names "${said}"` : ': its previous log says why'
        }`,
        warnings: [],
      };
    }
  }
  return undefined;
}

/**
 * Why a control-plane pod does not run, where the cluster says it (issue 31, rounds 10 and 11), for any component of a
 * mesh: the scheduler's message of a pod it has not placed five minutes after its creation (a taint, a node selector,
 * resources, an unbound volume claim), a container the kubelet cannot pull, create or keep running (its own words),
 * or the kubelet's volume warnings of a pod none of whose containers has run (a Secret another component writes, a
 * projected token the API server does not issue: istio/istio#22249), with what they mean. Undefined when the cluster
 * says nothing of the kind.
 */
export function whyNotRunning(m: Model, mesh: MeshName, pod: K8sObject | undefined): NotRunning | undefined {
  if (!pod) return undefined;
  const unscheduled = unschedulableMessage(pod);
  if (unscheduled !== undefined) {
    const created = time(pod.metadata?.creationTimestamp);
    if (!created || m.now.getTime() - created.getTime() < HELD_MS) return undefined;
    const said = printable(unscheduled, 300);
    return { kind: 'unscheduled', said, text: `; not scheduled, the scheduler says: ${said}`, warnings: [] };
  }
  const trouble = containerTrouble(m, pod);
  if (trouble) return trouble;
  const held = heldBy(m, pod, undefined, HELD_MS);
  if (!held.length) return undefined;
  const c = warningsClause(m, pod, mesh, held);
  return { kind: 'held', text: `${c.meant ? `; ${c.meant}` : ''}${c.text}`, warnings: c.warnings };
}

/**
 * Why a control-plane workload has no pod at all: the latest FailedCreate its controller recorded on it (a StatefulSet,
 * a DaemonSet) or on a ReplicaSet of it (a Deployment): a quota, Pod Security, a priority class kept to other
 * namespaces, a missing ServiceAccount, a webhook refusing it. Undefined when none was read.
 */
export function whyNoPods(m: Model, kind: string, ns: string, name: string): NotRunning | undefined {
  const owners =
    kind === 'Deployment'
      ? m
          .inNamespace('replicasets', ns)
          .slice(0, 500)
          .filter((rs) =>
            (Array.isArray(rs.metadata?.ownerReferences) ? rs.metadata!.ownerReferences : []).some(
              (r: unknown) => isObj(r) && r.kind === 'Deployment' && r.name === name,
            ),
          )
          .map((rs) => ({ kind: 'ReplicaSet', name: nameOf(rs) }))
      : [];
  const seen = [{ kind, name }, ...owners]
    .flatMap((o) => warningsAbout(m, o.kind, ns, o.name).filter((w) => w.reason === 'FailedCreate'))
    .sort((a, b) => (b.last ?? '').localeCompare(a.last ?? ''));
  const w = seen[0];
  if (!w) return undefined;
  return {
    kind: 'not-created',
    said: w.message,
    text: `; its controller cannot create its pods: ${warningText(w)}`,
    warnings: [
      {
        reason: w.reason,
        message: w.message,
        ...(w.component ? { component: w.component } : {}),
        on: w.on,
        count: w.count,
      },
    ],
  };
}
