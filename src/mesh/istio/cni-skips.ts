/**
 * The pods with an istio-proxy container that the istio-cni plugin leaves without traffic
 * redirection (issue 31, item B): istio/istio cni/pkg/plugin/plugin.go CmdAdd at 1.28.0
 * (@b8d1df54, lines 307-348) and 1.30.0 (@badd809e), with ExtractPodInfo in
 * cni/pkg/plugin/kubernetes.go. The plugin programs no iptables rules for a pod that:
 *  - has istio-init (the init container redirects: "excluded due to being already injected with
 *    istio-init container") — not a skip here, the pod is redirected;
 *  - has no istio-proxy container, or an istio-proxy whose args are `proxy <type>` with a type
 *    other than `sidecar` (a gateway, a waypoint: they need no redirection) — not a skip either;
 *  - is labelled (the label wins) or annotated sidecar.istio.io/inject with a value Go's
 *    strconv.ParseBool reads as false ("excluded due to inject-disabled annotation");
 *  - lacks the sidecar.istio.io/status annotation ("excluded due to not containing sidecar
 *    annotation"): the injector's mark, dropped by a later mutating webhook or missing from a pod
 *    spec injected by hand or copied from a manifest.
 * Without the plugin the injector adds istio-init instead, which redirects whatever the annotations say.
 */
import { containers, initContainers, podSpec } from '../../k8s/pods.js';
import type { K8sObject } from '../../util/types.js';
import { annotationsOf, arr, labelsOf } from '../../util/objects.js';

const SOURCE = 'istio/istio@b8d1df54 (1.28.0) and @badd809e (1.30.0) cni/pkg/plugin/plugin.go CmdAdd';
const STATUS = 'sidecar.istio.io/status';
const INJECT = 'sidecar.istio.io/inject';

/** Go's strconv.ParseBool false values (the true ones and anything else do not skip). */
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** Why the istio-cni plugin sets no redirection for this pod although it runs istio-proxy as a sidecar; undefined: it redirects it, or istio-init does. */
export function istioCniSkips(
  pod: K8sObject,
): { reason: string; key: string; optedOut: boolean; source: string } | undefined {
  const spec = podSpec(pod);
  const all = [...initContainers(spec), ...containers(spec)];
  if (all.some((c) => c.name === 'istio-init')) return undefined;
  const proxy = all.find((c) => c.name === 'istio-proxy');
  if (!proxy) return undefined;
  const args = arr(proxy.args);
  if (args.length >= 2 && args[0] === 'proxy' && args[1] !== 'sidecar') return undefined;
  const labels = labelsOf(pod);
  const annotations = annotationsOf(pod);
  const inject = Object.hasOwn(labels, INJECT) ? labels[INJECT] : annotations[INJECT];
  if (inject && FALSE.has(inject))
    return {
      reason: `it is ${Object.hasOwn(labels, INJECT) ? 'labelled' : 'annotated'} ${INJECT}=${inject} ("excluded due to inject-disabled annotation")`,
      key: INJECT,
      optedOut: true,
      source: SOURCE,
    };
  if (!Object.hasOwn(annotations, STATUS))
    return {
      reason: `it lacks the injector's annotation ${STATUS} ("excluded due to not containing sidecar annotation")`,
      key: STATUS,
      optedOut: false,
      source: SOURCE,
    };
  return undefined;
}
