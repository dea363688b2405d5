/**
 * Consul's own mark on a pod it injected: `consul.hashicorp.com/connect-inject-status: injected`
 * (hashicorp/consul-k8s v1.4.0 control-plane/connect-inject/constants/annotations_and_labels.go
 * KeyInjectStatus, set by control-plane/connect-inject/webhook/mesh_webhook.go with the
 * consul-dataplane container; envoy-sidecar before 1.0).
 */
import type { Announcement } from '../profile.js';
import type { K8sObject } from '../../util/types.js';
import { annotationsOf } from '../../util/objects.js';

export function consulAnnounced(pod: K8sObject): Announcement | undefined {
  if (annotationsOf(pod)['consul.hashicorp.com/connect-inject-status'] !== 'injected') return undefined;
  return {
    mark: 'annotation consul.hashicorp.com/connect-inject-status=injected',
    containers: ['consul-dataplane'],
    source: 'hashicorp/consul-k8s v1.4.0 control-plane/connect-inject/constants/annotations_and_labels.go',
  };
}
