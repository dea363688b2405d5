/**
 * job-never-completes — a meshed pod meant to end (restartPolicy Never or OnFailure) whose app has exited while the
 * proxy runs on, whatever owns it (a Job, an Argo Workflow, a Tekton TaskRun, a PersistentVolumeClaim, any custom
 * resource, no owner); or a Job/CronJob template that will be meshed that way.
 *
 * Any owner (issue 31, gen10life): the pod is judged by its restartPolicy and its containers' states, not its
 * owner's kind, and reported on its owner as the ownerReference names it (a Job's pods on the Job). What the
 * installed release does decides the words and the fix (src/mesh/<mesh>/ending.ts through src/mesh/ending.ts): its
 * native-sidecar switch or none, whether its shutdown call is answered, whether its control plane should have stopped
 * the proxy (Kuma: a Job's pods only in 1.1 to 1.5, its 1.7.0 bug), and a proxy the kubelet started again after the
 * app stopped it (consul-k8s 1.0 and 1.1 under restartPolicy OnFailure, with the kubelet's probe event).
 *
 * Why: without native sidecars the proxy is an ordinary container (`linkerd-proxy`,
 * `istio-proxy` in spec.containers). It does not exit when the app does, so the pod stays
 * Running, the Job stays active, and a CronJob with `concurrencyPolicy: Forbid` stops scheduling.
 * Native sidecars (the proxy as an init container with `restartPolicy: Always`) end with the app.
 * (error) a Running Job pod whose app containers have all terminated while the proxy runs,
 * reported on its Job, at least a minute after the app exited. (warning) a Job or CronJob
 * template the mesh would inject, with no native sidecar (Linkerd: the
 * `config[.beta|.alpha].linkerd.io/proxy-enable-native-sidecar` annotation on the template or
 * namespace, or `proxy.nativeSidecar` in linkerd-config; Istio: `sidecar.istio.io/nativeSidecar`,
 * or istiod's ENABLE_NATIVE_SIDECARS; either: its pods already run one) and no shutdown call
 * in the app's command or args (`linkerd-await --shutdown`, a POST to the proxy's `/shutdown` or
 * Istio's `quitquitquit`). Finished Jobs stay silent; a template whose Jobs already hang is
 * reported through the hung Job only. With namespace-only permissions the hung Job (pods alone)
 * is reported; the template warning needs the injection decision and stays silent.
 * Istio 1.27+ with ENABLE_NATIVE_SIDECARS unset or "auto" (its default) injects a native sidecar
 * when the nodes' kubelets are 1.33 or later (pkg/kube/inject/webhook.go DetectNativeSidecar
 * @86c9f01f): Nodes are not read, so the template warning stays silent unless the workload's pods
 * show the proxy as an ordinary container (then the nodes are older). Chosen over a warning: on
 * the Kubernetes versions most clusters run with Istio 1.27+ it would be wrong, and a Job that
 * does hang is still reported (error) by its pods.
 * Known false positives: a shutdown call made from a script inside the image (we only read the
 * command and args in the manifest).
 * Fix: the native-sidecar annotation on the template (Kubernetes 1.29+), with the shutdown call
 * and the opt-out named as alternatives. A hung Istio pod is released with `pilot-agent request
 * POST quitquitquit`; a hung Linkerd Job, whose proxy has no shell, by deleting the Job.
 */
