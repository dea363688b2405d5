/**
 * init-before-proxy — an init container of the app fails in a meshed pod whose outbound traffic is
 * already redirected to a proxy that does not run yet: the mesh's iptables init container sits
 * before it, or the mesh's CNI plugin redirected the pod from its start, and the proxy is an
 * ordinary container, which the kubelet starts only after every init container has completed
 * (issue 31.10: start order).
 *
 * Why: the kubelet runs init containers one by one, in the order of the pod spec, before any
 * ordinary container (kubernetes pkg/kubelet/kuberuntime computeInitContainerActions). Each mesh's
 * injector puts its iptables init container after the app's own init containers (Istio's
 * reorderPod moves istio-init last, Linkerd appends linkerd-init, Kuma appends kuma-init unless the
 * pod says kuma.io/init-first, consul-k8s appends consul-connect-inject-init), so those reach the
 * network before the redirection. With the mesh's CNI plugin there is no such container: the
 * redirection is set when the pod's sandbox is created, and every init container of the app runs
 * under it (istio/istio#27382, #23802, #49787; linkerd/linkerd2#4788, #8100). Its connections go
 * to the proxy's port, where nothing listens yet: refused, or timed out. The redirection leaves
 * the proxy's own UID alone, and the mesh's annotations exclude ports, address ranges or UIDs from
 * it; a native sidecar proxy placed before the init container runs while it does. Each mesh's
 * facts, with their sources: its profile's `runtime.startOrder.initTraffic`.
 * When: an active pod of an app workload runs the mesh's proxy; the mesh's iptables init container
 * sits before an init container of the app, or the pod carries the mesh's CNI validation container
 * instead of it (or the injector's own setting says the CNI plugin is on and there is no iptables
 * init container); no native proxy sits between them; the app's init container does not run as the
 * proxy's UID; the pod has none of the mesh's outbound exclusion annotations (then what it dials
 * may be excluded: not judged); and the init container failed (restarted, or ended with an exit
 * code other than 0, or waits in CrashLoopBackOff).
 * Known false positives: an init container that fails for a reason of its own while the
 * redirection is in place (the finding quotes what it saw; the redirection is still a cause it
 * must get past).
 * Fix: one of: run the init container as the proxy's UID, exclude what it dials with the mesh's
 * annotations (those its release knows), make the proxy a native sidecar where the mesh places it
 * before the app's init containers, or (Kuma) put kuma-init after the app's init containers; then
 * re-create the pods.
 */
import { recreateCommands } from '../fix/commands.js';
import { setOnTemplate } from '../fix/commands.js';
import { choice, comment, lit, text, type Step } from '../fix/steps.js';
import { knownKeys, KNOWN_KEYS } from '../facts/releases.js';
import { podsCarrying } from '../facts/pods.js';
import { meshesAllowed } from '../facts/siblings.js';
import { networkFailure } from '../k8s/network-error.js';
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import type { InitTraffic, MeshProfile } from '../mesh/profile.js';
import { injectedNames } from '../mesh/proxy.js';
import { proxyNamesOfAllReleases } from '../mesh/releases.js';
import { profileOf } from '../mesh/registry.js';
import { printable } from '../util/errors.js';
import type { K8sObject } from '../util/types.js';
import { annotationOf, arr, isObj, nameOf, plural, str } from '../util/objects.js';
import { ADMISSION_CHAIN, mutatingAfter } from '../facts/admission-chain.js';
import { defineCheck, messages, meta, say } from './define.js';
import { APP_WORKLOADS, DECISIONS } from '../facts/model.js';

const MESSAGES = messages({
  redirected:
    '{pods} of {workload}: the init container {container} failed ({seen}) while {by} already sends the pod outbound traffic to {proxy}, which runs only after every init container has completed: until then its connections go where nothing listens. {meshTitle} leaves UID {uid} and the excluded ports and addresses alone.{added}',
});

/** Pods judged per workload (bounded). */
const MAX_PODS = 20;

/** The names of the mesh's CNI validation containers over its releases. */
const validationNames = (p: MeshProfile): string[] => [
  ...new Set([
    ...(p.cni?.validationInit ? [p.cni.validationInit] : []),
    ...(p.versions?.releases?.rows ?? []).flatMap((r) => r.containers?.validation ?? []),
  ]),
];

