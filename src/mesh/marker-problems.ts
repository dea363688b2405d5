/**
 * Injection markers that ask for injection but do nothing (invalid values, wrong keys, wrong
 * places): the problems injection-marker-invalid reports, and the precedence rule the other
 * injection checks follow (markerExplains: one cause, one finding).
 *
 * One mesh per workload: correcting a marker of one mesh where another mesh is (or would be)
 * asked too would give the pods two proxies. Where that can happen the mesh is chosen from
 * evidence (src/mesh/choice.ts): the chosen mesh's marker is corrected and the other mesh's asking
 * removed (its namespace marker, or an opt-out on the pod template); a marker of a mesh not chosen
 * is removed instead of corrected (it does nothing either way); undecided, the fix is the choice,
 * as comments.
 */
import { KUBE_SYSTEM_NAMESPACES } from './constants.js';
import { ISTIO_INJECT, ISTIO_NS_LABEL, ISTIO_REV, istioPodValue, parseIstioBool } from './istio.js';
import { LINKERD_INJECT, LINKERD_VALID, isLinkerdEnabling, isLinkerdValid } from './linkerd.js';
import { choiceEvidence, choiceFix, chooseMesh, installedMeshes, meshWouldInject, mustChoose, type MeshChoice } from './choice.js';
import { enableMarker, namespaceMarker, optOutMarker, templateOptOut } from './markers.js';
import { MESH_TITLE } from './siblings.js';
import { decide } from './decision.js';
import { evalWebhook, namespaceLabels } from './webhooks.js';
import { namespaceChange, recreateAll, removeAnnotationFromObject, removeFromTemplate, setOnTemplate } from '../fix.js';
import { podStates, type Model, type Workload } from '../model.js';
import type { MeshName, ResourceRef } from '../types.js';
import { annotationsOf, isObj, labelsOf, plural } from '../util.js';

const LINKERD_LEGACY = 'linkerd.io/auto-inject';
const OFF = new Set(['disabled', 'disable', 'false', 'no', 'n', 'off', '0', 'completed']);
/** A value that reads as a request to inject: anything but empty or a recognisable "off". */
const asksOn = (v: string | undefined): v is string => v !== undefined && v !== '' && !OFF.has(v.toLowerCase());

export interface Problem {
  mesh: MeshName;
  resource: ResourceRef;
  message: string;
  evidence: Record<string, unknown>;
  /** The commands correcting the marker. */
  fix: string[];
  /** Workloads whose pods must be re-created once the marker is right. */
  recreate: Workload[];
  affectedPods: number;
  /** The commands removing the marker instead (it does nothing: nothing changes for injection). */
  remove: string[];
  /** The commands correcting the marker, where `fix` was changed to keep the pods to one mesh. */
  correct?: string[];
  /** Workload problems: the pod template as the fix changes it (for will-not-be-meshed to try). */
  templateChanges?: TemplateChange[];
  /** The mesh chosen where another mesh is asked too (undefined: none needed, or undecided). */
  choice?: MeshChoice;
  /** The meshes whose missing proxy this problem explains, besides its own (precedence). */
  explains?: MeshName[];
}

export interface TemplateChange {
  field: 'labels' | 'annotations';
  key: string;
  /** undefined: removed. */
  value?: string;
}

/** A pod template with these changes made (a copy). */
export function changedTemplate<T extends { metadata?: unknown; spec?: unknown }>(template: T, changes: TemplateChange[]): T {
  const labels = { ...labelsOf(template) };
  const annotations = { ...annotationsOf(template) };
  for (const c of changes) {
    const map = c.field === 'labels' ? labels : annotations;
    if (c.value === undefined) delete map[c.key];
    else map[c.key] = c.value;
  }
  return { ...template, metadata: { ...(isObj(template.metadata) ? template.metadata : {}), labels, annotations } };
}


const unmeshedPods = (ws: Workload[]) => ws.reduce((n, w) => n + podStates(w).unmeshed.length, 0);

