/**
 * Kuma's own mark on a pod it injected: `kuma.io/sidecar-injected: "true"` (kumahq/kuma@62b073c4
 * pkg/plugins/runtime/k8s/metadata/annotations.go KumaSidecarInjectedAnnotation, which its injector sets with the kuma-sidecar container).
 */
import type { Announcement } from '../profile.js';
import type { K8sObject } from '../../util/types.js';
import { annotationOf } from '../../util/objects.js';

export function kumaAnnounced(pod: K8sObject): Announcement | undefined {
  if (annotationOf(pod, 'kuma.io/sidecar-injected') !== 'true') return undefined;
  return {
    mark: 'annotation kuma.io/sidecar-injected=true',
    containers: ['kuma-sidecar'],
    source: 'kumahq/kuma@62b073c4 pkg/plugins/runtime/k8s/metadata/annotations.go',
  };
}
