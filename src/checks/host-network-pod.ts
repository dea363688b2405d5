/**
 * host-network-pod — a workload with `hostNetwork: true` in a namespace enabled for a mesh: it is
 * never injected, by design.
 *
 * Why: both injectors refuse hostNetwork pods (Linkerd pkg/inject/report.go hostNetworkEnabled;
 * Istio injectRequired), because the proxy's traffic redirection would capture the node's own
 * traffic. Asked "why has this pod no sidecar?", the answer is this, and nothing is broken.
 * When: only with `-n` on the namespace itself, and only when that namespace is enabled for an
 * installed mesh (otherwise nobody expects injection); silent with `-A`, where node agents would
 * only add noise, and for workloads that opt out explicitly.
 * Known false positives: none; it is informational.
 * Fix: none. A workload that must be meshed has to drop hostNetwork.
 */
import { namespaceMarker, templateOptOut } from '../mesh/markers.js';
import { podStates } from '../model.js';
import { nameOf } from '../util.js';
import { meshTitle } from '../mesh/registry.js';
import { WORKLOAD_KINDS, defineCheck } from './define.js';

export default defineCheck({
  id: 'host-network-pod',
  code: 'MD1010',
  title: 'hostNetwork pods are never injected',
  description: 'A workload with hostNetwork: true in a namespace enabled for injection runs without a proxy by design: neither mesh injects hostNetwork pods.',
  severity: 'info',
  inputs: ['namespaces', 'mutatingwebhookconfigurations'],
  optionalInputs: [...WORKLOAD_KINDS, 'pods'],
  *run(m) {
    const { allNamespaces, namespace } = m.snapshot.scope;
    if (allNamespaces || !namespace) return; // only asked about one namespace does this explain anything
    for (const w of m.appWorkloads) {
      const states = podStates(w);
      if (w.namespace !== namespace || !states.hostNetwork) continue;
      for (const { mesh } of m.meshes) {
        const marker = namespaceMarker(m, mesh, m.namespace(w.namespace));
        if (!marker.enabled || templateOptOut(mesh, w.template)) continue; // nobody expects this mesh here
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