export function namespaceProblems(m: Model, ns: string): Problem[] {
  return m.memo(`marker-problems:ns:${ns}`, () => {
    const obj = m.namespace(ns);
    if (!obj || m.isControlPlaneNamespace(ns)) return []; // the meshes' own namespaces carry their markers on purpose
    if (KUBE_SYSTEM_NAMESPACES.includes(ns)) return []; // never meshed: webhook-excludes-namespace says so where asked
    const labels = labelsOf(obj);
    const annotations = annotationsOf(obj);
    const ref = { kind: 'Namespace', name: ns };
    const set = (field: 'labels' | 'annotations', key: string, value: string) => namespaceChange(m, ns, field, [{ key, value }]);
    const unset = (field: 'labels' | 'annotations', ...keys: string[]) => namespaceChange(m, ns, field, keys.map((key) => ({ key })));
    const inNs = m.appWorkloadsIn(ns);
    /** Workloads with unmeshed pods a working marker would mesh on re-creation. */
    const waiting = (mesh: MeshName) =>
      inNs.filter((w) => {
        const s = podStates(w);
        return s.unmeshed.length > 0 && !s.hostNetwork && !templateOptOut(mesh, w.template);
      });
    const out: Problem[] = [];
    const add = (p: Omit<Problem, 'resource' | 'affectedPods'>, pods = unmeshedPods(p.recreate)) => out.push({ ...p, resource: ref, affectedPods: pods });

    // A Linkerd marker is judged by Linkerd's own rules, webhooks or not (their configurations may be unreadable).
    if (m.meshPossible('linkerd')) {
      const v = annotations[LINKERD_INJECT];
      if (v !== undefined && !isLinkerdValid(v)) {
        const optIns = inNs.filter((w) => isLinkerdEnabling(annotationsOf(w.template)[LINKERD_INJECT]));
        const on = asksOn(v);
        // A recognisable "off" matters only where it blocks a pod template that asks for injection.
        if (on || optIns.length > 0) {
          const should = on ? 'enabled' : 'disabled';
          add({
            mesh: 'linkerd',
            message: on
              ? `Namespace ${ns} has annotation ${LINKERD_INJECT}=${v}, a value Linkerd does not accept, so Linkerd injects no pod in it.`
              : `Namespace ${ns} has annotation ${LINKERD_INJECT}=${v}, a value Linkerd does not accept, so Linkerd skips every pod in it, including ${plural(optIns.length, 'workload')} whose pod template asks for injection.`,
            evidence: {
              marker: `annotation ${LINKERD_INJECT}=${v}`,
              validValues: [...LINKERD_VALID],
              expected: `annotation ${LINKERD_INJECT}=${should}`,
              ...(on ? {} : { blockedWorkloads: optIns.map((w) => `${w.kind}/${w.name}`) }),
            },
            fix: set('annotations', LINKERD_INJECT, should),
            recreate: on ? waiting('linkerd') : optIns.filter((w) => podStates(w).unmeshed.length > 0),
            remove: unset('annotations', LINKERD_INJECT),
          });
        }
      } else if (v === undefined) {
        // With the annotation present (valid), a stray label beside it changes nothing.
        for (const key of [LINKERD_INJECT, LINKERD_LEGACY]) {
          const lv = labels[key];
          if (!asksOn(lv)) continue;
          add({
            mesh: 'linkerd',
            message:
              key === LINKERD_LEGACY
                ? `Namespace ${ns} has the legacy label ${key}=${lv} of Linkerd's 2018 injector, which today's Linkerd ignores, so it injects no pod in it.`
                : `Namespace ${ns} has label ${key}=${lv}, but Linkerd reads only the annotation ${LINKERD_INJECT}, so it injects no pod in it.`,
            evidence: { marker: `label ${key}=${lv}`, expected: `annotation ${LINKERD_INJECT}=enabled` },
            fix: [...set('annotations', LINKERD_INJECT, 'enabled'), ...unset('labels', key)],
            recreate: waiting('linkerd'),
            remove: unset('labels', key),
          });
        }
      }
    }

    const istio = m.mesh('istio');
    const invalidIstioValue = (inj: string) =>
      add({
        mesh: 'istio',
        message: `Namespace ${ns} has label ${ISTIO_NS_LABEL}=${inj}, but only the value "enabled" selects Istio's injection webhook, so no pod in it is injected.`,
        evidence: { marker: `label ${ISTIO_NS_LABEL}=${inj}`, expected: `label ${ISTIO_NS_LABEL}=enabled` },
        fix: set('labels', ISTIO_NS_LABEL, 'enabled'),
        recreate: waiting('istio'),
        remove: unset('labels', ISTIO_NS_LABEL),
      });
    if (!m.has('mutatingwebhookconfigurations')) {
      // Without the webhooks, only a value that no Istio webhook ever selects can be judged.
      const inj = labels[ISTIO_NS_LABEL];
      if (m.meshPossible('istio') && inj !== undefined && inj !== 'enabled' && asksOn(inj) && labels[ISTIO_REV] === undefined) invalidIstioValue(inj);
    } else if (istio) {
      const inj = labels[ISTIO_NS_LABEL];
      const rev = labels[ISTIO_REV];
      const nsLabels = namespaceLabels(obj, ns);
      const { [ISTIO_NS_LABEL]: _winner, ...withoutInj } = nsLabels;
      /** The injector Service a plain pod would be sent to under these namespace labels. */
      const injector = (l: Record<string, string>) => {
        const svc = istio.webhooks.find((h) => evalWebhook(h, l, {}).called)?.service;
        return svc ? `${svc.namespace}/${svc.name}` : undefined;
      };
      const revServed = rev !== undefined && injector(withoutInj) !== undefined;
      // Both labels sending pods to the same istiod (e.g. istio.io/rev=default) is contradictory but harmless.
      const sameInjector = inj === 'enabled' && revServed && injector(withoutInj) === injector(nsLabels);
      if (inj !== undefined && rev !== undefined && !sameInjector) {
        const served = [...new Set(istio.webhooks.flatMap((h) => h.revisions))].sort();
        // Switching revision re-creates every pod of the namespace; otherwise only the unmeshed ones.
        const all = inNs.filter((w) => !podStates(w).hostNetwork && !templateOptOut('istio', w.template));
        add(
          {
            mesh: 'istio',
            message: `Namespace ${ns} has both labels ${ISTIO_NS_LABEL}=${inj} and ${ISTIO_REV}=${rev}; ${ISTIO_NS_LABEL} wins, so revision ${rev} is ignored${revServed ? '' : ' (and no installed webhook serves it)'}.`,
            evidence: { labels: { [ISTIO_NS_LABEL]: inj, [ISTIO_REV]: rev }, ignoredRevision: rev, servedRevisions: served, revisionServed: revServed },
            fix: unset('labels', revServed ? ISTIO_NS_LABEL : ISTIO_REV),
            recreate: revServed ? all : waiting('istio'),
            remove: unset('labels', ISTIO_NS_LABEL, ISTIO_REV),
          },
          revServed ? all.reduce((n, w) => n + podStates(w).active.length, 0) : undefined,
        );
      } else if (inj !== undefined && inj !== 'enabled' && asksOn(inj)) {
        invalidIstioValue(inj);
      } else if (inj === undefined && rev === undefined) {
        // Webhooks select namespaces by labels only: the same key as an annotation does nothing.
        for (const key of [ISTIO_NS_LABEL, ISTIO_REV]) {
          const av = annotations[key];
          if (!asksOn(av)) continue;
          const asRev = key === ISTIO_REV && injector({ ...nsLabels, [ISTIO_REV]: av }) !== undefined;
          const label = asRev ? { text: `label ${ISTIO_REV}=${av}`, key: ISTIO_REV, value: av } : enableMarker('istio', ns, istio.webhooks);
          add({
            mesh: 'istio',
            message: `Namespace ${ns} has annotation ${key}=${av}, but Istio's webhooks select namespaces by label only, so no pod in it is injected.`,
            evidence: { marker: `annotation ${key}=${av}`, expected: label.text },
            fix: [...set('labels', label.key, label.value), ...unset('annotations', key)],
            recreate: waiting('istio'),
            remove: unset('annotations', key),
          });
        }
      }
    }
    return out.length ? oneMeshForNamespace(m, ns, out) : bothAsked(m, ns);
  });
}

