/**
 * control-plane-down — a component of a mesh's control plane does not run (its workload wants replicas and none is
 * ready, it is scaled to 0 while pods show they need it, or it is not installed while pods wait for what only it
 * writes), said with why and with what it breaks: Linkerd's identity (the proxies started since never become ready),
 * destination, sp-validator, controller; Istio's Citadel, Pilot and Galley before istiod; Consul's servers and
 * webhook certificate manager (src/mesh/<mesh>/components.ts, read through the profile's `components`).
 *
 * Why: a control-plane component that does not run shows nowhere but in its own namespace, while the pods that need it
 * show only the symptom: a proxy at 1/2 Ready, an init container that never finishes, a pod held in ContainerCreating
 * by a Secret the kubelet cannot find (linkerd/linkerd2#5356: identity unschedulable after a scale-down;
 * istio/istio#18840: no Citadel installed, #19029: Citadel's image name invalid; hashicorp/consul-helm#284,
 * hashicorp/consul-k8s#1496: the servers' volume claims never bound).
 * When: the profile's components found in the mesh's control-plane namespaces by their pod template's labels (the
 * names follow the release), their pods by the workload's selector (src/facts/components.ts). Down: no ready replica
 * (its status, else its pods), unless its pods are younger than two minutes with nothing broken (starting). Why: the
 * one reading of why a control-plane pod does not run (src/facts/pod-warnings.ts whyNotRunning, whyNoPods): the
 * scheduler's message, the kubelet's words about an image it cannot pull or parse, a container it cannot create, a
 * crash loop with the component's own termination message, a volume it cannot mount, the controller's FailedCreate
 * (quota, Pod Security, priority class, ServiceAccount); otherwise the state seen is quoted and the cause said unknown.
 * What it breaks: the pods of the mesh showing the component's symptoms now. The injector and the node agents are
 * judged by injector-unavailable and node-agent-incomplete; the symptoms' checks (proxy-cannot-start,
 * injector-unavailable) name this finding as their cause (one cause, one finding).
 * Known false positives: a snapshot taken during an install or an upgrade; a component scaled down on purpose while
 * pods show the same symptom for another reason.
 * Fix: what the reading found (the scheduler's constraint, the image, the quota, the Secret), the pod's events and
 * previous log, and for a missing component how to install it; then the affected pods re-created.
 */
import { cmd, comment, lit, type Step } from '../fix/steps.js';
import { COMPONENT_STATES, componentStates, downComponentOf, type ComponentState } from '../facts/components.js';
import { MESHES } from '../facts/model.js';
import { meshTitle } from '../mesh/registry.js';
import { podHealth } from '../k8s/health.js';
import { nameOf, nsOf, plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  down: "{mesh}'s {component} ({workload}) has {ready} of {desired} replicas ready{why}. It {provides}: {without}{affected}.",
  'scaled-to-zero': "{mesh}'s {component} ({workload}) is scaled to 0 replicas. It {provides}: {without}{affected}.",
  missing:
    "No workload of {mesh}'s {component} runs in {namespaces} (none whose pods are labelled {labels}), but {seen}. It {provides}: {without}.",
});

const ids = (s: ComponentState) => s.affected.map((a) => `${nsOf(a.pod)}/${nameOf(a.pod)}`);

/** The pods showing the symptoms, as a clause. */
function affectedClause(s: ComponentState): string {
  const list = ids(s);
  if (!list.length) return '';
  const shows = [...new Set(s.affected.map((a) => a.shows))].slice(0, 3).join(', ');
  return `; ${plural(list.length, 'pod')} of the mesh ${list.length === 1 ? 'shows' : 'show'} it (${list.slice(0, 5).join(', ')}${list.length > 5 ? ', ...' : ''}: ${shows})`;
}

/** The quoted pod's state when nothing more was said: its waiting reason and last exit, else not ready. */
function stateOf(s: ComponentState): string {
  const pod = s.pods.find((p) => nameOf(p) === s.pod);
  const h = pod ? podHealth(pod) : undefined;
  if (!h) return 'not ready';
  const last = h.lastTermination;
  const exit = last
    ? `, its container ${last.container} last exited${last.exitCode !== undefined ? ` with code ${last.exitCode}` : ''}${last.reason ? ` (${last.reason})` : ''}`
    : '';
  return `${h.waiting ?? (h.phase === 'Running' ? 'running, not ready' : (h.phase ?? 'not ready'))}${exit}`;
}

