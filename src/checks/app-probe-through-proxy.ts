/**
 * app-probe-through-proxy — an app container of a meshed pod fails its liveness, readiness or startup probe because
 * the probe reaches the mesh's proxy unrewritten and the proxy refuses it (issue 31, gen12probes).
 *
 * Why: the kubelet probes from the node, in plaintext. A proxy that intercepts the probe's port meets it first. Each
 * mesh handles it per release (src/mesh/<mesh>/probes.ts, read through src/mesh/app-probes.ts): Istio, Kuma and
 * Consul rewrite some probes to the proxy's own probe listener (which kinds and handlers, on by default or not, the
 * pod annotation that turns it off), and a probe left alone meets an inbound listener that accepts only mutual TLS
 * where the mesh requires it (Envoy closes the connection: "connection reset by peer", EOF); Linkerd rewrites none and
 * its inbound policy answers 403 where the pod's default policy admits no unauthenticated client, unless the release
 * authorizes the pod's probe paths (2.12 on; a path with a query string only from stable-2.13.4).
 * When: an active pod of an app workload runs the mesh's proxy, from a release the tables place; a probe of an app
 * container (httpGet or grpc; exec and tcpSocket never fail through a proxy) on a port the proxy intercepts is not
 * rewritten, and the kubelet's Unhealthy events for that container and probe kind quote the failure the refusal
 * gives (the release row's `shows`). Why it was not rewritten: the release does not rewrite that kind or handler, the
 * pod annotation turned it off, the pod's other containers were rewritten and this one not (added after injection by
 * another webhook), or else the install's setting was off.
 * Silent: a rewritten probe (its failure is the app's), a port excluded from inbound capture or inbound redirection
 * off, exec and tcpSocket probes, a failure text the refusal does not give (an HTTP 500 is the app's answer), a
 * Linkerd policy read that admits unauthenticated clients, and a workload whose unmeshed pods fail the same probe (the
 * app's own failure). The mesh's mTLS mode (PeerAuthentication, the Mesh's mtls) is not read: the failure text is
 * the evidence, quoted.
 * Fix: the rewrite annotation (where the release rewrites the probe), an upgrade to the first release that does, or
 * the port excluded from inbound capture; Linkerd: the release that authorizes probes, or the port skipped.
 */
