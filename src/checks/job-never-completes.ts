/**
 * job-never-completes — a meshed Job whose app has exited while the proxy runs on, so the Job
 * never completes; or a Job/CronJob template that will be meshed that way.
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
import { comment, lit, noteStep } from '../fix/steps.js';
import { containers, podSpec } from '../k8s/pods.js';
import { setOnTemplate } from '../fix/commands.js';
import { jobFinished, type Model, type Workload, APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import { nativeSidecar } from '../facts/resources.js';
import { installedContainers, INJECTOR_RELEASES } from '../facts/releases.js';
import type { K8sObject } from '../util/types.js';
import type { FindingInput } from './define.js';
import type { Evidence } from './types.js';
import type { MeshName } from '../mesh/names.js';
import { arr, groupBy, isObj, nameOf, str, time } from '../util/objects.js';
import { PROFILE_LIST, profileOf } from '../mesh/registry.js';
import { injectedNamesOfAllReleases, proxyNamesOfAllReleases } from '../mesh/releases.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The proxy of a pod that is shutting down on its own needs a moment: report after a minute. */
const GRACE_MS = 60_000;

function since(ms: number): string {
  const min = Math.floor(ms / 60_000);
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  return d ? `${d}d${h}h` : h ? `${h}h${min % 60}m` : `${min}m`;
}

interface HungPod {
  pod: K8sObject;
  /** The proxy container, as its release named it. */
  proxy: string;
  job: string;
  mesh: MeshName;
  containers: Record<string, unknown>[];
  exitedAt?: Date;
}

/** A Running pod whose app containers all terminated while a (non-native) proxy container runs. */
function hungPod(pod: K8sObject, m: Model): HungPod | undefined {
  const status = isObj(pod.status) ? pod.status : {};
  if (status.phase !== 'Running') return undefined;
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
  const exits = app.map((n) => time(statuses.get(n)!.state.terminated.finishedAt)).filter((t): t is Date => !!t);
  const exitedAt = exits.length === app.length ? new Date(Math.max(...exits.map((t) => t.getTime()))) : undefined;
  if (exitedAt && m.now.getTime() - exitedAt.getTime() < GRACE_MS) return undefined; // still shutting down
  const job = arr(pod.metadata?.ownerReferences).find((r) => isObj(r) && r.kind === 'Job');
  if (!job) return undefined; // not a Job's pod
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
    };
  });
  return { pod, proxy, job: String(job.name ?? ''), mesh, containers: evidence, ...(exitedAt ? { exitedAt } : {}) };
}

function* hungJobs(m: Model, w: Workload): Generator<FindingInput<Evidence, typeof MESSAGES>, boolean> {
  const hung = w.pods.map((p) => hungPod(p, m)).filter((h): h is HungPod => !!h);
  for (const [job, pods] of groupBy(hung, (h) => `${h.mesh}/${h.job}`)) {
    const mesh = pods[0]!.mesh;
    const jobName = job.slice(mesh.length + 1);
    const oldest = pods
      .map((h) => h.exitedAt?.getTime())
      .filter((t): t is number => t !== undefined)
      .sort()[0];
    const p = profileOf(mesh);
    const relief = p.jobs.relief(
      pods.map((h) => nameOf(h.pod)),
      w.namespace,
      jobName,
    );
    // A CronJob's template is patched for the next runs; a Job's only by re-creating it, which runs it again.
    const unsupported = p.proxy.native.annotation ? p.proxy.native.unsupported?.(m) : undefined;
    const native = unsupported ? undefined : p.proxy.native.annotation;
    // No per-pod switch (or one the installed version does not know): the alternatives name the control plane's.
    const template = !native
      ? [...(unsupported ? [noteStep(unsupported)] : []), ...p.jobs.alternatives]
      : w.kind === 'CronJob' && w.obj
        ? setOnTemplate(w, 'annotations', native, 'true')
        : [comment`then, before it runs again: set ${lit(native)}: 'true' on the pod template of its manifest`];
    yield {
      mesh,
      ...say(MESSAGES, 'proxy-keeps-running', {
        job: `${w.namespace}/${jobName}`,
        ago: oldest !== undefined ? ` ${since(m.now.getTime() - oldest)} ago` : '',
        proxy: pods[0]!.proxy,
      }),
      resource: { kind: 'Job', namespace: w.namespace, name: jobName },
      affectedPods: pods.length,
      evidence: {
        ...(w.kind === 'CronJob' ? { cronJob: w.name } : {}),
        pods: pods.map((h) => ({
          pod: nameOf(h.pod),
          containers: h.containers,
          ...(h.exitedAt
            ? { appExitedAt: h.exitedAt.toISOString(), sinceAppExit: since(m.now.getTime() - h.exitedAt.getTime()) }
            : {}),
        })),
      },
      fix: w.kind === 'CronJob' && w.obj ? [...template, ...relief] : [...relief, ...template],
    };
  }
  return hung.length > 0;
}

const MESSAGES = messages({
  'proxy-keeps-running':
    'Job {job} never completes: its app exited{ago} but {proxy} is not a native sidecar and keeps the pod running.',
  'will-hang':
    '{workload} will be injected with {proxy} as an ordinary container and nothing stops it when the app exits, so its Jobs will never complete.',
});

export default defineCheck({
  ...meta('job-never-completes'),
  facts: [APP_WORKLOADS, DECISIONS, INJECTOR_RELEASES],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      if (w.kind !== 'Job' && w.kind !== 'CronJob') continue;
      const anyHung = yield* hungJobs(m, w);
      if (anyHung) continue; // the hung Job's finding carries the template fix
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
        if (p.jobs.controlPlaneStops) continue; // the control plane stops the proxy itself: only a Job that hangs all the same is reported
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
          fix: ((unsupported) => [
            ...(unsupported
              ? [noteStep(unsupported)]
              : p.proxy.native.annotation
                ? setOnTemplate(w, 'annotations', p.proxy.native.annotation, 'true')
                : []),
            ...p.jobs.alternatives,
          ])(p.proxy.native.annotation ? p.proxy.native.unsupported?.(m) : undefined),
        };
      }
    }
  },
});
