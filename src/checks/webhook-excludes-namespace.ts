/**
 * webhook-excludes-namespace — the namespace (or pod template) asks a mesh for injection, but
 * none of the mesh's injection webhooks would be called for its pods.
 *
 * Why: the API server calls a webhook only when its namespaceSelector matches the namespace's
 * labels and its objectSelector the pod's labels (docs/meshes/linkerd.md, first row; the same for every mesh). A label such as
 * `config.linkerd.io/admission-webhooks=disabled`, an `istio.io/rev` no installed webhook serves,
 * or a custom objectSelector silently keeps the injector away. Some namespaces can never be
 * meshed: kube-system and cert-manager for Linkerd (by name), kube-system, kube-public,
 * kube-node-lease and local-path-storage for Istio (rejected inside the injector).
 * Its CEL matchConditions (Kubernetes 1.28+) are evaluated after both selectors (apiserver
 * generic/webhook.go ShouldCallHook; src/k8s/cel.ts, the shapes it evaluates): a false one skips the
 * webhook, one that fails to evaluate refuses the pod under failurePolicy Fail and skips the
 * webhook under Ignore (types.go MatchConditions); the finding names the condition.
 * When: per namespace when every webhook's namespaceSelector fails (or Istio ignores the
 * namespace), else per workload when objectSelectors fail, or a matchCondition leaves the pods
 * out; a warning where a condition was not evaluated and the workload's pods run without the
 * proxy (not evaluated is not "excluded"). Silent for the meshes' own
 * namespaces, hostNetwork and opted-out templates, meshes without a pod webhook (webhook-missing)
 * and where injection-marker-invalid explains it (one cause, one finding).
 * Known false positives: a namespace excluded on purpose while keeping its marker.
 * Fix: the label change (verified against the selectors) that makes a webhook select the pods,
 * then re-create them; none where the namespace cannot be meshed.
 */
import { newPodLabels } from '../k8s/pod-labels.js';
import { selectorTerms, termMatches } from '../k8s/selectors.js';
import { namespaceChange, recreateAll, recreateCommands, removeFromTemplate, setOnTemplate } from '../fix/commands.js';
import { choiceEvidence, choiceFix, chooseMesh, mustChoose } from '../facts/choice.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import {
  namespaceMarker,
  templateOptOut,
  templateAsks,
  namespaceMarkerKeys,
  templateAsking,
} from '../facts/markers.js';
import {
  evalWebhook,
  matchConditionExpression,
  namespaceLabels,
  rulesMatchPodCreate,
  type MeshWebhook,
  type WebhookCall,
} from '../mesh/webhooks.js';
import { podStates, type Workload } from '../facts/model.js';
import type { FindingInput } from './define.js';
import { agree, dict, groupBy, plural, shq } from '../util/objects.js';
import { printable } from '../util/errors.js';
import type { MeshName } from '../mesh/names.js';
import { defineCheck, messages, meta, say } from './define.js';
import type { Evidence } from './types.js';
import { markerExplains, WORKLOAD_PROBLEMS } from '../facts/marker-problems.js';
import type { Step } from '../fix/steps.js';
import { choice, comment, noteStep, text, type Part } from '../fix/steps.js';
import { judgedByPod } from '../k8s/workloads.js';

const NAME_LABEL = 'kubernetes.io/metadata.name';