/**
 * The commands removing every namespace marker of a mesh that makes it inject (Linkerd's
 * annotation; Istio's istio-injection and istio.io/rev labels: removing the first alone would let
 * the second select a webhook).
 */
function removeNamespaceMarker(m: Model, ns: string, mesh: MeshName): string[] {
  const obj = m.namespace(ns);
  if (mesh === 'linkerd') return namespaceChange(m, ns, 'annotations', [{ key: LINKERD_INJECT }]);
  const labels = labelsOf(obj);
  return namespaceChange(m, ns, 'labels', [ISTIO_NS_LABEL, ISTIO_REV].filter((k) => labels[k] !== undefined).map((key) => ({ key })));
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
    decide(x, install(x)!.webhooks, { namespace: ns, nsLabels: namespaceLabels(obj, ns), nsAnnotations: annotationsOf(obj), template: {} }, m.linkerdSettings()).inject;
  const both = installedMeshes(m).filter((x) => namespaceMarker(x, obj).enabled && takes(x));
  const inNs = m.appWorkloadsIn(ns);
  if (both.length < 2 || inNs.length === 0) return [];
  const choice = chooseMesh(m, ns, inNs, both);
  const texts = both.map((x) => `${MESH_TITLE[x]} (${namespaceMarker(x, obj).text})`).join(' and ');
  const other = choice.mesh ? both.find((x) => x !== choice.mesh)! : undefined;
  return [
    {
      mesh: choice.mesh ?? both[0]!,
      resource: { kind: 'Namespace', name: ns },
      message: `Namespace ${ns} asks both ${texts} to inject its pods, so every new pod in it is sent to both injectors; ${
        other ? `${chosenText(choice)}, so the fix removes the ${MESH_TITLE[other]} marker (running pods keep their proxy until re-created)` : mustChoose(choice, 'it')
      }.`,
      evidence: { markers: both.map((x) => namespaceMarker(x, obj).text), meshChoice: choiceEvidence(choice) },
      fix: choiceFix(choice, both.map((keep) => ({ mesh: keep, fix: both.filter((x) => x !== keep).flatMap((x) => removeNamespaceMarker(m, ns, x)) })), `namespace ${ns}`),
      recreate: [],
      remove: [],
      explains: both,
      ...(choice.mesh ? { choice } : {}),
      affectedPods: unmeshedPods(inNs),
    },
  ];
}

