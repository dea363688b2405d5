/**
 * Injection markers that ask for injection but do nothing (invalid values, wrong keys, wrong
 * places): the problems injection-marker-invalid reports, and the precedence rule the other
 * injection checks follow (markerExplains: one cause, one finding).
 *
 * One mesh per workload: correcting a marker of one mesh where another mesh is (or would be)
 * asked too would give the pods two proxies. Where that can happen the mesh is chosen from
 * evidence (src/facts/choice.ts): the chosen mesh's marker is corrected and the other mesh's asking
 * removed (its namespace marker, or an opt-out on the pod template); a marker of a mesh not chosen
 * is removed instead of corrected (it does nothing either way); undecided, the fix is the choice,
 * as comments.
 */
import { defineFactFamily, inputsOf } from '../k8s/fact.js';
import { WORKLOAD_INPUTS } from '../k8s/workloads.js';
import { asksOn } from '../mesh/asks.js';
import {
  fieldWord,
  markerText,
  templateMarker,
  valueAt,
  type MarkerSetting,
  type StrayKey,
} from '../mesh/marker-table.js';
import type {
  MarkerProblemDraft,
  MeshProfile,
  NamespaceProblemContext,
  WorkloadProblemContext,
} from '../mesh/profile.js';
import { KUBE_SYSTEM_NAMESPACES } from '../mesh/constants.js';
import {
  choiceEvidence,
  choiceFix,
  chooseMesh,
  installedMeshes,
  meshWouldInject,
  mustChoose,
  type MeshChoice,
} from './choice.js';
import { namespaceMarker, optOutMarker, templateOptOut, namespaceMarkerKeys, templateAsking } from './markers.js';
import type { MeshName } from '../mesh/names.js';
import { PROFILE_LIST, meshTitle, profileOf } from '../mesh/registry.js';
import { WORKLOAD_DECISION_INPUTS, decide } from './decision.js';
import { evalWebhook, namespaceLabels } from '../mesh/webhooks.js';
import { newPodLabels } from '../k8s/pod-labels.js';
import {
  namespaceChange,
  recreateAll,
  recreateEvidence,
  setOnTemplate,
  removeFromTemplate,
  removeFromObject,
} from '../fix/commands.js';
import { podStates, type Model, type Workload } from './model.js';
import type { ResourceRef } from '../util/types.js';
import { annotationsOf, isObj, labelsOf } from '../util/objects.js';
import type { Step } from '../fix/steps.js';
import { someReleaseReads } from './releases.js';
import { judgedByPod } from '../k8s/workloads.js';

/**
 * What a marker problem says: a message id of injection-marker-invalid and its params (the check
 * holds the templates, src/checks/injection-marker-invalid.ts; a compile-time check there keeps
 * both in step). A mesh's own rule (its profile's text) is `mesh-rule`.
 */
export type MarkerSaid =
  | { id: 'mesh-rule'; params: { text: string } }
  | { id: 'legacy-namespace'; params: { namespace: string; marker: string; legacy: string; meshTitle: string } }
  | {
      id: 'stray-namespace';
      params: { namespace: string; marker: string; meshTitle: string; field: string; key: string; since: string };
    }
  | {
      id: 'stray-template';
      params: {
        workload: string;
        where: string;
        marker: string;
        meshTitle: string;
        field: string;
        key: string;
        since: string;
      };
    }
  | { id: 'own-metadata'; params: { workload: string; marker: string; meshTitle: string } }
  | { id: 'job-template'; params: { workload: string; marker: string; labels: string } }
  | { id: 'opt-out-own-metadata'; params: { workload: string; marker: string; meshTitle: string } }
  | { id: 'both-namespace'; params: { namespace: string; meshes: string; resolution: string } }
  | { id: 'both-workload'; params: { workload: string; meshes: string; resolution: string } };

