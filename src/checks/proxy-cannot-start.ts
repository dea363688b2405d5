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
 * What the pod grants against what the container needs (issue 31): the kubelet applies the pod's
 * securityContext to every container that does not set the field itself (runAsUser, runAsNonRoot:
 * src/k8s/security.ts), and a policy engine or a later webhook may change what the injector wrote.
 * The profile's `runtime.injected` says what each container needs (the UID, the capabilities its
 * template gives it); a failing container whose pod grants less (a capability missing, another
 * UID) is reported with that gap, and a container the kubelet refuses to create
 * (CreateContainerConfigError: "container's runAsUser breaks non-root policy", "container has
 * runAsNonRoot and image will run as root", "... non-numeric user") with the field that refuses it
 * and where it is set. Failures the node decides (its kernel's iptables) name the node's OS image,
 * kernel and container runtime (node.status.nodeInfo), where Nodes were read.
 * When: active pods of app workloads in scope whose status shows a container the mesh injects
 * waiting in CrashLoopBackOff, CreateContainerConfigError, CreateContainerError or
 * RunContainerError, an init container terminated with a non-zero exit code (a pod that does not
 * restart it), or an image pull failure. Silent for a container that failed once and runs now, and
 * for the app's own containers. The kubelet's BackOff, Failed and pull-failure events about the
 * container are evidence where read. A reason meshdoctor does not know quotes the message the
 * kubelet gave (bounded, printable).
 * OOMKilled (issue 31): a container whose last termination was the kernel's OOM kill, crash-looping or
 * running with OOM_RESTARTS restarts, is reported with its memory limit and the mesh's setting for it.
 * Image pulls: the runtime's error the kubelet quotes says why (credentials and the pod's
 * imagePullSecrets, an untrusted certificate, no such tag, an unreachable registry).
 * SELinux: a node-decided failure of an unprivileged container on a Red Hat-family node also names
 * SELinux and the mesh's privileged setting (`runtime.privileged`).
 * Altered native sidecars (issue 31 item 12): a proxy injected as a native sidecar whose
 * `restartPolicy: Always` the API server dropped (native sidecars off, before 1.29) or a later
 * webhook removed runs as a plain init container, never exits, and holds the pod in Init. It is
 * the proxy (src/mesh/proxy.ts injectedMesh counts it, so no check calls it missing), reported
 * here as altered, with what dropped it where the API server's version was read.
 * Multus (issue 31): a failing validation container of a pod that does not name the attachment of a CNI plugin its
 * agent installs standalone (not chained) is that (istio/istio#48734).
 * The CNI validation container's reason (issue 31): the pod started before its node's CNI agent was ready (both
 * times), the agent not ready, or Cilium owning the CNI configuration (validationCause). The install's pull secrets
 * the injected pod lacks (controlPlanePull, kumahq/kuma#10944). An app's own init container failing under the
 * redirection before its proxy runs is init-before-proxy's (MD1090), not this check's.
 * The node's iptables (issue 31, round 7): where no line of the mesh's own matches, what iptables itself says the node
 * refused in an injected container's termination message (src/mesh/iptables.ts: a table its backend lacks, nf_tables
 * unsupported, not root, refused, a missing extension; linkerd/linkerd2#7749, kumahq/kuma#5137), with the mesh's
 * backend setting (runtime.iptablesBackend), the module at boot and the CNI plugin; istio-iptables' exit codes across
 * releases (1, 2 before 1.11, 255 since: istio/istio#23009); SELinux refusing module loading (module_request:
 * istio/istio#24101, rancher/rke2#504); an init container with no runAsUser of its own runs as the pod's user
 * (istio/istio#10358), and a capability of the runtime's default set nothing drops is not named missing.
 * Every unhappy mesh container ends in a finding (issue 31, round 8): killed by the kubelet for a failed liveness or
 * startup probe (its Killing and Unhealthy events quoted: linkerd/linkerd2#2585), running between two of OOM_RESTARTS
 * or more non-zero exits, running and not ready NOT_READY_MS after its last start (the readiness probe's failure
 * quoted; a pod whose NetworkPolicies cut it off its control plane is proxy-egress-blocked's, one whose proxy predates a
 * regenerated trust root proxy-predates-trust-root's), a plain init container not finished NOT_READY_MS after it
 * started (the mesh's own reading first: hashicorp/vault-helm#574), a container ended non-zero that the pod does not
 * restart (restartPolicy Never) while the pod runs, a plain init container the kubelet ran again after the pod's
 * containers started and that fails now (its record removed from the node; named as a re-run of a running pod, not as
 * a pod that cannot start: istio/istio#42792 after a `docker system prune`, #21030; kubernetes/kubernetes#67261), any other waiting reason
 * (lifecycle hooks, a newer kubelet's reason) quoted, else the pod's own status message. A seccomp or AppArmor profile the
 * runtime cannot apply, named with where it is set (the pod's, which a container without its own inherits); iptables'
 * "you must be root" (EPERM) of a container that runs as root names the seccomp profile, AppArmor, user namespaces and
 * the runtime instead of its user; a registry's HTTP 5xx is the registry's side (linkerd/linkerd2#9899).
 * Warning events read whole (issue 31, round 9; src/facts/pod-warnings.ts): a mesh container still waiting to be created
 * NOT_READY_MS after the pod was created is held where the kubelet's volume warnings name a volume it mounts (the
 * ConfigMap or Secret the kubelet cannot find named as it says: istio/istio#22463, #43824); a container long not ready or
 * not finished quotes the mesh's own controllers' warnings with what they mean (Kuma's FailedToGenerateKumaDataplane on
 * the pod: kumahq/kuma#1216; Linkerd's identity issuer warnings on its Deployment); a pod the scheduler has not placed
 * quotes the scheduler and what the mesh's containers request.
 * The pod's own spec (issue 31, round 11, gen10spec): what each mesh's containers need from the pod, per release (the
 * profile's network.podSpec, src/mesh/<mesh>/pod-needs.ts), read by src/facts/pod-needs.ts before any other reading:
 * another OS than Linux asked for (spec.os.name, nodeSelector, required node affinity) or the node's, whatever the
 * failure; for a container that runs and fails or is never ready, the resolver its dnsPolicy gives it (Default, None
 * without the cluster DNS or the search domains a short name needs, ClusterFirst with hostNetwork) where it dials its
 * control plane by name (hetznercloud/hcloud-cloud-controller-manager#559), and the mounted token it reads where
 * automountServiceAccountToken is false on the pod or its ServiceAccount and it has no projected token of its own in
 * this pod (istio/istio#18221, #25138: first-party-jwt); linkerd/linkerd2#2882, istio/istio#39788 (Windows nodes).
 * Known false positives: an app init container that fails for its own reason in a CNI pod (the fix reads its log
 * first); a cause read from the cluster (a Service, the CNI agent's
 * exclusions) is the one now, which may differ from when the pod started.
 * Fix: the mesh's fix for that failure, else the container's previous log; for an image: how the
 * mesh chooses its images.
 */
import { cmd, comment, lit, noteStep, type Part, type Step } from '../fix/steps.js';
import { eventInfo, POD_EVENTS_READ, PROBE_FAILED, PROBE_KILLED } from '../k8s/events.js';
import { podSpec, containers, initContainers } from '../k8s/pods.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { alteredNativeSidecar, injectedNames, rewrittenInits } from '../mesh/proxy.js';
import { clusterVersions, CLUSTER_VERSIONS, pinnedProxy, type PinnedProxy } from '../facts/versions.js';
import { compareMinor, minorText, NATIVE_SIDECARS_ON } from '../k8s/server.js';
import { companionShortfalls, pairingGap, type CompanionShortfall, type PairingGap } from '../mesh/releases.js';
import { recreateAll, removeFromTemplate, setOnTemplate, setOnTemplateSpec } from '../fix/commands.js';
import { NETWORKS, namedAttachments } from '../k8s/sandbox.js';
import { parseQuantity } from '../k8s/quantity.js';
import { meshesAllowed } from '../facts/siblings.js';
import { podsCarrying } from '../facts/pods.js';
import type { Model, Workload } from '../facts/model.js';
import type { MeshName } from '../mesh/names.js';
import type { InjectedContainer, MeshProfile, StartContext, StartFailure } from '../mesh/profile.js';
import type { KnownBug } from '../mesh/release-table.js';
import { effectiveSecurity, grants, nonRootRefusal, type NonRootRefusal } from '../k8s/security.js';
import type { K8sObject } from '../util/types.js';
import { printable } from '../util/errors.js';
import { isObj, nameOf, nsOf, plural, str, time } from '../util/objects.js';
import { cniAgentOn } from '../facts/node-agents.js';
import { exclusiveCni } from '../facts/cluster-cni.js';
import { iptablesCause, readIptables } from '../mesh/iptables.js';
import { nftOnlyImage } from '../mesh/node-images.js';
import { defineCheck, messages, meta, say } from './define.js';
import type { Evidence } from './types.js';
import { APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import { PROXY_PATHS, proxyPaths } from '../facts/proxy-network.js';
import { CLUSTER_DNS_DOWN, NODE_LOCAL_DNS_DOWN, dnsDownFor } from '../facts/cluster-dns.js';
import { proxyConfiguredAt, TRUST_ROOT, trustRootRegenerated } from '../facts/timeline.js';
import { bugsShown, BUGS_SHOWN } from '../facts/known-bugs.js';
import { SA_TOKEN_DIR, SA_TOKEN_LINE, tokenUnmounted } from '../k8s/sa-token.js';
import { CLUSTER_DNS_ADDRESSES, podGaps } from '../facts/pod-needs.js';
import { heldBy, WARNING_EVENTS, warningsClause } from '../facts/pod-warnings.js';
import { unschedulableMessage } from '../k8s/scheduling.js';
import type { WarningSeen } from '../k8s/warnings.js';
import { COMPONENT_STATES, downComponentOf } from '../facts/components.js';
import { STORED_VALUES, storedImage } from '../facts/stored-values.js';

const MESSAGES = messages({
  'cannot-start': "{pods} of {workload} cannot start: {mesh}'s {role} {container} {failure} ({status}): {cause}.",
  'runs-unhappy': "{pods} of {workload} run, but {mesh}'s {role} {container} {failure} ({status}): {cause}.",
  'native-sidecar-altered':
    "{pods} of {workload} cannot start: {mesh}'s proxy {container} was injected as a native sidecar, but the pod runs it as a plain init container without restartPolicy: Always: {by}. It never exits, so the containers after it never start (it is {state} now).",
});

/**
 * The kubelet's image reasons (kubernetes pkg/kubelet/images/types.go: ErrImagePullBackOff, ErrImageInspect,
 * ErrImagePull, ErrImageNeverPull, ErrInvalidImageName; RegistryUnavailable before 1.19).
 */
const PULL = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'ImageInspectError',
  'RegistryUnavailable',
]);
/**
 * The kubelet could not create or start the container (kubernetes pkg/kubelet/container/sync_result.go
 * RunContainerError; pkg/kubelet/kuberuntime/kuberuntime_container.go CreateContainerConfigError,
 * PreCreateHookError, CreateContainerError; PreStartHookError and PostStartHookError are a lifecycle hook's, quoted as
 * another waiting reason).
 */
const CONFIG = new Set([
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PreCreateHookError',
]);
/** The waiting reasons of a container that has not been tried yet (kubelet_pods.go): not a failure by themselves. */
const NORMAL_WAITING = new Set(['ContainerCreating', 'PodInitializing']);
/** A container running but not ready since longer than this is reported (issue 31: never ready). */
const NOT_READY_MS = 10 * 60_000;

interface Failing {
  pod: K8sObject;
  container: string;
  init: boolean;
  /**
   * image: a pull failure; crash: it exits and is restarted; config: the kubelet cannot create or start it; probe: the
   * kubelet kills it for a failed liveness or startup probe; unready: it runs but is not ready; waiting: another
   * waiting reason of the kubelet's; exited: a container ended non-zero that the pod does not restart; stuck: a plain init container that has not exited NOT_READY_MS after it started;
   * rerun: a plain init container run again after the pod's containers started, and failing.
   */
  kind: 'image' | 'crash' | 'exited' | 'config' | 'probe' | 'unready' | 'stuck' | 'waiting' | 'held' | 'rerun';
  /** The waiting reason, or "Error" for a terminated init container. */
  reason: string;
  exitCode?: number;
  restarts: number;
  image?: string;
  /** The termination message (only the lines a snapshot keeps are quoted), or the kubelet's waiting message. */
  message?: string;
  /** Its last termination was the kernel's OOM kill (reason OOMKilled). */
  oom?: true;
  /** The kubelet's probe events about it (probe, unready). */
  probes?: ProbeSeen;
  /** Since when it runs (unready); rerun: since when the pod's containers run. */
  runningSince?: Date;
  /** rerun: when its failing run started. */
  rerunAt?: Date;
  /** It runs now (killed by a probe, restarting, not ready, or killed for memory): the pod runs, unhappy. */
  running?: true;
  /** held: the Warning events that hold the pod before it starts (a volume of the mesh's the kubelet cannot mount). */
  warnings?: readonly WarningSeen[];
}

/** The kubelet's probe events about one container of one pod: its kills for a failed probe, and the latest failure. */
interface ProbeSeen {
  kills: number;
  /** The latest "X probe failed: ..." message, and its time. */
  failed?: { message: string; at?: string; count: number };
  /** The latest failure of the readiness probe, kept apart from a liveness failure. */
  unready?: { message: string; at?: string; count: number };
}

const probeCache = new WeakMap<Model, Map<string, ProbeSeen>>();

/**
 * The kubelet's probe events (PROBE_FAILED, PROBE_KILLED: kubernetes pkg/kubelet/prober/prober.go and
 * kuberuntime_container.go), by pod and container, where events were read. Bounded: the events of the scope, once per model.
 */
function probeEvents(m: Model): Map<string, ProbeSeen> | undefined {
  if (!m.has('events')) return undefined;
  let out = probeCache.get(m);
  if (out) return out;
  out = new Map();
  for (const e of m.list('events')) {
    if (e.reason !== PROBE_FAILED.reason && e.reason !== PROBE_KILLED.reason) continue; // before eventInfo, which parses dates
    const ev = eventInfo(e);
    if (ev.kind !== 'Pod' || !ev.container) continue;
    const kill = ev.reason === PROBE_KILLED.reason && PROBE_KILLED.message.test(ev.message);
    const failed = ev.reason === PROBE_FAILED.reason && PROBE_FAILED.message.test(ev.message);
    if (!kill && !failed) continue;
    const key = `${ev.namespace}/${ev.name}/${ev.container}`;
    const seen = out.get(key) ?? { kills: 0 };
    out.set(key, seen);
    if (kill) seen.kills += ev.count;
    else {
      const entry = {
        message: printable(ev.message, 300),
        count: ev.count,
        ...(ev.lastTimestamp ? { at: ev.lastTimestamp } : {}),
      };
      if (!seen.failed || (entry.at ?? '') > (seen.failed.at ?? '')) seen.failed = entry;
      if (/^Readiness /.test(ev.message) && (!seen.unready || (entry.at ?? '') > (seen.unready.at ?? '')))
        seen.unready = entry;
    }
  }
  probeCache.set(m, out);
  return out;
}

/** How the message says each kind of failure. */
const FAILURE: Record<Failing['kind'], string> = {
  image: 'cannot be pulled',
  config: 'cannot be created',
  crash: 'keeps failing',
  exited: 'exited and is not restarted',
  probe: 'is killed by the kubelet',
  unready: 'is not ready',
  stuck: 'does not finish',
  waiting: 'cannot start',
  held: 'cannot start',
  rerun: 'was run again after the pod started, and fails',
};

/** Restarts after which a container that runs now but was last OOM-killed is reported (a single kill may be a spike). */
const OOM_RESTARTS = 3;

/** The injected containers of this mesh that fail in a pod, in start order (init containers first). */
/** The pod's status lists failingIn reads, init containers first (made once: asked for every pod carrying a mesh's container). */
const STATUS_FIELDS = [
  ['initContainerStatuses', true],
  ['containerStatuses', false],
] as const;

/** The pod spec has a container or init container named as the mesh's proxy or one of its init containers (no list built). */
function carriesOwn(spec: Record<string, any>, proxy: string, inits: readonly string[]): boolean {
  for (const cs of [initContainers(spec), containers(spec)])
    for (const c of cs) {
      const n = str(c.name) ?? '';
      if (n === proxy || inits.includes(n)) return true;
    }
  return false;
}

function failingIn(m: Model, pod: K8sObject, names: readonly string[]): Failing[] {
  const st = isObj(pod.status) ? pod.status : {};
  const probes = probeEvents(m);
  const out: Failing[] = [];
  // Not placed on a node (issue 31, round 9): no container has a status; the scheduler's own words say why, and the
  // mesh's containers add their requests to the pod's (kubernetes pkg/scheduler/schedule_one.go, PodScheduled False,
  // reason Unschedulable). Reported NOT_READY_MS after the pod was created, with the first container of the mesh's.
  const unplaced = unschedulableMessage(pod);
  const created = unplaced !== undefined ? time(pod.metadata?.creationTimestamp) : undefined;
  if (unplaced !== undefined && created && m.now.getTime() - created.getTime() >= NOT_READY_MS) {
    const spec = podSpec(pod);
    const first = [...initContainers(spec), ...containers(spec)].find((c) => names.includes(str(c.name) ?? ''));
    if (first)
      return [
        {
          pod,
          container: str(first.name)!,
          init: initContainers(spec).includes(first),
          kind: 'held',
          reason: 'Unschedulable',
          restarts: 0,
          message: unplaced,
        },
      ];
  }
  for (let f = 0; f < STATUS_FIELDS.length; f++) {
    const [field, init] = STATUS_FIELDS[f]!;
    const list: unknown[] = Array.isArray(st[field]) ? st[field] : [];
    for (let i = 0; i < list.length && i < 64; i++) {
      const cs = list[i];
      if (!isObj(cs) || !names.includes(str(cs.name) ?? '')) continue;
      const waiting = isObj(cs.state) && isObj(cs.state.waiting) ? cs.state.waiting : undefined;
      const termNow = isObj(cs.state) && isObj(cs.state.terminated) ? cs.state.terminated : undefined;
      const termLast = isObj(cs.lastState) && isObj(cs.lastState.terminated) ? cs.lastState.terminated : undefined;
      const reason = str(waiting?.reason);
      const running = isObj(cs.state) && isObj(cs.state.running) ? cs.state.running : undefined;
      // Not waiting, not ended non-zero now, not killed for memory last, restarted or not ready while running: none
      // of the cases below (most containers; an init container that completed with 0 matches none of them either).
      if (
        !reason &&
        !(termNow && termNow.exitCode !== 0) &&
        termLast?.reason !== 'OOMKilled' &&
        !(running && (cs.ready === false || (typeof cs.restartCount === 'number' && cs.restartCount > 0)))
      )
        continue;
      if (reason && NORMAL_WAITING.has(reason)) {
        // Not tried yet: a failure only where the Warning events say what holds the pod (issue 31: evidence read
        // whole; the kubelet cannot mount a volume this container mounts, a mesh controller's warning about the pod).
        const held = heldBy(m, pod, str(cs.name)!, NOT_READY_MS);
        if (held.length)
          out.push({
            pod,
            container: str(cs.name)!,
            init,
            kind: 'held',
            reason,
            restarts: typeof cs.restartCount === 'number' ? cs.restartCount : 0,
            warnings: held,
          });
        continue;
      }
      const seen = probes?.get(`${nsOf(pod)}/${nameOf(pod)}/${str(cs.name)}`);
      const term = termLast ?? termNow;
      const base = {
        pod,
        container: str(cs.name)!,
        init,
        restarts: typeof cs.restartCount === 'number' ? cs.restartCount : 0,
        ...(str(cs.image) ? { image: str(cs.image)! } : {}),
      };
      const oom = term?.reason === 'OOMKilled' ? { oom: true as const } : {};
      if (reason && PULL.has(reason))
        out.push({
          ...base,
          kind: 'image',
          reason,
          ...(typeof waiting?.message === 'string' ? { message: waiting.message } : {}),
        });
      else if (reason && CONFIG.has(reason))
        out.push({
          ...base,
          kind: 'config',
          reason,
          ...(typeof waiting?.message === 'string' ? { message: waiting.message } : {}),
        });
      // A container (not an init container) ended non-zero and not restarted (restartPolicy Never or OnFailure
      // between attempts) in a pod still running: the app runs without it.
      else if (!reason && !init && termNow && typeof termNow.exitCode === 'number' && termNow.exitCode !== 0)
        out.push({
          ...base,
          kind: 'exited',
          running: true,
          reason: str(termNow.reason) ?? 'Error',
          exitCode: termNow.exitCode,
          ...(typeof termNow.message === 'string' ? { message: termNow.message } : {}),
          ...(termNow.reason === 'OOMKilled' ? { oom: true as const } : {}),
        });
      // A plain init container of the mesh failing in a pod whose containers started before its failing run: the
      // kubelet ran it again (the record of its first run was removed from the node, or the sandbox re-made). The pod
      // runs; its init container does not keep it from starting (issue 31: a status read whole, not as a crash).
      else if (
        init &&
        (reason === 'CrashLoopBackOff' || (termNow && termNow.exitCode !== 0)) &&
        !restartsAlways(pod, base.container) &&
        rerunAfterStart(pod, termNow ?? termLast)
      )
        out.push({
          ...base,
          kind: 'rerun',
          running: true,
          reason: reason ?? str(termNow?.reason) ?? 'Error',
          ...(typeof term?.exitCode === 'number' ? { exitCode: term.exitCode } : {}),
          ...(typeof term?.message === 'string' ? { message: term.message } : {}),
          runningSince: rerunAfterStart(pod, termNow ?? termLast)!.since,
          rerunAt: rerunAfterStart(pod, termNow ?? termLast)!.at,
        });
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
          ...oom,
          ...(seen?.kills ? { probes: seen } : {}),
        });
      // Running now, but killed for memory again and again: the app loses its proxy each time.
      else if (!reason && !init && termLast?.reason === 'OOMKilled' && base.restarts >= OOM_RESTARTS)
        out.push({
          ...base,
          kind: 'crash',
          running: true,
          reason: 'OOMKilled',
          ...(typeof termLast.exitCode === 'number' ? { exitCode: termLast.exitCode } : {}),
          oom: true,
        });
      // Killed by the kubelet for a failed liveness or startup probe, as its events say (issue 31).
      else if (!reason && running && seen?.kills && base.restarts > 0)
        out.push({
          ...base,
          kind: 'probe',
          running: true,
          reason: 'Killed for a failed probe',
          ...(typeof termLast?.exitCode === 'number' ? { exitCode: termLast.exitCode } : {}),
          probes: seen,
        });
      // Restarting again and again, each time ended non-zero: a crash loop caught between two restarts.
      else if (
        !reason &&
        running &&
        base.restarts >= OOM_RESTARTS &&
        typeof termLast?.exitCode === 'number' &&
        termLast.exitCode !== 0
      )
        out.push({
          ...base,
          kind: 'crash',
          running: true,
          reason: str(termLast.reason) ?? 'Error',
          exitCode: termLast.exitCode,
          ...(typeof termLast.message === 'string' ? { message: termLast.message } : {}),
        });
      // Running, never ready for NOT_READY_MS; a plain init container that has not exited by then holds the pod in Init.
      else if (!reason && running && cs.ready === false && init && !restartsAlways(pod, str(cs.name)!)) {
        const since = time(running.startedAt);
        if (since && m.now.getTime() - since.getTime() >= NOT_READY_MS)
          out.push({ ...base, kind: 'stuck', reason: 'Running, not finished', runningSince: since });
      } else if (!reason && running && cs.ready === false) {
        const since = time(running.startedAt);
        if (since && m.now.getTime() - since.getTime() >= NOT_READY_MS)
          out.push({
            ...base,
            kind: 'unready',
            running: true,
            reason: 'Running, not ready',
            runningSince: since,
            ...(seen ? { probes: seen } : {}),
          });
      }
      // Any other waiting reason the kubelet gives (issue 31: every unhappy mesh container ends in a finding).
      else if (reason)
        out.push({
          ...base,
          kind: 'waiting',
          reason,
          ...(typeof waiting?.message === 'string' ? { message: waiting.message } : {}),
        });
    }
  }
  return out;
}

/** The workload is one whose NetworkPolicies cut its meshed pods off their control plane or DNS (src/facts/proxy-network.ts). */
const egressExplained = (m: Model, mesh: MeshName, w: Workload) =>
  proxyPaths(m, mesh).some((p) => (p.blocked.length || p.dnsBlocked) && p.workloads.includes(w));

/**
 * Whether proxy-egress-blocked and proxy-predates-trust-root could decide for this workload: no read they need was
 * refused (the app namespace's NetworkPolicies; for a mesh with an identity, the control plane namespaces' kinds the
 * trust root is read from, TRUST_ROOT's inputs). A kind not collected at all leaves them silent everywhere, as here.
 */
const refusedIn = (
  m: Model,
  kind: 'networkpolicies' | 'configmaps' | 'deployments' | 'replicasets' | 'secrets',
  ns: string,
) => m.has(kind) && !m.readIn(kind, ns);
const pathsDecidable = (m: Model, mesh: MeshName, w: Workload) =>
  !refusedIn(m, 'networkpolicies', w.namespace) &&
  (!profileOf(mesh).identity ||
    (m.mesh(mesh)?.namespaces ?? []).every((ns) =>
      (['configmaps', 'deployments', 'replicasets', 'secrets'] as const).every((k) => !refusedIn(m, k, ns)),
    ));

/** The pod's proxy was configured before its mesh's trust root was regenerated (src/facts/timeline.ts), as proxy-predates-trust-root judges it. */
function predatesTrustRoot(m: Model, mesh: MeshName, pod: K8sObject): boolean {
  const root = trustRootRegenerated(m, mesh);
  if (!root) return false;
  const s = proxyConfiguredAt(pod);
  const reinstalled = Math.max(...root.recreated.map((r) => r.createdAt.getTime()));
  return !!s && s.at.getTime() < root.validFrom.getTime() && s.at.getTime() < reinstalled;
}

/** The init container of this name restarts always: a native sidecar, which runs beside the app and has a readiness. */
/**
 * Whether an init container's last run (`term`, its terminated state) started after every container of the pod was
 * already running: the earliest start of those containers, and that run's start. Undefined where a container of the
 * pod is not running, a time is missing, or the run came first (a pod still initializing).
 */
function rerunAfterStart(
  pod: K8sObject,
  term: Record<string, unknown> | undefined,
): { since: Date; at: Date } | undefined {
  const at = time(term?.startedAt);
  const list = (pod.status as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!at || !Array.isArray(list) || !list.length) return undefined;
  let since: Date | undefined;
  for (const cs of list.slice(0, 64)) {
    const started =
      isObj(cs) && isObj(cs.state) && isObj(cs.state.running) ? time(cs.state.running.startedAt) : undefined;
    if (!started) return undefined;
    if (!since || started < since) since = started;
  }
  return since && since < at ? { since, at } : undefined;
}

/**
 * A pod meant to end (restartPolicy Never or OnFailure) whose own containers, those the mesh did not inject, have all
 * terminated: its app has ended.
 */
function appEnded(pod: K8sObject, injected: readonly string[]): boolean {
  const policy = str(podSpec(pod).restartPolicy);
  if (policy !== 'Never' && policy !== 'OnFailure') return false;
  const own = containers(podSpec(pod))
    .map((c) => str(c.name) ?? '')
    .filter((n) => !injected.includes(n));
  const list = (pod.status as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!own.length || !Array.isArray(list)) return false;
  return own.every((n) =>
    list.some((cs) => isObj(cs) && cs.name === n && isObj(cs.state) && isObj(cs.state.terminated)),
  );
}

function restartsAlways(pod: K8sObject, name: string): boolean {
  return initContainers(podSpec(pod)).some((c) => c.name === name && c.restartPolicy === 'Always');
}

/** The mesh's own reading of a crash: a line of its termination message, else its exit code, else the container's generic failure. */
/** The exit codes a failure stands for. */
const exitCodes = (x: StartFailure): readonly number[] =>
  x.exitCode === undefined ? [] : typeof x.exitCode === 'number' ? [x.exitCode] : x.exitCode;

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
  const byCode = mine.find(
    (x) => !x.line && x.exitCode !== undefined && f.exitCode !== undefined && exitCodes(x).includes(f.exitCode),
  );
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
    if (e.reason !== 'BackOff' && e.reason !== 'Failed') continue; // before eventInfo, which parses dates
    const ev = eventInfo(e);
    if (ev.kind !== 'Pod' || ev.container !== container || !names.has(ev.name)) continue;
    if (ev.reason !== 'BackOff' && ev.reason !== 'Failed') continue;
    // Only the shapes a snapshot keeps (k8s/events.ts POD_EVENTS_READ): the same count live and offline.
    if (!POD_EVENTS_READ.some((r) => r.reason === ev.reason && r.message.test(ev.message))) continue;
    count += ev.count;
    if (!last || (ev.lastTimestamp ?? '') > (last.at ?? ''))
      last = { message: ev.message, reason: ev.reason, ...(ev.lastTimestamp ? { at: ev.lastTimestamp } : {}) };
  }
  return last
    ? { count, reason: last.reason, message: printable(last.message, 300), lastTimestamp: last.at ?? null }
    : undefined;
}

/** The kubelet's reason a pull failed: the container's waiting message, else its latest "Failed to pull image" event. */
function pullMessage(m: Model, group: readonly Failing[], f: Failing): string | undefined {
  const own = f.message?.trim();
  if (own && !/^Back-off pulling image/i.test(own)) return own;
  if (!m.has('events')) return own || undefined;
  const names = new Set(group.map((g) => nameOf(g.pod)));
  let last: { message: string; at: string } | undefined;
  for (const e of m.list('events')) {
    if (e.reason !== 'Failed') continue; // before eventInfo, which parses dates
    const ev = eventInfo(e);
    if (ev.kind !== 'Pod' || ev.container !== f.container || !names.has(ev.name)) continue;
    if (!/^Failed to pull image/.test(ev.message)) continue;
    const at = ev.lastTimestamp ?? '';
    if (!last || at > last.at) last = { message: ev.message, at };
  }
  return last?.message ?? (own || undefined);
}

/** The registry an image reference names (Docker's rule: a first part with a dot or a port, or localhost; else docker.io). */
function registryOf(image: string): string {
  const first = image.split('/')[0] ?? '';
  return image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
    ? first
    : 'docker.io';
}

/**
 * Why a pull failed, from the runtime's error text the kubelet quotes ("Failed to pull image %q: %v",
 * kubernetes pkg/kubelet/images/image_manager.go): the registry refuses the node without credentials
 * (the pod's imagePullSecrets, which the ServiceAccount admission plugin fills from the
 * ServiceAccount when the pod sets none: plugin/pkg/admission/serviceaccount/admission.go), the
 * node does not trust the registry's certificate, the image or tag does not exist, the registry is
 * unreachable or rate-limits the node. The mesh's image from another registry than the app's is said too.
 */
function pullCause(said: string | undefined, pod: K8sObject, image: string | undefined, injected: readonly string[]) {
  const text = (said ?? '').slice(0, 4000);
  const registry = image ? registryOf(image) : undefined;
  const spec = podSpec(pod);
  const secrets = (Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : [])
    .slice(0, 20)
    .map((x: unknown) => (isObj(x) ? (str(x.name) ?? '') : ''))
    .filter(Boolean) as string[];
  const appRegistries = [
    ...new Set(
      [...initContainers(spec), ...containers(spec)]
        .filter((c) => !injected.includes(str(c.name) ?? ''))
        .map((c) => str(c.image))
        .filter((x): x is string => !!x)
        .map(registryOf),
    ),
  ].sort();
  // Only where the app's images all come from registries of their own (a mirror): the mesh's image
  // from another registry, the public default among them, is then likely a hub never pointed at it.
  const elsewhere =
    registry && appRegistries.length && !appRegistries.includes(registry) && !appRegistries.includes('docker.io')
      ? `; the app's own images come from ${appRegistries.join(', ')}, so the mesh's image registry may not point at your mirror`
      : '';
  const sa = str(spec.serviceAccountName) ?? 'default';
  const ns = str(pod.metadata?.namespace) ?? '';
  const at = registry ?? 'the registry';
  // The registry answered with a server error (HTTP 5xx, as containerd and Docker quote it): its side, not the node's
  // credentials or the tag (linkerd/linkerd2#9899: "503 Service Unavailable" from cr.l5d.io to one region).
  const server =
    /\b(5\d\d) (Service Unavailable|Bad Gateway|Internal Server Error|Gateway Time-?out)\b|unexpected (?:HTTP )?status:? (5\d\d)\b/i.exec(
      text,
    );
  if (server)
    return {
      cause: `${at} answers with a server error (${server[1] ? `${server[1]} ${server[2]}` : `HTTP ${server[3]}`}): the registry, or a proxy in front of it, fails for this node; neither its credentials nor the image name is what is refused`,
      evidence: { registry: registry ?? null, httpStatus: Number(server[1] ?? server[3]) },
      fix: [comment`pull again once ${at} answers, or pull the mesh images through a mirror the nodes reach`] as Step[],
    };
  if (
    /pull access denied|unauthorized|authentication required|no basic auth credentials|requested access to the resource is denied|\b401\b|\b403\b|denied:|may require (?:docker )?login/i.test(
      text,
    )
  )
    return {
      auth: true,
      cause: `${at} refuses the node without credentials, and ${secrets.length ? `the pod's imagePullSecrets (${secrets.join(', ')}) do not open it` : `the pod has no imagePullSecrets (neither its own nor those of its ServiceAccount ${sa})`}${elsewhere}`,
      evidence: { registry: registry ?? null, imagePullSecrets: secrets, serviceAccount: sa },
      fix: [
        comment`give the pods credentials for ${at}: a docker-registry Secret in the namespace, named in the imagePullSecrets of the ServiceAccount ${sa}, which the API server copies into every new pod that names none`,
        cmd`kubectl get serviceaccount ${sa} -n ${ns} -o jsonpath=${'{.imagePullSecrets}'}`,
      ] as Step[],
    };
  if (/x509|certificate signed by unknown authority|certificate is not valid|tls: failed to verify/i.test(text))
    return {
      cause: `the container runtime of the node does not trust the TLS certificate ${at} presents (a private CA, or a proxy that inspects TLS)${elsewhere}`,
      evidence: { registry: registry ?? null },
      fix: [
        comment`add the CA that signs the certificate of ${at} to the trust store of the container runtime of the nodes, or pull through a mirror they trust`,
      ] as Step[],
    };
  if (
    /manifest unknown|manifest for .{1,300} not found|not found: manifest|no such manifest|repository .{1,300} not found|: not found\b/i.test(
      text,
    )
  )
    return {
      cause: `${at} has no such image or tag${elsewhere}`,
      evidence: { registry: registry ?? null },
      fix: [] as Step[],
    };
  if (/toomanyrequests|rate limit/i.test(text))
    return {
      cause: `${at} rate-limits the node's pulls${elsewhere}`,
      evidence: { registry: registry ?? null },
      fix: [comment`pull the mesh images through an authenticated account or a mirror of your own`] as Step[],
    };
  if (
    /i\/o timeout|dial tcp|no such host|connection refused|network is unreachable|TLS handshake timeout|context deadline exceeded|connection reset/i.test(
      text,
    )
  )
    return {
      cause: `the node cannot reach ${at}${elsewhere}`,
      evidence: { registry: registry ?? null },
      fix: [
        comment`let the nodes reach ${at} through egress, proxy and DNS, or point the mesh image at a registry they reach`,
      ] as Step[],
    };
  return elsewhere
    ? { cause: elsewhere.slice(2), evidence: { registry: registry ?? null, appRegistries }, fix: [] as Step[] }
    : undefined;
}

/** A time as the API writes it, to the second. */
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The mesh's CNI validation container failed (the plugin had not set up the pod's redirection): which of the
 * known reasons the cluster shows (issue 31). The pod started on its node before the mesh's CNI agent there
 * was ready (its Ready condition's time: linkerd/linkerd2#11073, #11325, aws/karpenter-provider-aws#1684 with
 * Istio): its sandbox was set up without the plugin, and it stays failed until re-created. The agent there is
 * not ready. Or, the agent ready before the pod, the cluster's own CNI plugin owns the nodes' configuration
 * (src/k8s/cluster-cni.ts: Cilium unless cni.exclusive=false; linkerd/linkerd2#11597). Undefined where none is
 * shown (the mesh's own wording of the exit stays).
 */
function validationCause(m: Model, mesh: MeshName, f: Failing, ctx: StartContext) {
  const p = profileOf(mesh);
  if (!p.cni?.validationInit || f.container !== p.cni.validationInit) return undefined;
  const read = readFailure(p.runtime.failures, f);
  if (read && read.failure.container !== f.container) return undefined;
  const node = str(podSpec(f.pod).nodeName);
  if (!node) return undefined;
  const agent = cniAgentOn(m, mesh, node);
  const st = isObj(f.pod.status) ? f.pod.status : {};
  const started = time(st.startTime) ?? time(f.pod.metadata?.creationTimestamp);
  const what = `${p.title}'s CNI plugin had not set up the pod's traffic redirection when ${f.container} ran${f.exitCode !== undefined ? ` (exit code ${f.exitCode})` : ''}`;
  const meshFix = read ? read.failure.fix(ctx) : [cmd`kubectl delete pod ${ctx.pod} -n ${ctx.namespace}`];
  const agentName = agent ? `${agent.namespace}/${nameOf(agent.pod)}` : undefined;
  if (agent?.ready && agent.readySince && started && started.getTime() < agent.readySince.getTime())
    return {
      cause: `${what}: the pod started on node ${node} at ${iso(started)}, before the CNI node agent there (pod ${agentName} of DaemonSet ${agent.daemonSet}) was ready at ${iso(agent.readySince)}, so its sandbox was set up without the plugin; it stays failed until it is re-created (the agent is ready now)`,
      evidence: {
        node,
        agentPod: agentName!,
        agentReadySince: iso(agent.readySince),
        podStarted: iso(started),
        ...(read ? { source: read.failure.source } : {}),
      },
      fix: meshFix,
    };
  if (agent && !agent.ready)
    return {
      cause: `${what}: the CNI node agent on node ${node} (pod ${agentName} of DaemonSet ${agent.daemonSet}) is not ready (node-agent-incomplete says why)`,
      evidence: { node, agentPod: agentName!, agentReady: false, ...(read ? { source: read.failure.source } : {}) },
      fix: [
        comment`the CNI node agent on node ${node} must be ready first`,
        cmd`kubectl -n ${agent.namespace} describe pod ${nameOf(agent.pod)}`,
        ...meshFix,
      ] as Step[],
    };
  const x = agent?.ready ? exclusiveCni(m) : undefined;
  if (x && agent)
    return {
      cause: `${what}, though the CNI node agent on node ${node} (pod ${agentName}) was ready${agent.readySince && started ? ` before the pod started (${iso(agent.readySince)}, the pod ${iso(started)})` : ''}: ${x.product} is the cluster's CNI plugin (DaemonSet ${x.namespace}/${x.daemonSet}${x.image ? `, ${x.image}` : ''}), and unless ${x.setting} it owns the nodes' CNI configuration directory and removes the configuration ${p.title}'s plugin chains onto it (${x.readFrom} was not read)`,
      evidence: {
        node,
        agentPod: agentName!,
        exclusiveCni: {
          product: x.product,
          daemonSet: `${x.namespace}/${x.daemonSet}`,
          image: x.image ?? null,
          setting: x.setting,
          settingRead: false,
          source: x.source,
        },
      },
      fix: [
        comment`${x.product} must not own the CNI configuration of the nodes alone: set ${x.setting} in the values of its install, below for a Helm release named ${x.helm.release}: use your release name`,
        cmd`helm upgrade ${x.helm.release} ${x.helm.chart} -n ${x.namespace} --reuse-values --set ${x.helm.set}`,
        ...meshFix,
      ] as Step[],
    };
  return undefined;
}

/**
 * The install pulls the mesh's images from the registry the failing image names, with imagePullSecrets that the
 * pod does not name (nor its ServiceAccount, where read): its control-plane workloads say so (their pod
 * templates' imagePullSecrets; kumahq/kuma#10944: the chart's global.imagePullSecrets reaches the control plane,
 * not the pods the injector changes, and imagePullSecrets is a pod field no container patch adds).
 */
function controlPlanePull(m: Model, mesh: MeshName, pod: K8sObject, image: string | undefined) {
  if (!image) return undefined;
  const registry = registryOf(image);
  const spec = podSpec(pod);
  if (Array.isArray(spec.imagePullSecrets) && spec.imagePullSecrets.length) return undefined;
  const ns = nsOf(pod);
  const saName = str(spec.serviceAccountName) ?? 'default';
  const sa = m.has('serviceaccounts')
    ? m.inNamespace('serviceaccounts', ns).find((x) => nameOf(x) === saName)
    : undefined;
  if (sa && Array.isArray(sa.imagePullSecrets) && sa.imagePullSecrets.length) return undefined;
  const cpNamespaces = m.mesh(mesh)?.namespaces ?? [];
  for (const cpNs of cpNamespaces.slice(0, 10)) {
    if (!m.seesNamespace(cpNs)) continue;
    for (const w of m.workloads.filter((x) => x.namespace === cpNs).slice(0, 200)) {
      const t = podSpec(w.template);
      const secrets = (Array.isArray(t.imagePullSecrets) ? t.imagePullSecrets : [])
        .slice(0, 20)
        .map((x: unknown) => (isObj(x) ? (str(x.name) ?? '') : ''))
        .filter(Boolean) as string[];
      if (!secrets.length) continue;
      const same = [...initContainers(t), ...containers(t)].some((c) => {
        const img = str(c.image);
        return img !== undefined && registryOf(img) === registry;
      });
      if (!same) continue;
      return {
        clause: `; the mesh's control plane (${w.kind} ${w.namespace}/${w.name}) pulls from ${registry} with imagePullSecrets ${secrets.join(', ')}, which the pod does not name (nor its ServiceAccount ${saName}${sa ? '' : ', not read'}): the install's pull secrets reach its own workloads, not the pods the mesh injects, whose nodes get the image only where it is cached`,
        evidence: {
          controlPlane: `${w.kind} ${w.namespace}/${w.name}`,
          controlPlaneSecrets: secrets,
          serviceAccount: saName,
        },
        fix: [
          comment`give the pods of namespace ${ns} the credentials of the control plane: a Secret ${secrets[0]!} in namespace ${ns} with the content of Secret ${cpNs}/${secrets[0]!}, of type kubernetes.io/dockerconfigjson, named in the imagePullSecrets of ServiceAccount ${saName}, which the API server copies into every new pod that names none`,
          cmd`kubectl -n ${ns} patch serviceaccount ${saName} -p ${JSON.stringify({ imagePullSecrets: [{ name: secrets[0] }] })}`,
          comment`then re-create the pods`,
        ] as Step[],
      };
    }
  }
  return undefined;
}

/** Twice a memory quantity, in Mi, for a fix that raises a limit (undefined where it does not parse). */
function doubled(q: string | undefined): string | undefined {
  const bytes = q ? parseQuantity(q) : undefined;
  return bytes && bytes > 0 ? `${Math.ceil((bytes * 2) / 1048576)}Mi` : undefined;
}

/**
 * The kernel killed the container for memory (lastState.terminated.reason OOMKilled, exit code 137):
 * it reached its memory limit (or the node ran out). The limit the pod gives it, and where the mesh
 * sets it: the proxy's annotation or settings, the init container's own resources.
 */
function oomCause(m: Model, w: Workload, mesh: MeshName, f: Failing) {
  const p = profileOf(mesh);
  const c = specOf(f.pod, f.container);
  const res = isObj(c?.resources) ? c!.resources : {};
  const limit = isObj(res.limits) ? str(res.limits.memory) : undefined;
  const isProxy = f.container === p.containers.proxy;
  const annotation = isProxy ? p.proxy.resources.annotations['limits.memory'] : undefined;
  const higher = doubled(limit) ?? p.proxy.resources.suggested['limits.memory'];
  const init = !isProxy && f.init ? p.runtime.initResources?.(m) : undefined;
  const fix: Step[] = isProxy
    ? annotation && higher
      ? [
          comment`raise the memory limit of the proxy for this workload, above what it uses under load`,
          ...setOnTemplate(w, 'annotations', annotation, higher),
        ]
      : [
          ...(p.proxy.resources.fix?.(m) ?? [
            comment`raise the memory limit of the proxy in the ${lit(p.title)} settings`,
          ]),
        ]
    : [
        comment`raise the memory limit of ${f.container}: ${lit(init ? `it comes from ${init.from}` : `the ${p.title} injector sets it`)}`,
      ];
  fix.push(cmd`kubectl top pod ${nameOf(f.pod)} -n ${w.namespace} --containers`);
  return {
    cause: `the kernel kills it for memory (${f.reason === 'OOMKilled' ? 'its last termination' : 'OOMKilled'}), ${limit ? `at its memory limit ${limit}` : 'with no memory limit of its own: the node ran out of memory, or a LimitRange default applies'}${isProxy ? '; the app loses its proxy at each kill' : ''}`,
    evidence: { oomKilled: true, memoryLimit: limit ?? null, ...(annotation ? { annotation } : {}) },
    fix,
  };
}

/**
 * A plain init container the kubelet ran again in a running pod (kind rerun). The status says when: its failing run
 * started after the pod's containers. What removed its first run is outside the cluster (a cleanup of exited
 * containers on the node, a restart of the container runtime, a re-made sandbox); the first run's work, the pod's
 * redirection rules, is still in place, which a re-run of an iptables init meets. The app and proxy keep running; a
 * new pod runs the init container once, in a fresh network namespace.
 */
function rerunCause(w: Workload, f: Failing, ctx: StartContext) {
  // Only a line iptables wrote that meshdoctor reads (what a snapshot keeps too): the rest of the message is the log's.
  const msg = readIptables(f.message)?.line;
  const said = msg ? ` (it said: "${printable(msg, 300)}")` : '';
  return {
    cause: `the kubelet ran it again at ${iso(f.rerunAt!)}, after the pod's containers had been running since ${iso(f.runningSince!)}: the record of its first run was removed from the node, by a cleanup of exited containers or a restart of the container runtime, or the pod's sandbox was re-made. The run fails${said}, most likely on the rules its first run already set up in the pod's network namespace. The app and the proxy keep running, but the pod reports its init container failing, and the pod is not Initialized`,
    evidence: {
      containersRunningSince: iso(f.runningSince!),
      rerunAt: iso(f.rerunAt!),
      ...(msg ? { message: printable(msg, 300) } : {}),
    },
    fix: [
      comment`a new pod runs the init container once, in a fresh network namespace`,
      cmd`kubectl delete pod ${ctx.pod} -n ${w.namespace}`,
      comment`on the node, keep cleanups of exited containers away from the containers of running pods, and let the kubelet collect them`,
    ] as Step[],
  };
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
  // A field of the pod's own spec that takes away what this container needs (issue 31, gen10spec: the profile's
  // network.podSpec table): a Linux-only image on a pod asking for another OS, whatever the failure; a resolver that
  // cannot find the control plane or a token not mounted, for a container that runs and fails or is never ready.
  const gap = specCause(m, w, mesh, first);
  if (gap) return { ...gap, role, status, events };
  if (first.kind === 'image') {
    const image = first.image ?? str(specOf(first.pod, first.container)?.image);
    const said = pullMessage(m, group, first);
    // The injector wrote the image from a stored setting the installed release cannot use (src/facts/stored-values.ts):
    // that is the cause, whatever the registry answers for the image.
    const stored = storedImage(m, mesh, first.container, image);
    const why = stored ? undefined : pullCause(said, first.pod, image, injectedNames(p));
    // Credentials: what the text said, or nothing it could say (a back-off only), and the install's own secrets.
    const cp = !stored && (!why || why.auth) ? controlPlanePull(m, mesh, first.pod, image) : undefined;
    const from = stored
      ? `: the injector wrote it from ${stored.configMap ? `ConfigMap ${stored.configMap} key ${stored.rule.key ?? ''}, ${stored.rule.path}: ${stored.value}` : `its setting ${stored.rule.path}${stored.rule.helm ? ` (Helm value ${stored.rule.helm})` : ''}, ${stored.value}`}, which ${stored.release} cannot use: it needs ${stored.rule.expects}`
      : '';
    return {
      cause: `the node cannot pull its image ${image ?? '(not reported)'}${why ? `: ${why.cause}` : ''}${cp?.clause ?? ''}${from}${said ? ` (the kubelet said: "${printable(said, 300)}")` : "; the kubelet's message was not kept"}`,
      evidence: {
        image: image ?? null,
        ...(stored
          ? {
              storedValue: `${stored.configMap ? `ConfigMap ${stored.configMap} ${stored.rule.key ?? ''} ` : ''}${stored.rule.path}: ${stored.value}`,
              release: stored.release,
              expects: stored.rule.expects,
              source: stored.rule.source,
            }
          : {}),
        ...(said ? { message: printable(said, 300) } : {}),
        ...(why ? why.evidence : {}),
        ...(cp ? cp.evidence : {}),
      },
      fix: [
        ...(stored
          ? [
              comment`correct ${lit(stored.rule.helm ?? stored.rule.path)} in the values the control plane is installed with, install again, then re-create the pods`,
            ]
          : []),
        ...(cp?.fix ?? why?.fix ?? []),
        ...p.runtime.image(cpNs),
        cmd`kubectl describe pod ${ctx.pod} -n ${w.namespace}`,
      ] as Step[],
      role,
      status,
      events,
    };
  }
  if (first.oom) {
    const o = oomCause(m, w, mesh, first);
    return { ...o, role, status, events };
  }
  if (first.probes?.kills && (first.kind === 'probe' || first.kind === 'crash'))
    return { ...probeCause(w, mesh, first, ctx), role, status, events };
  if (first.kind === 'unready') return { ...unreadyCause(m, w, mesh, first, ctx), role, status, events };
  if (first.kind === 'waiting') return { ...waitingCause(w, first, ctx), role, status, events };
  if (first.kind === 'held') return { ...heldCause(m, w, mesh, first, ctx), role, status, events };
  if (first.kind === 'rerun') return { ...rerunCause(w, first, ctx), role, status, events };
  const node = nodeOf(m, first.pod);
  if (first.kind === 'config') {
    const said = first.message ?? (events?.reason === 'Failed' ? events.message : undefined);
    const refusal = said ? nonRootRefusal(said) : undefined;
    const gap = refusal ? nonRootCause(m, w, mesh, first, refusal, cpNs) : undefined;
    if (gap) return { ...gap, role, status, events };
    const profile = said ? profileCause(w, first, said) : undefined;
    if (profile) return { ...profile, role, status, events };
    return {
      cause: said
        ? `the kubelet cannot create it, for a reason meshdoctor does not know: "${printable(said, 300)}"`
        : `the kubelet cannot create it (${first.reason}), for a reason meshdoctor does not know; its message was not kept`,
      evidence: said ? { message: printable(said, 300) } : {},
      fix: [
        comment`the events of the pod say why the kubelet cannot create the container`,
        cmd`kubectl describe pod ${ctx.pod} -n ${w.namespace}`,
      ] as Step[],
      role,
      status,
      events,
    };
  }
  // The mesh's CNI plugin runs standalone for Multus, and this pod does not name its attachment (issue 31).
  const unrequested = first.container === p.cni?.validationInit ? multusUnrequested(m, w, mesh, first.pod) : undefined;
  if (unrequested) return { ...unrequested, role, status, events };
  const unset = first.kind === 'crash' ? validationCause(m, mesh, first, ctx) : undefined;
  if (unset) return { ...unset, role, status, events };
  // A known bug of the release that injected it, whose symptom this container shows (the release tables' bugs).
  const bug = bugsShown(m).find(
    (b) =>
      b.mesh === mesh &&
      b.workload === w &&
      b.bug.symptom.on === 'pod' &&
      b.bug.symptom.container === first.container &&
      b.pods.includes(nameOf(first.pod)),
  );
  if (bug)
    return {
      cause: `a known bug of ${agentOf(p, bug.bug)} ${bug.version.version}, ${bug.bug.id}: ${bug.bug.text} (${bug.seen}); fixed in ${agentOf(p, bug.bug)} ${bug.bug.fixedIn}`,
      evidence: {
        knownBug: { bug: bug.bug.id, version: bug.version, fixedIn: bug.bug.fixedIn, source: bug.bug.source },
      },
      fix: [
        comment`upgrade the ${p.title} control plane to ${bug.bug.fixedIn} or later, which fixes ${bug.bug.id}`,
        ...recreateAll([w]),
      ] as Step[],
      role,
      status,
      events,
    };
  // A feature its command uses that the companion image the pod runs is too old for (the release tables' needs).
  const short = companionShortfalls(p, first.pod, first.container);
  if (short.length) return { ...companionCause(w, short), role, status, events };
  // A proxy release the companion it runs beside does not support (the release tables' pairs: Consul and Envoy).
  const pair = pairingGap(p, first.pod, first.container);
  if (pair) return { ...pairingCause(w, pair), role, status, events };
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
  if (first.kind === 'stuck') return { ...stuckCause(m, w, mesh, first, ctx), role, status, events };
  // The ServiceAccount token file it reads, which the pod does not mount (issue 31: why a mesh container cannot run).
  const token = tokenCause(w, first);
  if (token) return { ...token, role, status, events };
  const read = readFailure(p.runtime.failures, first);
  const gaps = grantGaps(m, w, mesh, first);
  if (gaps)
    return {
      cause: gaps.cause,
      evidence: {
        ...gaps.evidence,
        ...(read?.line ? { line: printable(read.line, 512) } : {}),
        ...(node ? { node } : {}),
      },
      fix: gaps.fix,
      role,
      status,
      events,
    };
  // What iptables itself says the node refused, where no line of the mesh's own says more (issue 31).
  const ipt = read?.line ? undefined : readIptables(first.message);
  if (ipt) return { ...iptablesFailure(m, mesh, first, ipt, node, cpNs), role, status, events };
  if (read) {
    // A failure the node decides, on a node whose OS enforces SELinux by default, of a container
    // that is not privileged: SELinux refusing its iptables calls is the other cause the status
    // cannot tell from the kernel's (istio/istio#12948 SELinux, #44118 kernel modules, both RHEL-family).
    const spec = specOf(first.pod, first.container);
    const privileged = isObj(spec?.securityContext) && spec!.securityContext.privileged === true;
    const selinux =
      read.failure.node &&
      node &&
      !privileged &&
      p.runtime.privileged &&
      // A line that names the kernel's own failure (nft, a missing table) is that failure.
      (!read.line || /Permission denied/.test(read.line)) &&
      SELINUX_OS.test(node.osImage ?? '');
    return {
      cause: `${read.failure.cause}${read.failure.node && node ? ` (node ${nodeText(node)})` : ''}${
        selinux
          ? `; or SELinux, which this node image enforces by default, refuses the unprivileged ${first.container} loading the kernel modules its iptables rules need (module_request) or its iptables calls: with the modules loaded on the node at boot it loads none, and privileged it may`
          : ''
      }`,
      evidence: {
        source: read.failure.source,
        ...(read.line ? { line: printable(read.line, 512) } : {}),
        ...(read.failure.node && node ? { node } : {}),
        ...(selinux ? { selinux: 'node OS enforces SELinux by default; container not privileged' } : {}),
      },
      fix: selinux
        ? [...read.failure.fix(ctx), ...SELINUX_MODULES, ...p.runtime.privileged!(cpNs)]
        : read.failure.fix(ctx),
      role,
      status,
      events,
    };
  }
  const quoted = first.message?.trim() ? printable(first.message.trim().split(/\r?\n/).pop()!, 300) : undefined;
  // The proxy's image or version is pinned by a pod template annotation to another release than the injector's
  // (the profile's versions.pins): the injector renders its arguments and configuration for its own release.
  const pin = first.container === p.containers.proxy ? pinnedProxy(m, w, mesh, first.pod) : undefined;
  if (pin && pin.order !== 0) return { ...pinCause(w, mesh, first, pin, quoted), role, status, events };
  // What the node offers against what the init container runs (issue 31): nothing in its message says why, its node
  // image runs iptables on nf_tables only and its release runs iptables-legacy only.
  const backend = first.init ? backendGap(m, mesh, first, node, cpNs) : undefined;
  if (backend) return { ...backend, role, status, events };
  return {
    cause: `${first.kind === 'exited' ? `it exited and the pod does not restart it (restartPolicy ${str(podSpec(first.pod).restartPolicy) ?? 'Always'})` : 'it keeps failing'}${first.exitCode !== undefined ? ` with exit code ${first.exitCode}` : ''}, for a reason meshdoctor does not know${quoted ? `; its termination message ends "${quoted}"` : ''}`,
    evidence: { ...(quoted ? { message: quoted } : {}), ...(node ? { node } : {}) },
    fix: [
      ...(first.kind === 'exited'
        ? [comment`its log says why`, cmd`kubectl logs ${ctx.pod} -n ${w.namespace} -c ${first.container}`]
        : [
            comment`its previous log says why`,
            cmd`kubectl logs ${ctx.pod} -n ${w.namespace} -c ${first.container} --previous`,
          ]),
    ] as Step[],
    role,
    status,
    events,
  };
}

/**
 * A proxy a pod template annotation pins (Istio's sidecar.istio.io/proxyImage, Linkerd's
 * config.linkerd.io/proxy-version: the profile's versions.pins) to another image than its injector's release
 * injects, failing for no reason meshdoctor reads: the injector renders the proxy's arguments and configuration
 * for its own release, which a proxy of another release may not understand (istio/istio#8842, #11295). A restart
 * keeps the pin; the fix removes it. Where both read as versions, how far apart they are, by the mesh's skew.
 */
function pinCause(w: Workload, mesh: MeshName, f: Failing, pin: PinnedProxy, quoted: string | undefined) {
  const p = profileOf(mesh);
  const pins = pin.pins.map((x) => `${x.key}: ${x.value}`).join(', ');
  const skew = p.versions?.skew;
  const apart =
    pin.order === undefined || !pin.runs || !pin.injects
      ? pin.runs
        ? ''
        : `; its tag is not a ${p.title} version meshdoctor can compare`
      : `; ${pin.runs.version} is ${pin.releases !== undefined ? `${plural(pin.releases, 'release')} ` : ''}${pin.order < 0 ? 'older' : 'newer'} than ${pin.injects.version}${skew ? ` (${skew.text})` : ''}`;
  const injected = pin.injects
    ? `the ${pin.injects.version} its injector ${pin.injector ? `${pin.injector.namespace}/${pin.injector.name} ` : ''}injects now (${pin.injects.from})`
    : 'the proxy of its injector release';
  return {
    cause: `its proxy is pinned by the pod template annotation ${pins}, so it runs ${pin.image ?? 'that image'} and not ${injected}: the injector renders the proxy arguments and configuration for its own release, which a proxy of another release may not understand${apart}; it keeps failing${f.exitCode !== undefined ? ` with exit code ${f.exitCode}` : ''}${quoted ? `, its termination message ends "${quoted}"` : ''}`,
    evidence: {
      pins: pin.pins,
      ...(pin.image ? { image: pin.image } : {}),
      ...(pin.runs ? { runs: pin.runs } : {}),
      ...(pin.injects ? { injects: pin.injects } : {}),
      ...(pin.releases !== undefined ? { releasesApart: pin.releases } : {}),
      ...(skew
        ? {
            supportedSkew: {
              releases: skew.releases,
              ...(skew.ahead !== undefined ? { ahead: skew.ahead } : {}),
              source: skew.source,
            },
          }
        : {}),
      ...(quoted ? { message: quoted } : {}),
    },
    fix: [
      comment`remove the pin so that the injector injects the proxy of its own release, or pin an image of that release`,
      ...pin.pins.flatMap((x) => removeFromTemplate(w, 'annotations', x.key)),
    ] as Step[],
  };
}

/**
 * It cannot read the ServiceAccount token file, which the pod does not mount: its termination message names the file
 * client-go reads (src/k8s/sa-token.ts) as missing, the pod sets automountServiceAccountToken: false and the container
 * mounts nothing of its own there. A data plane that authenticates to its control plane with that token, or an init
 * container logging in with it, cannot start. A pod that leaves the field unset is not judged: its ServiceAccount
 * decides, and the message is quoted as for any other failure.
 */
/** The failures a resolver or a missing token explain: the container started and fails, or never becomes ready. */
const RUNS_AND_FAILS = new Set<Failing['kind']>(['crash', 'unready', 'stuck', 'probe', 'exited']);

/** The pod spec field that explains this failure (src/facts/pod-needs.ts), with the container's own words where kept. */
function specCause(m: Model, w: Workload, mesh: MeshName, f: Failing) {
  const gaps = podGaps(m, mesh, w, f.pod);
  const gap =
    gaps.find((g) => g.kind === 'os') ??
    (RUNS_AND_FAILS.has(f.kind) ? gaps.find((g) => g.kind !== 'os' && g.container === f.container) : undefined);
  if (!gap) return undefined;
  const line =
    gap.kind === 'token'
      ? f.message?.split(/\r?\n/).find((l) => SA_TOKEN_LINE.test(l))
      : gap.kind === 'os' && f.message && /platform|manifest|exec format/i.test(f.message)
        ? f.message
        : undefined;
  const said = line ? printable(line.trim(), 300) : undefined;
  return {
    cause: `${gap.cause}${said ? ` (${gap.kind === 'os' ? 'the kubelet' : 'it'} said: "${said}")` : ''}`,
    evidence: { podSpecField: gap.field, ...gap.evidence, ...(said ? { line: said } : {}) },
    fix: gap.fix,
  };
}

function tokenCause(w: Workload, f: Failing) {
  const line = f.message?.split(/\r?\n/).find((l) => SA_TOKEN_LINE.test(l));
  if (!line || !tokenUnmounted(podSpec(f.pod), specOf(f.pod, f.container))) return undefined;
  const said = printable(line.trim(), 300);
  return {
    cause: `it cannot read the ServiceAccount token it needs, because the pod sets automountServiceAccountToken: false, so the API server mounts no token at ${SA_TOKEN_DIR}, and ${f.container} mounts none of its own there (it said: "${said}")`,
    evidence: { automountServiceAccountToken: { podTemplate: false }, line: said },
    fix: [
      comment`mount the token again: a policy that turns it off for the app containers must leave it on for meshed pods`,
      ...setOnTemplateSpec(w, { automountServiceAccountToken: true }),
    ] as Step[],
  };
}

/** The probe a kubelet event names ("Liveness probe failed: ..."), in lower case. */
const probeKind = (message: string | undefined) =>
  /^(Readiness|Liveness|Startup) probe failed/.exec(message ?? '')?.[1]?.toLowerCase();

/**
 * The kubelet kills the container for a failed liveness or startup probe (its Killing events, "Container %s failed
 * %s probe, will be restarted": kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go), and the probe's own
 * failure (Unhealthy, "%s probe failed: %s": pkg/kubelet/prober/prober.go), quoted: why it did not answer is not in the
 * cluster's state (linkerd/linkerd2#2585: the proxy's admin endpoint stopped answering under load).
 */
function probeCause(w: Workload, mesh: MeshName, f: Failing, ctx: StartContext) {
  const p = profileOf(mesh);
  const seen = f.probes!;
  const kind = probeKind(seen.failed?.message) ?? 'liveness or startup';
  const isProxy = f.container === p.containers.proxy;
  return {
    cause: `the kubelet kills it because its ${kind} probe fails (${plural(seen.kills, 'kill')} in the events read)${
      seen.failed ? `: the kubelet said "${seen.failed.message}"` : ''
    }${isProxy ? '; the app loses its proxy at each kill' : ''}; why it did not answer in time is not in the cluster's state, so meshdoctor does not know it (a container starved of CPU or memory answers late)`,
    evidence: {
      killedByProbe: seen.kills,
      ...(seen.failed ? { probeFailed: seen.failed.message, probeFailures: seen.failed.count } : {}),
    },
    fix: [
      comment`its log before the last kill says why it stopped answering its probe`,
      cmd`kubectl logs ${ctx.pod} -n ${w.namespace} -c ${f.container} --previous`,
      comment`what it used against its requests and limits`,
      cmd`kubectl top pod ${ctx.pod} -n ${w.namespace} --containers`,
    ] as Step[],
  };
}

/** A time as a duration in minutes or hours, for a message. */
const sinceText = (ms: number) =>
  ms >= 2 * 3_600_000 ? `${Math.floor(ms / 3_600_000)} hours` : `${Math.max(1, Math.floor(ms / 60_000))} minutes`;

/**
 * The container runs but is not ready, NOT_READY_MS after its last start: the kubelet's readiness probe failure is
 * quoted where its events were read (issue 31: a mesh container visibly unhappy ends in a finding that quotes it).
 */
function unreadyCause(m: Model, w: Workload, mesh: MeshName, f: Failing, ctx: StartContext) {
  const since = f.runningSince!;
  const u = f.probes?.unready ?? f.probes?.failed;
  const said = warningsClause(m, f.pod, mesh);
  return {
    cause: `it has run for ${sinceText(m.now.getTime() - since.getTime())} since its last start (${iso(since)}) and is not ready${
      said.meant ? `: ${said.meant}` : ', for a reason meshdoctor does not know'
    }${
      u
        ? `; the kubelet said "${u.message}"${u.count > 1 ? ` (${u.count} times)` : ''}`
        : m.has('events')
          ? '; no probe failure of it was in the events read'
          : '; events were not read'
    }${said.text}`,
    evidence: {
      runningSince: iso(since),
      ...(u ? { probeFailed: u.message, probeFailures: u.count } : {}),
      ...(said.warnings.length ? { warnings: said.warnings } : {}),
    },
    fix: [
      comment`its log says why it is not ready, often a control plane it cannot reach`,
      cmd`kubectl logs ${ctx.pod} -n ${w.namespace} -c ${f.container}`,
      cmd`kubectl describe pod ${ctx.pod} -n ${w.namespace}`,
    ] as Step[],
  };
}

/** A plain init container of the mesh still running NOT_READY_MS after it started: the pod stays in Init, the app never starts. */
function stuckCause(m: Model, w: Workload, mesh: MeshName, f: Failing, ctx: StartContext) {
  const since = f.runningSince!;
  const said = warningsClause(m, f.pod, mesh);
  return {
    cause: `it has run for ${sinceText(m.now.getTime() - since.getTime())} (since ${iso(since)}) and not exited, so the containers after it never start${
      said.meant ? `: ${said.meant}` : ', for a reason meshdoctor does not know'
    }${said.text}`,
    evidence: { runningSince: iso(since), ...(said.warnings.length ? { warnings: said.warnings } : {}) },
    fix: [
      comment`its log says what it waits for`,
      cmd`kubectl logs ${ctx.pod} -n ${w.namespace} -c ${f.container}`,
    ] as Step[],
  };
}

/**
 * Held before it starts (ContainerCreating, PodInitializing) NOT_READY_MS after the pod was created, and the Warning
 * events about the pod say what holds it (issue 31: evidence read whole): the kubelet cannot mount a volume this
 * container mounts (a ConfigMap or Secret the mesh's control plane writes into the namespace, a token it projects), or
 * a mesh controller's warning. Quoted as the cluster said it; what to change follows from the object it names.
 */
function heldCause(m: Model, w: Workload, mesh: MeshName, f: Failing, ctx: StartContext) {
  if (f.reason === 'Unschedulable') return unplacedCause(w, mesh, f, ctx);
  const said = warningsClause(m, f.pod, mesh, f.warnings);
  return {
    cause: `the pod is held before its containers start${said.meant ? `: ${said.meant}` : ''}${said.text}`,
    evidence: { warnings: said.warnings },
    fix: [
      comment`the object the events name must exist in the namespace of the pod, then the kubelet retries by itself`,
      cmd`kubectl get events -n ${w.namespace} --field-selector ${`involvedObject.name=${ctx.pod}`}`,
      cmd`kubectl describe pod ${ctx.pod} -n ${w.namespace}`,
    ] as Step[],
  };
}

/**
 * The scheduler has not placed the pod: its words quoted, with what the mesh's containers request (they count in the
 * pod's requests: the largest init container or the sum of the others, kubernetes pkg/api/v1/resource); whether the
 * pod would fit without them meshdoctor does not decide (it does not read what the nodes have free).
 */
function unplacedCause(w: Workload, mesh: MeshName, f: Failing, ctx: StartContext) {
  const names = injectedNames(profileOf(mesh));
  const spec = podSpec(f.pod);
  const asks = [...initContainers(spec), ...containers(spec)]
    .filter((c) => names.includes(str(c.name) ?? ''))
    .flatMap((c) => {
      const req = isObj(c.resources) && isObj(c.resources.requests) ? c.resources.requests : {};
      const parts = ['cpu', 'memory'].flatMap((k) => (str(req[k]) ? [`${k} ${str(req[k])}`] : []));
      return parts.length ? [`${str(c.name)} requests ${parts.join(', ')}`] : [];
    });
  const said = printable(f.message ?? '', 400);
  return {
    cause: `the scheduler has not placed the pod${said ? `: "${said}"` : ''}; ${
      asks.length
        ? `the containers ${meshTitle(mesh)} injected add to its requests (${asks.join('; ')})`
        : `the containers ${meshTitle(mesh)} injected request nothing of their own`
    }, whether it would fit without them is not decided here`,
    evidence: { unschedulable: said, ...(asks.length ? { meshRequests: asks } : {}) },
    fix: [
      comment`the scheduler says which nodes it tried and why each does not fit`,
      cmd`kubectl describe pod ${ctx.pod} -n ${w.namespace}`,
    ] as Step[],
  };
}

/**
 * Another waiting reason the kubelet gives (a reason of a newer kubelet, Blocked, ContainerStatusUnknown, ...): its
 * message quoted, else the pod's own status reason and message, which only the kubelet writes (an AppArmor profile it
 * cannot enforce: "Cannot enforce AppArmor: profile ... is not loaded").
 */
function waitingCause(w: Workload, f: Failing, ctx: StartContext) {
  const st = isObj(f.pod.status) ? f.pod.status : {};
  const podSaid = str(st.message) ? `${str(st.reason) ? `${str(st.reason)}: ` : ''}${str(st.message)}` : undefined;
  const said = f.message?.trim() || podSaid;
  return {
    cause: `the kubelet holds it in ${f.reason}, for a reason meshdoctor does not know${
      said ? `: "${printable(said, 300)}"` : '; its message was not kept'
    }`,
    evidence: said ? { message: printable(said, 300) } : {},
    fix: [
      comment`the events of the pod say why the kubelet does not start the container`,
      cmd`kubectl describe pod ${ctx.pod} -n ${w.namespace}`,
    ] as Step[],
  };
}

/**
 * The container runtime cannot apply the seccomp or AppArmor profile the container runs under (containerd's CRI:
 * "cannot load seccomp profile %q: %v" when a Localhost profile is not on the node; "apparmor profile not found";
 * the kubelet's "Cannot enforce AppArmor"): the profile and where it is set. The kubelet gives a container without a
 * seccompProfile of its own the pod's (kubernetes pkg/kubelet/kuberuntime/helpers.go), so a mesh container the
 * injector wrote without one runs under the pod's Localhost profile, whose file must exist on every node.
 */
function profileCause(w: Workload, f: Failing, said: string) {
  const text = said.slice(0, 2048);
  const which = /seccomp/i.test(text) ? 'seccomp' : /apparmor/i.test(text) ? 'AppArmor' : undefined;
  if (!which) return undefined;
  const c = specOf(f.pod, f.container);
  const own =
    isObj(c?.securityContext) && isObj(c!.securityContext.seccompProfile)
      ? c!.securityContext.seccompProfile
      : undefined;
  const pod = podSpec(f.pod);
  const podProfile =
    isObj(pod.securityContext) && isObj(pod.securityContext.seccompProfile)
      ? pod.securityContext.seccompProfile
      : undefined;
  const set = which === 'seccomp' ? (own ? 'container' : podProfile ? 'pod' : undefined) : undefined;
  const type = set === 'container' ? str(own!.type) : set === 'pod' ? str(podProfile!.type) : undefined;
  const where =
    set === 'pod'
      ? `; its seccompProfile (type ${type ?? 'not kept'}) is set in the pod's securityContext, and ${f.container} sets none of its own, so the pod's applies to it`
      : set === 'container'
        ? `; its seccompProfile (type ${type ?? 'not kept'}) is set in the securityContext of ${f.container}`
        : '';
  return {
    cause: `the container runtime of the node cannot apply the ${which} profile it runs under${where} (the kubelet said: "${printable(text, 300)}")`,
    evidence: { profile: which, ...(set ? { setIn: set, type: type ?? null } : {}), message: printable(text, 300) },
    fix: [
      which === 'seccomp'
        ? comment`a Localhost seccomp profile must exist on every node under the seccomp directory of the kubelet, /var/lib/kubelet/seccomp, or the pod must use RuntimeDefault: a profile of the app set on the pod applies to the containers of the mesh too, so set it on the app containers instead`
        : comment`the AppArmor profile must be loaded on every node that runs the pod, or the containers of the mesh must run under runtime/default`,
      cmd`kubectl edit ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace}`,
    ] as Step[],
  };
}

/**
 * The injected container uses a feature (a flag, a subcommand of its command line) that the companion
 * image the pod runs (consul-k8s 0.x: the Consul binary) is too old for: the release tables' `needs`
 * (src/mesh/<mesh>/releases.ts), with their source.
 */
function companionCause(w: Workload, short: CompanionShortfall[]) {
  return {
    cause: short
      .map(
        (s) =>
          `its command uses ${s.need.feature} (${s.need.command}), which ${s.need.companion.title} before ${s.need.companion.min} does not have, and the ${s.need.companion.title} it runs is ${s.companion.version} (${s.companion.from})`,
      )
      .join('; '),
    evidence: {
      needs: short.map((s) => ({
        feature: s.need.feature,
        command: s.need.command,
        companion: s.companion,
        needs: `${s.need.companion.title} ${s.need.companion.min}`,
        source: s.need.source,
      })),
    },
    fix: [
      ...short.map(
        (s) =>
          comment`${s.need.feature} needs ${s.need.companion.title} ${s.need.companion.min} or later: set ${s.need.companion.setting} to such an image, or turn ${s.need.feature} off with ${s.need.off}`,
      ),
      ...recreateAll([w]),
    ] as Step[],
  };
}

/**
 * The proxy runs a release the companion beside it does not support (consul-k8s 0.x: the Envoy image of
 * global.imageEnvoy with the Consul binary of global.image), by the mesh's own table (the release tables'
 * `pairs`, src/mesh/<mesh>/releases.ts), with its source.
 */
function pairingCause(w: Workload, g: PairingGap) {
  const { proxy: px, companion: cx } = g.pairing;
  const list = g.supported.map((v) => `${v}.x`).join(', ');
  return {
    cause: `it runs ${px.title} ${g.proxy.version} (${g.proxy.from}) beside ${cx.title} ${g.companion.version} (${g.companion.from}), and ${cx.title} ${minorOf(g.companion.version)} supports only ${px.title} ${list}${g.withFlag ? ` (${px.title} ${minorOf(g.proxy.version)} only with ${g.withFlag}, which no injected command passes)` : ''}: this ${px.title} release does not work with it`,
    evidence: {
      proxy: g.proxy,
      companion: g.companion,
      supported: g.supported,
      ...(g.withFlag ? { onlyWith: g.withFlag } : {}),
      source: g.pairing.source,
    },
    fix: [
      comment`set ${px.setting} to an ${px.title} image of ${list}, the releases ${cx.title} ${minorOf(g.companion.version)} supports, or set ${cx.setting} to a ${cx.title} release that supports ${px.title} ${minorOf(g.proxy.version)}`,
      ...recreateAll([w]),
    ] as Step[],
  };
}

const minorOf = (v: string) => /^v?(\d+\.\d+)/.exec(v)?.[1] ?? v;

/**
 * The mesh's CNI plugin is installed standalone for Multus (not chained onto the cluster's own plugin),
 * so Multus runs it only for pods whose k8s.v1.cni.cncf.io/networks annotation names its
 * NetworkAttachmentDefinition; a pod naming none gets no redirection, and its validation container
 * fails (istio/istio#48734: the injector, told the plugin is chained, never added the annotation).
 */
function multusUnrequested(m: Model, w: Workload, mesh: MeshName, pod: K8sObject) {
  const p = profileOf(mesh);
  const cni = p.cni;
  if (!cni?.multus || !cni.attachment) return undefined;
  const st = cni.multus.standalone(m);
  if (!st?.standalone) return undefined;
  const ns = str(pod.metadata?.namespace) ?? '';
  const value = isObj(pod.metadata?.annotations) ? str(pod.metadata.annotations[NETWORKS]) : undefined;
  const named = namedAttachments(value, ns);
  const att = cni.attachment.name;
  if (named.some((a) => a.name === att)) return undefined;
  const ann = cni.multus.annotates?.(m, w);
  const injector = ann
    ? ann.annotates
      ? `; the injector adds it (${ann.from}), so something after it removed the annotation, or the pod was injected before`
      : `; the injector does not add it (${ann.from}): ${cni.multus.setting}`
    : `; ${cni.multus.setting}`;
  return {
    cause: `the ${p.title} CNI plugin runs standalone for Multus (${st.from}), so Multus runs it only for pods whose ${NETWORKS} annotation names NetworkAttachmentDefinition ${att}, and this pod names ${named.length ? `only ${named.map((a) => `${a.namespace}/${a.name}`).join(', ')}` : 'none'}: nothing set up its traffic redirection${injector}`,
    evidence: {
      standalone: st.from,
      attachment: att,
      podNetworks: value === undefined ? null : printable(value, 300),
      ...(ann ? { injector: ann.from } : {}),
      source: cni.multus.source,
    },
    fix: [
      comment`make the injected pods name NetworkAttachmentDefinition ${att}: ${lit(cni.multus.setting)}, or install the plugin chained onto the cluster CNI plugin`,
      ...recreateAll([w]),
    ] as Step[],
  };
}

/**
 * The node refused an injected container's iptables, as iptables says it in the container's termination message
 * (src/mesh/iptables.ts): the table, backend or extension the node's kernel does not offer, root, or a refusal. The
 * fix: the mesh's setting for the other backend where one fits (Linkerd's proxyInit.iptablesMode), the modules
 * loaded at boot, the mesh's CNI plugin (then no init container runs iptables), and on an SELinux node image for a
 * refusal, the modules and the mesh's privileged setting.
 */
function iptablesFailure(
  m: Model,
  mesh: MeshName,
  f: Failing,
  ipt: NonNullable<ReturnType<typeof readIptables>>,
  node: ReturnType<typeof nodeOf>,
  cpNs: string,
) {
  const p = profileOf(mesh);
  const t = ipt.trouble;
  const spec = specOf(f.pod, f.container);
  const privileged = isObj(spec?.securityContext) && spec!.securityContext.privileged === true;
  const selinux =
    t.kind === 'denied' && !!node && !privileged && !!p.runtime.privileged && SELINUX_OS.test(node.osImage ?? '');
  const to =
    t.kind === 'nft-unsupported' || (t.kind === 'table-missing' && t.backend === 'nf_tables')
      ? ('legacy' as const)
      : t.kind === 'table-missing' && t.backend === 'legacy'
        ? ('nf_tables' as const)
        : undefined;
  const modules =
    t.kind === 'table-missing'
      ? t.backend === 'nf_tables'
        ? 'nf_tables and nft_chain_nat'
        : `${t.family === 'IPv6' ? 'ip6table' : 'iptable'}_${t.table ?? 'nat'}`
      : t.kind === 'extension-missing'
        ? 'xt_REDIRECT, xt_owner and xt_multiport'
        : undefined;
  const cni = p.cni && !p.cni.enabled(m)?.enabled ? p.cni : undefined;
  const fix: Step[] = [
    ...(t.kind === 'chain-exists'
      ? [
          comment`a new pod runs it once, in a fresh network namespace`,
          cmd`kubectl delete pod ${nameOf(f.pod)} -n ${nsOf(f.pod)}`,
        ]
      : []),
    ...(to && p.runtime.iptablesBackend ? p.runtime.iptablesBackend(to, cpNs) : []),
    ...(modules
      ? [
          comment`or load ${lit(modules)} on each node at boot, one per line in a file under /etc/modules-load.d, then reboot or modprobe them`,
        ]
      : []),
    ...(selinux ? [...SELINUX_MODULES, ...p.runtime.privileged!(cpNs)] : []),
    ...(cni
      ? [
          comment`or install the CNI plugin of ${lit(p.title)}, so that no init container programs iptables`,
          ...cni.install(cpNs),
        ]
      : []),
  ];
  const eperm = t.kind === 'not-root' ? refusedAsRoot(f) : undefined;
  return {
    cause: `iptables says "${printable(ipt.line.trim().replace(/(?:\\n)+"?$/, ''), 300)}": ${eperm?.cause ?? iptablesCause(t)}${node ? ` (node ${nodeText(node)})` : ''}${
      selinux
        ? `; this node image enforces SELinux by default, which refuses the unprivileged ${f.container} loading the kernel modules its iptables rules need (module_request)`
        : ''
    }`,
    evidence: {
      line: printable(ipt.line, 512),
      iptables: { ...t },
      ...(eperm ? { runsAsRoot: eperm.evidence } : {}),
      source: 'netfilter iptables 1.6/1.8 messages (src/mesh/iptables.ts)',
      ...(node ? { node } : {}),
    },
    fix: fix.length
      ? fix
      : ([
          comment`its previous log says which iptables call failed`,
          cmd`kubectl logs ${str(f.pod.metadata?.name) ?? ''} -n ${nsOf(f.pod)} -c ${f.container} --previous`,
        ] as Step[]),
  };
}

/**
 * An iptables init container that keeps failing with no message that says why, on a node whose OS image runs
 * iptables on nf_tables only (src/mesh/node-images.ts), of a release that runs iptables-legacy only (the profile's
 * runtime.initBackend, from its image): the legacy nat table it needs is not there unless the node loads its modules.
 * Worded as what the evidence shows: the node's image and the release's backend, not the container's own words.
 * The fix: the release's setting or the upgrade that switches the backend, the modules at boot, the mesh's CNI plugin.
 */
function backendGap(m: Model, mesh: MeshName, f: Failing, node: ReturnType<typeof nodeOf>, cpNs: string) {
  const p = profileOf(mesh);
  if (!node || !p.containers.init.includes(f.container)) return undefined;
  const image = nftOnlyImage(node.osImage);
  const runs = image ? p.runtime.initBackend?.(f.pod, f.container) : undefined;
  if (!image || !runs) return undefined;
  const cni = p.cni && !p.cni.enabled(m)?.enabled ? p.cni : undefined;
  return {
    cause: `it keeps failing${f.exitCode !== undefined ? ` with exit code ${f.exitCode}` : ''} and its message does not say why; what the cluster shows is a mismatch: its node runs ${image.name} (node ${nodeText(node)}), whose iptables uses nf_tables and which does not load the legacy iptables modules by default, and ${f.container} ${runs.release} runs ${runs.runs}, which finds no legacy nat table there unless the node loads iptable_nat`,
    evidence: {
      node,
      nodeImage: { family: image.name, source: image.source },
      backend: { release: runs.release, runs: runs.runs, source: runs.source },
    },
    fix: [
      ...runs.fix(cpNs),
      comment`or load ${lit('ip_tables, iptable_nat and xt_REDIRECT')} on each node at boot, one per line in a file under /etc/modules-load.d, then reboot or modprobe them`,
      ...(cni
        ? [
            comment`or install the CNI plugin of ${lit(p.title)}, so that no init container programs iptables`,
            ...cni.install(cpNs),
          ]
        : []),
      comment`its previous log says which iptables call failed`,
      cmd`kubectl logs ${nameOf(f.pod)} -n ${nsOf(f.pod)} -c ${f.container} --previous`,
    ] as Step[],
  };
}

/**
 * iptables words the kernel's EPERM as "Permission denied (you must be root)" (libiptc iptc_strerror; nft.c alike), but
 * a container that runs as root (runAsUser 0 or privileged, as the pod grants it) gets EPERM from something else: the
 * seccomp profile it runs under (SCMP_ACT_ERRNO answers EPERM), AppArmor, the pod's user namespace (hostUsers: false),
 * or capabilities the runtime withholds. Undefined where the container does not visibly run as root (then the words
 * say what they say).
 */
function refusedAsRoot(f: Failing) {
  const c = specOf(f.pod, f.container);
  if (!c) return undefined;
  const spec = podSpec(f.pod);
  const has = effectiveSecurity(spec, c);
  if (!has.privileged && has.runAsUser?.value !== 0) return undefined;
  const own =
    isObj(c.securityContext) && isObj(c.securityContext.seccompProfile)
      ? str(c.securityContext.seccompProfile.type)
      : undefined;
  const pod =
    isObj(spec.securityContext) && isObj(spec.securityContext.seccompProfile)
      ? str(spec.securityContext.seccompProfile.type)
      : undefined;
  const seccomp = own
    ? `seccompProfile ${own} in the securityContext of ${f.container}`
    : pod
      ? `seccompProfile ${pod} in the pod's securityContext, which ${f.container} inherits`
      : "the runtime's default seccomp profile where the kubelet applies one (SeccompDefault)";
  const user = has.privileged ? 'privileged' : `runAsUser 0 in ${whereSet(has.runAsUser!.from, f.container)}`;
  return {
    cause: `the kernel refuses its iptables calls with EPERM, which iptables words as not root, but it runs as root (${user}): what refuses it is not its user but the seccomp profile it runs under (${seccomp}), AppArmor, a user namespace of the pod (hostUsers: false) or capabilities the container runtime withholds`,
    evidence: { user, seccomp: own ?? pod ?? null },
  };
}

/**
 * Node images whose OS enforces SELinux by default (Red Hat's family: RHEL, CoreOS of OpenShift,
 * CentOS, Fedora, Rocky, Alma, Oracle Linux): an unprivileged container's iptables calls are refused
 * there (istio/istio#12948, #13857; linkerd/linkerd2#2768, #7767).
 */
const SELINUX_OS = /Red Hat|RHEL|CentOS|Fedora|CoreOS|Rocky Linux|AlmaLinux|Oracle Linux/i;

/**
 * SELinux denies a container the kernel's module_request (istio/istio#24101: "avc: denied { module_request } ...
 * comm="iptables-restor" kmod="ipt_owner"", #4500 kmod="ipt_REDIRECT"; rancher/rke2#504: "pre-load the kernel module
 * so that the istio sidecar doesn't have to"): modules loaded at boot need no loading from the container. The
 * REDIRECT interception every mesh's init container programs uses the nat table, the REDIRECT target and the owner
 * match (linkerd2-proxy-init iptables/iptables.go, istio tools/istio-iptables, kuma transparent-proxy, consul
 * sdk/iptables: `-t nat ... -j REDIRECT`, `-m owner --uid-owner`).
 */
const SELINUX_MODULES: Step[] = [
  comment`or load the netfilter modules the rules use on each node at boot, so that the container loads none: iptable_nat, xt_REDIRECT and xt_owner, and ip6table_nat with IPv6, one per line in a file under /etc/modules-load.d, then reboot or modprobe them`,
];

/** The node a pod runs on, as its Node reports itself (status.nodeInfo), where Nodes were read and it is there. */
function nodeOf(m: Model, pod: K8sObject) {
  const name = str(podSpec(pod).nodeName);
  if (!name || !m.has('nodes')) return undefined;
  const n = m.get('nodes', '', name);
  const info = n && isObj(n.status) && isObj(n.status.nodeInfo) ? n.status.nodeInfo : undefined;
  if (!info) return undefined;
  const field = (k: string) => (typeof info[k] === 'string' ? printable(info[k], 120) : null);
  return {
    name,
    osImage: field('osImage'),
    kernelVersion: field('kernelVersion'),
    containerRuntimeVersion: field('containerRuntimeVersion'),
  };
}

const nodeText = (n: NonNullable<ReturnType<typeof nodeOf>>) =>
  `${n.name}: ${[n.osImage, n.kernelVersion && `kernel ${n.kernelVersion}`, n.containerRuntimeVersion]
    .filter(Boolean)
    .join(', ')}`;

/**
 * The container the injector writes under this name: what it needs to run. With or without the
 * CNI plugin as the mesh's own setting says; where that was not read, only a container both
 * variants write alike (Consul's init container differs: root with NET_ADMIN, or 5996 without).
 */
function needOf(m: Model, w: Workload, mesh: MeshName, container: string): InjectedContainer | undefined {
  const p = profileOf(mesh);
  const cni = p.cni?.enabled(m, w)?.enabled;
  const pick = (v: boolean) => p.runtime.injected(m, w, v).find((c) => c.name === container);
  if (cni !== undefined || !p.cni) return pick(cni ?? false);
  const [a, b] = [pick(false), pick(true)];
  if (!a || !b) return a ?? b;
  return JSON.stringify(a.securityContext) === JSON.stringify(b.securityContext) ? a : undefined;
}

/** The container as the pod's spec has it. */
function specOf(pod: K8sObject, container: string): Record<string, any> | undefined {
  const spec = podSpec(pod);
  return [...initContainers(spec), ...containers(spec)].find((c) => c.name === container);
}

/**
 * The capabilities a container runtime may give a container by default (moby oci/caps/defaults.go
 * DefaultCapabilities, containerd pkg/oci/spec.go defaultUnixCaps: the same 14); CRI-O gives fewer.
 */
const RUNTIME_DEFAULT_CAPS = new Set([
  'CHOWN',
  'DAC_OVERRIDE',
  'FSETID',
  'FOWNER',
  'MKNOD',
  'NET_RAW',
  'SETGID',
  'SETUID',
  'SETFCAP',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'SYS_CHROOT',
  'KILL',
  'AUDIT_WRITE',
]);

const whereSet = (from: 'container' | 'pod', container: string) =>
  from === 'pod' ? "the pod's securityContext" : `the securityContext of ${container}`;

/**
 * What the pod does not grant a failing container that its mesh's template gives it: a capability
 * (the template adds it; the pod's container lacks it), or its UID (root for an init container
 * programming iptables, the proxy's fixed UID). Something after the injector changed it: a policy
 * engine's mutation, another webhook, or the pod's own securityContext where the container sets none.
 */
function grantGaps(m: Model, w: Workload, mesh: MeshName, f: Failing) {
  const need = needOf(m, w, mesh, f.container);
  const c = specOf(f.pod, f.container);
  // A container with no securityContext at all was not written by the injector as it is (or was slimmed of it): not judged.
  if (!need || !c || !isObj(c.securityContext)) return undefined;
  const has = effectiveSecurity(podSpec(f.pod), c);
  // A capability of the runtime's default set, neither added nor dropped (by name or ALL), is the container
  // runtime's to give (containerd and Docker give NET_RAW; CRI-O since 1.18 does not): not judged missing
  // (istio/istio#10358: Istio 1.0's template added NET_ADMIN only and dropped nothing).
  const dropped = (cap: string) =>
    has.drop.some((d) => /^(?:CAP_)?ALL$/i.test(d) || d.toUpperCase().replace(/^CAP_/, '') === cap.toUpperCase());
  const missing = (need.securityContext.add ?? []).filter(
    (cap) => !grants(has, cap) && (dropped(cap) || !RUNTIME_DEFAULT_CAPS.has(cap.toUpperCase().replace(/^CAP_/, ''))),
  );
  // Only root is judged: iptables needs it where the template runs the container as root; another
  // non-root UID than the template's may be the mesh's own setting, not read here.
  const uid = need.securityContext.runAsUser;
  const otherUid = uid === 0 && has.runAsUser && has.runAsUser.value !== 0 ? has.runAsUser : undefined;
  if (!missing.length && !otherUid) return undefined;
  const p = profileOf(mesh);
  const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
  const parts = [
    ...(missing.length
      ? [
          `the pod does not grant it ${missing.join(' and ')}, which ${p.title}'s template adds (its capabilities: add ${has.add.length ? has.add.join(', ') : 'none'}, drop ${has.drop.length ? has.drop.join(', ') : 'none'})`,
        ]
      : []),
    ...(otherUid
      ? [
          `it runs as UID ${otherUid.value} (set in ${whereSet(otherUid.from, f.container)}), but ${p.title} runs it as ${uid === 0 ? 'root (UID 0)' : `UID ${uid}`}${
            otherUid.from === 'pod'
              ? `: ${f.container} as injected into this pod has no runAsUser of its own, so the pod's applies to it (today's template gives it runAsUser ${uid}; the injector that wrote this pod gave none, an older template, or something removed it)`
              : ''
          }`,
        ]
      : []),
  ];
  const fix: Step[] = [
    comment`find what changed ${f.container} after the injector, a mutation of a policy engine or another webhook, and exempt the containers of the mesh from it: the injector writes ${lit(
      [
        ...(need.securityContext.add?.length ? [`capabilities.add ${need.securityContext.add.join(', ')}`] : []),
        ...(uid !== undefined ? [`runAsUser ${uid}`] : []),
      ].join(' and '),
    )}`,
    cmd`kubectl get mutatingwebhookconfigurations`,
    ...(otherUid?.from === 'pod'
      ? [
          comment`the runAsUser of the pod applies to ${f.container}, which sets none itself: set runAsUser on the app containers instead of the pod`,
          cmd`kubectl edit ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace}`,
        ]
      : []),
    ...(f.init && p.cni && missing.length
      ? [
          comment`or install the CNI plugin of ${p.title}, so that no init container needs these capabilities`,
          ...p.cni.install(cpNs),
        ]
      : []),
  ];
  return {
    cause: parts.join('; '),
    evidence: {
      needs: { ...need.securityContext, from: p.runtime.injectedFrom },
      grants: {
        ...(has.runAsUser ? { runAsUser: has.runAsUser } : {}),
        ...(has.runAsNonRoot ? { runAsNonRoot: has.runAsNonRoot } : {}),
        add: has.add,
        drop: has.drop,
      },
    },
    fix,
  };
}

/** Why the kubelet's non-root policy refuses the container: the field that asks for non-root and where it is set, against the user the mesh runs it as. */
function nonRootCause(m: Model, w: Workload, mesh: MeshName, f: Failing, refusal: NonRootRefusal, cpNs: string) {
  const c = specOf(f.pod, f.container);
  if (!c) return undefined;
  const p = profileOf(mesh);
  const need = needOf(m, w, mesh, f.container);
  const has = effectiveSecurity(podSpec(f.pod), c);
  const nonRoot = has.runAsNonRoot;
  const uid = need?.securityContext.runAsUser;
  const apps = containers(podSpec(f.pod))
    .map((x) => str(x.name) ?? '')
    .filter((n) => n && !injectedNames(p).includes(n));
  const asks = nonRoot ? `runAsNonRoot: true in ${whereSet(nonRoot.from, f.container)}` : 'runAsNonRoot: true';
  const user =
    refusal.kind === 'runAsUser-root'
      ? `runs as root (runAsUser 0${has.runAsUser ? ` in ${whereSet(has.runAsUser.from, f.container)}` : ''})`
      : refusal.kind === 'image-root'
        ? "has no runAsUser, so it runs as its image's user, root"
        : `has no runAsUser, and its image's user ${refusal.user} is not numeric`;
  const needs =
    uid === 0
      ? `${p.title} runs it as root to program the pod's iptables`
      : uid !== undefined
        ? `${p.title}'s template gives it runAsUser ${uid}, which the pod's container lacks (something after the injector removed it)`
        : `${p.title}'s template gives it no user of its own in this release`;
  const fix: Step[] =
    uid === 0
      ? [
          ...(nonRoot?.from === 'pod'
            ? [
                noteStep([
                  'the kubelet applies runAsNonRoot of the pod to ',
                  { value: f.container },
                  ': move runAsNonRoot: true from the securityContext of the pod template to each app container',
                  ...apps.flatMap((a, i): Part[] => [i ? ', ' : ': ', { value: a }]),
                ]),
                cmd`kubectl edit ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace}`,
              ]
            : [
                comment`something after the injector set runAsNonRoot: true on ${f.container}, a mutation of a policy engine or another webhook: exempt the init container of the mesh from it`,
                cmd`kubectl get mutatingwebhookconfigurations`,
              ]),
          ...(p.cni
            ? [
                comment`or install the CNI plugin of ${p.title}, so that no init container runs as root`,
                ...p.cni.install(cpNs),
              ]
            : []),
        ]
      : [
          uid !== undefined
            ? comment`give ${f.container} its numeric non-root user back, ${uid} as ${lit(p.title)} writes it, or set runAsUser in the securityContext of the pod template, which it inherits where it sets none`
            : comment`give ${f.container} a numeric non-root user, or set runAsUser in the securityContext of the pod template, which it inherits where it sets none`,
          cmd`kubectl edit ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace}`,
        ];
  return {
    cause: `the kubelet refuses to create it: ${asks} asks for a non-root user, but it ${user}; ${needs}`,
    evidence: {
      refusal: refusal.kind,
      ...(nonRoot ? { runAsNonRoot: nonRoot } : {}),
      ...(has.runAsUser ? { runAsUser: has.runAsUser } : {}),
      ...(need ? { needs: { ...need.securityContext, from: p.runtime.injectedFrom } } : {}),
    },
    fix,
  };
}

/**
 * The proxy was injected as a native sidecar, but the pod runs it as a plain init container: its
 * `restartPolicy: Always` is gone. Where the API server is older than native sidecars it dropped
 * the field itself; else something after the injector (a webhook, a policy engine) rewrote the
 * init containers. Either way the proxy is there (not missing): it never exits, so the kubelet
 * never starts the containers after it, or, where it does exit, the app runs without a proxy.
 */
function alteredFinding(m: Model, w: Workload, mesh: MeshName, pods: K8sObject[]) {
  const p = profileOf(mesh);
  const name = p.containers.proxy;
  const first = pods[0]!;
  const st = isObj(first.status) ? first.status : {};
  const cs = (Array.isArray(st.initContainerStatuses) ? st.initContainerStatuses : [])
    .slice(0, 64)
    .find((x: unknown) => isObj(x) && x.name === name) as Record<string, any> | undefined;
  const state = isObj(cs?.state) ? (Object.keys(cs!.state)[0] ?? 'unknown') : 'not reported';
  const server = clusterVersions(m).server;
  const old = server && compareMinor(server, NATIVE_SIDECARS_ON) < 0;
  const on = minorText(NATIVE_SIDECARS_ON);
  const by = old
    ? `the API server, ${server!.text}, dropped it: native sidecars are off before Kubernetes ${on} (feature gate SidecarContainers)`
    : server
      ? `the API server, ${server.text}, keeps it, so a later mutating webhook or policy rewrote the init containers`
      : `the API server drops it where native sidecars are off, before Kubernetes ${on}, or a later mutating webhook or policy rewrote the init containers; the API server version was not read`;
  const names = [...new Set(pods.map(nameOf))].sort();
  const annotation = p.proxy.native.annotation;
  const fix: Step[] = [
    ...(old
      ? []
      : [
          comment`find the webhook that changes the init containers after the injector: it must keep restartPolicy of ${name}`,
          cmd`kubectl get mutatingwebhookconfigurations`,
        ]),
    ...(annotation
      ? [
          comment`or have the injector add the proxy as an ordinary container for this workload`,
          ...setOnTemplate(w, 'annotations', annotation, 'false'),
        ]
      : [comment`or turn native sidecars off in the ${lit(p.title)} control plane, which has no switch per workload`]),
  ];
  return {
    mesh,
    ...say(MESSAGES, 'native-sidecar-altered', {
      pods: plural(names.length, 'pod'),
      workload: `${w.kind} ${w.namespace}/${w.name}`,
      mesh: p.title,
      container: name,
      by,
      state,
    }),
    resource: w.ref,
    affectedPods: names.length,
    evidence: {
      container: name,
      init: true,
      altered: 'restartPolicy: Always missing',
      state,
      apiServer: server ? server.text : null,
      pods: names.slice(0, 20),
    },
    fix,
  };
}

/**
 * The cluster is older than native sidecars where native-sidecar-unsupported looks: the API server
 * read below 1.29, or, unread, bounded below it by the kubelets, or a node's kubelet below it.
 */
function serverDropsNative(m: Model): boolean {
  const { server, serverBound, nodes } = clusterVersions(m);
  const old = (v: Parameters<typeof compareMinor>[0]) => compareMinor(v, NATIVE_SIDECARS_ON) < 0;
  if (server) return old(server) || nodes.some((n) => n.version !== undefined && old(n.version));
  return (
    (serverBound !== undefined && old(serverBound.atMost)) ||
    nodes.some((n) => n.version !== undefined && old(n.version))
  );
}

// Two shapes of evidence: a failing container's, and an altered native sidecar's.
export default defineCheck<Evidence, typeof MESSAGES>({
  ...meta('proxy-cannot-start'),
  facts: [
    APP_WORKLOADS,
    DECISIONS,
    CLUSTER_VERSIONS,
    PROXY_PATHS,
    TRUST_ROOT,
    BUGS_SHOWN,
    WARNING_EVENTS,
    CLUSTER_DNS_ADDRESSES,
    COMPONENT_STATES,
    CLUSTER_DNS_DOWN,
    NODE_LOCAL_DNS_DOWN,
    STORED_VALUES,
  ],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      const names = injectedNames(p);
      for (const w of m.appWorkloads) {
        // Only pods carrying a container of the mesh's have one to judge (a proxy, an init container of it).
        const carrying = podsCarrying(w, mesh);
        const altered = carrying.filter((pod) => alteredNativeSidecar(pod, mesh));
        if (altered.length) {
          // An API server older than native sidecars (read, or bounded by the kubelets) dropped the
          // field itself: native-sidecar-unsupported is that one finding.
          if (!serverDropsNative(m)) yield alteredFinding(m, w, mesh, altered);
          continue;
        }
        // A mesh init container a later webhook made a sidecar (restartPolicy: Always): it exits and is
        // restarted by design, not failing; init-rewritten names the webhook (one cause, one finding).
        if (carrying.some((pod) => rewrittenInits(pod, mesh).length)) continue;
        const all = carrying.flatMap((pod) => {
          // Only the containers this mesh injected into this pod (another mesh may use a like name).
          if (!carriesOwn(podSpec(pod), p.containers.proxy, p.containers.init)) return [];
          const failing = failingIn(m, pod, names);
          if (!failing.length) return failing;
          // A pod meant to end whose app has ended: what its proxy does now (killed, restarted, not ready) is
          // job-never-completes' finding, the proxy outliving the app (one cause, one finding).
          const ended = appEnded(pod, names);
          return failing.filter((f) => !(ended && f.running && !f.init));
        });
        // A proxy not ready whose NetworkPolicies let no packet out to its control plane or DNS: proxy-egress-blocked
        // names that cause (one cause, one finding); only there is the not-ready proxy left to it.
        // And a proxy injected before its mesh's trust root was regenerated: proxy-predates-trust-root names that.
        const egress = all.some((f) => f.kind === 'unready') && egressExplained(m, mesh, w);
        // Where the reads those two causes need were refused, whether one of them explains it is not known: the
        // not-ready proxy is not reported here either (a refused read never adds a finding).
        const undecided = all.some((f) => f.kind === 'unready') && !pathsDecidable(m, mesh, w);
        const failing = all.filter(
          // With the pod's DNS down (the cluster DNS, its node's NodeLocal cache), cluster-dns-unavailable names that
          // (issue 31, gen10net).
          (f) =>
            f.kind !== 'unready' ||
            (!egress && !undecided && !predatesTrustRoot(m, mesh, f.pod) && !dnsDownFor(m, f.pod)),
        );
        if (failing.length === 0) continue;
        // One finding per workload: the first container that fails (init containers run first), its pods.
        const first = failing[0]!;
        const group = failing.filter((f) => f.container === first.container && f.kind === first.kind);
        const others = [
          ...new Set(failing.filter((f) => f.container !== first.container).map((f) => f.container)),
        ].sort();
        const d = describe(m, w, mesh, group);
        const pods = [...new Set(group.map((g) => nameOf(g.pod)))].sort();
        const params = {
          pods: plural(pods.length, 'pod'),
          workload: `${w.kind} ${w.namespace}/${w.name}`,
          mesh: meshTitle(mesh),
          role: d.role,
          container: first.container,
          failure: FAILURE[first.kind],
          status: d.status,
          cause: d.cause,
        };
        // A control-plane component that does not run explains these pods (control-plane-down): named as the cause.
        const upstream = group.map((g) => downComponentOf(m, mesh, g.pod)).find(Boolean);
        yield {
          mesh,
          ...(upstream
            ? { causedBy: { kind: 'component-down' as const, mesh, component: upstream.component.id } }
            : {}),
          ...(first.running ? say(MESSAGES, 'runs-unhappy', params) : say(MESSAGES, 'cannot-start', params)),
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

/** Who ships a known bug: the mesh, or the node agent of its tables (componentFrom: the CNI plugin installer). */
function agentOf(p: MeshProfile, b: KnownBug): string {
  const id = b.symptom.on === 'pod' ? b.symptom.componentFrom : undefined;
  const c = id ? (p.components ?? []).find((x) => x.id === id) : undefined;
  return c ? `the ${p.title} ${c.title}` : p.title;
}