import { choice, comment, lit, text, type Step } from '../fix/steps.js';
import { recreateCommands, setOnTemplate, removeFromTemplate } from '../fix/commands.js';
import { isActive } from '../k8s/pods.js';
import { profileOf } from '../mesh/registry.js';
import { meshesAllowed } from '../facts/siblings.js';
import { podStates, APP_WORKLOADS, MESHES } from '../facts/model.js';
import type { Model } from '../facts/model.js';
import { defineFact } from '../k8s/fact.js';
import { APP_PROBE_FAILED, eventInfo, PROBE_KILLED } from '../k8s/events.js';
import { annotationsOf, arr, isObj, nameOf, nsOf, plural, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import {
  firstServing,
  podProbeHandling,
  probesThroughProxy,
  refusalShows,
  type AppProbe,
  type ProbeThroughProxy,
} from '../mesh/app-probes.js';
import type { Workload } from '../k8s/workloads.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The kubelet's app probe failures and kills per pod, container and kind: the latest message, counts. */
interface Failures {
  message: string;
  count: number;
  last?: string;
}

const APP_PROBE_EVENTS = defineFact({
  id: 'app-probe-events',
  inputs: ['events'],
  compute: (m: Model) => {
    const failed = new Map<string, Failures>();
    const killed = new Map<string, number>();
    for (const e of m.list('events')) {
      if (e.reason !== APP_PROBE_FAILED.reason && e.reason !== PROBE_KILLED.reason) continue;
      const info = eventInfo(e);
      if (info.kind !== 'Pod' || !info.container) continue;
      const base = `${info.namespace}/${info.name}/${info.container}`;
      if (info.reason === PROBE_KILLED.reason) {
        const k = / failed (liveness|startup) probe/.exec(info.message)?.[1];
        if (k && PROBE_KILLED.message.test(info.message))
          killed.set(`${base}/${k}`, (killed.get(`${base}/${k}`) ?? 0) + info.count);
        continue;
      }
      if (!APP_PROBE_FAILED.message.test(info.message)) continue;
      const kind = /^(Readiness|Liveness|Startup) /.exec(info.message)![1]!.toLowerCase();
      const key = `${base}/${kind}`;
      const last = str(e.lastTimestamp) ?? str(e.eventTime) ?? str(e.firstTimestamp);
      const had = failed.get(key);
      if (!had) failed.set(key, { message: info.message, count: info.count, ...(last ? { last } : {}) });
      else {
        had.count += info.count;
        if (last && (!had.last || last > had.last)) {
          had.message = info.message;
          had.last = last;
        }
      }
    }
    return { failed, killed };
  },
});

const MESSAGES = messages({
  refused:
    '{pods} of {workload}: the {kind} probe of container {container} ({probe}) fails through the {meshTitle} proxy: {failed}. {why}, so the kubelet reaches the proxy in plaintext, and {refusal}. {release}: {how}.',
});

const WHY: Record<ProbeThroughProxy['why'], string> = {
  'no-rewrite': 'The mesh rewrites no probe',
  release: 'This release does not rewrite a {handler} {kind} probe',
  annotation: 'The pod annotation {annotation}: {value} turned the rewrite off',
  'added-after':
    'The injector rewrote the probes of the other containers of the pod but not of {container}: it was added to the pod after injection, by another webhook',
  setting: 'The injector did not rewrite it although this release does: {setting} was off when the pod was injected',
};

/** The probe as the spec says it: handler, port, path. */
function probeText(p: AppProbe): string {
  const port = p.portName ? `${p.portName}${p.port !== undefined ? `=${p.port}` : ''}` : `${p.port ?? '?'}`;
  return p.handler === 'httpGet' ? `httpGet ${port}${p.path ?? '/'}` : `${p.handler} ${port}`;
}

/** The restart count of a container, from the pod's status. */
function restarts(pod: K8sObject, container: string): number {
  const st = isObj(pod.status) ? pod.status : {};
  for (const cs of arr(st.containerStatuses).slice(0, 64))
    if (isObj(cs) && cs.name === container && typeof cs.restartCount === 'number') return cs.restartCount;
  return 0;
}

/** Whether any unmeshed pod of the workload fails this container's probe of this kind: the app's own failure. */
function failsUnmeshed(w: Workload, index: Map<string, Failures>, container: string, kind: string): boolean {
  return podStates(w).unmeshed.some((pod) => index.has(`${nsOf(pod)}/${nameOf(pod)}/${container}/${kind}`));
}

export default defineCheck({
  ...meta('app-probe-through-proxy'),
  facts: [APP_WORKLOADS, MESHES, APP_PROBE_EVENTS],
  messages: MESSAGES,
  *run(m) {
    if (!m.has('events')) return;
    const ev = m.fact(APP_PROBE_EVENTS);
    if (!ev.failed.size) return;
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      for (const w of m.appWorkloads) {
        const pods = (podStates(w).meshed.get(mesh) ?? []).filter(isActive);
        if (!pods.length) continue;
        const nsAnn = annotationsOf(m.namespace(w.namespace));
        const hits: {
          pod: string;
          t: ProbeThroughProxy;
          failure: Failures;
          kills: number;
          restarts: number;
          release: string;
          how: string;
          source: string;
          fix: string;
          h: NonNullable<ReturnType<typeof podProbeHandling>>;
        }[] = [];
        for (const pod of pods.slice(0, 200)) {
          const key = `${nsOf(pod)}/${nameOf(pod)}`;
          const ph = podProbeHandling(p, pod);
          if (!ph) continue;
          for (const t of probesThroughProxy(p, pod, ph, nsAnn)) {
            const failure = ev.failed.get(`${key}/${t.probe.container}/${t.probe.kind}`);
            if (!failure || !refusalShows(ph.handling, failure.message)) continue;
            if (failsUnmeshed(w, ev.failed, t.probe.container, t.probe.kind)) continue;
            hits.push({
              pod: nameOf(pod),
              t,
              failure,
              kills: ev.killed.get(`${key}/${t.probe.container}/${t.probe.kind}`) ?? 0,
              restarts: restarts(pod, t.probe.container),
              release: ph.release,
              how: ph.handling.how,
              source: ph.source,
              fix: ph.handling.fix,
              h: ph,
            });
          }
        }
        if (!hits.length) continue;
        hits.sort((a, b) =>
          a.pod !== b.pod
            ? a.pod < b.pod
              ? -1
              : 1
            : `${a.t.probe.container}/${a.t.probe.kind}` < `${b.t.probe.container}/${b.t.probe.kind}`
              ? -1
              : 1,
        );
        // One finding per container and probe kind of the workload.
        const seen = new Set<string>();
        for (const first of hits) {
          const id = `${first.t.probe.container}/${first.t.probe.kind}`;
          if (seen.has(id)) continue;
          seen.add(id);
          if (seen.size > 8) break;
          const same = hits.filter((x) => `${x.t.probe.container}/${x.t.probe.kind}` === id);
          const podNames = [...new Set(same.map((x) => x.pod))];
          const { t, h } = first;
          const u = h.handling.unrewritten;
          const r = h.handling.rewrites;
          const ann = r?.annotation
            ? annotationsOf(pods.find((x) => nameOf(x) === first.pod))[r.annotation]
            : undefined;
          const why = WHY[t.why]
            .replace('{handler}', t.probe.handler)
            .replace('{kind}', t.probe.kind)
            .replace('{annotation}', r?.annotation ?? '')
            .replace('{value}', ann ?? '')
            .replace('{container}', t.probe.container)
            .replace('{setting}', r?.setting ?? 'the install setting');
          const refusal =
            u.refused === 'authz'
              ? t.unmatched
                ? `${t.unmatched.what} (${t.unmatched.source}), so its default inbound policy ${t.policy ? `${t.policy.value}, on the ${t.policy.on},` : 'of the install'} answers 403`
                : `its default inbound policy ${t.policy ? `${t.policy.value}, on the ${t.policy.on},` : 'of the install, not set on the pod or its namespace,'} admits no unauthenticated client: the proxy answers 403`
              : `${u.when}: that is what the kubelet says`;
          const restartsText = first.restarts ? `, the container restarted ${plural(first.restarts, 'time')}` : '';
          const killsText = first.kills ? `, killed ${plural(first.kills, 'time')} for it` : '';
          const failed = `${plural(first.failure.count, 'failure')} in the events read ("${first.failure.message}")${killsText}${restartsText}`;
          const later = t.why === 'release' || t.why === 'no-rewrite' ? firstServing(p, t.probe, h.name) : undefined;
          yield {
            mesh,
            ...say(MESSAGES, 'refused', {
              pods: plural(podNames.length, 'pod'),
              workload: `${w.kind} ${w.namespace}/${w.name}`,
              kind: t.probe.kind,
              container: t.probe.container,
              probe: probeText(t.probe),
              meshTitle: p.title,
              failed,
              why,
              refusal,
              release: first.release,
              how: first.how,
            }),
            resource: w.ref,
            affectedPods: podNames.length,
            evidence: {
              container: t.probe.container,
              probe: {
                kind: t.probe.kind,
                handler: t.probe.handler,
                port: t.probe.port ?? null,
                ...(t.probe.portName ? { portName: t.probe.portName } : {}),
                ...(t.probe.path ? { path: t.probe.path } : {}),
              },
              notRewritten: t.why,
              ...(t.policy ? { defaultInboundPolicy: t.policy } : {}),
              unhealthy: { message: first.failure.message, count: first.failure.count },
              killedForProbe: first.kills,
              restarts: first.restarts,
              release: first.release,
              releaseSource: first.source,
              ...(later ? { rewrittenFrom: `${p.title} ${later}` } : {}),
              pods: podNames.slice(0, 20),
            },
            fix: fixFor(w, t, h, p.title, later, ann),
          };
        }
      }
    }
  },
});

