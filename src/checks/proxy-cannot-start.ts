/**
 * proxy-cannot-start — the pods were injected, but a container the mesh added cannot run: its
 * init container or validation container keeps failing, its proxy crash-loops, or the node cannot
 * pull its image. Kubernetes shows `Init:CrashLoopBackOff`; this says why and what to change.
 *
 * Why: a pod whose mesh init container fails never starts its app (kubelet runs init containers
 * in order and restarts a failing one with back-off: kubernetes pkg/kubelet/kuberuntime; waiting
 * reason CrashLoopBackOff, image pull reasons ErrImagePull, ImagePullBackOff, ErrImageNeverPull,
 * InvalidImageName in pkg/kubelet/images/types.go). Each mesh says in its own way what went wrong,
 * and the profile's `runtime` holds it, with its source: an exit code the mesh defines (Linkerd's
 * network validator 95, Istio's validation 126), a line its init container writes to its
 * termination message (Linkerd's linkerd-init sets FallbackToLogsOnError: iptables legacy or nft
 * errors), or what the cluster lacks for it (`initNeeds`: Consul's init container waits for
 * exactly one Service selecting the pod and, with ACLs, a ServiceAccount named as the service and
 * not `default`; Istio's CNI agent skipping the namespace).
 * When: active pods of app workloads in scope whose status shows a container the mesh injects
 * waiting in CrashLoopBackOff, an init container terminated with a non-zero exit code (a pod that
 * does not restart it), or an image pull failure. Silent for a container that failed once and runs
 * now, and for the app's own containers. The kubelet's BackOff and pull-failure events about the
 * container are evidence where read.
 * Known false positives: none known; a cause read from the cluster (a Service, the CNI agent's
 * exclusions) is the one now, which may differ from when the pod started.
 * Fix: the mesh's fix for that failure, else the container's previous log; for an image: how the
 * mesh chooses its images.
 */
import { cmd, comment, type Step } from '../fix/steps.js';
import { eventInfo } from '../k8s/events.js';
import { isActive, podSpec, containers, initContainers } from '../k8s/pods.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { injectedNames } from '../mesh/proxy.js';
import { meshesAllowed } from '../facts/siblings.js';
import type { Model, Workload } from '../facts/model.js';
import type { MeshName } from '../mesh/names.js';
import type { StartContext, StartFailure } from '../mesh/profile.js';
import type { K8sObject } from '../util/types.js';
import { printable } from '../util/errors.js';
import { isObj, nameOf, plural, str } from '../util/objects.js';
import { defineCheck, meta } from './define.js';

const PULL = new Set(['ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName']);

interface Failing {
  pod: K8sObject;
  container: string;
  init: boolean;
  kind: 'image' | 'crash';
  /** The waiting reason, or "Error" for a terminated init container. */
  reason: string;
  exitCode?: number;
  restarts: number;
  image?: string;
  /** The termination message (only the lines a snapshot keeps are quoted). */
  message?: string;
}

/** The injected containers of this mesh that fail in a pod, in start order (init containers first). */
function failingIn(pod: K8sObject, names: readonly string[]): Failing[] {
  const st = isObj(pod.status) ? pod.status : {};
  const out: Failing[] = [];
  for (const [field, init] of [
    ['initContainerStatuses', true],
    ['containerStatuses', false],
  ] as const) {
    const list = Array.isArray(st[field]) ? st[field] : [];
    for (const cs of list.slice(0, 64)) {
      if (!isObj(cs) || !names.includes(str(cs.name) ?? '')) continue;
      const waiting = isObj(cs.state) && isObj(cs.state.waiting) ? cs.state.waiting : undefined;
      const termNow = isObj(cs.state) && isObj(cs.state.terminated) ? cs.state.terminated : undefined;
      const termLast = isObj(cs.lastState) && isObj(cs.lastState.terminated) ? cs.lastState.terminated : undefined;
      const reason = str(waiting?.reason);
      const term = termLast ?? termNow;
      const base = {
        pod,
        container: str(cs.name)!,
        init,
        restarts: typeof cs.restartCount === 'number' ? cs.restartCount : 0,
        ...(str(cs.image) ? { image: str(cs.image)! } : {}),
      };
      if (reason && PULL.has(reason)) out.push({ ...base, kind: 'image', reason });
      else if (
        reason === 'CrashLoopBackOff' ||
        (init && termNow && typeof termNow.exitCode === 'number' && termNow.exitCode !== 0)
      )
        out.push({
          ...base,
          kind: 'crash',
          reason: reason ?? str(termNow?.reason) ?? 'Error',
          ...(typeof term?.exitCode === 'number' ? { exitCode: term.exitCode } : {}),
          ...(typeof term?.message === 'string' ? { message: term.message } : {}),
        });
    }
  }
  return out;
}

/** The mesh's own reading of a crash: a line of its termination message, else its exit code, else the container's generic failure. */
function readFailure(
  failures: readonly StartFailure[],
  f: Failing,
): { failure: StartFailure; line?: string } | undefined {
  const mine = failures.filter((x) => x.container === f.container);
  const lines = (f.message ?? '').slice(-65536).split(/\r?\n/);
  for (const x of mine) {
    if (!x.line) continue;
    const line = lines.find((l) => x.line!.test(l));
    if (line) return { failure: x, line: line.slice(0, 512) };
  }
  const byCode = mine.find((x) => !x.line && x.exitCode !== undefined && x.exitCode === f.exitCode);
  if (byCode) return { failure: byCode };
  const generic = mine.find((x) => !x.line && x.exitCode === undefined);
  return generic ? { failure: generic } : undefined;
}

