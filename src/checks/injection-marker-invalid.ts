/**
 * injection-marker-invalid — a marker that looks like it asks for injection but does nothing.
 *
 * Why: injection hangs on exact keys, places and values (docs/meshes/linkerd.md, docs/meshes/istio.md), and a near miss
 * fails silently: `linkerd.io/inject: "true"` (invalid: Linkerd skips every pod of a namespace,
 * or the workload, carrying it), `linkerd.io/inject` as a label, the legacy label
 * `linkerd.io/auto-inject`, `linkerd.io/inject` on a Deployment's own metadata instead of its pod
 * template, `istio-injection` as a namespace annotation or with a value other than `enabled`,
 * a template annotation `sidecar.istio.io/inject: "true"` where only the label would select a
 * webhook, and `istio-injection` beside `istio.io/rev` (istio-injection wins, the revision is
 * ignored). Also a namespace whose valid markers ask both meshes (a Linkerd annotation and an
 * Istio label): every new pod in it is sent to both injectors.
 * When: only for installed meshes; values that read as "off" (disabled, false, no, off, 0) are
 * deliberate and stay silent, except a namespace value Linkerd rejects that blocks templates
 * asking for injection. A stray marker beside a working one changes nothing and stays silent.
 * This check comes first: webhook-excludes-namespace, pod-predates-enablement and
 * sidecar-missing stay silent where it fires (one cause, one finding).
 * Namespace-only permissions (Namespaces or webhook configurations unreadable): an invalid
 * `linkerd.io/inject` value on a pod template is wrong whatever the namespace says, and is judged
 * where Linkerd may be installed (detected, or the webhooks unreadable); markers whose effect depends
 * on the namespace (a label instead of the annotation, the annotation on the wrong object, Istio's
 * template annotation) stay silent, as do namespace markers whose fix needs the webhooks (only an
 * `istio-injection` value no webhook selects is judged without them).
 * Known false positives: a deliberately inert marker kept as documentation.
 * Fix: the exact command that corrects or moves the marker, then re-create the pods (only new
 * pods are injected). Never one that asks a second mesh for the same pods (src/facts/choice.ts):
 * with both meshes in play, the mesh the evidence names is kept (a marker of the other one is
 * removed, a template opts out of it), else the fix is the choice, in comments.
 */
import { recreateAll, recreateEvidence } from '../fix/commands.js';
import { markerCause } from '../facts/denials.js';
import {
  namespaceProblems,
  workloadProblems,
  type MarkerSaid,
  type Problem,
  WORKLOAD_PROBLEMS,
} from '../facts/marker-problems.js';
import { nameOf } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import type { ParamsOf } from './types.js';

/**
 * What the marker problems say (src/facts/marker-problems.ts builds their params, `MarkerSaid`;
 * other checks share the problems, not the text). `{more}`: what choosing one mesh adds, or "".
 * `mesh-rule`: a mesh's own rule, in its profile's words (src/mesh/<mesh>/markers.ts).
 */
const MESSAGES = messages({
  'mesh-rule': '{text}{more}',
  'legacy-namespace':
    "Namespace {namespace} has the legacy {marker} of {legacy}, which today's {meshTitle} ignores, so it injects no pod in it.{more}",
  'stray-namespace':
    'Namespace {namespace} has {marker}, but {meshTitle} reads only the {field} {key}{since}, so it injects no pod in it.{more}',
  'stray-template':
    '{workload} has {where} {marker}, but {meshTitle} reads only the {field} {key}{since}, so its pods are not injected.{more}',
  'own-metadata':
    '{workload} has {marker} on its own metadata, but {meshTitle} reads it only from the pod template, so its pods are not injected.{more}',
  'job-template':
    '{workload} has {marker} on spec.jobTemplate.metadata, which {labels} its Jobs, not their pods, so its pods are not injected.{more}',
  'opt-out-own-metadata':
    '{workload} has {marker} on its own metadata, but {meshTitle} reads it only from the pod template, so its pods are injected all the same.{more}',
  'both-namespace':
    'Namespace {namespace} asks both {meshes} to inject its pods, so every new pod in it is sent to both injectors; {resolution}.{more}',
  'both-workload':
    '{workload} is asked to be injected by both {meshes}, so each new pod of it would get two proxies; {resolution}.{more}',
});

type Id = keyof typeof MESSAGES & string;
/** What the templates take, by id, but `more`: the facts' problems must say exactly this (a compile error where they differ). */
type Declared = { [K in Id]: { id: K; params: Omit<ParamsOf<(typeof MESSAGES)[K]>, 'more'> } }[Id];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Each id with the names of its params. */
type Shape<U> = U extends { id: infer I; params: infer P } ? [I, keyof P] : never;
const SAYS_ALL: [MarkerSaid extends Declared ? true : false, Same<Shape<MarkerSaid>, Shape<Declared>>] = [true, true];

/** The problem's message by id (its params checked against the template above by SAYS_ALL). */
const said = (p: Problem) =>
  say(MESSAGES, p.said.id, { ...p.said.params, more: p.more } as unknown as ParamsOf<(typeof MESSAGES)[Id]>);

export default defineCheck({
  ...meta('injection-marker-invalid'),
  facts: [WORKLOAD_PROBLEMS],
  messages: MESSAGES,
  *run(m) {
    void SAYS_ALL;
    const problems: Problem[] = [];
    for (const ns of m.list('namespaces')) {
      const name = nameOf(ns);
      if (name && m.inScope(name)) problems.push(...namespaceProblems(m, name));
    }
    for (const w of m.appWorkloads) problems.push(...workloadProblems(m, w));
    for (const p of problems) {
      yield {
        mesh: p.mesh,
        ...said(p),
        resource: p.resource,
        evidence: { ...p.evidence, ...recreateEvidence(p.recreate) },
        fix: [...p.fix, ...recreateAll(p.recreate)],
        affectedPods: p.affectedPods,
        // An injector denying the pods over this marker (webhook-denied) links to it.
        causeKey: markerCause(p),
      };
    }
  },
});