import { comment, lit, noteStep, text, type Step } from '../fix/steps.js';
import { eventInfo, PROBE_KILLED } from '../k8s/events.js';
import { controlPlaneEnding, endingBug, podEnding, type EndingRead } from '../mesh/ending.js';
import { containers, podSpec } from '../k8s/pods.js';
import { setOnTemplate } from '../fix/commands.js';
import { jobFinished, type Model, type Workload, APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import { nativeSidecar } from '../facts/resources.js';
import { installedContainers, INJECTOR_RELEASES } from '../facts/releases.js';
import type { K8sObject } from '../util/types.js';
import type { FindingInput } from './define.js';
import type { Evidence } from './types.js';
import type { MeshName } from '../mesh/names.js';
import type { MeshProfile } from '../mesh/profile.js';
import { arr, groupBy, isObj, nameOf, str, time } from '../util/objects.js';
import { PROFILE_LIST, profileOf } from '../mesh/registry.js';
import { injectedNamesOfAllReleases, proxyNamesOfAllReleases } from '../mesh/releases.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The proxy of a pod that is shutting down on its own needs a moment: report after a minute. */
const GRACE_MS = 60_000;
/** A proxy whose container last ended this close to the app's end (or later) was stopped with the app. */
const STOPPED_WITH_APP_MS = 10 * 60_000;

function since(ms: number): string {
  const min = Math.floor(ms / 60_000);
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  return d ? `${d}d${h}h` : h ? `${h}h${min % 60}m` : `${min}m`;
}

/** The restart policies of pods meant to end (a pod with `Always`, the default, restarts its app instead). */
const ENDING_POLICIES = new Set(['Never', 'OnFailure']);

interface HungPod {
  pod: K8sObject;
  /** The proxy container, as its release named it. */
  proxy: string;
  /** Who the finding is about: the Job named by the pod's ownerReferences, else the workload (any owner kind, or the pod). */
  owner: { kind: string; name: string };
  policy: string;
  mesh: MeshName;
  containers: Record<string, unknown>[];
  exitedAt?: Date;
  /** The proxy was stopped with the app and the kubelet started it again (its restarts, when it last ended). */
  restarted?: { count: number; lastEnded: string };
}

/**
 * A Running pod meant to end (restartPolicy Never or OnFailure), whatever owns it, whose app containers all
 * terminated (under OnFailure with exit code 0: a failed one is restarted) while a (non-native) proxy container runs.
 */
function hungPod(pod: K8sObject, m: Model, w: Workload): HungPod | undefined {
  const status = isObj(pod.status) ? pod.status : {};
  if (status.phase !== 'Running') return undefined;
  const policy = str(podSpec(pod).restartPolicy) ?? 'Always';
  if (!ENDING_POLICIES.has(policy)) return undefined;
  const names = containers(podSpec(pod)).map((c) => str(c.name) ?? '');
  // The proxy under the name its own release gave it (Consul 0.x: consul-connect-envoy-sidecar, envoy-sidecar), and
  // the helpers that release injects beside it (consul-connect-lifecycle-sidecar), which run on too: not the app.
  const p = PROFILE_LIST.find((x) => names.some((n) => proxyNamesOfAllReleases(x).includes(n)));
  if (!p) return undefined; // no proxy, or a native sidecar that ends with the app
  const mesh = p.name;
  const statuses = new Map(
    arr(status.containerStatuses)
      .filter(isObj)
      .map((s) => [str(s.name) ?? '', s]),
  );
  const proxy = names.find((n) => proxyNamesOfAllReleases(p).includes(n))!;
  const injected = injectedNamesOfAllReleases(p);
  const app = names.filter((n) => n !== proxy && !injected.includes(n));
  if (!app.length || !isObj(statuses.get(proxy)?.state?.running)) return undefined;
  if (!app.every((n) => isObj(statuses.get(n)?.state?.terminated))) return undefined;
  if (policy === 'OnFailure' && !app.every((n) => statuses.get(n)!.state.terminated.exitCode === 0)) return undefined;
  const exits = app.map((n) => time(statuses.get(n)!.state.terminated.finishedAt)).filter((t): t is Date => !!t);
  const exitedAt = exits.length === app.length ? new Date(Math.max(...exits.map((t) => t.getTime()))) : undefined;
  if (exitedAt && m.now.getTime() - exitedAt.getTime() < GRACE_MS) return undefined; // still shutting down
  // The Job the pod's controller reference names (a CronJob's workload holds the pods of several Jobs), else the
  // workload the pod belongs to: its owner of any kind, as the ownerReference names it, or the pod itself.
  const job = arr(pod.metadata?.ownerReferences).find((r) => isObj(r) && r.kind === 'Job' && r.controller !== false);
  const owner = job ? { kind: 'Job', name: String(job.name ?? '') } : { kind: w.kind, name: w.name };
  const ps = statuses.get(proxy)!;
  const lastEnded = time(ps.lastState?.terminated?.finishedAt);
  const restarted =
    typeof ps.restartCount === 'number' &&
    ps.restartCount > 0 &&
    lastEnded &&
    exitedAt &&
    lastEnded.getTime() >= exitedAt.getTime() - STOPPED_WITH_APP_MS
      ? { count: ps.restartCount, lastEnded: lastEnded.toISOString() }
      : undefined;
  const evidence = names.map((n) => {
    const state = isObj(statuses.get(n)?.state) ? statuses.get(n)!.state : {};
    const [phase, detail] = Object.entries(state).find(([, v]) => isObj(v)) ?? ['unknown', {}];
    const d = detail as Record<string, unknown>;
    return {
      name: n,
      state: phase,
      ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}),
      ...(d.reason ? { reason: d.reason } : {}),
      ...(d.finishedAt ? { finishedAt: d.finishedAt } : d.startedAt ? { startedAt: d.startedAt } : {}),
      ...(n === proxy && restarted ? { restartCount: restarted.count, lastEndedAt: restarted.lastEnded } : {}),
    };
  });
  return {
    pod,
    proxy,
    owner,
    policy,
    mesh,
    containers: evidence,
    ...(exitedAt ? { exitedAt } : {}),
    ...(restarted ? { restarted } : {}),
  };
}

