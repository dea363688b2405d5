/**
 * Linkerd's own mark on a pod it injected: the `linkerd.io/proxy-version` annotation and the
 * `linkerd.io/control-plane-ns` label, set with the proxy (linkerd/linkerd2@0017f9a6
 * pkg/k8s/labels.go ProxyVersionAnnotation, ControllerNSLabel, "injected into mesh-enabled apps"). They announce
 * the proxy; its init container depends on the CNI plugin, so only the proxy is announced.
 */
import type { Announcement } from '../profile.js';
import type { K8sObject } from '../../util/types.js';
import { annotationOf, labelOf } from '../../util/objects.js';

export function linkerdAnnounced(pod: K8sObject): Announcement | undefined {
  const version = annotationOf(pod, 'linkerd.io/proxy-version');
  const ns = labelOf(pod, 'linkerd.io/control-plane-ns');
  if (!version || !ns) return undefined;
  // The meshed pods of one control plane and release share one (frozen) announcement.
  const key = `${version}\n${ns}`;
  let a = seen.get(key);
  if (!a) {
    a = Object.freeze({
      mark: `annotation linkerd.io/proxy-version=${version} and label linkerd.io/control-plane-ns=${ns}`,
      containers: Object.freeze(['linkerd-proxy']) as string[],
      source: 'linkerd/linkerd2@0017f9a6 pkg/k8s/labels.go',
    });
    if (seen.size < MAX_CACHED) seen.set(key, a);
  }
  return a;
}

/** Announcements by proxy version and control-plane namespace; bounded (past it, made each time). */
const seen = new Map<string, Announcement>();
const MAX_CACHED = 1024;