/** The fix: the rewrite where the release rewrites this probe, an upgrade where a later one does, or the port left out. */
function fixFor(
  w: Workload,
  t: ProbeThroughProxy,
  h: NonNullable<ReturnType<typeof podProbeHandling>>,
  title: string,
  later: string | undefined,
  ann: string | undefined,
): Step[] {
  const r = h.handling.rewrites;
  const options: { label: ReturnType<typeof text>; steps: Step[] }[] = [];
  if (r?.annotation && (t.why === 'annotation' || t.why === 'setting')) {
    const on = r.on?.[0];
    options.push({
      label: text`let the injector rewrite the probe`,
      steps: [
        ...(on
          ? setOnTemplate(w, 'annotations', r.annotation, on)
          : ann !== undefined
            ? removeFromTemplate(w, 'annotations', r.annotation)
            : [comment`turn on ${lit(r.setting)}`]),
        ...recreateCommands(w),
      ],
    });
  }
  if (later)
    options.push({
      label: text`upgrade`,
      steps: [
        comment`${lit(title)} ${later} and later let this probe through: upgrade the control plane, then re-create the pods`,
      ],
    });
  if (t.unmatched)
    options.push({
      label: text`upgrade or change the probe`,
      steps: [
        comment`upgrade to ${lit(t.unmatched.fixedIn ?? 'a later release')} or later, or remove the query string from the probe path`,
      ],
    });
  const exclude = h.handling.exclude?.[0];
  if (exclude && t.probe.port !== undefined) {
    const had = annotationsOf(w.template)[exclude];
    const value = had && had.trim() ? `${had.trim()},${t.probe.port}` : `${t.probe.port}`;
    options.push({
      label: text`leave the probe port out of the proxy`,
      steps: [
        comment`the kubelet then reaches the app on this port directly, and so does every other client of the port`,
        ...setOnTemplate(w, 'annotations', exclude, value),
        ...recreateCommands(w),
      ],
    });
  }
  if (!options.length) return [comment`${lit(h.handling.fix)}`];
  return options.length === 1 ? options[0]!.steps : [choice(text`${lit(h.handling.fix)}`, options)];
}