/** The kubelet's words for killing the proxy of these pods for a failed probe (events read; bounded: the first). */
function probeKill(m: Model, ns: string, pods: readonly string[], proxy: string): string | undefined {
  if (!m.has('events')) return undefined;
  const names = new Set(pods);
  for (const e of m.inNamespace('events', ns)) {
    if (e.reason !== PROBE_KILLED.reason) continue;
    const ev = eventInfo(e);
    if (ev.kind === 'Pod' && names.has(ev.name) && ev.container === proxy && PROBE_KILLED.message.test(ev.message))
      return ev.message;
  }
  return undefined;
}

/** What the installed injectors' release does for pods meant to end (src/mesh/ending.ts), once per model and mesh. */
function cpEnding(m: Model, p: MeshProfile): { read: EndingRead; version?: string } | undefined {
  let memo = cpMemo.get(m);
  if (!memo) cpMemo.set(m, (memo = new Map()));
  if (!memo.has(p.name)) {
    const installed = m.fact(INJECTOR_RELEASES, p.name).map((r) => {
      const version = r.injector.deployment
        ? p.versions?.controlPlane(m, r.injector.deployment as K8sObject)?.version
        : undefined;
      return { ...(r.facts ? { facts: r.facts } : {}), ...(version ? { version } : {}) };
    });
    memo.set(p.name, controlPlaneEnding(p, installed));
  }
  return memo.get(p.name);
}
const cpMemo = new WeakMap<Model, Map<MeshName, { read: EndingRead; version?: string } | undefined>>();

/**
 * What the release tables say of why the proxy runs on (src/mesh/ending.ts): the control plane that stops it only in
 * a Job's pods, a known bug of the installed release, a shutdown call this release does not have or that its proxy's
 * liveness probe undoes, a shutdown endpoint the app calls that the release answers only when enabled.
 */
