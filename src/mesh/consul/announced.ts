/**
 * Consul's own mark on a pod it injected: `consul.hashicorp.com/connect-inject-status: injected`
 * (hashicorp/consul-k8s@c22b3930 control-plane/connect-inject/constants/annotations_and_labels.go
 * KeyInjectStatus, which its webhook sets with the consul-dataplane container; envoy-sidecar before 1.0).
 */
import type { Announcement } from '../profile.js';
import type { K8sObject } from '../../util/types.js';
import { annotationOf } from '../../util/objects.js';

export function consulAnnounced(pod: K8sObject): Announcement | undefined {
  if (annotationOf(pod, 'consul.hashicorp.com/connect-inject-status') !== 'injected') return undefined;
  return {
    mark: 'annotation consul.hashicorp.com/connect-inject-status=injected',
    containers: ['consul-dataplane'],
    source: 'hashicorp/consul-k8s@c22b3930 control-plane/connect-inject/constants/annotations_and_labels.go',
  };
}
