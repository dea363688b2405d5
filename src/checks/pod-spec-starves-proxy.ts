/**
 * pod-spec-starves-proxy — a pod template the mesh will inject whose own spec takes away what the injected containers
 * need: a resolver that cannot find the control plane (dnsPolicy Default, None without the cluster DNS, ClusterFirst
 * with hostNetwork), the ServiceAccount token a container reads (automountServiceAccountToken false on the pod or its
 * ServiceAccount, where the mesh gives it no token of its own), or a node of another OS than Linux for Linux-only
 * images. Warned before it happens: the pods are not injected yet (created before the namespace was enabled, or none
 * yet), and the next ones will not run their proxy.
 *
 * Why: issue 31 (gen10spec). The table of what each mesh's containers need from the pod, per release, is the
 * profile's `network.podSpec` (src/mesh/<mesh>/pod-needs.ts, from the meshes' source); one mesh-agnostic reading of
 * the template and its ServiceAccount against it is src/facts/pod-needs.ts, which proxy-cannot-start also reads for
 * pods already injected whose container fails (the field named as the cause). Real reports:
 * hetznercloud/hcloud-cloud-controller-manager#559 (dnsPolicy Default, Istio), linkerd/linkerd2#7179 (dnsPolicy None),
 * istio/istio#22193 and #25138 (token off, first-party-jwt), kumahq/kuma#4029 (token off), linkerd/linkerd2#2882 and
 * istio/istio#39788 (Windows nodes).
 * When: app workloads with a pod template in scope that the mesh's injector will inject (the model's decision), none
 * of whose active pods carries the mesh's containers yet, and whose template shows such a field. A token row whose
 * container may get a projected token of its own (Istio third-party-jwt, Linkerd 2.12 projection) is judged only
 * on an injected pod: the injector's setting decides. The injector's own refusal of a pod without a token (Linkerd
 * before 2.12, Consul with ACLs) is serviceaccount-missing's.
 * Known false positives: a node resolver that forwards the cluster's domain to the cluster DNS (dnsPolicy Default
 * then works); a dnsPolicy None nameserver that forwards to it, where the cluster DNS Service was not read.
 * Fix: the field's value the proxy needs (dnsPolicy ClusterFirst or ClusterFirstWithHostNet, the token mounted), or
 * the workload kept out of the mesh.
 */
import { APP_WORKLOADS, DECISIONS, jobFinished, podStates } from '../facts/model.js';
import { podsCarrying } from '../facts/pods.js';
import { CLUSTER_DNS_ADDRESSES, INJECTS_NEXT, specGaps } from '../facts/pod-needs.js';
import { podSpec } from '../k8s/pods.js';
import { meshTitle } from '../mesh/registry.js';
import { nameOf } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'spec-gap':
    '{workload} will be injected by {mesh}, but its pod template takes away what {container} needs: {cause}. Its next pods will not run their proxy.',
});

export default defineCheck({
  ...meta('pod-spec-starves-proxy'),
  facts: [APP_WORKLOADS, DECISIONS, CLUSTER_DNS_ADDRESSES, INJECTS_NEXT],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      if (!m.inScope(w.namespace) || w.kind === 'Pod' || !w.templatePath) continue; // a bare pod is injected or not
      if (w.kind === 'Job' && jobFinished(w.obj)) continue; // a finished Job creates no more pods
      const spec = podSpec(w.template);
      for (const { mesh } of m.meshes) {
        if (!m.decision(w, mesh)?.inject) continue;
        // Pods already injected are proxy-cannot-start's, which names the field where their container fails.
        if (podsCarrying(w, mesh).length) continue;
        const gaps = specGaps(m, mesh, w, spec);
        const gap = gaps[0];
        if (!gap) continue;
        const pods = podStates(w).active.map(nameOf);
        yield {
          mesh,
          ...say(MESSAGES, 'spec-gap', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            mesh: meshTitle(mesh),
            container: gap.container,
            cause: gap.cause,
          }),
          resource: w.ref,
          affectedPods: Math.max(pods.length, 1),
          evidence: {
            podSpecField: gap.field,
            need: gap.kind,
            container: gap.container,
            ...gap.evidence,
            ...(gaps.length > 1 ? { alsoTakenAway: gaps.slice(1).map((g) => g.field) } : {}),
            pods: pods.slice(0, 20),
          },
          fix: gaps.flatMap((g) => g.fix),
        };
      }
    }
  },
});
