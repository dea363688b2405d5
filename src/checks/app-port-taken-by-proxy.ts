/**
 * app-port-taken-by-proxy — a container of a meshed pod (or of a template the mesh will inject) declares a TCP port
 * that the mesh's injected container binds in the same pod: every container of a pod shares one network namespace, so
 * whichever starts second cannot listen ("Address in use"): the app crash-loops, or the proxy does.
 *
 * Why: issue 31 (the pod's own spec against what the injected containers need). The ports each mesh's containers bind,
 * per mesh, and the pod annotation that moves each one, are the profile's `network.podSpec.ports`
 * (src/mesh/<mesh>/pod-needs.ts, from the meshes' charts and docs); one mesh-agnostic reading is portClashes in
 * src/facts/pod-needs.ts. Real report: Mailu/helm-charts#63 (dovecot's managesieve on 4190, Linkerd's tap server).
 * When: app workloads in scope whose pods carry the mesh's containers (judged on the first such pod, with its own
 * annotations), or whose template the mesh will inject (judged with the containers the mesh injects next). Only ports
 * declared in `ports` (TCP); a port an annotation moves is judged at its value.
 * Known false positives: a declared containerPort the app does not listen on. Not seen: a port the app listens on
 * without declaring it.
 * Fix: move the proxy's port with the mesh's annotation on the pod template (a port no container declares), where the
 * mesh has one; else change the port the app listens on.
 */
import { comment, type Step } from '../fix/steps.js';
import { setAnnotationsOnTemplate } from '../fix/commands.js';
import { APP_WORKLOADS, DECISIONS, jobFinished } from '../facts/model.js';
import { podsCarrying } from '../facts/pods.js';
import { INJECTS_NEXT, portClashes, type PortClash } from '../facts/pod-needs.js';
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import type { Workload } from '../k8s/workloads.js';
import { meshTitle } from '../mesh/registry.js';
import { annotationsOf, isObj, nameOf, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'port-taken':
    '{workload}: container {container} declares port {port}, which {mesh} {owner} binds for {serves} ({from}) in the same pod network{state}: the one that starts second cannot listen.',
});

/** The app container's state in the pod, where it shows the clash: restarts, a waiting reason, not ready. */
function stateOf(pod: K8sObject | undefined, name: string): { text: string; evidence?: Record<string, unknown> } {
  if (!pod) return { text: '' };
  const status = isObj(pod.status) ? pod.status : {};
  const list = [
    ...(Array.isArray(status.containerStatuses) ? status.containerStatuses : []),
    ...(Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : []),
  ].slice(0, 64);
  const s = list.find((x) => isObj(x) && x.name === name);
  if (!isObj(s)) return { text: '' };
  const restarts = typeof s.restartCount === 'number' ? s.restartCount : 0;
  const waiting = isObj(s.state) && isObj(s.state.waiting) ? str(s.state.waiting.reason) : undefined;
  if (!restarts && !waiting && s.ready !== false) return { text: '' };
  const parts = [
    ...(waiting ? [`waiting: ${waiting}`] : []),
    ...(restarts ? [`restarted ${restarts} times`] : []),
    ...(s.ready === false ? ['not ready'] : []),
  ];
  return {
    text: `; in pod ${nameOf(pod)} container ${name} is ${parts.join(', ')}`,
    evidence: {
      pod: nameOf(pod),
      container: name,
      ready: s.ready === true,
      restartCount: restarts,
      ...(waiting ? { waiting } : {}),
    },
  };
}

/** A port for the proxy that no container of the pod declares and no other clash uses (bounded search upwards). */
function freePort(spec: Record<string, any>, from: number, avoid: readonly number[]): number | undefined {
  const used = new Set<number>(avoid);
  for (const c of [...containers(spec), ...initContainers(spec)].slice(0, 64))
    for (const p of Array.isArray(c.ports) ? c.ports.slice(0, 64) : [])
      if (isObj(p) && typeof p.containerPort === 'number') used.add(p.containerPort);
  for (let port = from + 1; port <= Math.min(from + 100, 65535); port++) if (!used.has(port)) return port;
  return undefined;
}

function fixOf(w: Workload, spec: Record<string, any>, clashes: readonly PortClash[], title: string): Step[] {
  const moved: Record<string, string> = {};
  const steps: Step[] = [];
  const avoid = clashes.map((c) => c.port);
  for (const c of clashes) {
    const port =
      c.annotation && !moved[c.annotation]
        ? freePort(spec, c.port, [...avoid, ...Object.values(moved).map(Number)])
        : undefined;
    if (c.annotation && port !== undefined) moved[c.annotation] = String(port);
    else if (!c.annotation)
      steps.push(
        comment`${title} ${c.owner} always binds ${c.port}: make container ${c.container} listen on another port`,
      );
  }
  return [
    ...(Object.keys(moved).length
      ? [
          comment`move the ports of the proxy off those the app declares, with annotations on the pod template`,
          ...setAnnotationsOnTemplate(w, moved),
        ]
      : []),
    ...steps,
  ];
}

export default defineCheck({
  ...meta('app-port-taken-by-proxy'),
  facts: [APP_WORKLOADS, DECISIONS, INJECTS_NEXT],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      if (!m.inScope(w.namespace)) continue;
      if (w.kind === 'Job' && jobFinished(w.obj)) continue;
      for (const { mesh } of m.meshes) {
        const pod = podsCarrying(w, mesh)[0];
        if (!pod && (!w.templatePath || !m.decision(w, mesh)?.inject)) continue;
        const spec = podSpec(pod ?? w.template);
        const present = pod
          ? [...initContainers(spec), ...containers(spec)].map((c) => str(c.name) ?? '')
          : m.fact(INJECTS_NEXT, mesh);
        const clashes = portClashes(m, mesh, w.namespace, spec, annotationsOf(pod ?? w.template), present);
        const first = clashes[0];
        if (!first) continue;
        const state = stateOf(pod, first.container);
        yield {
          mesh,
          ...say(MESSAGES, 'port-taken', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            container: first.container,
            port: String(first.port),
            mesh: meshTitle(mesh),
            owner: first.owner,
            serves: first.serves,
            from: first.from,
            state: state.text,
          }),
          resource: w.ref,
          affectedPods: 1,
          evidence: {
            ports: clashes.map((c) => ({
              container: c.container,
              port: c.port,
              boundBy: c.owner,
              serves: c.serves,
              from: c.from,
            })),
            ...(state.evidence ? { state: state.evidence } : {}),
            injected: pod ? 'a pod of the workload carries the mesh' : 'the template will be injected',
            source: first.source,
          },
          fix: w.templatePath
            ? fixOf(w, spec, clashes, meshTitle(mesh))
            : [comment`re-create the pod with ports that do not clash`],
        };
      }
    }
  },
});