export interface Problem {
  mesh: MeshName;
  resource: ResourceRef;
  /** What it says (the check renders it). */
  said: MarkerSaid;
  /** What the choice of one mesh adds to it (a sentence with its leading space), else "". */
  more: string;
  evidence: Record<string, unknown>;
  /** The commands correcting the marker. */
  fix: Step[];
  /** Workloads whose pods must be re-created once the marker is right. */
  recreate: Workload[];
  affectedPods: number;
  /** The commands removing the marker instead (it does nothing: nothing changes for injection). */
  remove: Step[];
  /** The commands correcting the marker, where `fix` was changed to keep the pods to one mesh. */
  correct?: Step[];
  /** Workload problems: the pod template as the fix changes it (for will-not-be-meshed to try). */
  templateChanges?: TemplateChange[];
  /** The mesh chosen where another mesh is asked too (undefined: none needed, or undecided). */
  choice?: MeshChoice;
  /** The meshes whose missing proxy this problem explains, besides its own (precedence). */
  explains?: MeshName[];
  /** Not why pods lack the proxy: the injector injects them anyway (MarkerProblemDraft.notWhyMissing). */
  notWhyMissing?: boolean;
}

interface TemplateChange {
  field: 'labels' | 'annotations';
  key: string;
  /** undefined: removed. */
  value?: string;
}

/** A pod template with these changes made (a copy). */
export function changedTemplate<T extends { metadata?: unknown; spec?: unknown }>(
  template: T,
  changes: TemplateChange[],
): T {
  const labels = { ...labelsOf(template) };
  const annotations = { ...annotationsOf(template) };
  for (const c of changes) {
    const map = c.field === 'labels' ? labels : annotations;
    if (c.value === undefined) delete map[c.key];
    else map[c.key] = c.value;
  }
  return { ...template, metadata: { ...(isObj(template.metadata) ? template.metadata : {}), labels, annotations } };
}

/** A problem found here, before the resource and pods are stamped: a profile's draft with what it says by id instead of its text. */
type Draft = Omit<MarkerProblemDraft, 'message'> & { said: MarkerSaid };

/** A profile's own rule: its text, as the message `mesh-rule`. */
const fromProfile = ({ message, ...d }: MarkerProblemDraft): Draft => ({
  ...d,
  said: { id: 'mesh-rule', params: { text: message } },
});

const unmeshedPods = (ws: Workload[]) => ws.reduce((n, w) => n + podStates(w).unmeshed.length, 0);

const NAMESPACE_PROBLEMS = defineFactFamily({
  id: 'marker-problems-namespace',
  // the namespace's workloads, and what its markers mean to the meshes (webhooks, their settings)
  inputs: inputsOf(WORKLOAD_INPUTS, ['configmaps', 'mutatingwebhookconfigurations', 'namespaces']),
  compute: (m: Model, ns: string): Problem[] => {
    const obj = m.namespace(ns);
    if (!obj || m.isControlPlaneNamespace(ns)) return []; // the meshes' own namespaces carry their markers on purpose
    if (KUBE_SYSTEM_NAMESPACES.includes(ns)) return []; // never meshed: webhook-excludes-namespace says so where asked
    const labels = labelsOf(obj);
    const annotations = annotationsOf(obj);
    const ref = { kind: 'Namespace', name: ns };
    const set = (field: 'labels' | 'annotations', key: string, value: string) =>
      namespaceChange(m, ns, field, [{ key, value }]);
    const unset = (field: 'labels' | 'annotations', ...keys: string[]) =>
      namespaceChange(
        m,
        ns,
        field,
        keys.map((key) => ({ key })),
      );
    const inNs = m.appWorkloadsIn(ns);
    const out: Problem[] = [];
    for (const p of PROFILE_LIST) {
      /** Workloads with unmeshed pods a working marker would mesh on re-creation. */
      const waiting = () =>
        inNs.filter((w) => {
          const s = podStates(w);
          return s.unmeshed.length > 0 && !s.hostNetwork && !templateOptOut(m, p.name, w.template);
        });
      const c: NamespaceProblemContext = { ns, obj, labels, annotations, set, unset, workloads: inNs, waiting };
      for (const d of [...p.markers.rules.namespace(m, c).map(fromProfile), ...tableNamespaceProblems(m, p, c)]) {
        const recreate = d.recreate ?? [];
        out.push({
          ...d,
          more: '',
          mesh: p.name,
          recreate,
          resource: ref,
          affectedPods: d.affectedPods ?? unmeshedPods(recreate),
        });
      }
    }
    return out.length ? oneMeshForNamespace(m, ns, out) : bothAsked(m, ns);
  },
});

