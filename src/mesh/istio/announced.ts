/**
 * Istio's own mark on a pod it injected: the `sidecar.istio.io/status` annotation, JSON listing the
 * init containers and containers it added (istio/istio@b0d2c6ad pkg/kube/inject/inject.go,
 * SidecarInjectionStatus: `initContainers`, `containers`, `volumes`, `imagePullSecrets`, `revision`).
 */
import type { Announcement } from '../profile.js';
import type { K8sObject } from '../../util/types.js';
import { annotationOf } from '../../util/objects.js';

const KEY = 'sidecar.istio.io/status';

/**
 * The announcement of each status text seen (the pods of one injector release carry the same
 * text): parsed once, not once per pod and check. Bounded: past MAX_CACHED texts, parsed each time.
 */
const seen = new Map<string, Announcement | undefined>();
const MAX_CACHED = 1024;

export function istioAnnounced(pod: K8sObject): Announcement | undefined {
  const raw = annotationOf(pod, KEY);
  if (!raw || raw.length > 8192) return undefined;
  if (seen.has(raw)) return seen.get(raw);
  const a = announcement(raw);
  if (seen.size < MAX_CACHED) seen.set(raw, a);
  return a;
}

function announcement(raw: string): Announcement | undefined {
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
  // Frozen: one announcement is handed to every pod with the same text.
  return containers.length
    ? Object.freeze({
        mark: `annotation ${KEY}`,
        containers: Object.freeze(containers) as string[],
        source: 'istio/istio@b0d2c6ad pkg/kube/inject/inject.go',
      })
    : undefined;
}
