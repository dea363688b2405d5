/**
 * pod-predates-enablement — a workload's pods run without a proxy because they were created
 * before the namespace (or pod template) asked for injection.
 *
 * Why: injection happens only when a pod is created (docs/meshes/linkerd.md, first row; the same for every mesh). Annotating or labelling
 * a namespace, or a running pod, changes nothing for the pods already there; the most common
 * "I enabled it and nothing happened".
 * When: the model says a pod created now would be injected, and active pods without a proxy were
 * created before the marker was set. The marker's time comes from metadata.managedFields (see
 * src/mesh/managed-fields.ts); without it (kubectl dumps without --show-managed-fields) the check
 * cannot tell and sidecar-missing reports the pods instead. Silent where injection-marker-invalid
 * or webhook-excludes-namespace explains the missing proxy.
 * Known false positives: a managedFields time is the last time its manager changed any field it
 * owns, so a later unrelated change by the same manager (say another `kubectl label`) makes the
 * marker look newer than it is; a Deployment mid-rollout after its template got the marker.
 * Fix: re-create the pods (rollout restart; a Job or bare pod is replaced).
 */
import { recreateCommands } from '../fix/commands.js';
import { missingProxy, podEvidence, MISSING_PROXY } from '../facts/missing-proxy.js';
import { defineCheck, messages, meta, say } from './define.js';
import { agree, plural } from '../util/objects.js';

const MESSAGES = messages({
  predates:
    '{pods} of {workload} {wereCreated} before {markerOn} got {marker} ({markerSetAt}), so {theyRun} without a proxy until re-created.',
});

export default defineCheck({
  ...meta('pod-predates-enablement'),
  facts: [MISSING_PROXY],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      for (const { mesh } of m.meshes) {
        const missing = missingProxy(m, w, mesh);
        if (!missing?.since || missing.predating.length === 0) continue;
        const n = missing.predating.length;
        // The marker that enabled injection first is the one the pods predate.
        const first = missing.markers.find((mk) => mk.setAt!.getTime() === missing.since!.getTime())!;
        yield {
          mesh,
          ...say(MESSAGES, 'predates', {
            pods: plural(n, 'pod'),
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            wereCreated: `${agree(n, 'was', 'were')} created`,
            markerOn: first.on,
            marker: first.text,
            markerSetAt: missing.since.toISOString(),
            theyRun: agree(n, 'it runs', 'they run'),
          }),
          resource: w.ref,
          affectedPods: missing.predating.length,
          evidence: {
            marker: first.text,
            markerOn: first.on,
            markerSetAt: missing.since.toISOString(),
            pods: podEvidence(missing.predating),
          },
          fix: recreateCommands(w),
        };
      }
    }
  },
});