/** Its messages; `{choose}`: empty, or the mesh to choose where one namespace or workload asks two meshes. */
const MESSAGES = messages({
  'match-condition-refuses':
    '{workload} asks {meshTitle} for injection, but the {matchConditions} {conditions} of webhook {webhook} {fail} to evaluate for its pods under failurePolicy Fail, so the API server refuses them{choose}.',
  'match-condition-error-skips':
    '{workload} asks {meshTitle} for injection, but the {matchConditions} {conditions} of webhook {webhook} {fail} to evaluate for its pods, which under failurePolicy Ignore skips the webhook, so its pods are not injected{choose}.',
  'match-condition-false':
    '{workload} asks {meshTitle} for injection, but the {matchConditions} {conditions} of webhook {webhook} is false for its pods, so the API server does not call the webhook and its pods are not injected{choose}.',
  'match-condition-not-evaluated':
    '{workload} asks {meshTitle} for injection and {podsRun} without the proxy; webhook {webhook} selects them, but its matchConditions {conditions} were not evaluated (meshdoctor evaluates only simple CEL shapes), so whether they keep the pods out is not known{choose}.',
  'pod-revision-unserved':
    '{workload} asks {meshTitle} for revision {revision} with its pod label {revisionLabel}, but no installed webhook serves that revision or tag, so its pods are not injected{choose}.',
  'object-selector':
    '{workload} asks {meshTitle} for injection, but its pod labels match the objectSelector of no {meshTitle} injection webhook, so its pods are not injected{choose}.',
  'namespace-opts-out':
    'Namespace {namespace} opts out of {meshTitle} with {marker}, which no pod label overrides, so {workloads} asking for injection there {are} not injected{choose}.',
  'namespace-never-injected':
    'Namespace {namespace} asks {meshTitle} to inject {workloads}, but {meshTitle} never injects pods in {namespace}, so it cannot be meshed{choose}.',
  'revision-unserved':
    'Namespace {namespace} asks {meshTitle} to inject {workloads}, but no installed webhook serves its revision {revision}, so {their} pods are not injected{choose}.',
  'no-webhook-can-select':
    'Namespace {namespace} asks {meshTitle} to inject {workloads}, but no {meshTitle} injection webhook can select this namespace, so it cannot be meshed{choose}.',
  'namespace-selector':
    'Namespace {namespace} asks {meshTitle} to inject {workloads}{withMarker}, but its labels match the namespaceSelector of no {meshTitle} injection webhook (one selects it once it has {needs}), so {their} pods are not injected{choose}.',
  'namespace-not-member':
    'Namespace {namespace} asks {meshTitle} to inject {workloads}, but it is not a member of the mesh: the injection webhooks select only namespaces labelled {label}={plane}, which {setBy} sets on the namespaces it lists, and {namespace} has no such label, so {their} pods are not injected{choose}.',
});

type Found = FindingInput<Evidence, typeof MESSAGES>;

/** A label change: set key=value, or remove key (value undefined). */
interface Change {
  key: string;
  value?: string;
}

/** The label changes that make a selector match; undefined when no label change can. */
function selectorRepair(selector: unknown, labels: Record<string, string>): Change[] | undefined {
  const out: Change[] = [];
  // The selector's prepared terms (one Set per In/NotIn list): a repair costs one lookup per term.
  for (const t of selectorTerms(selector)) {
    if (termMatches(t, labels)) continue;
    if (t.operator === 'In') {
      if (t.first === undefined) return undefined;
      out.push({ key: t.key, value: t.first });
    } else if (t.operator === 'NotIn' || t.operator === 'DoesNotExist') out.push({ key: t.key });
    else return undefined; // Exists: no value to guess; unknown operators never match
  }
  // kubernetes.io/metadata.name is the namespace's own name: it cannot be changed.
  return out.some((c) => c.key === NAME_LABEL) ? undefined : out;
}

/** The labels with the changes made: a dict, so that a key such as `__proto__` is set like any other. */
function applyChanges(labels: Record<string, string>, changes: Change[]): Record<string, string> {
  const out = Object.assign(dict(), labels);
  for (const c of changes) {
    if (c.value === undefined) delete out[c.key];
    else out[c.key] = c.value;
  }
  return out;
}

/**
 * The smallest verified label change over all webhooks: fewest changes, then fewest new keys
 * (prefer correcting a label already there, e.g. istio.io/rev, to adding a competing one).
 */