function releaseWhy(m: Model, h: HungPod, commandLine: string): { why: string; notes: Step[] } {
  const p = profileOf(h.mesh);
  const e = podEnding(p, h.pod, cpEnding(m, p));
  const parts: string[] = [];
  const notes: Step[] = [];
  const stops = e.controlPlane?.ending.stopsProxy;
  if (stops && e.controlPlane) {
    const bug = endingBug(p, e.controlPlane.ending, e.controlPlaneVersion);
    if (stops.owners === 'job' && h.owner.kind !== 'Job')
      parts.push(
        `${e.controlPlane.release} stops ${h.proxy} only in the pods of a Job (${stops.how}), and this pod's owner is a ${h.owner.kind}.`,
      );
    else if (bug) parts.push(`${bug.text} (${bug.id}, fixed in ${p.title} ${bug.fixedIn}).`);
    else parts.push(`${e.controlPlane.release} should have stopped it (${stops.how}) and has not.`);
  }
  const shutdown = e.proxy?.ending.shutdown;
  if (h.restarted && e.proxy?.ending.restartedAfterShutdown) parts.push(`${e.proxy.ending.restartedAfterShutdown}.`);
  else if (shutdown && 'needs' in shutdown && shutdown.needs && p.jobs.shutdown.test(commandLine))
    parts.push(`The app calls the shutdown endpoint, but ${shutdown.needs}.`);
  if (shutdown && 'none' in shutdown) notes.push(noteStep(text`${lit(shutdown.none)}`));
  return { why: parts.length ? ` ${parts.join(' ')}` : '', notes };
}

/**
 * The switch that makes the next pods' proxy a native sidecar, by the installed release (src/mesh/<mesh>/ending.ts):
 * the pod annotation of that release, or notes saying it has none (only the control plane's setting, or no native
 * sidecar at all) or does not know the profile's (`native.unsupported`).
 */
function nativeSwitch(m: Model, p: MeshProfile, pod?: K8sObject): { annotation?: string; notes: Step[] } {
  // The installed injector's release makes the next pods; unplaced, the release a hung pod's proxy runs.
  const e = (cpEnding(m, p)?.read ?? (pod ? podEnding(p, pod, undefined).proxy : undefined))?.ending.native;
  if (e && 'none' in e) return { notes: [noteStep(text`${lit(e.none)}`)] };
  const unsupported = p.proxy.native.annotation ? p.proxy.native.unsupported?.(m) : undefined;
  if (unsupported) return { notes: [noteStep(unsupported)] };
  if (e && e.annotation === null) return { notes: p.proxy.native.annotation ? [noteStep(text`${lit(e.how)}`)] : [] }; // no per-pod switch in this release
  const annotation = e?.annotation ?? p.proxy.native.annotation;
  return annotation ? { annotation, notes: [] } : { notes: [] };
}

/** The profile's alternatives, less the shutdown call where the release has none (a note says so instead). */
function alternatives(p: MeshProfile, noCall: boolean): readonly Step[] {
  if (!noCall) return p.jobs.alternatives;
  return p.jobs.alternatives.filter(
    (s) =>
      !(s.kind === 'note' && p.jobs.shutdown.test(s.text.map((x) => (typeof x === 'string' ? x : x.value)).join(''))),
  );
}

/** The installed release has no shutdown call of its own (its note is given where a pod hangs). */
const noShutdown = (m: Model, p: MeshProfile): boolean => {
  const s = cpEnding(m, p)?.read.ending.shutdown;
  return !!s && 'none' in s;
};