export function namespaceProblems(m: Model, ns: string): Problem[] {
  return m.fact(NAMESPACE_PROBLEMS, ns);
}

/**
 * The mistakes made the same way with every mesh's markers, found from its table: a key written
 * in the field the mesh does not read (a label for an annotation, or the reverse) or a key of an
 * injector long gone, where the namespace has no marker of the mesh.
 */
function tableNamespaceProblems(m: Model, p: MeshProfile, c: NamespaceProblemContext): Draft[] {
  const t = p.markers;
  // With the marker present, a stray key beside it changes nothing.
  if (!m.meshPossible(p.name) || t.namespace.some((k) => valueAt(c.obj, k) !== undefined)) return [];
  const enable = t.enableMarker(c.ns, m.webhooksOf(p.name));
  if (!enable) return [];
  const out: Draft[] = [];
  for (const s of t.strays) {
    const v = s.on === 'namespace' && !s.ownRule && !someReleaseReads(m, p.name, s) ? valueAt(c.obj, s) : undefined;
    if (!asksOn(v)) continue;
    out.push({
      said: s.legacy
        ? {
            id: 'legacy-namespace',
            params: { namespace: c.ns, marker: markerText(s, v), legacy: s.legacy, meshTitle: p.title },
          }
        : {
            id: 'stray-namespace',
            params: {
              namespace: c.ns,
              marker: markerText(s, v),
              meshTitle: p.title,
              field: fieldWord(enable.field),
              key: enable.key,
              since: since(s),
            },
          },
      evidence: { marker: markerText(s, v), expected: enable.text },
      fix: [...c.set(enable.field, enable.key, enable.value), ...c.unset(s.field, s.key)],
      recreate: c.waiting(),
      remove: c.unset(s.field, s.key),
    });
  }
  return out;
}

const since = (s: StrayKey) => (s.since ? ` (since ${s.since})` : '');

/**
 * The same for a pod template, and the places people mistake for it: the controller's own
 * metadata, a CronJob's spec.jobTemplate.metadata (it labels and annotates the Jobs, not their
 * pods). Only where the template has no marker of the mesh and its namespace does not enable it
 * (there they change nothing; where the Namespace was not read, that cannot be known).
 */