function fixFor(s: ComponentState): Step[] {
  const steps: Step[] = [];
  const ns = s.ref?.namespace ?? s.namespaces[0] ?? '';
  const why = s.why;
  if (s.state === 'missing') {
    steps.push(
      comment`no workload of ${s.component.title} was found: install it with the control plane, ${lit(s.component.enable ?? 'see the install values of the mesh')}`,
      cmd`kubectl -n ${ns} get deployments,statefulsets,daemonsets --show-labels`,
    );
  } else if (s.state === 'scaled-to-zero' && s.ref) {
    steps.push(cmd`kubectl -n ${ns} scale ${`${s.ref.kind.toLowerCase()}/${s.ref.name}`} --replicas=1`);
  } else if (s.ref) {
    const target = `${s.ref.kind.toLowerCase()}/${s.ref.name}`;
    if (why?.kind === 'unscheduled')
      steps.push(
        comment`the scheduler cannot place its pod: free or add capacity, or change what the pod asks for, in the install values too`,
      );
    else if (why?.kind === 'image')
      steps.push(
        comment`the node cannot pull or parse its image: correct the image in the install values or let the nodes reach the registry`,
      );
    else if (why?.kind === 'not-created')
      steps.push(
        comment`its controller cannot create its pods: the refusal quoted names what to change in the namespace`,
      );
    else if (why?.kind === 'held')
      steps.push(comment`the kubelet cannot mount a volume of its pod: the object the events name must exist`);
    if (s.pod) steps.push(cmd`kubectl -n ${ns} describe pod ${s.pod}`);
    else steps.push(cmd`kubectl -n ${ns} describe ${target}`);
    if (why?.kind === 'crash' && s.pod && why.container)
      steps.push(cmd`kubectl -n ${ns} logs ${s.pod} -c ${why.container} --previous`);
  }
  if (s.affected.length)
    steps.push(
      comment`once it runs, re-create the pods that gave up waiting for it`,
      ...s.affected.slice(0, 5).map((a) => cmd`kubectl -n ${nsOf(a.pod)} delete pod ${nameOf(a.pod)}`),
    );
  return steps;
}

export default defineCheck({
  ...meta('control-plane-down'),
  facts: [MESHES, COMPONENT_STATES],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      for (const s of componentStates(m, mesh)) {
        if (s.component.judgedBy || s.state === 'runs' || s.state === 'starting') continue;
        // Scaled to 0 on purpose is a choice: said only where pods show they need it.
        if (s.state === 'scaled-to-zero' && !s.affected.length) continue;
        const c = s.component;
        const common = {
          mesh: meshTitle(mesh),
          component: c.title,
          provides: c.provides,
          without: c.without,
        };
        const resource = s.ref ?? { kind: 'Namespace', name: s.namespaces[0] ?? '' };
        const evidence = {
          component: c.id,
          workload: s.ref ? `${s.ref.kind}/${s.ref.namespace}/${s.ref.name}` : null,
          state: s.state,
          desired: s.desired ?? null,
          ready: s.ready ?? null,
          pod: s.pod ?? null,
          why: s.why ? { kind: s.why.kind, said: s.why.said ?? null, warnings: s.why.warnings } : null,
          affectedPods: ids(s).slice(0, 20),
          releases: c.releases,
          source: c.source,
        };
        // Its own pod waits for another component (a Secret Citadel writes): that one is the cause.
        const podObj = s.pod ? s.pods.find((p) => nameOf(p) === s.pod) : undefined;
        const upstream = podObj ? downComponentOf(m, mesh, podObj) : undefined;
        const base = {
          mesh,
          resource,
          ...(upstream && upstream.component.id !== c.id
            ? { causedBy: { kind: 'component-down' as const, mesh, component: upstream.component.id } }
            : {}),
          affectedPods: s.affected.length,
          causeKey: { kind: 'component-down' as const, mesh, component: c.id },
          evidence,
          fix: fixFor(s),
        };
        if (s.state === 'missing') {
          yield {
            ...base,
            ...say(MESSAGES, 'missing', {
              ...common,
              namespaces: s.namespaces.join(', '),
              labels: c.podLabels
                .map((l) =>
                  Object.entries(l)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(','),
                )
                .join(' or '),
              seen: `${s.service ? `Service ${s.service}, which they dial for it, selects no pod, and ` : ''}${affectedClause(s).replace(/^; /, '')}`,
            }),
          };
          continue;
        }
        const workload = `${s.ref!.kind} ${s.ref!.namespace}/${s.ref!.name}`;
        if (s.state === 'scaled-to-zero') {
          yield { ...base, ...say(MESSAGES, 'scaled-to-zero', { ...common, workload, affected: affectedClause(s) }) };
          continue;
        }
        const why = s.why
          ? s.pod
            ? ` (pod ${s.pod}: ${s.why.text.replace(/^; /, '')})`
            : ` (${s.why.text.replace(/^; /, '')})`
          : s.pod
            ? ` (pod ${s.pod}: ${stateOf(s)}, for a reason the cluster does not show: its events and previous log say more)`
            : s.pods.length === 0
              ? ' (no pod of it exists, and no FailedCreate about it was read)'
              : '';
        yield {
          ...base,
          ...say(MESSAGES, 'down', {
            ...common,
            workload,
            ready: s.ready ?? 0,
            desired: s.desired ?? 0,
            why,
            affected: affectedClause(s),
          }),
        };
      }
    }
  },
});