/** The kubelet's events about this container of these pods (BackOff, Failed to pull): count and the latest message. */
function containerEvents(m: Model, pods: readonly K8sObject[], container: string) {
  if (!m.has('events')) return undefined;
  const names = new Set(pods.map(nameOf));
  let count = 0;
  let last: { message: string; reason: string; at?: string } | undefined;
  for (const e of m.list('events')) {
    const ev = eventInfo(e);
    if (ev.kind !== 'Pod' || ev.container !== container || !names.has(ev.name)) continue;
    if (ev.reason !== 'BackOff' && ev.reason !== 'Failed') continue;
    count += ev.count;
    if (!last || (ev.lastTimestamp ?? '') > (last.at ?? ''))
      last = { message: ev.message, reason: ev.reason, ...(ev.lastTimestamp ? { at: ev.lastTimestamp } : {}) };
  }
  return last
    ? { count, reason: last.reason, message: printable(last.message, 300), lastTimestamp: last.at ?? null }
    : undefined;
}

function describe(m: Model, w: Workload, mesh: MeshName, group: Failing[]) {
  const p = profileOf(mesh);
  const first = group[0]!;
  const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
  const ctx: StartContext = {
    namespace: w.namespace,
    pod: nameOf(first.pod),
    container: first.container,
    controlPlaneNamespace: cpNs,
  };
  const role = first.container === p.containers.proxy ? 'proxy' : first.init ? 'init container' : 'container';
  const events = containerEvents(
    m,
    group.map((g) => g.pod),
    first.container,
  );
  const status = `${first.reason}${first.exitCode !== undefined ? `, exit code ${first.exitCode}` : ''}${first.restarts ? `, ${plural(first.restarts, 'restart')}` : ''}`;
  if (first.kind === 'image') {
    return {
      cause: `the node cannot pull its image ${first.image ?? '(not reported)'}`,
      evidence: { image: first.image ?? null },
      fix: [...p.runtime.image(cpNs), cmd`kubectl describe pod ${ctx.pod} -n ${w.namespace}`] as Step[],
      role,
      status,
      events,
    };
  }
  const needs = p.runtime.initNeeds?.(m, w, first.pod, first.container) ?? [];
  if (needs.length)
    return {
      cause: needs.map((n) => n.cause).join('; '),
      evidence: { needs: needs.map((n) => ({ cause: n.cause, source: n.source, ...n.evidence })) },
      fix: needs.flatMap((n) => n.fix),
      role,
      status,
      events,
    };
  const read = readFailure(p.runtime.failures, first);
  if (read)
    return {
      cause: read.failure.cause,
      evidence: { source: read.failure.source, ...(read.line ? { line: printable(read.line, 512) } : {}) },
      fix: read.failure.fix(ctx),
      role,
      status,
      events,
    };
  return {
    cause: `it keeps failing${first.exitCode !== undefined ? ` with exit code ${first.exitCode}` : ''}, for a reason meshdoctor does not know`,
    evidence: {},
    fix: [
      comment`its previous log says why`,
      cmd`kubectl logs ${ctx.pod} -n ${w.namespace} -c ${first.container} --previous`,
    ] as Step[],
    role,
    status,
    events,
  };
}

export default defineCheck({
  ...meta('proxy-cannot-start'),
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      const names = injectedNames(p);
      for (const w of m.appWorkloads) {
        const failing = w.pods.filter(isActive).flatMap((pod) => {
          // Only the containers this mesh injected into this pod (another mesh may use a like name).
          const spec = podSpec(pod);
          const present = [...initContainers(spec), ...containers(spec)].map((c) => str(c.name) ?? '');
          if (!present.includes(p.containers.proxy) && !p.containers.init.some((n) => present.includes(n))) return [];
          return failingIn(pod, names);
        });
        if (failing.length === 0) continue;
        // One finding per workload: the first container that fails (init containers run first), its pods.
        const first = failing[0]!;
        const group = failing.filter((f) => f.container === first.container && f.kind === first.kind);
        const others = [
          ...new Set(failing.filter((f) => f.container !== first.container).map((f) => f.container)),
        ].sort();
        const d = describe(m, w, mesh, group);
        const pods = [...new Set(group.map((g) => nameOf(g.pod)))].sort();
        yield {
          mesh,
          message: `${plural(pods.length, 'pod')} of ${w.kind} ${w.namespace}/${w.name} cannot start: ${meshTitle(mesh)}'s ${d.role} ${first.container} ${first.kind === 'image' ? 'cannot be pulled' : 'keeps failing'} (${d.status}): ${d.cause}.`,
          resource: w.ref,
          affectedPods: pods.length,
          evidence: {
            container: first.container,
            init: first.init,
            status: { reason: first.reason, exitCode: first.exitCode ?? null, restarts: first.restarts },
            pods: pods.slice(0, 20),
            ...d.evidence,
            ...(d.events ? { events: d.events } : {}),
            ...(others.length ? { alsoFailing: others } : {}),
          },
          fix: d.fix,
        };
      }
    }
  },
});
