/**
 * pod-opted-out — a workload whose pod template opts out of injection in a namespace that is
 * enabled for that mesh.
 *
 * Why: a copied manifest, a Helm default or a debugging session leaves `linkerd.io/inject:
 * disabled` (Linkerd) or `sidecar.istio.io/inject: "false"` (Istio; the label wins over the
 * annotation) on the pod template, and the workload silently stays out of the mesh.
 * Namespace-only permissions (the Namespace cannot be read): the namespace counts as enabled when
 * other app workloads in it were injected without their own pod template asking (mesh/siblings.ts),
 * and never in the meshes' own or Kubernetes' namespaces.
 * Known false positives: workloads opted out on purpose (Jobs without native sidecars, host
 * agents); suppress them or leave the warning as the record of that choice.
 * Silent where another mesh injects the workload: the opt-out is what keeps its pods to one proxy;
 * and where a sidecar-less data plane (Istio's ambient mode) enrols it: it is meshed without a sidecar.
 * Fix: remove the opt-out from the pod template (not the running pod: injection happens only at
 * pod creation); patching the template rolls the workload out. A template that opts out of both
 * meshes in a namespace that enables both: one mesh only (src/facts/choice.ts), else the choice.
 */
import { workloadProblems, WORKLOAD_PROBLEMS } from '../facts/marker-problems.js';
import { namespaceMarker, templateOptOut } from '../facts/markers.js';
import { podStates } from '../facts/model.js';
import { meshOwnNamespace, meshedByNamespace, notExamined } from '../facts/siblings.js';
import { sidecarlessOf } from '../facts/sidecarless.js';
import { defineCheck, messages, meta, say } from './define.js';
import { removeFromTemplate, recreateCommands } from '../fix/commands.js';
import {
  choiceEvidence,
  choiceFix,
  chooseMesh,
  installedMeshes,
  meshWouldInject,
  mustChoose,
} from '../facts/choice.js';
import type { FindingInput } from './define.js';
import type { Evidence } from './types.js';
import { agree, plural } from '../util/objects.js';
import { judgedByPod } from '../k8s/workloads.js';

const MESSAGES = messages({
  'namespace-marker':
    '{workload} opts out of injection with pod template {from} {key}={value}, although namespace {namespace} has {marker}{choose}.',
  'meshed-siblings':
    '{workload} opts out of injection with pod template {from} {key}={value}, although {siblings} in namespace {namespace} {wereInjected} pod template asking, so the namespace asks for injection (Namespace {namespace} could not be read){choose}.',
});

export default defineCheck({
  ...meta('pod-opted-out'),
  facts: [WORKLOAD_PROBLEMS],
  messages: MESSAGES,
  *run(m) {
    const markerRead = m.has('namespaces');
    for (const w of m.appWorkloads) {
      // Opted out of the sidecar, enrolled in a sidecar-less data plane (ambient mode): meshed, not out.
      if (sidecarlessOf(m, w)) continue;
      const found: FindingInput<Evidence, typeof MESSAGES>[] = [];
      for (const { mesh } of m.meshes) {
        const out = templateOptOut(m, mesh, w.template);
        if (!out) continue;
        // A value the mesh does not read as an opt-out (Istio 1.27+: "no", "off", ...): injection-marker-invalid reports it.
        if (workloadProblems(m, w).some((p) => p.mesh === mesh)) continue;
        if (installedMeshes(m).some((x) => x !== mesh && meshWouldInject(m, w, x))) continue; // the other mesh injects it: the opt-out keeps it to one proxy
        const marker = markerRead ? namespaceMarker(m, mesh, m.namespace(w.namespace)) : undefined;
        if (marker && !marker.enabled) continue; // opting out of a mesh the namespace does not enable is a no-op
        const siblings = marker
          ? []
          : meshOwnNamespace(m, w.namespace, mesh)
            ? []
            : meshedByNamespace(m, w.namespace, mesh).filter((x) => x !== w);
        if (!marker && siblings.length === 0) continue; // nothing shows the namespace enabled
        const unmeshed = podStates(w).unmeshed;
        const fix = removeFromTemplate(w, out.from === 'label' ? 'labels' : 'annotations', out.key);
        // Patching a template rolls a Deployment/StatefulSet/DaemonSet; bare pods need re-creating.
        if (judgedByPod(w)) fix.push(...recreateCommands(w));
        const opts = {
          workload: `${w.kind} ${w.namespace}/${w.name}`,
          from: out.from,
          key: out.key,
          value: out.value,
          namespace: w.namespace,
          choose: '',
        };
        found.push({
          mesh,
          ...(marker
            ? say(MESSAGES, 'namespace-marker', { ...opts, marker: String(marker.text) })
            : say(MESSAGES, 'meshed-siblings', {
                ...opts,
                siblings: plural(siblings.length, 'other workload'),
                wereInjected: agree(siblings.length, 'was injected without its', 'were injected without their'),
              })),
          resource: w.ref,
          affectedPods: unmeshed.length,
          evidence: {
            optOut: { from: out.from, key: out.key, value: out.value },
            ...(marker
              ? { namespaceMarker: marker.text }
              : {
                  namespaceMarker: null,
                  meshedSiblings: siblings.map((x) => `${x.kind}/${x.name}`),
                  notExamined: notExamined(m),
                }),
            pods: unmeshed.map((p) => p.metadata?.name ?? ''),
          },
          fix,
        });
      }
      if (found.length < 2) {
        yield* found;
        continue;
      }
      // Opted out of both meshes, both asked: removing both opt-outs would give its pods two proxies.
      const choice = chooseMesh(
        m,
        w.namespace,
        [w],
        found.map((f) => f.mesh),
      );
      for (const f of found) {
        if (choice.mesh && f.mesh !== choice.mesh) continue; // this opt-out keeps the pods to the chosen mesh
        yield {
          ...f,
          ...(choice.mesh ? {} : withChoice(f, `; ${mustChoose(choice, 'it')}`)),
          evidence: { ...f.evidence, meshChoice: choiceEvidence(choice) },
          fix: choiceFix(choice, [{ mesh: f.mesh, fix: f.fix }], w.ref),
        };
      }
    }
  },
});

/** A finding's message with the mesh to choose said at its end. */
const withChoice = (f: FindingInput<Evidence, typeof MESSAGES>, choose: string) =>
  f.messageId === 'namespace-marker'
    ? say(MESSAGES, 'namespace-marker', { ...f.params, choose })
    : say(MESSAGES, 'meshed-siblings', { ...f.params, choose });
