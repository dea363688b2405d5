/**
 * Where the proxy sits in a pod as injected, which is how the meshes hold the app until it is
 * ready (mesh-generic; each profile's runtime.startOrder reads it): as a native sidecar (an init
 * container with `restartPolicy: Always`: the kubelet starts the containers after it once it has
 * started, which its startup probe makes "ready"), as the first container (the kubelet starts
 * containers in order and waits for each one's postStart hook, which the meshes use to wait for
 * the proxy), or after the app.
 */
import { containers, initContainers, podSpec, type PodLike } from '../k8s/pods.js';

type ProxyPlace = 'native' | 'first' | 'later' | 'absent';

export function proxyPlace(pod: PodLike, proxy: string): ProxyPlace {
  const spec = podSpec(pod);
  if (initContainers(spec).some((c) => c.name === proxy && c.restartPolicy === 'Always')) return 'native';
  const list = containers(spec);
  const at = list.findIndex((c) => c.name === proxy);
  return at < 0 ? 'absent' : at === 0 ? 'first' : 'later';
}