/** "Linkerd is the mesh here (3 workload(s) in namespace shop run the Linkerd proxy)". */
const chosenText = (choice: MeshChoice) => `${MESH_TITLE[choice.mesh!]} is the mesh here${choice.by ? ` (${choice.by})` : ''}`;

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
  const enabled = installedMeshes(m).filter((x) => namespaceMarker(x, obj).enabled && !problems.some((p) => p.mesh === x));
  const involved = [...new Set([...problems.map((p) => p.mesh), ...enabled])];
  if (involved.length < 2) return problems;
  const choice = chooseMesh(m, ns, m.appWorkloadsIn(ns), involved);
  /** Removing the valid markers of the meshes not chosen (they would inject beside it). */
  const removeEnabled = (keep: MeshName) => enabled.filter((x) => x !== keep).flatMap((x) => removeNamespaceMarker(m, ns, x));
  const others = (keep: MeshName) => enabled.filter((x) => x !== keep).map((x) => namespaceMarker(x, obj).text).join(' and ');
  return problems.map((p) => {
    const evidence = { ...p.evidence, meshChoice: choiceEvidence(choice) };
    if (choice.mesh === p.mesh) {
      const gone = others(p.mesh);
      return { ...p, choice, evidence, correct: p.fix, fix: [...removeEnabled(p.mesh), ...p.fix], message: gone ? `${p.message} ${chosenText(choice)}, so the fix also removes ${gone}.` : p.message };
    }
    if (choice.mesh) return { ...p, choice, evidence, correct: p.fix, fix: p.remove, recreate: [], message: `${p.message} ${chosenText(choice)}, so the fix removes this marker rather than correct it.` };
    const options = involved.map((x) => ({ mesh: x, fix: x === p.mesh ? [...removeEnabled(p.mesh), ...p.fix, ...recreateAll(p.recreate)] : p.remove }));
    return { ...p, evidence, correct: p.fix, fix: choiceFix(choice, options, `namespace ${ns}`), recreate: [], message: `${p.message} ${MESH_TITLE[involved.find((x) => x !== p.mesh)!]} is asked here too: choose one mesh, never both.` };
  });
}

