/**
 * namespace-not-enabled — a namespace with workloads but no injection marker for an installed
 * mesh, so none of its pods get a proxy.
 *
 * Why: the most common reason for 1/1 pods. The marker is Linkerd's namespace annotation
 * `linkerd.io/inject: enabled|ingress`, or Istio's namespace label `istio-injection=enabled` /
 * `istio.io/rev=<rev>`.
 * When: with `-n NS`, for the namespace asked about; with `-A`, only for namespaces that already
 * mix meshed and unmeshed workloads (intent shown). Plain unmeshed apps, kube-system and the
 * meshes' own namespaces stay silent. A namespace carrying a marker that is wrong or disabled is
 * left to injection-marker-invalid (one cause, one finding).
 * Known false positives: a namespace meant to stay partly unmeshed on purpose (use -A, or opt
 * the unmeshed workloads out explicitly).
 * Fix: mark the namespace, then restart its workloads (new pods only are injected).
 */
import { KUBE_SYSTEM_NAMESPACES } from '../mesh/constants.js';
import { enableMarker, namespaceMarker, templateOptOut } from '../mesh/markers.js';
import { podStates } from '../model.js';
import type { MeshName } from '../types.js';
import { annotationsOf, groupBy, shq } from '../util.js';
import { decide } from '../mesh/decision.js';
import { namespaceLabels } from '../mesh/webhooks.js';
import { WORKLOAD_KINDS, defineCheck } from './define.js';

export default defineCheck({
  id: 'namespace-not-enabled',
  code: 'MD1001',
  title: 'Namespace not enabled for injection',
  description: 'A namespace with workloads has no injection marker for an installed mesh, so its pods are created without a proxy.',
  severity: 'warning',
  inputs: ['namespaces', 'mutatingwebhookconfigurations', 'pods'],
  optionalInputs: [...WORKLOAD_KINDS, 'configmaps'],
  *run(m) {
    const asked = m.snapshot.scope.allNamespaces ? undefined : m.snapshot.scope.namespace;
    const byNs = groupBy(m.appWorkloads, (w) => w.namespace);
    for (const [ns, workloads] of byNs) {
      if (KUBE_SYSTEM_NAMESPACES.includes(ns)) continue; // system namespaces are never meshed
      const nsObj = m.namespace(ns);
      const markers = new Map(m.meshes.map((i) => [i.mesh, namespaceMarker(i.mesh, nsObj)]));
      // Any marker of any mesh (valid, disabled or misplaced) is a choice made: not "no marker".
      if ([...markers.values()].some((mk) => mk.present)) continue;
      const states = workloads.map((w) => ({ w, s: podStates(w) }));
      const unmeshed = states.filter(({ w, s }) => s.unmeshed.length > 0 && !s.hostNetwork && !m.meshes.some((i) => templateOptOut(i.mesh, w.template)));
      if (unmeshed.length === 0) continue;
      const meshedBy = new Set<MeshName>(states.flatMap(({ s }) => [...s.meshed.keys()]));
      for (const install of m.meshes) {
        const mesh = install.mesh;
        const mixed = meshedBy.has(mesh);
        // With two meshes, a namespace meshed by the other one is not this mesh's business.
        if (!mixed && (meshedBy.size > 0 || (asked !== ns))) continue;
        const marker = enableMarker(mesh, ns, install.webhooks);
        // Would the marker work? Not where the mesh never injects (Linkerd: cert-manager, a
        // webhook-excluded namespace; Istio: its ignored namespaces): suggesting it would mislead.
        const labels = namespaceLabels(nsObj, ns);
        const annotations = annotationsOf(nsObj);
        (marker.field === 'labels' ? labels : annotations)[marker.key] = marker.value;
        const probe = decide(mesh, install.webhooks, { namespace: ns, nsLabels: labels, nsAnnotations: annotations, template: {} }, m.linkerdSettings());
        if (!probe.inject) continue;
        const pods = unmeshed.flatMap(({ s }) => s.unmeshed);
        const kinds = [...new Set(unmeshed.map(({ w }) => w.kind))].filter((k) => ['Deployment', 'StatefulSet', 'DaemonSet'].includes(k)).sort();
        yield {
          mesh,
          message: `Namespace ${ns} has no ${mesh === 'linkerd' ? 'Linkerd' : 'Istio'} injection marker, so ${unmeshed.length} workload(s) run without a proxy${mixed ? ' while others in it are meshed' : ''}.`,
          resource: { kind: 'Namespace', name: ns },
          affectedPods: pods.length,
          evidence: {
            namespace: ns,
            expectedMarker: marker.text,
            meshedWorkloads: states.filter(({ s }) => s.meshed.has(mesh)).map(({ w }) => `${w.kind}/${w.name}`),
            unmeshedWorkloads: unmeshed.map(({ w }) => `${w.kind}/${w.name}`),
            unmeshedPods: pods.map((p) => p.metadata?.name ?? ''),
          },
          fix: [marker.command, ...kinds.map((k) => `kubectl rollout restart ${k.toLowerCase()} -n ${shq(ns)}`)],
        };
      }
    }
  },
});