function* hungPods(m: Model, w: Workload): Generator<FindingInput<Evidence, typeof MESSAGES>, boolean> {
  const hung = w.pods.map((p) => hungPod(p, m, w)).filter((h): h is HungPod => !!h);
  for (const [, pods] of groupBy(hung, (h) => `${h.mesh}/${h.owner.kind}/${h.owner.name}`)) {
    const first = pods[0]!;
    const { mesh, owner } = first;
    const oldest = pods
      .map((h) => h.exitedAt?.getTime())
      .filter((t): t is number => t !== undefined)
      .sort()[0];
    const p = profileOf(mesh);
    const podNames = pods.map((h) => nameOf(h.pod));
    const isJob = owner.kind === 'Job';
    const ownerText = `${owner.kind} ${w.namespace}/${owner.name}`;
    // Pods that come from the manifests (check -f) are the manifests' to change, not deleted here.
    const relief = w.manifest
      ? [
          comment`these pods come from the manifests: change the manifest below, then replace the pods with the tool that applied it`,
        ]
      : isJob
        ? p.jobs.relief(podNames, w.namespace, owner.name)
        : p.jobs.releasePods(podNames, w.namespace, ownerText, first.proxy);
    const commandLine = containers(podSpec(first.pod))
      .flatMap((c) => [...arr(c.command), ...arr(c.args)])
      .join(' ');
    const { why, notes } = releaseWhy(m, first, commandLine);
    // A CronJob's template is patched for the next runs; a Job's only by re-creating it, which runs it again.
    const { annotation: native, notes: nativeNotes } = nativeSwitch(m, p, first.pod);
    const ownTemplate = (w.kind === 'CronJob' || w.kind === 'Job') && w.obj && w.templatePath;
    // No per-pod switch (or one the installed release does not have): the alternatives name the control plane's.
    const template = !native
      ? [...nativeNotes, ...alternatives(p, notes.length > 0)]
      : w.kind === 'CronJob' && w.obj
        ? setOnTemplate(w, 'annotations', native, 'true')
        : isJob || ownTemplate
          ? [comment`then, before it runs again: set ${lit(native)} to true on the pod template of its manifest`]
          : w.kind === 'Pod'
            ? [comment`then re-create the pod with the annotation ${lit(native)} set to true`]
            : [
                comment`the pods of ${ownerText} come from its own resource, which meshdoctor does not read: set ${lit(native)} to true on the pod template it defines there`,
              ];
    // The kubelet restarted the stopped proxy: under restartPolicy Never it would stay stopped.
    const restarted = pods.find((h) => h.restarted);
    const policyFix =
      restarted && first.policy !== 'Never'
        ? [
            comment`or: set restartPolicy Never on the pod template, and the kubelet leaves a stopped ${lit(first.proxy)} stopped`,
          ]
        : [];
    const kubelet = restarted ? probeKill(m, w.namespace, podNames, first.proxy) : undefined;
    const ago = oldest !== undefined ? ` ${since(m.now.getTime() - oldest)} ago` : '';
    const said = restarted
      ? say(MESSAGES, 'proxy-restarted', {
          owner: ownerText,
          ago,
          proxy: first.proxy,
          restarts: `${restarted.restarted!.count} restart${restarted.restarted!.count === 1 ? '' : 's'}`,
          policy: first.policy,
          kubelet: kubelet ? `; the kubelet said "${kubelet}"` : '',
          why,
        })
      : isJob
        ? say(MESSAGES, 'proxy-keeps-running', { job: `${w.namespace}/${owner.name}`, ago, proxy: first.proxy, why })
        : say(MESSAGES, 'owner-keeps-running', {
            owner: ownerText,
            pods:
              (podNames.length === 1 ? 'pod ' : 'pods ') +
              podNames.slice(0, 3).join(', ') +
              (podNames.length > 3 ? ` and ${podNames.length - 3} more` : ''),
            policy: first.policy,
            ago,
            proxy: first.proxy,
            why,
          });
    yield {
      mesh,
      ...said,
      resource: isJob ? { kind: 'Job', namespace: w.namespace, name: owner.name } : w.ref,
      affectedPods: pods.length,
      evidence: {
        ...(w.kind === 'CronJob' ? { cronJob: w.name } : {}),
        ...(!isJob && !ownTemplate && w.kind !== 'Pod'
          ? { owner: `${owner.kind}/${owner.name}`, ownerRead: !!w.obj }
          : {}),
        restartPolicy: first.policy,
        pods: pods.map((h) => ({
          pod: nameOf(h.pod),
          containers: h.containers,
          ...(h.exitedAt
            ? { appExitedAt: h.exitedAt.toISOString(), sinceAppExit: since(m.now.getTime() - h.exitedAt.getTime()) }
            : {}),
        })),
      },
      fix:
        w.kind === 'CronJob' && w.obj
          ? [...notes, ...template, ...policyFix, ...relief]
          : [...relief, ...notes, ...template, ...policyFix],
    };
  }
  return hung.length > 0;
}

