/**
 * Kuma's markers that name an object that must exist (issue 31, gen9refs; src/mesh/references.ts).
 * Sources, kumahq/kuma:
 * - `kuma.io/mesh` names the Mesh the pods join (cluster-scoped). 0.5.0 and 1.8.0
 *   pkg/plugins/runtime/k8s/webhooks/injector/injector.go: `k8s_util.MeshOf(pod, ns)`, then
 *   "Check mesh exists": `i.client.Get(ctx, {Name: meshName}, &mesh_k8s.Mesh{})` returns the error,
 *   so the webhook fails on the pod: with the injector's failurePolicy Fail the API server refuses
 *   the pod, with Ignore (the chart's controlPlane.injectorFailurePolicy, cp-webhooks-and-secrets.yaml
 *   at 1.8.0) it admits it without kuma-sidecar. User report: kumahq/kuma#789 (no pod created).
 * - `kuma.io/container-patches` (from 1.7.0) names ContainerPatches in the control plane's namespace:
 *   1.8.0 injector.go loadContainerPatches collects the missing ones and fails the injection
 *   (kumahq/kuma#4362, #4369 "pod annotated by missing patches should fail"); 1.7.0 dropped the
 *   annotation and injected without the patch (kumahq/kuma#4356).
 * Meshdoctor reads neither Meshes nor ContainerPatches: these references are never found missing,
 * only named, with what they do, where a workload shows the symptom.
 */
import { cmd, comment } from '../../fix/steps.js';
import type { References } from '../references.js';

export const KUMA_REFERENCES: References = {
  rows: [
    {
      key: 'kuma.io/mesh',
      on: ['template label', 'template annotation', 'namespace label', 'namespace annotation'],
      target: { title: 'Mesh', scope: 'cluster' },
      missing:
        "Kuma's injector fails on a pod whose Mesh does not exist, so the API server refuses the pod where the injector's failurePolicy is Fail and admits it without kuma-sidecar where it is Ignore",
      source:
        'kumahq/kuma 1.8.0 pkg/plugins/runtime/k8s/webhooks/injector/injector.go (Check mesh exists); kumahq/kuma#789',
      resource: 'meshes',
      // The control plane creates Mesh default when it starts, unless KUMA_DEFAULTS_SKIP_MESH_CREATION (kumahq/kuma
      // 1.8.0 pkg/defaults/mesh.go createMeshIfNotExist, pkg/config/app/kuma-cp/config.go SkipMeshCreation false).
      created: ['default'],
    },
    {
      key: 'kuma.io/container-patches',
      on: ['template annotation'],
      list: true,
      target: { title: 'ContainerPatch', scope: 'control plane namespace' },
      from: '1.7',
      missing:
        "Kuma's injector fails on a pod naming a ContainerPatch that does not exist in the control plane's namespace (1.7.0 dropped the annotation and injected the pod without the patch), so the API server refuses the pod where the injector's failurePolicy is Fail and admits it without kuma-sidecar where it is Ignore",
      source:
        'kumahq/kuma 1.8.0 pkg/plugins/runtime/k8s/webhooks/injector/injector.go loadContainerPatches; kumahq/kuma#4356, #4369',
      resource: 'containerpatches',
    },
  ],
  fix: (_m, _w, r, row) => [
    comment`list the objects the marker may name, then create the missing one or correct the marker to name one that exists`,
    r.target.namespace ? cmd`kubectl get ${row.resource} -n ${r.target.namespace}` : cmd`kubectl get ${row.resource}`,
  ],
};
