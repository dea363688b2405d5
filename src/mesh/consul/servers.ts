/**
 * Consul's servers and the consul-k8s releases that can talk to them (item 31.9: a data plane and
 * control plane judged by the mesh's own compatibility policy). From consul-k8s 1.0 the injected
 * consul-dataplane and the control plane talk to the servers directly (no client agents), and each
 * consul-k8s minor supports one Consul minor. The table, "Compatible consul-k8s versions" per Consul
 * version, from the compatibility matrix: developer.hashicorp.com/consul/docs/v1.13.x/k8s/compatibility
 * (0.49.x: Consul 1.11.x to 1.13.x), /v1.15.x/k8s/compatibility (1.0.x: 1.14.x, 1.1.x: 1.15.x),
 * /deploy/server/k8s/requirements (1.2.x: 1.16.x, 1.3.x: 1.17.x), /k8s/compatibility (1.7.x: 1.20.x,
 * 1.8.x: 1.21.x, 1.9.x: 1.22.x); hashicorp/consul-k8s#1809 (a maintainer: "Consul K8s 1.0.2 is only
 * compatible with Consul 1.14.x servers"). Releases not listed are not judged. The servers: the
 * chart's StatefulSet `<fullname>-server` (charts/consul/templates/server-statefulset.yaml), its
 * container `consul` running the image hashicorp/consul[-enterprise]:<version>.
 */
import type { MeshContext } from '../context.js';
import { arr, isObj, nameOf, nsOf, str } from '../../util/objects.js';
import { minorRelease } from '../versions.js';

const MATRIX = 'developer.hashicorp.com/consul/docs/k8s/compatibility (per Consul version, each docs version)';

/** consul-k8s minor -> the Consul server minors it is compatible with. */
const COMPATIBLE: Readonly<Record<string, readonly string[]>> = {
  '0.49': ['1.11', '1.12', '1.13'],
  '1.0': ['1.14'],
  '1.1': ['1.15'],
  '1.2': ['1.16'],
  '1.3': ['1.17'],
  '1.7': ['1.20'],
  '1.8': ['1.21'],
  '1.9': ['1.22'],
};

const SERVER_IMAGE = /(?:^|\/)consul(?:-enterprise)?:v?(\d+\.\d+\.\d+)/;

export function consulServers(m: MeshContext, controlPlane: string) {
  const supported = COMPATIBLE[minorRelease(controlPlane) ?? ''];
  if (!supported || !m.has('statefulsets')) return undefined;
  for (const s of m.list('statefulsets').slice(0, 5000)) {
    if (!nameOf(s).endsWith('-server')) continue;
    const spec = isObj(s.spec) && isObj(s.spec.template) && isObj(s.spec.template.spec) ? s.spec.template.spec : {};
    const c = arr(spec.containers).find((x) => isObj(x) && x.name === 'consul') as Record<string, any> | undefined;
    const version = SERVER_IMAGE.exec(str(c?.image) ?? '')?.[1];
    if (!version) continue;
    return {
      object: { kind: 'StatefulSet', namespace: nsOf(s), name: nameOf(s) },
      version,
      supported,
      source: MATRIX,
    };
  }
  return undefined;
}
