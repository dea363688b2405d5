/**
 * namespace-not-enabled — a namespace with workloads but no injection marker for an installed
 * mesh, so none of its pods get a proxy.
 *
 * Why: the most common reason for 1/1 pods. The marker is Linkerd's namespace annotation
 * `linkerd.io/inject: enabled|ingress`, or Istio's namespace label `istio-injection=enabled` /
 * `istio.io/rev=<rev>`.
 * When: with `-n NS`, for the namespace asked about; with `-A`, only for namespaces that already
 * mix meshed and unmeshed workloads (intent shown). Plain unmeshed apps, kube-system and the
 * meshes' own namespaces stay silent. A workload that asks for injection itself (a pod label such
 * as Istio's `istio.io/rev` or `sidecar.istio.io/inject=true`) or that a webhook injects unmarked
 * (Istio's enableNamespacesByDefault) is not counted as waiting for the namespace's marker. A
 * namespace carrying a marker that is wrong or disabled is left to injection-marker-invalid (one
 * cause, one finding). A namespace labelled for a sidecar-less data plane (Istio's
 * `istio.io/dataplane-mode=ambient`) is meshed without sidecars: silent, and workloads enrolled by
 * their own label count as neither meshed nor unmeshed here.
 * A mesh's own extension whose charts mesh it through its namespace's marker only (the profile's
 * controlPlane.meshedByNamespace: Linkerd's viz and jaeger of stable-2.10/2.11, installed by Helm into a namespace
 * it created, linkerd/linkerd2#7946) is reported with -A too: the mesh shows the intent.
 * With -n and a mesh that has no namespace marker (Consul), a namespace where nothing asks says how
 * its pods ask (the pod annotation) and the injector setting that injects every pod instead.
 * Known false positives: a namespace meant to stay partly unmeshed on purpose (use -A, or opt
 * the unmeshed workloads out explicitly).
 * Fix: mark the namespace, then restart the workloads whose pods lack the proxy, by name (new
 * pods only are injected; the meshed ones need no restart). With both meshes installed, one mesh
 * only (src/facts/choice.ts): the one the evidence names, else the user chooses (comment lines).
 */
import { meshTitle, profileOf } from '../mesh/registry.js';
import { KUBE_SYSTEM_NAMESPACES } from '../mesh/constants.js';
import { choiceEvidence, choiceFix, chooseMesh, installedMeshes, mustChoose } from '../facts/choice.js';
import { enableMarker, namespaceMarker, namespaceMarkerUnread, templateOptOut } from '../facts/markers.js';
import { podStates, APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import type { MeshName } from '../mesh/names.js';
import { agree, annotationsOf, labelsOf, arr, groupBy, isObj, plural, str, strMap } from '../util/objects.js';
import { namespaceChange, recreateAll, setOnTemplate } from '../fix/commands.js';
import type { FindingInput } from './define.js';
import type { Evidence } from './types.js';
import type { Workload } from '../facts/model.js';
import { decide } from '../facts/decision.js';
import { INSTALLED_RELEASES } from '../mesh/releases.js';
import { evalWebhook, namespaceLabels, type MeshWebhook } from '../mesh/webhooks.js';
import { namespaceSidecarless, sidecarlessOf } from '../facts/sidecarless.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'injected-by-default':
    'Namespace {namespace} is injected by default by {meshTitle} webhook {webhook}, but the pod labels of {workloads} keep {them} without a proxy{mixed}.',
  'extension-no-marker':
    'Namespace {namespace} has no {marker}, the marker the {meshTitle} {extension} extension is meshed by ({where}; a namespace created by helm --create-namespace lacks it), so {workloads} of the extension {run} without a proxy and the extension cannot work.',
  'no-marker':
    'Namespace {namespace} has no {meshTitle} injection marker, so {workloads} {run} without a proxy{mixed}.',
  'marker-not-read':
    'Namespace {namespace} has {marker}, which {release} does not read (it reads {expected}), so {workloads} {run} without a proxy{mixed}.',
  'no-marker-choose':
    'Namespace {namespace} has no injection marker, so {workloads} {run} without a proxy{mixed}; {choose}.',
  'selected-no-pod-asks':
    'Namespace {namespace} carries {labels}, which {meshTitle} webhook {webhook} selects, but that only lets its pods reach the injector: {how}, so {workloads} {run} without a proxy.',
  'no-pod-asks':
    'No workload in namespace {namespace} asks {meshTitle} for a proxy, so {workloads} run without one: {how}.',
});

