/**
 * Namespace-only evidence. With a namespaced Role (deploy/rbac.yaml, meshdoctor-namespace-reader)
 * neither the Namespace (its injection marker) nor the MutatingWebhookConfigurations can be read;
 * what is left is what the namespace's own workloads show. Shared by proxy-missing-beside-meshed
 * and pod-opted-out, so that they agree on when a namespace counts as meshed.
 *
 * The inference: a workload whose pods run a mesh's proxy although its own pod template neither
 * asks for injection nor carries the proxy itself was injected because its namespace asks.
 */
import { WORKLOAD_INPUTS } from '../k8s/workloads.js';
import { defineFact, defineFactFamily } from '../k8s/fact.js';
import type { KindKey } from '../k8s/kinds.js';
import { podSpec } from '../k8s/pods.js';
import { isControlPlaneWorkload, podStates, type Model, type Workload } from './model.js';
import type { K8sObject } from '../util/types.js';
import { labelsOf } from '../util/objects.js';
import { KUBE_SYSTEM_NAMESPACES } from '../mesh/constants.js';
import { namespaceMarker, templateAsks } from './markers.js';
import { MESH_NAMES, type MeshName } from '../mesh/names.js';
import { PROFILE_LIST, profileOf } from '../mesh/registry.js';
import { proxyAlreadyPresent } from '../mesh/proxy.js';

/** The meshes a run may report on (--mesh leaves the others out). */
export const meshesAllowed = (m: Model): MeshName[] =>
  MESH_NAMES.filter((x) => m.options.mesh === 'auto' || m.options.mesh === x);

/** The pod template (or pod) asks this mesh for injection itself, whatever its namespace says. */

/** A pod meshed with no proxy container by design (a sidecar-less data plane); `ns`: its Namespace, when read. */
export const meshedWithoutProxy = (pod: K8sObject, ns?: K8sObject): boolean =>
  PROFILE_LIST.some((p) => p.sidecarless?.meshedWithoutProxy?.(pod, ns));

const MESH_OWN_NAMESPACES = defineFact({
  id: 'mesh-own-namespaces',
  inputs: WORKLOAD_INPUTS,
  compute: (m: Model) => {
    const out = new Set<string>();
    for (const w of m.workloads) if (isControlPlaneWorkload(w)) out.add(w.namespace);
    for (const w of m.workloads) {
      for (const p of w.pods) {
        const l = labelsOf(p);
        if (PROFILE_LIST.some((x) => x.controlPlane.isOwnPod(l, w.namespace))) out.add(w.namespace);
      }
    }
    return out;
  },
});

/**
 * A namespace where the mesh never injects app pods, or that holds a mesh's control plane or
 * extensions (their own workloads are meshed or not on purpose): Kubernetes' own namespaces,
 * Istio's ignored ones, cert-manager (Linkerd's webhook excludes it), `linkerd`, `istio-system`,
 * and any namespace running control-plane or extension workloads.
 */
export function meshOwnNamespace(m: Model, ns: string, mesh: MeshName): boolean {
  if (KUBE_SYSTEM_NAMESPACES.includes(ns) || PROFILE_LIST.some((p) => p.controlPlane.ownNamespaces.includes(ns)))
    return true;
  if (profileOf(mesh).controlPlane.excludedNamespaces.includes(ns) || m.isControlPlaneNamespace(ns)) return true;
  const own = m.fact(MESH_OWN_NAMESPACES);
  return own.has(ns);
}

/**
 * Whether the namespace asks this mesh to inject: its marker when the Namespace was read;
 * undefined when it was not (then only its workloads can tell: meshedByNamespace).
 */
export function namespaceAsks(m: Model, ns: string, mesh: MeshName): boolean | undefined {
  return m.has('namespaces') ? namespaceMarker(m, mesh, m.namespace(ns)).enabled : undefined;
}

const MESHED_BY_NAMESPACE = defineFactFamily({
  id: 'meshed-by-namespace',
  inputs: WORKLOAD_INPUTS,
  cacheKey: (k: { ns: string; mesh: MeshName }) => `${k.mesh}:${k.ns}`,
  compute: (m: Model, { ns, mesh }: { ns: string; mesh: MeshName }): Workload[] =>
    m
      .appWorkloadsIn(ns)
      .filter(
        (w) =>
          podStates(w).meshed.has(mesh) &&
          !templateAsks(mesh, w.template) &&
          !(w.templatePath && proxyAlreadyPresent(podSpec(w.template))),
      ),
});

/**
 * The app workloads of a namespace that this mesh injected although their own pod template
 * neither asks for it nor carries the proxy itself: only the namespace can have asked. (A
 * workload known only by its pods is judged by them; a proxy there says nothing of the template.)
 */
export function meshedByNamespace(m: Model, ns: string, mesh: MeshName): Workload[] {
  return m.fact(MESHED_BY_NAMESPACE, { ns, mesh });
}

/** The cluster-scoped kinds injection depends on that were not read, with the reason. */
export function notExamined(m: Model): { kind: KindKey; reason: string }[] {
  return (['namespaces', 'mutatingwebhookconfigurations'] as const)
    .filter((k) => !m.has(k))
    .map((kind) => ({ kind, reason: m.snapshot.unavailable[kind] ?? 'not in the snapshot' }));
}

/** "Namespace shop (its injection marker) and the MutatingWebhookConfigurations", for messages. */
export function notExaminedText(m: Model, ns: string): string {
  const parts = notExamined(m).map((x) =>
    x.kind === 'namespaces' ? `Namespace ${ns} (its injection marker)` : 'the MutatingWebhookConfigurations',
  );
  return parts.join(' and ');
}
