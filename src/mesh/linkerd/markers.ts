/**
 * Linkerd's injection markers (docs/meshes/linkerd.md; linkerd/linkerd2 pkg/inject/report.go,
 * controller/proxy-injector/webhook.go): the annotation `linkerd.io/inject` on the namespace or
 * the pod template; the labels and places people mistake for it.
 */
import { setOnTemplate, removeFromTemplate, removeAnnotationFromObject } from '../../fix/commands.js';

import type { K8sObject } from '../../util/types.js';
import { annotationsOf, isObj, labelsOf, plural, shq } from '../../util/objects.js';
import { asks, asksOn } from '../asks.js';
import type { MarkerProblemDraft, NamespaceMarker, NamespaceProblemContext, Template, WorkloadProblemContext } from '../profile.js';
import type { MeshContext } from '../context.js';
import { LINKERD_INJECT, LINKERD_VALID, isLinkerdEnabling, isLinkerdValid } from './injector.js';

/** The 2018 injector's namespace label, ignored by today's Linkerd. */
const LINKERD_LEGACY = 'linkerd.io/auto-inject';

export function namespaceMarker(ns: K8sObject | undefined): NamespaceMarker {
  const labels = labelsOf(ns);
  const v = annotationsOf(ns)[LINKERD_INJECT];
  const stray = labels[LINKERD_INJECT] ?? labels[LINKERD_LEGACY];
  if (v !== undefined) return { enabled: isLinkerdEnabling(v), present: true, text: `annotation ${LINKERD_INJECT}=${v}` };
  return { enabled: false, present: stray !== undefined };
}

export const enableMarker = (ns: string) => ({
  field: 'annotations' as const,
  key: LINKERD_INJECT,
  value: 'enabled',
  text: `annotation ${LINKERD_INJECT}=enabled`,
  command: `kubectl annotate namespace ${shq(ns)} ${LINKERD_INJECT}=enabled --overwrite`,
});

export function templateOptOut(template: Template) {
  const v = annotationsOf(template)[LINKERD_INJECT];
  return v === 'disabled' ? { key: LINKERD_INJECT, value: v, from: 'annotation' as const } : undefined;
}

/** The annotation enabling Linkerd on a namespace or a pod template. */
export function enabling(o: { metadata?: unknown } | undefined) {
  const v = annotationsOf(o)[LINKERD_INJECT];
  return isLinkerdEnabling(v) ? { f: 'annotations' as const, key: LINKERD_INJECT, value: v! } : undefined;
}

/** The marker asking for Linkerd on a template, valid or not ("annotation linkerd.io/inject=enable"). */
export function templateAsking(template: Template | undefined): string | undefined {
  const annotations = annotationsOf(template);
  const labels = labelsOf(template);
  if (annotations[LINKERD_INJECT] !== undefined)
    return asks(annotations[LINKERD_INJECT]) ? `annotation ${LINKERD_INJECT}=${annotations[LINKERD_INJECT]}` : undefined;
  for (const key of [LINKERD_INJECT, LINKERD_LEGACY]) if (asks(labels[key])) return `label ${key}=${labels[key]}`;
  return undefined;
}

/** A Linkerd marker is judged by Linkerd's own rules, webhooks or not (their configurations may be unreadable). */
export function namespaceProblems(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('linkerd')) return [];
  const { ns, labels, annotations, set, unset } = c;
  const out: MarkerProblemDraft[] = [];
  const v = annotations[LINKERD_INJECT];
  if (v !== undefined && !isLinkerdValid(v)) {
    const optIns = c.workloads.filter((w) => isLinkerdEnabling(annotationsOf(w.template)[LINKERD_INJECT]));
    const on = asksOn(v);
    // A recognisable "off" matters only where it blocks a pod template that asks for injection.
    if (on || optIns.length > 0) {
      const should = on ? 'enabled' : 'disabled';
      out.push({
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
        recreate: on ? c.waiting() : optIns.filter((w) => m.podStates(w).unmeshed.length > 0),
        remove: unset('annotations', LINKERD_INJECT),
      });
    }
  } else if (v === undefined) {
    // With the annotation present (valid), a stray label beside it changes nothing.
    for (const key of [LINKERD_INJECT, LINKERD_LEGACY]) {
      const lv = labels[key];
      if (!asksOn(lv)) continue;
      out.push({
        message:
          key === LINKERD_LEGACY
            ? `Namespace ${ns} has the legacy label ${key}=${lv} of Linkerd's 2018 injector, which today's Linkerd ignores, so it injects no pod in it.`
            : `Namespace ${ns} has label ${key}=${lv}, but Linkerd reads only the annotation ${LINKERD_INJECT}, so it injects no pod in it.`,
        evidence: { marker: `label ${key}=${lv}`, expected: `annotation ${LINKERD_INJECT}=enabled` },
        fix: [...set('annotations', LINKERD_INJECT, 'enabled'), ...unset('labels', key)],
        recreate: c.waiting(),
        remove: unset('labels', key),
      });
    }
  }
  return out;
}

