/**
 * Namespace markers: what a namespace says about injection, per mesh. Shared by the namespace
 * and workload checks so that they agree on what "enabled" means.
 */
import type { K8sObject, MeshName } from '../types.js';
import { annotationsOf, labelsOf, shq } from '../util.js';
import { ISTIO_INJECT, ISTIO_NS_LABEL, ISTIO_REV, istioPodValue } from './istio.js';
import { evalWebhook, type MeshWebhook } from './webhooks.js';
import { LINKERD_INJECT, isLinkerdEnabling } from './linkerd.js';

export interface NamespaceMarker {
  /** The namespace asks this mesh to inject every pod by default. */
  enabled: boolean;
  /** The namespace carries some marker for this mesh (valid or not, enabling or not). */
  present: boolean;
  /** The marker as written, for evidence: e.g. "annotation linkerd.io/inject=enabled". */
  text?: string;
}

export function namespaceMarker(mesh: MeshName, ns: K8sObject | undefined): NamespaceMarker {
  const labels = labelsOf(ns);
  const annotations = annotationsOf(ns);
  if (mesh === 'linkerd') {
    const v = annotations[LINKERD_INJECT];
    const stray = labels[LINKERD_INJECT] ?? labels['linkerd.io/auto-inject'];
    if (v !== undefined) return { enabled: isLinkerdEnabling(v), present: true, text: `annotation ${LINKERD_INJECT}=${v}` };
    return { enabled: false, present: stray !== undefined };
  }
  const inj = labels[ISTIO_NS_LABEL];
  const rev = labels[ISTIO_REV];
  // istio-injection beats istio.io/rev; any value but "enabled" selects no webhook.
  if (inj !== undefined) return { enabled: inj === 'enabled', present: true, text: `label ${ISTIO_NS_LABEL}=${inj}` };
  if (rev !== undefined) return { enabled: true, present: true, text: `label ${ISTIO_REV}=${rev}` };
  return { enabled: false, present: annotations[ISTIO_NS_LABEL] !== undefined || annotations[ISTIO_REV] !== undefined };
}

export interface EnableMarker {
  field: 'labels' | 'annotations';
  key: string;
  value: string;
  text: string;
  command: string;
}

/** The marker to set on a namespace for a mesh, and the command that sets it. */
export function enableMarker(mesh: MeshName, ns: string, webhooks: MeshWebhook[]): EnableMarker {
  if (mesh === 'linkerd') {
    return { field: 'annotations', key: LINKERD_INJECT, value: 'enabled', text: `annotation ${LINKERD_INJECT}=enabled`, command: `kubectl annotate namespace ${shq(ns)} ${LINKERD_INJECT}=enabled --overwrite` };
  }
  const l = istioEnableLabel(webhooks, ns) ?? { key: ISTIO_NS_LABEL, value: 'enabled' };
  return { field: 'labels', ...l, text: `label ${l.key}=${l.value}`, command: `kubectl label namespace ${shq(ns)} ${shq(`${l.key}=${l.value}`)} --overwrite` };
}

/**
 * The pod template marker that opts out of this mesh: Linkerd's annotation `linkerd.io/inject:
 * disabled`; Istio's label `sidecar.istio.io/inject: "false"` (the label wins over the annotation).
 */
export function optOutMarker(mesh: MeshName): { field: 'labels' | 'annotations'; key: string; value: string } {
  return mesh === 'linkerd' ? { field: 'annotations', key: LINKERD_INJECT, value: 'disabled' } : { field: 'labels', key: ISTIO_INJECT, value: 'false' };
}

/** The pod template opts out of this mesh explicitly. */
export function templateOptOut(mesh: MeshName, template: { metadata?: unknown }): { key: string; value: string; from: 'label' | 'annotation' } | undefined {
  if (mesh === 'linkerd') {
    const v = annotationsOf(template)[LINKERD_INJECT];
    return v === 'disabled' ? { key: LINKERD_INJECT, value: v, from: 'annotation' } : undefined;
  }
  const { value, from } = istioPodValue(template);
  return value !== undefined && from && value.toLowerCase() === 'false' ? { key: ISTIO_INJECT, value, from } : undefined;
}

/**
 * The Istio namespace label that would make an installed webhook fire for a plain pod:
 * `istio-injection=enabled` when a webhook serves it, else `istio.io/rev=<first revision>`.
 */
export function istioEnableLabel(webhooks: MeshWebhook[], ns: string): { key: string; value: string } | undefined {
  const candidates = [
    { key: ISTIO_NS_LABEL, value: 'enabled' },
    ...[...new Set(webhooks.flatMap((w) => w.revisions))].sort().map((r) => ({ key: ISTIO_REV, value: r })),
  ];
  return candidates.find((c) =>
    webhooks.some((w) => w.mesh === 'istio' && evalWebhook(w, { 'kubernetes.io/metadata.name': ns, [c.key]: c.value }, {}).called),
  );
}