function tableWorkloadProblems(m: Model, p: MeshProfile, c: WorkloadProblemContext): Draft[] {
  const t = p.markers;
  const { w, id, where } = c;
  if (!m.meshPossible(p.name) || templateMarker(t, w.template) || !m.has('namespaces')) return [];
  if (namespaceMarker(m, p.name, m.namespace(w.namespace)).enabled) return [];
  const out: Draft[] = [];
  for (const s of t.strays) {
    const v = s.on === 'template' && !s.ownRule && !someReleaseReads(m, p.name, s) ? valueAt(w.template, s) : undefined;
    if (!asksOn(v)) continue;
    const ns = podOptInNamespace(m, p, w, t.ask);
    out.push({
      said: {
        id: 'stray-template',
        params: {
          workload: id,
          where,
          marker: markerText(s, v),
          meshTitle: p.title,
          field: fieldWord(t.ask.field),
          key: t.ask.key,
          since: since(s),
        },
      },
      evidence: {
        marker: `${where} ${markerText(s, v)}`,
        expected: `${where} ${markerText(t.ask, t.ask.value)}`,
        ...ns.evidence,
      },
      fix: [
        ...ns.fix,
        ...setOnTemplate(w, t.ask.field, t.ask.key, t.ask.value),
        ...removeFromTemplate(w, s.field, s.key),
      ],
      remove: removeFromTemplate(w, s.field, s.key),
      templateChanges: [
        { field: t.ask.field, key: t.ask.key, value: t.ask.value },
        { field: s.field, key: s.key },
      ],
    });
  }
  // One finding for the workload: the stray's fix sets the marker on the template already.
  if (out.length) return out;
  const spec = isObj(w.obj?.spec) ? w.obj.spec : undefined;
  const jobTemplate = w.kind === 'CronJob' && isObj(spec?.jobTemplate) ? spec.jobTemplate : undefined;
  const places = [
    ...(w.templatePath
      ? [
          {
            obj: w.obj,
            path: 'metadata' as const,
            marker: `${w.kind} metadata`,
            expected: 'pod template',
          },
        ]
      : []),
    ...(jobTemplate
      ? [
          {
            obj: jobTemplate,
            path: 'spec.jobTemplate.metadata' as const,
            marker: 'jobTemplate metadata',
            expected: 'pod template (spec.jobTemplate.spec.template)',
          },
        ]
      : []),
  ];
  for (const place of places) {
    for (const k of t.template) {
      const v = valueAt(place.obj, k);
      if (!asksOn(v)) continue;
      // The value itself where it asks on its own on a template, else the mesh's own marker.
      const set: MarkerSetting = (k.alone ? k.alone(v) : k.read(v) === true)
        ? { field: k.field, key: k.key, value: v }
        : t.ask;
      const said: MarkerSaid =
        place.path === 'metadata'
          ? { id: 'own-metadata', params: { workload: id, marker: markerText(k, v), meshTitle: p.title } }
          : {
              id: 'job-template',
              params: { workload: id, marker: markerText(k, v), labels: k.field === 'labels' ? 'labels' : 'annotates' },
            };
      const ns = podOptInNamespace(m, p, w, set);
      out.push({
        said,
        evidence: {
          marker: `${place.marker} ${markerText(k, v)}`,
          expected: `${place.expected} ${markerText(set, set.value)}`,
          ...ns.evidence,
        },
        fix: [
          ...ns.fix,
          ...setOnTemplate(w, set.field, set.key, set.value),
          ...removeFromObject(w, place.path, k.field, k.key),
        ],
        remove: removeFromObject(w, place.path, k.field, k.key),
        templateChanges: [{ field: set.field, key: set.key, value: set.value }],
      });
    }
  }
  return out;
}

/**
 * An opt-out written where the mesh never reads it (issue 31 item 12): the workload's own metadata
 * carries the mesh's template marker with a value that opts out, the pod template has none, and the
 * next pod is injected all the same (istio/istio#11854, #33555 "Are you sure the
 * annotation is on the pod, not the deployment?"). Reported as a misplaced opt-in is, with the fix
 * that moves it onto the pod template.
 */
function misplacedOptOut(m: Model, p: MeshProfile, c: WorkloadProblemContext): Draft[] {
  const t = p.markers;
  const { w, id } = c;
  if (!w.templatePath || !w.obj || templateMarker(t, w.template)) return [];
  const d = m.decision(w, p.name);
  if (!d?.inject || d.unknown) return [];
  const out: Draft[] = [];
  for (const k of t.template) {
    const v = valueAt(w.obj, k);
    if (v === undefined || k.read(v) !== false) continue;
    out.push({
      said: { id: 'opt-out-own-metadata', params: { workload: id, marker: markerText(k, v), meshTitle: p.title } },
      evidence: {
        marker: `${w.kind} metadata ${markerText(k, v)}`,
        expected: `pod template ${markerText(k, v)}`,
        optOut: true,
      },
      fix: [...setOnTemplate(w, k.field, k.key, v), ...removeFromObject(w, 'metadata', k.field, k.key)],
      remove: removeFromObject(w, 'metadata', k.field, k.key),
      templateChanges: [{ field: k.field, key: k.key, value: v }],
      notWhyMissing: true,
    });
    break; // the first key of the injector's precedence: one finding
  }
  return out;
}