/** A number from a securityContext field. */
const uidOf = (sc: unknown): number | undefined =>
  isObj(sc) && typeof sc.runAsUser === 'number' ? sc.runAsUser : undefined;

/** The securityContext adds NET_ADMIN (what programming the pod's iptables needs). */
const addsNetAdmin = (sc: unknown): boolean =>
  isObj(sc) &&
  isObj(sc.capabilities) &&
  arr(sc.capabilities.add).some((c) => String(c).replace(/^CAP_/, '') === 'NET_ADMIN');

/** How an init container failed, as its status says; undefined: it did not (yet). */
function failure(pod: K8sObject, name: string): string | undefined {
  const st = isObj(pod.status) ? arr(pod.status.initContainerStatuses).filter(isObj) : [];
  const s = st.find((x) => x.name === name);
  if (!s) return undefined;
  const now = isObj(s.state?.terminated) ? s.state.terminated : undefined;
  const last = isObj(s.lastState?.terminated) ? s.lastState.terminated : undefined;
  const waiting = isObj(s.state?.waiting) ? str(s.state.waiting.reason) : undefined;
  const ended = [now, last].find((t) => t && typeof t.exitCode === 'number' && t.exitCode !== 0);
  const restarts = typeof s.restartCount === 'number' ? s.restartCount : 0;
  if (!ended && waiting !== 'CrashLoopBackOff' && restarts === 0) return undefined;
  const parts = [
    ...(restarts ? [`${plural(restarts, 'restart')}`] : []),
    ...(waiting ? [waiting] : []),
    ...(ended
      ? [
          `exit code ${String(ended.exitCode)}${str(ended.reason) ? ` ${str(ended.reason)}` : ''}${
            networkFailure(ended.message) ? `: ${printable(networkFailure(ended.message)!, 300)}` : ''
          }`,
        ]
      : []),
  ];
  return parts.join(', ');
}

/** The fix: the ways out this mesh and its release offer. */
function fixFor(
  p: MeshProfile,
  it: InitTraffic,
  w: Parameters<typeof recreateCommands>[0],
  container: string,
  uid: number,
  known: ReadonlySet<string> | undefined,
  cni: boolean,
): Step[] {
  const knows = (k: string) => !known || known.has(k);
  const exclude = it.exclude.filter((e) => knows(e.key));
  const native = (it.native ?? []).find(knows);
  const options: { label: ReturnType<typeof text>; steps: Step[] }[] = [
    {
      label: text`run ${container} as the proxy UID`,
      steps: [
        comment`set securityContext.runAsUser to ${uid} on the init container ${container} of the pod template: ${lit(p.title)} does not redirect that UID`,
      ],
    },
    ...(exclude.length
      ? [
          {
            label: text`exclude what ${container} dials`,
            steps: exclude.map((e) => comment`set the pod template annotation ${e.key} to ${lit(e.takes)}`),
          },
        ]
      : []),
    ...(native
      ? [
          {
            label: text`make the proxy a native sidecar, which runs before the app init containers`,
            steps: setOnTemplate(w, 'annotations', native, 'true'),
          },
        ]
      : []),
    ...(it.initLast && !cni && knows(it.initLast.key)
      ? [
          {
            label: text`put the ${lit(p.title)} init container after the app init containers`,
            steps: setOnTemplate(w, 'annotations', it.initLast.key, it.initLast.value),
          },
        ]
      : []),
  ];
  return [
    choice(text`let ${container} reach the network before ${p.containers.proxy} runs, one of:`, options),
    ...recreateCommands(w),
  ];
}

/** The fix with the later webhook's own way out after the choice (before re-creating the pods). */
const withLayer = (fix: Step[], layer: Step[]): Step[] => [...fix.slice(0, 1), ...layer, ...fix.slice(1)];