function bestRepair(
  webhooks: MeshWebhook[],
  labels: Record<string, string>,
  candidate: (h: MeshWebhook) => Change[] | undefined,
  works: (h: MeshWebhook, fixed: Record<string, string>) => boolean,
): Change[] | undefined {
  let best: { changes: Change[]; score: number } | undefined;
  for (const h of webhooks) {
    const changes = candidate(h);
    if (!changes?.length || !works(h, applyChanges(labels, changes))) continue;
    const score =
      changes.length * 100 + changes.filter((c) => c.value !== undefined && !Object.hasOwn(labels, c.key)).length;
    if (!best || score < best.score) best = { changes, score };
  }
  return best?.changes;
}

const failedTerms = (calls: WebhookCall[], which: 'namespaceSelector' | 'objectSelector') =>
  calls.map((c) => ({
    name: c.webhook.name,
    configuration: c.webhook.configName,
    failedTerms: c[which].terms.filter((t) => !t.matched).map((t) => t.term),
  }));
/** A condition as evidence and in a message: its name and its expression (untrusted: bounded, printable). */
const conditionText = (c: WebhookCall, name: string) => {
  const e = matchConditionExpression(c.webhook, name);
  return e === undefined ? name : `${name} (${printable(e, 200)})`;
};

/**
 * The workload's pods are selected by a webhook of the mesh (rules, namespaceSelector,
 * objectSelector) but its CEL matchConditions keep the API server from calling it: one is false
 * (skipped), or one fails to evaluate under failurePolicy Fail (the pod is refused), as
 * src/k8s/cel.ts evaluates them over the pod's name, namespace, labels and annotations. Where a
 * condition could not be evaluated and the pods run without the proxy, says that it was not
 * (a warning): it may be what keeps them out, or not.
 */
function conditionFinding(w: Workload, mesh: MeshName, called: boolean, calls: WebhookCall[]): Found | undefined {
  const title = meshTitle(mesh);
  const id = `${w.kind} ${w.namespace}/${w.name}`;
  const common = { workload: id, meshTitle: title, choose: '' };
  const selected = calls.filter((c) => c.namespaceSelector.matched && c.objectSelector.matched);
  const excluding = called
    ? []
    : selected.filter((c) => c.matchConditions?.decision === 'skip' || c.matchConditions?.decision === 'reject');
  const evidence = (cs: WebhookCall[]) =>
    cs.map((c) => ({
      name: c.webhook.name,
      configuration: c.webhook.configName,
      failurePolicy: c.webhook.failurePolicy,
      outcome: c.matchConditions!.decision,
      conditions: c.matchConditions!.names.slice(0, 8).map((n) => conditionText(c, n)),
    }));
  const edit = comment`change the matchConditions of webhook ${excluding[0]?.webhook.name ?? selected[0]?.webhook.name ?? ''} in the values ${title} was installed with, then re-create the pods`;
  if (excluding.length && excluding.length === selected.length) {
    const c = excluding[0]!;
    const mc = c.matchConditions!;
    const names = mc.names.map((n) => conditionText(c, n)).join(', ');
    const matchConditions = mc.names.length === 1 ? 'matchCondition' : 'matchConditions';
    const said = { ...common, matchConditions, conditions: names, webhook: c.webhook.name };
    const fail = mc.names.length === 1 ? 'fails' : 'fail';
    return {
      mesh,
      ...(mc.decision === 'reject'
        ? say(MESSAGES, 'match-condition-refuses', { ...said, fail })
        : mc.erred
          ? say(MESSAGES, 'match-condition-error-skips', { ...said, fail })
          : say(MESSAGES, 'match-condition-false', said)),
      resource: w.ref,
      affectedPods: podStates(w).unmeshed.length,
      evidence: { webhooks: evidence(excluding), rule: MATCH_CONDITIONS_SOURCE },
      fix: [edit],
    };
  }
  const unknown = selected.filter((c) => c.called && c.matchConditions?.decision === 'unknown');
  if (!called || unknown.length === 0 || selected.some((c) => c.called && c.matchConditions?.decision !== 'unknown'))
    return undefined;
  if (podStates(w).unmeshed.length === 0) return undefined; // injected anyway: nothing to explain
  const c = unknown[0]!;
  return {
    mesh,
    severity: 'warning',
    ...say(MESSAGES, 'match-condition-not-evaluated', {
      ...common,
      podsRun: agree(podStates(w).unmeshed.length, 'its pod runs', 'its pods run'),
      webhook: c.webhook.name,
      conditions: c.matchConditions!.names.map((n) => conditionText(c, n)).join(', '),
    }),
    resource: w.ref,
    affectedPods: podStates(w).unmeshed.length,
    evidence: { webhooks: evidence(unknown), rule: MATCH_CONDITIONS_SOURCE },
    fix: [comment`check the matchConditions of webhook ${c.webhook.name} against these pods`],
  };
}