/**
 * Where the mesh's webhook sees pods that ask on their own only in a namespace carrying a label
 * (Kuma >= 2.11: kumahq/kuma v2.14.3 cp-webhooks-and-secrets.yaml, the pods webhook needs
 * kuma.io/sidecar-injection to exist): the namespace change that lets a template with `set` in,
 * when no webhook would be called without it and one is with it.
 */
function podOptInNamespace(
  m: Model,
  p: MeshProfile,
  w: Workload,
  set: MarkerSetting,
): { fix: Step[]; evidence: Record<string, string> } {
  const label = p.markers.podOptInNamespaceLabel;
  const hooks = m.webhooksOf(p.name);
  const obj = m.namespace(w.namespace);
  if (!label || hooks.length === 0 || labelsOf(obj)[label.key] !== undefined) return { fix: [], evidence: {} };
  const nsLabels = namespaceLabels(obj, w.namespace);
  const podLabels = set.field === 'labels' ? { ...newPodLabels(w), [set.key]: set.value } : newPodLabels(w);
  if (hooks.some((h) => evalWebhook(h, nsLabels, podLabels).called)) return { fix: [], evidence: {} };
  if (!hooks.some((h) => evalWebhook(h, { ...nsLabels, [label.key]: label.value }, podLabels).called))
    return { fix: [], evidence: {} };
  return {
    fix: namespaceChange(m, w.namespace, 'labels', [{ key: label.key, value: label.value }]),
    evidence: { namespaceLabel: `${label.key}=${label.value}` },
  };
}

/**
 * The commands removing every namespace marker of a mesh that makes it inject (Linkerd's
 * annotation; Istio's istio-injection and istio.io/rev labels: removing the first alone would let
 * the second select a webhook).
 */
function removeNamespaceMarker(m: Model, ns: string, mesh: MeshName): Step[] {
  const p = profileOf(mesh);
  const { field, keys } = namespaceMarkerKeys(mesh, m.namespace(ns));
  if (keys.length === 0) {
    // A mesh with no namespace marker (its injector's settings enable the namespace): each
    // workload's template opts out (those asking the mesh themselves are their own choice), or the
    // setting leaves the namespace out (comment lines: a change to the control plane's install).
    const o = p.markers.optOut;
    return [
      ...m
        .appWorkloadsIn(ns)
        .filter((w) => !templateOptOut(m, mesh, w.template) && !templateAsking(mesh, w.template))
        .flatMap((w) => setOnTemplate(w, o.field, o.key, o.value)),
      ...(p.markers.namespaceSettingOff?.(m, ns) ?? []),
    ];
  }
  return namespaceChange(
    m,
    ns,
    field,
    keys.map((key) => ({ key })),
  );
}

/**
 * A namespace whose markers ask both meshes to inject (both valid): every new pod in it is sent to
 * both injectors. The evidence chooses the mesh to keep and the other's marker is removed
 * (pods keep the proxy they run until re-created); undecided, the choice. It explains the
 * missing proxies of both meshes (precedence: pod-predates-enablement and sidecar-missing would
 * only say to re-create pods into the same double request).
 */