export default defineCheck({
  ...meta('namespace-not-enabled'),
  facts: [APP_WORKLOADS, DECISIONS, INSTALLED_RELEASES],
  messages: MESSAGES,
  *run(m) {
    const asked = m.snapshot.scope.allNamespaces ? undefined : m.snapshot.scope.namespace;
    const byNs = groupBy(m.appWorkloads, (w) => w.namespace);
    for (const [ns, workloads] of byNs) {
      if (KUBE_SYSTEM_NAMESPACES.includes(ns)) continue; // system namespaces are never meshed
      const nsObj = m.namespace(ns);
      // Any marker of any installed mesh (valid, disabled or misplaced; --mesh or not) is a choice
      // made: not "no marker" (and a marker for a second mesh would put two proxies in its pods).
      if (installedMeshes(m).some((x) => namespaceMarker(m, x, nsObj).present)) continue;
      // A namespace labelled for a sidecar-less data plane chose its data plane: no sidecar marker is missing.
      if (namespaceSidecarless(m, ns)) continue;
      // Workloads a sidecar-less data plane enrols by their own labels are meshed without a sidecar.
      const states = workloads.filter((w) => !sidecarlessOf(m, w)).map((w) => ({ w, s: podStates(w) }));
      // A workload that asks for injection itself (a pod label such as istio.io/rev or
      // sidecar.istio.io/inject=true), or that a webhook injects without any marker (Istio's
      // enableNamespacesByDefault), is not waiting for a namespace marker: the injection checks
      // (sidecar-missing, webhook-excludes-namespace) judge it.
      const unmeshed = states.filter(
        ({ w, s }) =>
          s.unmeshed.length > 0 &&
          !s.hostNetwork &&
          !m.meshes.some((i) => templateOptOut(m, i.mesh, w.template)) &&
          !m.decisions(w).some((d) => d.intent),
      );
      if (unmeshed.length === 0) continue;
      const meshedBy = new Set<MeshName>(states.flatMap(({ s }) => [...s.meshed.keys()]));
      // The mesh's own extension workloads its charts mesh through this namespace's marker: intent shown by the mesh.
      const extensionOf = (x: MeshName) =>
        unmeshed
          .map(({ w }) => profileOf(x).controlPlane.meshedByNamespace?.(labelsOf(w.template)))
          .find((e) => e !== undefined);
      const expectsMeshed = m.meshes.some((i) => extensionOf(i.mesh));
      // Asked about with -n, or partly meshed already: a namespace left plain on purpose stays silent,
      // unless it carries a label only to select the webhook of a mesh that has no namespace marker
      // (Consul's connectInject.namespaceSelector): that label alone enables nothing (hashicorp/consul-k8s#698).
      if (meshedBy.size === 0 && asked !== ns && !expectsMeshed) {
        const podOnly = m.meshes.find((i) => profileOf(i.mesh).markers.injectsAllWhen);
        const selected = podOnly ? labelsSelecting(podOnly.webhooks, namespaceLabels(nsObj, ns)) : undefined;
        if (podOnly && selected) yield podOptIn(ns, podOnly.mesh, unmeshed, selected);
        continue;
      }
      // Would the marker work? Not where the mesh never injects (Linkerd: cert-manager, a
      // webhook-excluded namespace; Istio: its ignored namespaces): suggesting it would mislead.
      const options = m.meshes.flatMap((install) => {
        const marker = enableMarker(install.mesh, ns, install.webhooks, m);
        if (!marker) return []; // a mesh with no namespace marker: its pods opt in one by one
        const labels = namespaceLabels(nsObj, ns);
        const annotations = { ...annotationsOf(nsObj) };
        (marker.field === 'labels' ? labels : annotations)[marker.key] = marker.value;
        const probe = decide(m, install.mesh, install.webhooks, {
          namespace: ns,
          nsLabels: labels,
          nsAnnotations: annotations,
          template: {},
        });
        return probe.inject ? [{ mesh: install.mesh, marker }] : [];
      });
      if (options.length === 0) {
        // Asked about with -n, nothing meshed, and an installed mesh has no namespace marker (Consul): say how its pods ask.
        const podOnly =
          asked === ns && meshedBy.size === 0
            ? m.meshes.find((i) => profileOf(i.mesh).markers.injectsAllWhen)
            : undefined;
        if (podOnly) yield podOptIn(ns, podOnly.mesh, unmeshed);
        continue;
      }
      // Workloads here run a mesh no namespace marker enables (it opts pods in one by one): the
      // namespace is that mesh's, and another mesh's marker would put two meshes in it.
      if ([...meshedBy].some((x) => !options.some((o) => o.mesh === x))) continue;
      const ws = unmeshed.map(({ w }) => w);
      // Both meshes would work: never advise both (two proxies in one pod); the evidence chooses, or the user.
      const choice = chooseMesh(
        m,
        ns,
        ws,
        options.map((o) => o.mesh),
      );
      const chosen = options.find((o) => o.mesh === choice.mesh);
      const mixed = chosen ? meshedBy.has(chosen.mesh) : meshedBy.size > 0;
      const extension = chosen ? extensionOf(chosen.mesh) : undefined;
      const pods = unmeshed.flatMap(({ s }) => s.unmeshed);
      // A marker of today's release that the installed one does not read (a Kuma 1.0 namespace with only the label).
      const unread = (x: MeshName) => namespaceMarkerUnread(m, x, nsObj);
      // A webhook that injects unmarked namespaces (Istio's enableNamespacesByDefault) selects this
      // one: the namespace needs no marker, the workloads' own labels keep them from that webhook.
      const byDefault = chosen
        ? m.meshes
            .find((i) => i.mesh === chosen.mesh)
            ?.webhooks.find(
              (h) =>
                profileOf(chosen.mesh).controlPlane.webhooks.injectsUnmarked?.(h) &&
                evalWebhook(h, namespaceLabels(nsObj, ns), {}).namespaceSelector.matched,
            )
        : undefined;
      yield {
        mesh: (chosen ?? options[0]!).mesh,
        ...(byDefault
          ? say(MESSAGES, 'injected-by-default', {
              namespace: ns,
              meshTitle: meshTitle(chosen!.mesh),
              webhook: byDefault.name,
              workloads: plural(unmeshed.length, 'workload'),
              them: agree(unmeshed.length, 'it from that webhook, so it runs', 'them from that webhook, so they run'),
              mixed: mixed ? ' while others in it are meshed' : '',
            })
          : chosen && extension
            ? say(MESSAGES, 'extension-no-marker', {
                namespace: ns,
                marker: chosen.marker.text,
                meshTitle: meshTitle(chosen.mesh),
                extension: extension.extension,
                where: extension.where,
                workloads: plural(unmeshed.length, 'workload'),
                run: agree(unmeshed.length, 'runs', 'run'),
              })
            : chosen && unread(chosen.mesh)
              ? say(MESSAGES, 'marker-not-read', {
                  namespace: ns,
                  marker: unread(chosen.mesh)!.marker,
                  release: unread(chosen.mesh)!.release,
                  expected: chosen.marker.text,
                  workloads: plural(unmeshed.length, 'workload'),
                  run: agree(unmeshed.length, 'runs', 'run'),
                  mixed: mixed ? ' while others in it are meshed' : '',
                })
              : chosen
                ? say(MESSAGES, 'no-marker', {
                    namespace: ns,
                    meshTitle: meshTitle(chosen.mesh),
                    workloads: plural(unmeshed.length, 'workload'),
                    run: agree(unmeshed.length, 'runs', 'run'),
                    mixed: mixed ? ' while others in it are meshed' : '',
                  })
                : say(MESSAGES, 'no-marker-choose', {
                    namespace: ns,
                    workloads: plural(unmeshed.length, 'workload'),
                    run: agree(unmeshed.length, 'runs', 'run'),
                    mixed: mixed ? ' while others in it are meshed' : '',
                    choose: mustChoose(choice, 'it'),
                  })),
        resource: { kind: 'Namespace', name: ns },
        affectedPods: pods.length,
        evidence: {
          namespace: ns,
          expectedMarker: chosen ? chosen.marker.text : options.map((o) => o.marker.text).join(' or '),
          ...(chosen && unread(chosen.mesh) ? { markerNotRead: unread(chosen.mesh) } : {}),
          ...(extension ? { extension } : {}),
          meshedWorkloads: states
            .filter(({ s }) => (chosen ? s.meshed.has(chosen.mesh) : s.meshed.size > 0))
            .map(({ w }) => `${w.kind}/${w.name}`),
          unmeshedWorkloads: unmeshed.map(({ w }) => `${w.kind}/${w.name}`),
          unmeshedPods: pods.map((p) => p.metadata?.name ?? ''),
          ...(options.length > 1 ? { meshChoice: choiceEvidence(choice) } : {}),
        },
        // The marker, then only the workloads whose pods lack the proxy (never the whole kind).
        fix: choiceFix(
          choice,
          options.map((o) => ({
            mesh: o.mesh,
            fix: [
              ...namespaceChange(m, ns, o.marker.field, [{ key: o.marker.key, value: o.marker.value }]),
              ...recreateAll(ws),
            ],
          })),
          { kind: 'Namespace', name: ns },
        ),
      };
    }
  },
});