export default defineCheck({
  ...meta('init-before-proxy'),
  facts: [KNOWN_KEYS, APP_WORKLOADS, DECISIONS, ADMISSION_CHAIN],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      const it = p.runtime.startOrder.initTraffic;
      if (!it) continue;
      const proxies = new Set(proxyNamesOfAllReleases(p));
      const mine = new Set(injectedNames(p));
      const validation = validationNames(p);
      const iptables = p.cni?.privilegedInit.name;
      const known = knownKeys(m, mesh)?.known;
      for (const w of m.appWorkloads) {
        const hits: {
          pod: string;
          container: string;
          seen: string;
          by: string;
          cni: boolean;
          uid: number;
          added: boolean;
        }[] = [];
        // The template's own init containers: one that is not among them was added at admission, by a webhook.
        const templateInits = new Set(initContainers(podSpec(w.template)).map((c) => str(c.name) ?? ''));
        for (const pod of podsCarrying(w, mesh, MAX_PODS)) {
          const spec = podSpec(pod);
          const inits = initContainers(spec);
          const ordinary = containers(spec).some((c) => proxies.has(str(c.name) ?? ''));
          const nativeAt = inits.findIndex((c) => proxies.has(str(c.name) ?? '') && c.restartPolicy === 'Always');
          if (!ordinary && nativeAt < 0) continue;
          // One key each (annotationOf), not the pod's whole map.
          if (it.exclude.some((e) => annotationOf(pod, e.key) !== undefined)) continue;
          if (p.cni?.skips?.(pod)) continue;
          // The iptables init container as injected without the CNI plugin: it adds NET_ADMIN (Consul's keeps its
          // name with the plugin, without the capability: then it redirects nothing itself).
          const iptablesAt = iptables
            ? inits.findIndex((c) => c.name === iptables && addsNetAdmin(c.securityContext))
            : -1;
          const cni =
            iptablesAt < 0 &&
            (inits.some((c) => validation.includes(str(c.name) ?? '')) || p.cni?.enabled(m, w)?.enabled === true);
          const from = cni ? 0 : iptablesAt >= 0 ? iptablesAt + 1 : -1;
          if (from < 0) continue;
          const recorded = Number(annotationOf(pod, it.uidAnnotation ?? ''));
          const uid = it.uidAnnotation && Number.isInteger(recorded) && recorded > 0 ? recorded : it.proxyUid;
          const podUid = uidOf(spec.securityContext);
          for (let i = from; i < inits.length; i++) {
            const c = inits[i]!;
            const name = str(c.name);
            if (!name) continue;
            if (nativeAt >= 0 && nativeAt < i) break; // the proxy runs from here on
            if (mine.has(name)) continue;
            if ((uidOf(c.securityContext) ?? podUid) === uid) continue;
            const seen = failure(pod, name);
            if (!seen) continue;
            hits.push({
              pod: nameOf(pod),
              container: name,
              seen,
              by: iptablesAt >= 0 ? `the init container ${iptables!} before it` : `the ${p.title} CNI plugin`,
              cni,
              uid,
              added: w.kind !== 'Pod' && !templateInits.has(name),
            });
            break; // the first that fails holds the rest back
          }
        }
        if (!hits.length) continue;
        const first = hits[0]!;
        // Who wins: an init container the template does not have was appended after the mesh's by a webhook that
        // sees the pod after the mesh's (called after it by configuration name, or reinvoked): name that layer.
        const later = first.added ? mutatingAfter(m, w, mesh) : [];
        const added = !first.added
          ? ''
          : later.length
            ? ` ${first.container} is not in the pod template: a mutating webhook that sees the pod after ${p.title}'s added it after ${first.by.replace(/ before it$/, '')} (${later.join(', ')}).`
            : ` ${first.container} is not in the pod template: an admission layer after ${p.title}'s injector added it; no later mutating webhook is in the admission chain as read.`;
        yield {
          mesh,
          ...say(MESSAGES, 'redirected', {
            pods: plural(hits.length, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            container: first.container,
            seen: first.seen,
            by: first.by,
            proxy: p.containers.proxy,
            meshTitle: p.title,
            uid: String(first.uid),
            added,
          }),
          resource: w.ref,
          affectedPods: hits.length,
          evidence: {
            pods: hits.map((h) => h.pod),
            container: first.container,
            seen: first.seen,
            redirectedBy: first.by,
            proxyUid: first.uid,
            excludes: it.exclude.map((e) => e.key),
            source: it.source,
            ...(first.added ? { addedAtAdmission: true, laterMutatingWebhooks: later } : {}),
          },
          fix: withLayer(
            fixFor(p, it, w, first.container, first.uid, known, first.cni),
            later.map(
              (h) =>
                comment`or in webhook ${h}: have it place ${first.container} before the ${lit(p.title)} init containers with its own order setting, or leave these pods out of it`,
            ),
          ),
        };
      }
    }
  },
});