/** An invalid value is wrong whatever the namespace says: judged even where the Namespace and the webhooks cannot be read. */
export function workloadProblems(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
  if (!m.meshPossible('linkerd')) return [];
  const { w, id, where, labels, annotations } = c;
  const out: MarkerProblemDraft[] = [];
  const ns = namespaceMarker(m.namespace(w.namespace));
  const v = annotations[LINKERD_INJECT];
  if (v !== undefined && !isLinkerdValid(v) && asksOn(v)) {
    out.push({
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
      out.push({
        message: `${id} has ${where} label ${key}=${lv}, but Linkerd reads only the annotation ${LINKERD_INJECT}, so its pods are not injected.`,
        evidence: { marker: `${where} label ${key}=${lv}`, expected: `${where} annotation ${LINKERD_INJECT}=enabled` },
        fix: [...setOnTemplate(w, 'annotations', LINKERD_INJECT, 'enabled'), ...removeFromTemplate(w, 'labels', key)],
        remove: removeFromTemplate(w, 'labels', key),
        templateChanges: [
          { field: 'annotations', key: LINKERD_INJECT, value: 'enabled' },
          { field: 'labels', key },
        ],
      });
    }
    const own = w.templatePath ? annotationsOf(w.obj)[LINKERD_INJECT] : undefined;
    if (asksOn(own)) {
      out.push({
        message: `${id} has annotation ${LINKERD_INJECT}=${own} on its own metadata, but Linkerd reads it only from the pod template, so its pods are not injected.`,
        evidence: { marker: `${w.kind} metadata annotation ${LINKERD_INJECT}=${own}`, expected: `pod template annotation ${LINKERD_INJECT}=enabled` },
        fix: [
          ...setOnTemplate(w, 'annotations', LINKERD_INJECT, isLinkerdEnabling(own) ? own : 'enabled'),
          ...removeAnnotationFromObject(w, 'metadata', LINKERD_INJECT),
        ],
        remove: removeAnnotationFromObject(w, 'metadata', LINKERD_INJECT),
        templateChanges: [{ field: 'annotations', key: LINKERD_INJECT, value: isLinkerdEnabling(own) ? own : 'enabled' }],
      });
    }
    // A CronJob's jobTemplate metadata annotates the Jobs, not their pods.
    const jobTemplate = w.kind === 'CronJob' && isObj(w.obj?.spec) ? w.obj!.spec.jobTemplate : undefined;
    const onJobs = isObj(jobTemplate) ? annotationsOf(jobTemplate)[LINKERD_INJECT] : undefined;
    if (asksOn(onJobs)) {
      out.push({
        message: `${id} has annotation ${LINKERD_INJECT}=${onJobs} on spec.jobTemplate.metadata, which annotates its Jobs, not their pods, so its pods are not injected.`,
        evidence: {
          marker: `jobTemplate metadata annotation ${LINKERD_INJECT}=${onJobs}`,
          expected: `pod template (spec.jobTemplate.spec.template) annotation ${LINKERD_INJECT}=enabled`,
        },
        fix: [
          ...setOnTemplate(w, 'annotations', LINKERD_INJECT, isLinkerdEnabling(onJobs) ? onJobs : 'enabled'),
          ...removeAnnotationFromObject(w, 'spec.jobTemplate.metadata', LINKERD_INJECT),
        ],
        remove: removeAnnotationFromObject(w, 'spec.jobTemplate.metadata', LINKERD_INJECT),
        templateChanges: [{ field: 'annotations', key: LINKERD_INJECT, value: isLinkerdEnabling(onJobs) ? onJobs : 'enabled' }],
      });
    }
  }
  return out;
}