/**
 * A namespace asked about with -n where nothing asks a mesh that has no namespace marker (Consul):
 * its workloads run without a proxy; each pod template asks with the mesh's annotation, or the
 * injector's setting injects every pod. Instead of "no findings".
 */
function podOptIn(
  ns: string,
  mesh: MeshName,
  unmeshed: { w: Workload; s: ReturnType<typeof podStates> }[],
  selected?: { webhook: string; labels: string[] },
): FindingInput<Evidence, typeof MESSAGES> {
  const p = profileOf(mesh).markers;
  const ask = p.ask;
  const pods = unmeshed.flatMap(({ s }) => s.unmeshed);
  const how = `${meshTitle(mesh)} has no namespace marker, each pod template asks with ${ask.field === 'labels' ? 'label' : 'annotation'} ${ask.key}=${ask.value}, unless ${p.injectsAllWhen}`;
  return {
    mesh,
    // A mesh without a namespace marker: the finding is about pods that do not ask, not a namespace "not enabled".
    title: `No pod asks ${meshTitle(mesh)} for injection`,
    ...(selected
      ? say(MESSAGES, 'selected-no-pod-asks', {
          namespace: ns,
          labels: selected.labels.join(', '),
          meshTitle: meshTitle(mesh),
          webhook: selected.webhook,
          how,
          workloads: plural(unmeshed.length, 'workload'),
          run: agree(unmeshed.length, 'runs', 'run'),
        })
      : say(MESSAGES, 'no-pod-asks', {
          namespace: ns,
          meshTitle: meshTitle(mesh),
          workloads: plural(unmeshed.length, 'workload'),
          how,
        })),
    resource: { kind: 'Namespace', name: ns },
    affectedPods: pods.length,
    evidence: {
      namespace: ns,
      ...(selected ? { selectedBy: selected } : {}),
      expectedMarker: `pod template ${ask.field === 'labels' ? 'label' : 'annotation'} ${ask.key}=${ask.value}`,
      injectsAll: p.injectsAllWhen,
      meshedWorkloads: [],
      unmeshedWorkloads: unmeshed.map(({ w }) => `${w.kind}/${w.name}`),
      unmeshedPods: pods.map((x) => x.metadata?.name ?? ''),
    },
    fix: unmeshed.flatMap(({ w }) => setOnTemplate(w, ask.field, ask.key, ask.value)),
  };
}

/**
 * The namespace labels a mesh webhook's namespaceSelector asks for by name (matchLabels, or In and
 * Exists expressions), other than the name label every namespace has, that this namespace carries
 * while the selector matches it: a label set only to select that webhook. Undefined when none.
 */
function labelsSelecting(
  hooks: readonly MeshWebhook[],
  nsLabels: Record<string, string>,
): { webhook: string; labels: string[] } | undefined {
  for (const h of hooks) {
    const sel = isObj(h.namespaceSelector) ? h.namespaceSelector : undefined;
    if (!sel || !evalWebhook(h, nsLabels, {}).namespaceSelector.matched) continue;
    const keys = [
      ...Object.keys(strMap(sel.matchLabels)),
      ...arr(sel.matchExpressions)
        .filter((e) => isObj(e) && (e.operator === 'In' || e.operator === 'Exists'))
        .map((e) => str(e.key) ?? ''),
    ].filter((k) => k && k !== 'kubernetes.io/metadata.name' && nsLabels[k] !== undefined);
    if (keys.length)
      return { webhook: h.name, labels: [...new Set(keys)].sort().map((k) => `label ${k}=${nsLabels[k]}`) };
  }
  return undefined;
}
