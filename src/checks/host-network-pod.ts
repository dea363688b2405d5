/**
 * host-network-pod — a workload with `hostNetwork: true` in a namespace enabled for a mesh: it is
 * never injected, by design.
 *
 * Why: Linkerd's and Istio's injectors refuse hostNetwork pods (linkerd/linkerd2@b24cd405
 * pkg/inject/report.go hostNetworkEnabled, checked before any annotation; istio/istio@86c9f01f
 * pkg/kube/inject/inject.go#L209 injectRequired, before the namespace and pod markers), because the proxy's traffic redirection would capture
 * the node's own traffic. Asked "why has this pod no sidecar?", the answer is this, and nothing is
 * broken. Only for a mesh whose injector has that rule (its `hostNetwork` step): Kuma and Consul
 * inject hostNetwork pods like any other.
 * When: a workload that asks an installed mesh for injection (its namespace's marker or its own
 * pod template's), in every scope alike: `check -n NS` reports exactly what `check -A` reports for
 * NS (issue 24). Node agents of unmarked namespaces (kube-system's kube-proxy) ask nothing and stay
 * silent, as do workloads that opt out explicitly.
 * Known false positives: none; it is informational.
 * Fix: none. A workload that must be meshed has to drop hostNetwork.
 */
import { namespaceMarker, templateOptOut } from '../facts/markers.js';
import { podStates, APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import { nameOf } from '../util/objects.js';
import { meshTitle } from '../mesh/registry.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'host-network': '{workload} uses hostNetwork, so {meshTitle} never injects it (by design), although {asks}.',
});

export default defineCheck({
  ...meta('host-network-pod'),
  facts: [APP_WORKLOADS, DECISIONS],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      // The same rule in every scope: -n NS reports what -A reports for NS (the control-plane
      // namespaces a -n run also reads are not in its scope).
      if (!m.inScope(w.namespace)) continue;
      const states = podStates(w);
      if (!states.hostNetwork) continue;
      for (const { mesh } of m.meshes) {
        const decision = m.decision(w, mesh);
        if (!decision?.intent || templateOptOut(m, mesh, w.template)) continue; // nobody asks this mesh here
        // A mesh whose injector has no hostNetwork rule injects these pods like any other.
        if (!decision.injector.some((s) => s.kind === 'host-network' && !s.ok)) continue;
        const marker = namespaceMarker(m, mesh, m.namespace(w.namespace));
        const asks = marker.enabled
          ? `namespace ${w.namespace} has ${marker.text}`
          : 'its pod template asks for injection';
        yield {
          mesh,
          ...say(MESSAGES, 'host-network', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            meshTitle: meshTitle(mesh),
            asks,
          }),
          resource: w.ref,
          affectedPods: states.active.length,
          evidence: {
            hostNetwork: true,
            namespaceMarker: marker.enabled ? marker.text : undefined,
            templateAsks: !marker.enabled,
            pods: states.active.map(nameOf),
          },
          fix: [],
        };
      }
    }
  },
});
