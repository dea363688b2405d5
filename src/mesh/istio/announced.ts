/**
 * Istio's own mark on a pod it injected: the `sidecar.istio.io/status` annotation, JSON listing the
 * init containers and containers it added (istio/istio@b0d2c6ad pkg/kube/inject/inject.go,
 * SidecarInjectionStatus: `initContainers`, `containers`, `volumes`, `imagePullSecrets`, `revision`).
 */
import type { Announcement } from '../profile.js';
import type { K8sObject } from '../../util/types.js';
import { annotationsOf } from '../../util/objects.js';

const KEY = 'sidecar.istio.io/status';

export function istioAnnounced(pod: K8sObject): Announcement | undefined {
  const raw = annotationsOf(pod)[KEY];
  if (!raw || raw.length > 8192) return undefined;
  let status: unknown;
  try {
    status = JSON.parse(raw);
  } catch {
    return undefined; // not the injector's JSON: nothing announced that can be read
  }
  if (!status || typeof status !== 'object') return undefined;
  const names = (k: string): string[] => {
    const v = (status as Record<string, unknown>)[k];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, 32) : [];
  };
  const containers = [...new Set([...names('initContainers'), ...names('containers')])];
  return containers.length
    ? { mark: `annotation ${KEY}`, containers, source: 'istio/istio@b0d2c6ad pkg/kube/inject/inject.go' }
    : undefined;
}
