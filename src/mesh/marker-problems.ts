/**
 * Injection markers that ask for injection but do nothing (invalid values, wrong keys, wrong
 * places): the problems injection-marker-invalid reports, and the precedence rule the other
 * injection checks follow (markerExplains: one cause, one finding).
 */
import { KUBE_SYSTEM_NAMESPACES } from './constants.js';
import { ISTIO_INJECT, ISTIO_NS_LABEL, ISTIO_REV, istioPodValue, parseIstioBool } from './istio.js';
import { LINKERD_INJECT, LINKERD_VALID, isLinkerdEnabling, isLinkerdValid } from './linkerd.js';
import { enableMarker, namespaceMarker, templateOptOut } from './markers.js';
import { evalWebhook, namespaceLabels } from './webhooks.js';
import { jsonPointer, kref, removeFromTemplate, setOnTemplate } from '../fix.js';
import { podStates, type Model, type Workload } from '../model.js';
import type { MeshName, ResourceRef } from '../types.js';
import { annotationsOf, isObj, labelsOf, shq } from '../util.js';

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
    const nsq = shq(ns);
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
              : `Namespace ${ns} has annotation ${LINKERD_INJECT}=${v}, a value Linkerd does not accept, so Linkerd skips every pod in it, including ${optIns.length} workload(s) whose pod template asks for injection.`,
            evidence: {
              marker: `annotation ${LINKERD_INJECT}=${v}`,
              validValues: [...LINKERD_VALID],
              expected: `annotation ${LINKERD_INJECT}=${should}`,
              ...(on ? {} : { blockedWorkloads: optIns.map((w) => `${w.kind}/${w.name}`) }),
            },
            fix: [`kubectl annotate namespace ${nsq} ${LINKERD_INJECT}=${should} --overwrite`],
            recreate: on ? waiting('linkerd') : optIns,
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
            fix: [`kubectl annotate namespace ${nsq} ${LINKERD_INJECT}=enabled --overwrite`, `kubectl label namespace ${nsq} ${shq(`${key}-`)}`],
            recreate: waiting('linkerd'),
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
        fix: [`kubectl label namespace ${nsq} ${ISTIO_NS_LABEL}=enabled --overwrite`],
        recreate: waiting('istio'),
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
            fix: [`kubectl label namespace ${nsq} ${shq(`${revServed ? ISTIO_NS_LABEL : ISTIO_REV}-`)}`],
            recreate: revServed ? all : waiting('istio'),
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
          const label = asRev ? { text: `label ${ISTIO_REV}=${av}`, command: `kubectl label namespace ${nsq} ${shq(`${ISTIO_REV}=${av}`)} --overwrite` } : enableMarker('istio', ns, istio.webhooks);
          add({
            mesh: 'istio',
            message: `Namespace ${ns} has annotation ${key}=${av}, but Istio's webhooks select namespaces by label only, so no pod in it is injected.`,
            evidence: { marker: `annotation ${key}=${av}`, expected: label.text },
            fix: [label.command, `kubectl annotate namespace ${nsq} ${shq(`${key}-`)}`],
            recreate: waiting('istio'),
          });
        }
      }
    }
    return out;
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
          });
        }
        const own = w.templatePath ? annotationsOf(w.obj)[LINKERD_INJECT] : undefined;
        if (asksOn(own)) {
          add({
            mesh: 'linkerd',
            message: `${id} has annotation ${LINKERD_INJECT}=${own} on its own metadata, but Linkerd reads it only from the pod template, so its pods are not injected.`,
            evidence: { marker: `${w.kind} metadata annotation ${LINKERD_INJECT}=${own}`, expected: `pod template annotation ${LINKERD_INJECT}=enabled` },
            fix: [
              ...setOnTemplate(w, 'annotations', LINKERD_INJECT, isLinkerdEnabling(own) ? own : 'enabled'),
              `kubectl annotate ${kref(w.kind, w.name)} -n ${shq(w.namespace)} ${LINKERD_INJECT}-`,
            ],
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
            fix: [
              ...setOnTemplate(w, 'annotations', LINKERD_INJECT, isLinkerdEnabling(onJobs) ? onJobs : 'enabled'),
              `kubectl patch ${kref(w.kind, w.name)} -n ${shq(w.namespace)} --type=json -p ${shq(JSON.stringify([{ op: 'remove', path: `/spec/jobTemplate/metadata/annotations/${jsonPointer(LINKERD_INJECT)}` }]))}`,
            ],
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
          });
        }
      }
    }
    return out;
  });
}

/** injection-marker-invalid explains this workload's missing proxy for this mesh (precedence). */
export function markerExplains(m: Model, w: Workload, mesh: MeshName): boolean {
  return [...namespaceProblems(m, w.namespace), ...workloadProblems(m, w)].some((p) => p.mesh === mesh);
}