const MESSAGES = messages({
  'proxy-keeps-running':
    'Job {job} never completes: its app exited{ago} but {proxy} is not a native sidecar and keeps the pod running.{why}',
  'owner-keeps-running':
    '{owner} never finishes: the app of {pods} exited{ago} under restartPolicy {policy}, but {proxy} is not a native sidecar and keeps the pod running.{why}',
  'proxy-restarted':
    '{owner} never finishes: its app exited{ago} and {proxy} was stopped, but the kubelet started it again ({restarts} under restartPolicy {policy}{kubelet}), so the pod keeps running.{why}',
  'will-hang':
    '{workload} will be injected with {proxy} as an ordinary container and nothing stops it when the app exits, so its Jobs will never complete.',
});

export default defineCheck({
  ...meta('job-never-completes'),
  facts: [APP_WORKLOADS, DECISIONS, INJECTOR_RELEASES],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      // Any owner: a pod meant to end is judged by its restartPolicy and its containers, not its owner's kind.
      const anyHung = yield* hungPods(m, w);
      if (anyHung) continue; // the hung pods' finding carries the template fix
      if (w.kind !== 'Job' && w.kind !== 'CronJob') continue; // the template warning: the templates of Jobs
      if (!w.obj || !w.templatePath) continue; // judged by a pod: no template to fix
      if (w.kind === 'Job' && jobFinished(w.obj)) continue; // a finished Job creates no more pods
      const commandLine = containers(podSpec(w.template))
        .flatMap((c) => [...arr(c.command), ...arr(c.args)])
        .join(' ');
      for (const d of m.decisions(w)) {
        if (!d.inject) continue;
        const native = nativeSidecar(m, d.mesh, w);
        const p = profileOf(d.mesh);
        // Uncertain (Istio 1.27+ "auto": native on kubelets 1.33+, nodes not read): silent; a Job that
        // does hang is reported by its pods (the error above), and pods already injected decide.
        if (native.native || native.uncertain || p.jobs.shutdown.test(commandLine)) continue;
        // The control plane stops the proxy itself (Kuma 1.1 and later, src/mesh/kuma/ending.ts): only a Job that hangs
        // all the same is reported. A release the tables place without it (Kuma 1.0) is warned about.
        const cp = cpEnding(m, p);
        if (p.jobs.controlPlaneStops && (!cp || cp.read.ending.stopsProxy)) continue;
        yield {
          mesh: d.mesh,
          severity: 'warning',
          // The proxy the installed release injects (consul-k8s 0.x: envoy-sidecar), today's where the release is not known.
          ...say(MESSAGES, 'will-hang', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            proxy: installedContainers(m, d.mesh)?.proxy[0] ?? p.containers.proxy,
          }),
          resource: w.ref,
          affectedPods: 1,
          evidence: {
            nativeSidecar: native.reason,
            shutdownCall: 'none in command or args',
            injectedBy: d.calls.filter((c) => c.called).map((c) => c.webhook.name),
          },
          fix: ((sw) => [
            ...sw.notes,
            ...(sw.annotation ? setOnTemplate(w, 'annotations', sw.annotation, 'true') : []),
            ...alternatives(p, noShutdown(m, p)),
          ])(nativeSwitch(m, p)),
        };
      }
    }
  },
});
