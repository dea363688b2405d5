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
 * another webhook), or else the install's setting was off. Where no kubelet event of the probe was read (they last about
 * an hour), the container's status is the evidence, and the finding says the refusal is not confirmed
 * (src/facts/app-probes.ts `byStatus`: a startup probe not passed past its budget or after restarts, a readiness probe
 * not passed past its budget, beside a ready proxy; kumahq/kuma#4020, istio/istio#36314).
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
import { agree, annotationsOf, nameOf, plural } from '../util/objects.js';
import { firstServing, type AppProbe, type PodProbeHandling, type ProbeThroughProxy } from '../mesh/app-probes.js';
import { APP_PROBE_EVENTS, refusedProbes, type RefusedProbe } from '../facts/app-probes.js';
import type { Workload } from '../k8s/workloads.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  refused:
    '{pods} of {workload}: the {kinds} of container {container} ({probes}) {fail} through the {meshTitle} proxy: {failed}. {why}, so the kubelet reaches the proxy in plaintext, and {refusal}. Its proxy runs {version}: {how}.',
  'by-status':
    "{pods} of {workload}: the {kinds} of container {container} ({probes}) {fail} not passed, as its status shows: {failed}; no kubelet event of it was read (events last about an hour). {why}, so the kubelet reaches the {meshTitle} proxy in plaintext, and {refusal}: the likely cause, which the kubelet's words would confirm. Its proxy runs {version}: {how}.",
});

const WHY: Record<ProbeThroughProxy['why'], string> = {
  'no-rewrite': '{meshTitle} rewrites no probe',
  release: 'This release does not rewrite a {handler} {kind} probe',
  annotation: 'The pod annotation {annotation}: {value} turned the rewrite off',
  'added-after':
    'The injector rewrote the probes of the other containers of the pod but not of {container}: it was added to the pod after injection, by another webhook',
  setting:
    'The injector did not rewrite {them} although this release does: {setting} was off when the pod was injected',
};

/** The probe as the spec says it: handler, port, path. */
function probeText(p: AppProbe): string {
  const port = p.portName ? `${p.portName}${p.port !== undefined ? `=${p.port}` : ''}` : `${p.port ?? '?'}`;
  return p.handler === 'httpGet' ? `httpGet ${port}${p.path ?? '/'}` : `${p.handler} ${port}`;
}