const MATCH_CONDITIONS_SOURCE =
  'kubernetes/kubernetes 008b3652 staging/src/k8s.io/api/admissionregistration/v1/types.go MatchConditions: any false skips the webhook, an error refuses the request under failurePolicy Fail';

const changeArg = (c: Change) => shq(c.value === undefined ? `${c.key}-` : `${c.key}=${c.value}`);

export default defineCheck({
  ...meta('webhook-excludes-namespace'),
  facts: [WORKLOAD_PROBLEMS],
  messages: MESSAGES,
  *run(m) {
    // Each mesh's findings first; then one mesh per namespace or workload (below).
    // plain: the single verified label change, for a mesh choice's block (where the revision choices would nest).
    const found: { f: Found; ns: string; ws: Workload[]; plain?: Step[] }[] = [];
    for (const { mesh, webhooks } of m.meshes) {
      const podHooks = webhooks.filter((h) => rulesMatchPodCreate(h.rules));
      if (podHooks.length === 0) continue; // no webhook for pod CREATE at all: webhook-missing reports it
      const servedRevisions = profileOf(mesh).revisions?.label
        ? { servedRevisions: [...new Set(podHooks.flatMap((h) => h.revisions))].sort() }
        : {};
      const byNamespace: { w: Workload; calls: WebhookCall[]; ignored?: string }[] = [];
      for (const w of m.appWorkloads) {
        const d = m.decision(w, mesh);
        if (!d?.intent) continue;
        if (podStates(w).hostNetwork) continue; // never injected anyway: host-network-pod reports it
        if (templateOptOut(m, mesh, w.template)) continue; // a deliberate opt-out: pod-opted-out reports it
        if (markerExplains(m, w, mesh)) continue; // injection-marker-invalid reports the cause
        const calls = d.calls.filter((c) => c.rules);
        const ignored = d.injector.find((s) => s.kind === 'system-namespace' && !s.ok)?.detail;
        // Its selectors take the pods, but the webhook's matchConditions leave them out (or were not evaluated).
        const byCondition = ignored ? undefined : conditionFinding(w, mesh, d.called, calls);
        if (byCondition) {
          found.push({ ns: w.namespace, ws: [w], f: byCondition });
          continue;
        }
        if (d.called && !ignored) continue;
        if (ignored || calls.every((c) => !c.namespaceSelector.matched)) {
          byNamespace.push({ w, calls, ...(ignored ? { ignored } : {}) });
          continue;
        }
        // Some webhook selects the namespace: the pod labels are what keeps it out.
        const nsLabels = namespaceLabels(m.namespace(w.namespace), w.namespace);
        const podLabels = newPodLabels(w); // the pod's labels: the template's and its controller's
        const repair = bestRepair(
          podHooks,
          podLabels,
          (h) =>
            evalWebhook(h, nsLabels, podLabels).namespaceSelector.matched
              ? selectorRepair(h.objectSelector, podLabels)
              : undefined,
          (h, fixed) => evalWebhook(h, nsLabels, fixed).called,
        );
        const profile = profileOf(mesh);
        const revLabel = profile.revisions?.label;
        const rev = revLabel ? podLabels[revLabel] : undefined;
        // A revision (or tag) nothing serves: every installed one is a choice, or installing it.
        const podRelabel = (v: string) => [
          ...setOnTemplate(w, 'labels', revLabel!, v),
          ...(judgedByPod(w) ? recreateCommands(w) : []),
        ];
        const choices =
          rev !== undefined && profile.revisions?.unserved && !podHooks.some((h) => h.revisions.includes(rev))
            ? profile.revisions.unserved(m, rev, podRelabel)
            : undefined;
        const said = { workload: `${w.kind} ${w.namespace}/${w.name}`, meshTitle: meshTitle(mesh), choose: '' };
        const f: Found = {
          mesh,
          ...(choices
            ? say(MESSAGES, 'pod-revision-unserved', {
                ...said,
                revision: String(rev),
                revisionLabel: String(revLabel),
              })
            : say(MESSAGES, 'object-selector', said)),
          resource: w.ref,
          affectedPods: podStates(w).unmeshed.length,
          evidence: {
            podLabels,
            webhooks: failedTerms(calls, 'objectSelector'),
            ...servedRevisions,
            ...(rev !== undefined ? { requestedRevision: rev } : {}),
            ...(choices?.evidence ?? {}),
            ...(repair && !choices ? { labelChange: repair.map(changeArg) } : {}),
          },
          fix: choices
            ? choices.fix
            : repair
              ? [
                  ...repair.flatMap((c) =>
                    c.value === undefined
                      ? removeFromTemplate(w, 'labels', c.key)
                      : setOnTemplate(w, 'labels', c.key, c.value),
                  ),
                  // Patching a template rolls the workload out; a bare pod must be re-created.
                  ...(judgedByPod(w) ? recreateCommands(w) : []),
                ]
              : [],
        };
        const plainFix = repair
          ? [
              ...repair.flatMap((c) =>
                c.value === undefined
                  ? removeFromTemplate(w, 'labels', c.key)
                  : setOnTemplate(w, 'labels', c.key, c.value),
              ),
              ...(judgedByPod(w) ? recreateCommands(w) : []),
            ]
          : [];
        found.push({ ns: w.namespace, ws: [w], f, ...(choices ? { plain: plainFix } : {}) });
      }

      for (const [ns, items] of groupBy(byNamespace, (i) => i.w.namespace)) {
        const nsObj = m.namespace(ns);
        const nsLabels = namespaceLabels(nsObj, ns);
        const ws = items.map((i) => i.w);
        const ignored = items[0]!.ignored;
        const profile = profileOf(mesh);
        const marker = namespaceMarker(m, mesh, nsObj);
        // Only pod templates ask, in a namespace that does not enable the mesh: the profile's label
        // that lets the webhook see those pods alone (never enabling the namespace for every pod).
        const optIn = profile.markers.podOptInNamespaceLabel;
        const podsOnly =
          !ignored && optIn && !marker.present && ws.every((w) => templateAsks(mesh, w.template))
            ? [{ key: optIn.key, value: optIn.value }].filter((c) =>
                podHooks.some((h) =>
                  ws.every((w) => evalWebhook(h, applyChanges(nsLabels, [c]), newPodLabels(w)).called),
                ),
              )
            : [];
        const repair = ignored
          ? undefined
          : podsOnly.length
            ? podsOnly
            : bestRepair(
                podHooks,
                nsLabels,
                (h) => selectorRepair(h.namespaceSelector, nsLabels),
                (h, fixed) => ws.every((w) => evalWebhook(h, fixed, newPodLabels(w)).called),
              );
        const revLabel = profile.revisions?.label;
        const rev = revLabel ? nsLabels[revLabel] : undefined;
        const unserved = rev !== undefined && !podHooks.some((h) => h.revisions.includes(rev));
        const recreate = recreateAll(ws.filter((w) => podStates(w).unmeshed.length > 0));
        // A revision (or tag) nothing serves: relabel to each installed one, or install it (the user chooses).
        const choices =
          !ignored && unserved && profile.revisions?.unserved
            ? profile.revisions.unserved(m, rev, (v) => [
                ...namespaceChange(m, ns, 'labels', [{ key: revLabel!, value: v }]),
                ...recreate,
              ])
            : undefined;
        const inNs = {
          namespace: ns,
          meshTitle: meshTitle(mesh),
          workloads: plural(ws.length, 'workload'),
          choose: '',
        };
        const their = agree(ws.length, 'its', 'their');
        // The label the repair sets names the control plane the namespace is a member of (OpenShift
        // Service Mesh's member-of): set by the mesh's controller from its member list, not by hand.
        const ms = profile.references?.membership;
        const memberChange =
          ms && nsLabels[ms.label] === undefined ? repair?.find((c) => c.key === ms.label) : undefined;
        const member =
          ms && memberChange?.value && ms.planes(m).includes(memberChange.value)
            ? {
                label: ms.label,
                plane: memberChange.value,
                setBy: ms.setBy,
                fix: ms.fix(ns, memberChange.value),
                source: ms.source,
              }
            : undefined;
        const said = ignored
          ? say(MESSAGES, 'namespace-never-injected', inNs)
          : choices || (unserved && repair)
            ? say(MESSAGES, 'revision-unserved', {
                ...inNs,
                revision: rev ? rev : '"" (an empty revision label)',
                their,
              })
            : !repair
              ? say(MESSAGES, 'no-webhook-can-select', inNs)
              : member
                ? say(MESSAGES, 'namespace-not-member', {
                    ...inNs,
                    their,
                    label: member.label,
                    plane: member.plane,
                    setBy: member.setBy,
                  })
                : say(MESSAGES, 'namespace-selector', {
                    ...inNs,
                    their,
                    // What the namespace carries and what a webhook selects: the two markers side by side
                    // (a revision-only install beside the default label, a custom selector).
                    withMarker: marker.present && marker.text ? ` with ${marker.text}` : '',
                    needs: repair
                      .map((c) => (c.value === undefined ? `${c.key} removed` : `${c.key}=${c.value}`))
                      .join(', '),
                  });
        // The namespace's owner opted out (e.g. Istio's istio-injection=disabled): no pod label
        // overrides that (templates/mutatingwebhook.yaml @86c9f01f: every webhook needs the label
        // absent or "enabled"), and relabelling the namespace would inject every other workload in
        // it. A warning about the workloads that ask, with the choices as comments.
        const markerKeys = namespaceMarkerKeys(mesh, nsObj).keys;
        if (
          !ignored &&
          !choices &&
          marker.present &&
          !marker.enabled &&
          repair?.some((c) => markerKeys.includes(c.key))
        ) {
          const asking = ws.map(
            (w) =>
              `${w.kind}/${w.name}${templateAsking(mesh, w.template) ? ` (${templateAsking(mesh, w.template)})` : ''}`,
          );
          const relabel = [...namespaceChange(m, ns, 'labels', repair), ...recreate];
          found.push({
            ns,
            ws,
            f: {
              mesh,
              severity: 'warning',
              ...say(MESSAGES, 'namespace-opts-out', {
                ...inNs,
                marker: marker.text ?? 'its marker',
                are: agree(ws.length, 'is', 'are'),
              }),
              resource: { kind: 'Namespace', name: ns },
              affectedPods: ws.reduce((n, w) => n + podStates(w).unmeshed.length, 0),
              evidence: {
                namespaceOptOut: marker.text,
                workloads: asking,
                namespaceLabels: nsLabels,
                webhooks: failedTerms(items[0]!.calls, 'namespaceSelector'),
                ...servedRevisions,
              },
              fix: [
                choice(
                  marker.text
                    ? text`namespace ${ns} opts out with ${marker.text}: choose one below. Pasted as it is, this block runs nothing`
                    : text`namespace ${ns} opts out with its marker: choose one below. Pasted as it is, this block runs nothing`,
                  [
                    {
                      label: text`to keep the opt-out`,
                      steps: [
                        noteStep(
                          ws.flatMap((w, i): Part[] => {
                            const by = templateAsking(mesh, w.template);
                            return [
                              i === 0 ? 'drop the injection request from ' : ', ',
                              { value: `${w.kind}/${w.name}` },
                              ...(by ? [' with ', { value: by }] : []),
                            ];
                          }),
                        ),
                      ],
                    },
                    {
                      label: text`to mesh every workload of ${ns}, not only these`,
                      steps: [
                        comment`ask first, as its owner disabled it, and the others are injected when next restarted`,
                        ...relabel,
                      ],
                    },
                  ],
                ),
              ],
            },
          });
          continue;
        }
        const f: Found = {
          mesh,
          ...said,
          resource: { kind: 'Namespace', name: ns },
          affectedPods: ws.reduce((n, w) => n + podStates(w).unmeshed.length, 0),
          evidence: {
            intent: marker.enabled ? marker.text : 'pod template',
            workloads: ws.map((w) => `${w.kind}/${w.name}`),
            namespaceLabels: nsLabels,
            // Istio's injector rejects an ignored namespace after a webhook was called: no selector failed.
            ...(ignored ? { injector: ignored } : { webhooks: failedTerms(items[0]!.calls, 'namespaceSelector') }),
            ...servedRevisions,
            ...(rev !== undefined ? { requestedRevision: rev } : {}),
            ...(choices?.evidence ?? {}),
            ...(repair && !choices ? { labelChange: repair.map(changeArg) } : {}),
          },
          // Only the workloads whose pods lack the proxy need new pods.
          fix: choices
            ? choices.fix
            : member
              ? [...member.fix, ...recreate]
              : repair
                ? [...namespaceChange(m, ns, 'labels', repair), ...recreate]
                : [],
        };
        if (member)
          f.evidence = {
            ...f.evidence,
            membership: { label: member.label, plane: member.plane, source: member.source },
          };
        found.push({
          ns,
          ws,
          f,
          ...(choices ? { plain: repair ? [...namespaceChange(m, ns, 'labels', repair), ...recreate] : [] } : {}),
        });
      }
    }
    // A namespace (or workload) that asks both meshes, each excluded: repairing both would give its
    // pods two proxies. The evidence chooses one mesh (the other finding is left out: its exclusion
    // keeps the pods to one proxy); undecided, both stay, their fixes as comments to choose from.
    for (const group of groupBy(
      found,
      (x) => `${x.f.resource.kind}/${x.f.resource.namespace ?? ''}/${x.f.resource.name}`,
    ).values()) {
      if (group.length === 1) {
        yield group[0]!.f;
        continue;
      }
      const choice = chooseMesh(
        m,
        group[0]!.ns,
        [...new Set(group.flatMap((x) => x.ws))],
        group.map((x) => x.f.mesh),
      );
      const what = group[0]!.f.resource;
      for (const { f, plain } of group) {
        if (choice.mesh && f.mesh !== choice.mesh) continue;
        yield {
          ...(choice.mesh ? f : withChoice(f, `; ${mustChoose(choice, 'it')}`)),
          evidence: { ...f.evidence, meshChoice: choiceEvidence(choice) },
          fix: choice.mesh ? f.fix : choiceFix(choice, [{ mesh: f.mesh, fix: plain ?? f.fix }], what),
        };
      }
    }
  },
});

/** A finding's message with the mesh to choose said at its end (every message has the slot). */
const withChoice = (f: Found, choose: string): Found => ({ ...f, params: { ...f.params, choose } }) as Found;