function bothAsked(m: Model, ns: string): Problem[] {
  const obj = m.namespace(ns);
  // Both markers valid, and both meshes' webhooks and injectors would take a plain pod (where one
  // excludes the namespace, webhook-excludes-namespace says so, one mesh per namespace too).
  const install = (x: MeshName) => m.mesh(x);
  const takes = (x: MeshName) =>
    !install(x) ||
    decide(m, x, install(x)!.webhooks, {
      namespace: ns,
      nsLabels: namespaceLabels(obj, ns),
      nsAnnotations: annotationsOf(obj),
      template: {},
    }).inject;
  const both = installedMeshes(m).filter((x) => namespaceMarker(m, x, obj).enabled && takes(x));
  const inNs = m.appWorkloadsIn(ns);
  if (both.length < 2 || inNs.length === 0) return [];
  const choice = chooseMesh(m, ns, inNs, both);
  const texts = both.map((x) => `${meshTitle(x)} (${namespaceMarker(m, x, obj).text})`).join(' and ');
  const other = choice.mesh ? both.find((x) => x !== choice.mesh)! : undefined;
  return [
    {
      mesh: choice.mesh ?? both[0]!,
      resource: { kind: 'Namespace', name: ns },
      said: {
        id: 'both-namespace',
        params: {
          namespace: ns,
          meshes: texts,
          resolution: other
            ? `${chosenText(choice)}, so the fix ${
                namespaceMarkerKeys(other, obj).keys.length
                  ? `removes the ${meshTitle(other)} marker`
                  : `opts the namespace's workloads out of ${meshTitle(other)}`
              } (running pods keep their proxy until re-created)`
            : mustChoose(choice, 'it'),
        },
      },
      more: '',
      evidence: { markers: both.map((x) => namespaceMarker(m, x, obj).text), meshChoice: choiceEvidence(choice) },
      fix: choiceFix(
        choice,
        both.map((keep) => ({
          mesh: keep,
          fix: both.filter((x) => x !== keep).flatMap((x) => removeNamespaceMarker(m, ns, x)),
        })),
        { kind: 'Namespace', name: ns },
      ),
      recreate: [],
      remove: [],
      explains: both,
      ...(choice.mesh ? { choice } : {}),
      affectedPods: unmeshedPods(inNs),
    },
  ];
}

/** "Linkerd is the mesh here (3 workload(s) in namespace shop run the Linkerd proxy)". */
const chosenText = (choice: MeshChoice) =>
  `${meshTitle(choice.mesh!)} is the mesh here${choice.by ? ` (${choice.by})` : ''}`;

/**
 * Namespace markers: where the namespace's problems name more than one mesh, or a problem names
 * one mesh while the namespace validly enables another, correcting them all would ask two meshes
 * for every pod in it. The chosen mesh's problem is corrected and the other mesh's valid marker
 * removed (first: pods created in between get no proxy, never two); the other meshes' markers
 * are removed; undecided, each problem's fix is the choice.
 */
function oneMeshForNamespace(m: Model, ns: string, problems: Problem[]): Problem[] {
  if (problems.length === 0) return problems;
  const obj = m.namespace(ns);
  // Installed meshes, whatever --mesh says: a left-out mesh still injects beside the one corrected.
  const enabled = installedMeshes(m).filter(
    (x) => namespaceMarker(m, x, obj).enabled && !problems.some((p) => p.mesh === x),
  );
  const involved = [...new Set([...problems.map((p) => p.mesh), ...enabled])];
  if (involved.length < 2) return problems;
  const choice = chooseMesh(m, ns, m.appWorkloadsIn(ns), involved);
  /** Removing the valid markers of the meshes not chosen (they would inject beside it). */
  const removeEnabled = (keep: MeshName) =>
    enabled.filter((x) => x !== keep).flatMap((x) => removeNamespaceMarker(m, ns, x));
  const others = (keep: MeshName) =>
    enabled
      .filter((x) => x !== keep)
      .map((x) => namespaceMarker(m, x, obj).text)
      .join(' and ');
  return applyChoice(problems, involved, choice, {
    clear: removeEnabled,
    chosen: (p) => {
      const gone = others(p.mesh);
      return gone ? ` ${chosenText(choice)}, so the fix also removes ${gone}.` : '';
    },
    what: { kind: 'Namespace', name: ns },
    askedToo: 'is asked here too',
  });
}

export const WORKLOAD_PROBLEMS = defineFactFamily({
  id: 'marker-problems-workload',
  inputs: [...WORKLOAD_DECISION_INPUTS],
  cacheKey: (w: Workload) => `${w.kind}/${w.namespace}/${w.name}`,
  compute: (m: Model, w: Workload): Problem[] => {
    const out: Problem[] = [];
    const annotations = annotationsOf(w.template);
    const labels = labelsOf(w.template);
    const id = `${w.kind} ${w.namespace}/${w.name}`;
    const where = w.templatePath ? 'pod template' : 'pod';
    // Patching a template rolls the workload out (a Job is replaced); a bare pod must be re-created.
    for (const p of PROFILE_LIST) {
      const c: WorkloadProblemContext = { w, id, where, labels, annotations };
      for (const d of [
        ...p.markers.rules.workload(m, c).map(fromProfile),
        ...tableWorkloadProblems(m, p, c),
        ...misplacedOptOut(m, p, c),
      ]) {
        out.push({
          ...d,
          more: '',
          mesh: p.name,
          resource: w.ref,
          recreate: judgedByPod(w) ? [w] : [],
          affectedPods: podStates(w).unmeshed.length,
        });
      }
    }
    return out.length ? oneMeshForWorkload(m, w, out) : bothAskedForWorkload(m, w);
  },
});

export function workloadProblems(m: Model, w: Workload): Problem[] {
  return m.fact(WORKLOAD_PROBLEMS, w);
}

/**
 * A workload that two meshes would inject, each asked validly from a different place (one by the
 * namespace, the other by the pod template, or both by the template): every new pod would get two
 * proxies, so re-creating its pods (sidecar-missing's advice for each mesh) must wait until one
 * mesh is chosen. The pod template opts out of the meshes not chosen (the patch rolls the workload
 * out into one proxy); undecided, the choice. It explains both meshes' missing proxies.
 */
function bothAskedForWorkload(m: Model, w: Workload): Problem[] {
  const asked = installedMeshes(m).filter((x) => meshWouldInject(m, w, x));
  if (asked.length < 2) return [];
  // Both asked by the namespace alone: the namespace's finding (bothAsked) says it, once.
  if (namespaceProblems(m, w.namespace).some((p) => asked.every((x) => p.mesh === x || p.explains?.includes(x))))
    return [];
  const obj = m.namespace(w.namespace);
  const where = w.templatePath ? 'pod template' : 'pod';
  const how = (x: MeshName) => {
    const t = templateAsking(x, w.template);
    return t ? `its ${where} ${t}` : `namespace ${w.namespace}'s ${namespaceMarker(m, x, obj).text ?? 'marker'}`;
  };
  const choice = chooseMesh(m, w.namespace, [w], asked);
  const optOuts = (keep: MeshName) =>
    asked
      .filter((x) => x !== keep && !templateOptOut(m, x, w.template))
      .flatMap((x) => {
        const o = optOutMarker(x);
        return setOnTemplate(w, o.field, o.key, o.value);
      });
  // A bare pod (or an unknown owner's) has no template to roll out: it is re-created once its own markers are right.
  const recreate = judgedByPod(w) ? [w] : [];
  const id = `${w.kind} ${w.namespace}/${w.name}`;
  const others = choice.mesh ? asked.filter((x) => x !== choice.mesh) : [];
  return [
    {
      mesh: choice.mesh ?? asked[0]!,
      resource: w.ref,
      said: {
        id: 'both-workload',
        params: {
          workload: id,
          meshes: asked.map((x) => `${meshTitle(x)} (${how(x)})`).join(' and '),
          resolution: choice.mesh
            ? `${chosenText(choice)}, so the fix opts its ${where} out of ${others.map(meshTitle).join(' and ')}`
            : mustChoose(choice, 'it'),
        },
      },
      more: '',
      evidence: { markers: asked.map((x) => `${meshTitle(x)}: ${how(x)}`), meshChoice: choiceEvidence(choice) },
      fix: choiceFix(
        choice,
        asked.map((keep) => ({ mesh: keep, fix: [...optOuts(keep), ...recreateAll(recreate)] })),
        w.ref,
      ),
      recreate: choice.mesh ? recreate : [],
      remove: [],
      explains: asked,
      ...(choice.mesh ? { choice } : {}),
      affectedPods: podStates(w).unmeshed.length,
    },
  ];
}

/**
 * A workload's markers: where its problems name a mesh while another mesh injects it (or would,
 * once its namespace's marker is corrected), or its problems name both meshes, correcting them
 * would ask two meshes for its pods. The chosen mesh's problem is corrected and the pod template
 * opts out of the other mesh, the opt-out first (a rollout between the two patches then creates
 * pods without a proxy, never with two); the other meshes' markers are removed; undecided, the
 * choice.
 */
function oneMeshForWorkload(m: Model, w: Workload, problems: Problem[]): Problem[] {
  if (problems.length === 0) return problems;
  const nsAsks = namespaceProblems(m, w.namespace)
    .filter((p) => !p.choice || p.choice.mesh === p.mesh)
    .map((p) => p.mesh);
  const injecting = installedMeshes(m).filter((x) => meshWouldInject(m, w, x) || nsAsks.includes(x));
  const others = injecting.filter((x) => !problems.some((p) => p.mesh === x));
  const involved = [...new Set([...problems.map((p) => p.mesh), ...others])];
  if (involved.length < 2) return problems;
  const choice = chooseMesh(m, w.namespace, [w], involved);
  /** The pod template opts out of the meshes not chosen that would inject it. */
  const optOuts = (keep: MeshName) =>
    others
      .filter((x) => x !== keep && !templateOptOut(m, x, w.template))
      .flatMap((x) => {
        const o = optOutMarker(x);
        return setOnTemplate(w, o.field, o.key, o.value);
      });
  const optOutText = (keep: MeshName) =>
    others
      .filter((x) => x !== keep)
      .map((x) => meshTitle(x))
      .join(' and ');
  return applyChoice(problems, involved, choice, {
    clear: optOuts,
    chosen: (p) => {
      const out = optOutText(p.mesh);
      return out
        ? ` ${out} would inject it too; ${chosenText(choice)}, so the fix also opts its pod template out of ${out}.`
        : '';
    },
    what: w.ref,
    askedToo: 'is asked for it too',
  });
}

/**
 * One mesh for problems that ask several (the namespace's or a workload's): the chosen mesh's
 * problem is corrected after `clear` takes the other meshes away; another mesh's problem is
 * removed rather than corrected; undecided, each problem's fix is the choice (comments).
 */
function applyChoice(
  problems: Problem[],
  involved: MeshName[],
  choice: MeshChoice,
  /** `chosen`: what choosing the problem's own mesh adds to its message (a sentence with its leading space, or ""). */
  how: { clear: (keep: MeshName) => Step[]; chosen: (p: Problem) => string; what: ResourceRef; askedToo: string },
): Problem[] {
  return problems.map((p) => {
    const evidence = { ...p.evidence, meshChoice: choiceEvidence(choice) };
    if (choice.mesh === p.mesh)
      return { ...p, choice, evidence, correct: p.fix, fix: [...how.clear(p.mesh), ...p.fix], more: how.chosen(p) };
    if (choice.mesh)
      return {
        ...p,
        choice,
        evidence,
        correct: p.fix,
        fix: p.remove,
        recreate: [],
        more: ` ${chosenText(choice)}, so the fix removes this marker rather than correct it.`,
      };
    const options = involved.map((x) => ({
      mesh: x,
      fix: x === p.mesh ? [...how.clear(p.mesh), ...p.fix, ...recreateAll(p.recreate)] : p.remove,
    }));
    return {
      ...p,
      evidence: { ...evidence, ...recreateEvidence(p.recreate) },
      correct: p.fix,
      fix: choiceFix(choice, options, how.what),
      recreate: [],
      more: ` ${meshTitle(involved.find((x) => x !== p.mesh)!)} ${how.askedToo}: choose one mesh, never both.`,
    };
  });
}

/**
 * injection-marker-invalid explains this workload's missing proxy for this mesh (precedence); not a
 * marker the injector does without (a value it ignores while the policy injects): the pods' missing
 * proxy is still reported, beside it (issue 24).
 */
export function markerExplains(m: Model, w: Workload, mesh: MeshName): boolean {
  return [...namespaceProblems(m, w.namespace), ...workloadProblems(m, w)].some(
    (p) => !p.notWhyMissing && (p.mesh === mesh || p.explains?.includes(mesh)),
  );
}