export default defineCheck({
  ...meta('app-probe-through-proxy'),
  facts: [APP_WORKLOADS, MESHES, APP_PROBE_EVENTS],
  messages: MESSAGES,
  *run(m) {
    // Events not read: neither a failure nor its absence is known (the status path needs to know none was read).
    if (!m.has('events')) return;
    const ev = m.fact(APP_PROBE_EVENTS);
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      for (const w of m.appWorkloads) {
        const pods = (podStates(w).meshed.get(mesh) ?? []).filter(isActive);
        if (!pods.length) continue;
        const nsAnn = annotationsOf(m.namespace(w.namespace));
        const hits: ({ pod: string } & RefusedProbe)[] = [];
        for (const pod of pods.slice(0, 200))
          for (const x of refusedProbes(m, p, w, pod, nsAnn, ev, true)) hits.push({ pod: nameOf(pod), ...x });
        if (!hits.length) continue;
        const KIND_ORDER = ['liveness', 'readiness', 'startup'];
        hits.sort((a, b) =>
          a.t.probe.container !== b.t.probe.container
            ? a.t.probe.container < b.t.probe.container
              ? -1
              : 1
            : a.t.why !== b.t.why
              ? a.t.why < b.t.why
                ? -1
                : 1
              : KIND_ORDER.indexOf(a.t.probe.kind) - KIND_ORDER.indexOf(b.t.probe.kind) ||
                (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0),
        );
        // One finding per container of the workload and reason its probes were not rewritten, its kinds together.
        const groups = new Map<string, typeof hits>();
        for (const x of hits) {
          const id = `${x.t.probe.container}/${x.t.why}/${x.failure ? 'events' : 'status'}`;
          if (!groups.has(id) && groups.size >= 8) continue;
          groups.set(id, [...(groups.get(id) ?? []), x]);
        }
        for (const same of groups.values()) {
          const first = same[0]!;
          const podNames = [...new Set(same.map((x) => x.pod))];
          const inFirst = same.filter((x) => x.pod === first.pod);
          const { t, h } = first;
          const u = h.handling.unrewritten;
          const r = h.handling.rewrites;
          const ann = r?.annotation
            ? annotationsOf(pods.find((x) => nameOf(x) === first.pod))[r.annotation]
            : undefined;
          const kinds = inFirst.map((x) => x.t.probe.kind);
          const kindsText = `${kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds[kinds.length - 1]}` : kinds[0]} ${agree(kinds.length, 'probe', 'probes')}`;
          const why = WHY[t.why]
            .replace('{handler}', t.probe.handler)
            .replace('{kind}', t.probe.kind)
            .replace('{annotation}', r?.annotation ?? '')
            .replace('{value}', ann ?? '')
            .replace('{container}', t.probe.container)
            .replace('{setting}', r?.setting ?? 'the install setting')
            .replace('{meshTitle}', p.title)
            .replace('{them}', kinds.length > 1 ? 'them' : 'it');
          const policy = t.policy
            ? `${t.policy.value}, on the ${t.policy.on},`
            : 'of the install, set on neither the pod nor its namespace,';
          const refusal =
            u.refused === 'authz'
              ? t.unmatched
                ? `${t.unmatched.what} (${t.unmatched.source}), so under its default inbound policy ${policy} the proxy answers 403`
                : `its default inbound policy ${policy} admits no unauthenticated client: the proxy answers 403`
              : first.failure
                ? `${u.when} (the mesh's mTLS mode was not read: the kubelet's failure is the evidence)`
                : `${u.when} (the mesh's mTLS mode was not read)`;
          const failures = inFirst
            .map((x) =>
              x.failure
                ? `${plural(x.failure.count, `${x.t.probe.kind} failure`)} ("${x.failure.message}")`
                : (x.status ?? ''),
            )
            .join('; ');
          const kills = inFirst.reduce((n, x) => n + x.kills, 0);
          const killsText = kills ? `, killed ${plural(kills, 'time')} for a failed probe` : '';
          const restartsText = first.restarts ? `, restarted ${plural(first.restarts, 'time')}` : '';
          const later =
            (t.why === 'release' || t.why === 'no-rewrite') && !t.unmatched
              ? firstServing(p, t.probe, h.name)
              : undefined;
          yield {
            mesh,
            ...say(MESSAGES, first.failure ? 'refused' : 'by-status', {
              pods: plural(podNames.length, 'pod'),
              workload: `${w.kind} ${w.namespace}/${w.name}`,
              kinds: kindsText,
              container: t.probe.container,
              probes: inFirst.map((x) => `${x.t.probe.kind} ${probeText(x.t.probe)}`).join(', '),
              fail: first.failure ? agree(kinds.length, 'fails', 'fail') : agree(kinds.length, 'has', 'have'),
              meshTitle: p.title,
              failed: first.failure ? `${failures} in the events read${killsText}${restartsText}` : failures,
              why,
              refusal,
              version: h.version,
              how: first.how,
            }),
            resource: w.ref,
            affectedPods: podNames.length,
            evidence: {
              container: t.probe.container,
              probes: inFirst.map((x) => ({
                kind: x.t.probe.kind,
                handler: x.t.probe.handler,
                port: x.t.probe.port ?? null,
                ...(x.t.probe.portName ? { portName: x.t.probe.portName } : {}),
                ...(x.t.probe.path ? { path: x.t.probe.path } : {}),
                ...(x.failure ? { unhealthy: { message: x.failure.message, count: x.failure.count } } : {}),
                ...(x.status ? { status: x.status } : {}),
                killedForProbe: x.kills,
              })),
              notRewritten: t.why,
              ...(t.policy ? { defaultInboundPolicy: t.policy } : {}),
              restarts: first.restarts,
              release: first.release,
              proxyVersion: h.version,
              releaseSource: first.source,
              ...(later ? { letThroughFrom: `${p.title} ${later}` } : {}),
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
  h: PodProbeHandling,
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
  if (t.why === 'added-after')
    options.push({
      label: text`let the injector see the container`,
      steps: [
        comment`set reinvocationPolicy IfNeeded on the injection webhook of the mesh so that it runs again after the webhook that adds the container, then re-create the pods`,
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
