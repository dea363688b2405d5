/**
 * host-network-pod — a workload with `hostNetwork: true` in a namespace enabled for a mesh: it is
 * never injected, by design.
 *
 * Why: Linkerd's and Istio's injectors refuse hostNetwork pods (Linkerd pkg/inject/report.go
 * hostNetworkEnabled; Istio injectRequired), because the proxy's traffic redirection would capture
 * the node's own traffic. Asked "why has this pod no sidecar?", the answer is this, and nothing is
 * broken. Only for a mesh whose injector has that rule (its `hostNetwork` step): Kuma and Consul
 * inject hostNetwork pods like any other.
 * When: only with `-n` on the namespace itself, and only when that namespace is enabled for an
 * installed mesh (otherwise nobody expects injection); silent with `-A`, where node agents would
 * only add noise, and for workloads that opt out explicitly.
 * Known false positives: none; it is informational.
 * Fix: none. A workload that must be meshed has to drop hostNetwork.
 */
import { namespaceMarker, templateOptOut } from '../facts/markers.js';
import { podStates } from '../facts/model.js';
import { nameOf } from '../util/objects.js';
import { meshTitle } from '../mesh/registry.js';
import { defineCheck, meta } from './define.js';

export default defineCheck({
  ...meta('host-network-pod'),
  *run(m) {
    const { allNamespaces, namespace } = m.snapshot.scope;
    if (allNamespaces || !namespace) return; // only asked about one namespace does this explain anything
    for (const w of m.appWorkloads) {
      const states = podStates(w);
      if (w.namespace !== namespace || !states.hostNetwork) continue;
      for (const { mesh } of m.meshes) {
        const marker = namespaceMarker(m, mesh, m.namespace(w.namespace));
        if (!marker.enabled || templateOptOut(mesh, w.template)) continue; // nobody expects this mesh here
        // A mesh whose injector has no hostNetwork rule injects these pods like any other.
        if (!m.decision(w, mesh)?.injector.some((s) => s.kind === 'host-network' && !s.ok)) continue;
        yield {
          mesh,
          message: `${w.kind} ${w.namespace}/${w.name} uses hostNetwork, so ${meshTitle(mesh)} never injects it (by design), although namespace ${w.namespace} has ${marker.text}.`,
          resource: w.ref,
          affectedPods: states.active.length,
          evidence: { hostNetwork: true, namespaceMarker: marker.text, pods: states.active.map(nameOf) },
          fix: [],
        };
      }
    }
  },
});