export function workloadProblems(m: Model, w: Workload): Problem[] {
  return m.memo(`marker-problems:w:${w.kind}/${w.namespace}/${w.name}`, () => {
    const out: Problem[] = [];
    const annotations = annotationsOf(w.template);
    const labels = labelsOf(w.template);
    const id = `${w.kind} ${w.namespace}/${w.name}`;
    const where = w.templatePath ? 'pod template' : 'pod';
    const add = (p: Omit<Problem, 'resource' | 'recreate' | 'affectedPods'>) =>
      // Patching a template rolls the workload out (a Job is replaced); a bare pod must be re-created.
      out.push({ ...p, resource: w.ref, recreate: w.kind === 'Pod' ? [w] : [], affectedPods: podStates(w).unmeshed.length });

    // An invalid value is wrong whatever the namespace says: judged even where the Namespace and
    // the webhooks cannot be read (namespace-only permissions).
    if (m.meshPossible('linkerd')) {
      const ns = namespaceMarker('linkerd', m.namespace(w.namespace));
      const v = annotations[LINKERD_INJECT];
      if (v !== undefined && !isLinkerdValid(v) && asksOn(v)) {
        add({
          mesh: 'linkerd',
          message: `${id} has ${where} annotation ${LINKERD_INJECT}=${v}, a value Linkerd does not accept, so Linkerd skips its pods.`,
          evidence: {
            marker: `${where} annotation ${LINKERD_INJECT}=${v}`,
            validValues: [...LINKERD_VALID],
            expected: ns.enabled ? `no ${where} annotation (namespace ${w.namespace} has ${ns.text})` : `${where} annotation ${LINKERD_INJECT}=enabled`,
          },
          fix: ns.enabled ? removeFromTemplate(w, 'annotations', LINKERD_INJECT) : setOnTemplate(w, 'annotations', LINKERD_INJECT, 'enabled'),
          remove: removeFromTemplate(w, 'annotations', LINKERD_INJECT),
          templateChanges: [{ field: 'annotations', key: LINKERD_INJECT, ...(ns.enabled ? {} : { value: 'enabled' }) }],
        });
      }
      // Where the namespace enables Linkerd or the template has the annotation, these change nothing
      // (and where the Namespace was not read, that cannot be known).
      if (v === undefined && !ns.enabled && m.has('namespaces')) {
        for (const key of [LINKERD_INJECT, LINKERD_LEGACY]) {
          const lv = labels[key];
          if (!asksOn(lv)) continue;
          add({
            mesh: 'linkerd',
            message: `${id} has ${where} label ${key}=${lv}, but Linkerd reads only the annotation ${LINKERD_INJECT}, so its pods are not injected.`,
            evidence: { marker: `${where} label ${key}=${lv}`, expected: `${where} annotation ${LINKERD_INJECT}=enabled` },
            fix: [...setOnTemplate(w, 'annotations', LINKERD_INJECT, 'enabled'), ...removeFromTemplate(w, 'labels', key)],
            remove: removeFromTemplate(w, 'labels', key),
            templateChanges: [{ field: 'annotations', key: LINKERD_INJECT, value: 'enabled' }, { field: 'labels', key }],
          });
        }
        const own = w.templatePath ? annotationsOf(w.obj)[LINKERD_INJECT] : undefined;
        if (asksOn(own)) {
          add({
            mesh: 'linkerd',
            message: `${id} has annotation ${LINKERD_INJECT}=${own} on its own metadata, but Linkerd reads it only from the pod template, so its pods are not injected.`,
            evidence: { marker: `${w.kind} metadata annotation ${LINKERD_INJECT}=${own}`, expected: `pod template annotation ${LINKERD_INJECT}=enabled` },
            fix: [...setOnTemplate(w, 'annotations', LINKERD_INJECT, isLinkerdEnabling(own) ? own : 'enabled'), ...removeAnnotationFromObject(w, 'metadata', LINKERD_INJECT)],
            remove: removeAnnotationFromObject(w, 'metadata', LINKERD_INJECT),
            templateChanges: [{ field: 'annotations', key: LINKERD_INJECT, value: isLinkerdEnabling(own) ? own : 'enabled' }],
          });
        }
        // A CronJob's jobTemplate metadata annotates the Jobs, not their pods.
        const jobTemplate = w.kind === 'CronJob' && isObj(w.obj?.spec) ? w.obj!.spec.jobTemplate : undefined;
        const onJobs = isObj(jobTemplate) ? annotationsOf(jobTemplate)[LINKERD_INJECT] : undefined;
        if (asksOn(onJobs)) {
          add({
            mesh: 'linkerd',
            message: `${id} has annotation ${LINKERD_INJECT}=${onJobs} on spec.jobTemplate.metadata, which annotates its Jobs, not their pods, so its pods are not injected.`,
            evidence: { marker: `jobTemplate metadata annotation ${LINKERD_INJECT}=${onJobs}`, expected: `pod template (spec.jobTemplate.spec.template) annotation ${LINKERD_INJECT}=enabled` },
            fix: [...setOnTemplate(w, 'annotations', LINKERD_INJECT, isLinkerdEnabling(onJobs) ? onJobs : 'enabled'), ...removeAnnotationFromObject(w, 'spec.jobTemplate.metadata', LINKERD_INJECT)],
            remove: removeAnnotationFromObject(w, 'spec.jobTemplate.metadata', LINKERD_INJECT),
            templateChanges: [{ field: 'annotations', key: LINKERD_INJECT, value: isLinkerdEnabling(onJobs) ? onJobs : 'enabled' }],
          });
        }
      }
    }

    const istio = m.mesh('istio');
    // Whether a webhook would be called needs the namespace's labels and the webhooks.
    if (istio && m.injectionConfigRead) {
      const { value, from } = istioPodValue(w.template);
      // The object webhook selects the label sidecar.istio.io/inject=true, exactly.
      if (parseIstioBool(value) && !(from === 'label' && value === 'true') && !m.decision(w, 'istio')?.called) {
        const nsLabels = namespaceLabels(m.namespace(w.namespace), w.namespace);
        const labelWorks = istio.webhooks.some((h) => evalWebhook(h, nsLabels, { ...labels, [ISTIO_INJECT]: 'true' }).called);
        // Where even the label selects no webhook, the namespace opts out: not a marker problem.
        if (labelWorks) {
          add({
            mesh: 'istio',
            message: `${id} asks for injection with ${where} ${from} ${ISTIO_INJECT}=${value}, but in namespace ${w.namespace} only the label ${ISTIO_INJECT}=true selects Istio's webhook, so its pods are not injected.`,
            evidence: { marker: `${where} ${from} ${ISTIO_INJECT}=${value}`, expected: `${where} label ${ISTIO_INJECT}=true` },
            fix: setOnTemplate(w, 'labels', ISTIO_INJECT, 'true'),
            remove: removeFromTemplate(w, from === 'label' ? 'labels' : 'annotations', ISTIO_INJECT),
            templateChanges: [{ field: 'labels', key: ISTIO_INJECT, value: 'true' }],
          });
        }
      }
    }
    return oneMeshForWorkload(m, w, out);
  });
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
  const nsAsks = namespaceProblems(m, w.namespace).filter((p) => !p.choice || p.choice.mesh === p.mesh).map((p) => p.mesh);
  const injecting = installedMeshes(m).filter((x) => meshWouldInject(m, w, x) || nsAsks.includes(x));
  const others = injecting.filter((x) => !problems.some((p) => p.mesh === x));
  const involved = [...new Set([...problems.map((p) => p.mesh), ...others])];
  if (involved.length < 2) return problems;
  const choice = chooseMesh(m, w.namespace, [w], involved);
  /** The pod template opts out of the meshes not chosen that would inject it. */
  const optOuts = (keep: MeshName) =>
    others.filter((x) => x !== keep && !templateOptOut(x, w.template)).flatMap((x) => {
      const o = optOutMarker(x);
      return setOnTemplate(w, o.field, o.key, o.value);
    });
  const optOutText = (keep: MeshName) => others.filter((x) => x !== keep).map((x) => MESH_TITLE[x]).join(' and ');
  const what = `${w.kind} ${w.namespace}/${w.name}`;
  return problems.map((p) => {
    const evidence = { ...p.evidence, meshChoice: choiceEvidence(choice) };
    if (choice.mesh === p.mesh) {
      const out = optOutText(p.mesh);
      return { ...p, choice, evidence, correct: p.fix, fix: [...optOuts(p.mesh), ...p.fix], message: out ? `${p.message} ${out} would inject it too; ${chosenText(choice)}, so the fix also opts its pod template out of ${out}.` : p.message };
    }
    if (choice.mesh) return { ...p, choice, evidence, correct: p.fix, fix: p.remove, recreate: [], message: `${p.message} ${chosenText(choice)}, so the fix removes this marker rather than correct it.` };
    const options = involved.map((x) => ({ mesh: x, fix: x === p.mesh ? [...optOuts(p.mesh), ...p.fix, ...recreateAll(p.recreate)] : p.remove }));
    return { ...p, evidence, correct: p.fix, fix: choiceFix(choice, options, what), recreate: [], message: `${p.message} ${MESH_TITLE[involved.find((x) => x !== p.mesh)!]} is asked for it too: choose one mesh, never both.` };
  });
}

/** injection-marker-invalid explains this workload's missing proxy for this mesh (precedence). */
export function markerExplains(m: Model, w: Workload, mesh: MeshName): boolean {
  return [...namespaceProblems(m, w.namespace), ...workloadProblems(m, w)].some((p) => p.mesh === mesh || p.explains?.includes(mesh));
}

