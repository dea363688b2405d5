/**
 * known-release-bug — the installed release of a mesh has a known injector or proxy bug, fixed in
 * a later patch release, and the cluster shows its symptom (issue 31.9): the injector crash-loops
 * (Istio 1.5.0 and 1.5.1 with an inject selector set, istio/istio#23027), an injected container
 * is refused by the kubelet (Linkerd stable-2.12.2's `noop` under runAsNonRoot, linkerd/linkerd2#9671),
 * or a namespace's ResourceQuota refuses the injected pods while the workload's own containers set
 * what it asks (Linkerd stable-2.12.2 and 2.12.3's `noop` without resources, linkerd/linkerd2#10162).
 *
 * Why: the cause is not the cluster's configuration but the release: no setting of the workload
 * fixes it for good, the release that fixes the bug does. The bugs are data: each mesh's release
 * table (src/mesh/<mesh>/releases.ts `bugs`) gives the issue, the patch versions it affects, the
 * release that fixes it, its symptom and the fix commit; src/facts/known-bugs.ts finds the symptom.
 * When: the version read (the injector's for its own crash and for refused pods, the pod's proxy
 * for a pod's container) is in the affected range, as the mesh orders its versions, and the
 * symptom shows. A version the tables cannot place or order (another channel, a distribution's
 * numbers, a custom tag) names no bug; a fixed release with the same symptom names none either.
 * Known false positives: the same symptom from another cause on an affected release (the
 * evidence quotes what was seen, and the other checks say what they find).
 * Fix: upgrade the control plane to the release that fixes the bug, then recreate the pods.
 */
import { recreateCommands } from '../fix/commands.js';
import { cmd, comment } from '../fix/steps.js';
import { bugsShown, BUGS_SHOWN } from '../facts/known-bugs.js';
import { profileOf } from '../mesh/registry.js';
import { plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  shown:
    '{where} shows a known bug of {meshTitle} {version}, {bug} ({shows}: {seen}): {text}. Fixed in {meshTitle} {fixedIn}: upgrade to it or later.',
  agent:
    '{where} shows a known bug of the {meshTitle} {agent} {version} on its node, {bug} ({shows}: {seen}): {text}. Fixed in {agent} {fixedIn}: upgrade it to that release or later.',
});

export default defineCheck({
  ...meta('known-release-bug'),
  facts: [BUGS_SHOWN],
  messages: MESSAGES,
  *run(m) {
    for (const b of bugsShown(m)) {
      const p = profileOf(b.mesh);
      const where = b.workload
        ? `${b.workload.kind} ${b.workload.namespace}/${b.workload.name}`
        : `injector Deployment ${b.injector!.namespace}/${b.injector!.name}`;
      const shows =
        b.bug.symptom.on === 'workload' ? 'its pods are refused' : `${plural(b.pods.length, 'pod')} show it`;
      // A node agent's bug (componentFrom): its own release, named with the component.
      const agentId = b.bug.symptom.on === 'pod' ? b.bug.symptom.componentFrom : undefined;
      const agent = agentId ? (p.components ?? []).find((c) => c.id === agentId) : undefined;
      const resource = b.workload?.ref ?? {
        kind: 'Deployment',
        namespace: b.injector!.namespace,
        name: b.injector!.name,
      };
      const params = {
        where,
        meshTitle: p.title,
        version: b.version.version,
        bug: b.bug.id,
        shows,
        seen: b.seen,
        text: b.bug.text,
        fixedIn: b.bug.fixedIn,
      };
      yield {
        mesh: b.mesh,
        ...(agent ? say(MESSAGES, 'agent', { ...params, agent: agent.title }) : say(MESSAGES, 'shown', params)),
        resource,
        affectedPods: b.bug.symptom.on === 'injector' ? 0 : b.pods.length,
        evidence: {
          bug: b.bug.id,
          affected: b.bug.affected,
          fixedIn: b.bug.fixedIn,
          version: b.version,
          seen: b.seen,
          pods: b.pods,
          source: b.bug.source,
        },
        fix: [
          agent
            ? comment`upgrade the ${agent.title} to ${b.bug.fixedIn} or later, which fixes ${b.bug.id}`
            : comment`upgrade the ${p.title} control plane to ${b.bug.fixedIn} or later, which fixes ${b.bug.id}`,
          ...(b.workload
            ? recreateCommands(b.workload)
            : [cmd`kubectl -n ${b.injector!.namespace} rollout status ${`deploy/${b.injector!.name}`}`]),
        ],
      };
    }
  },
});
