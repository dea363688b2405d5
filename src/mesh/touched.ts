/**
 * Which mesh an admission error that names no webhook is about, by what it touches: a pod
 * annotation or label under the domain of a mesh's marker keys
 * (a JSON patch of Istio's injector adding `sidecar.istio.io/status`, of Consul's adding
 * `consul.hashicorp.com/connect-inject-status`: istio/istio pkg/kube/inject, hashicorp/consul-k8s
 * #20). Undefined when none, or more than one mesh, owns it.
 */
import type { MeshName } from './names.js';
import { PROFILE_LIST } from './registry.js';

/** The domains (the part before `/`) of each mesh's marker keys. */
const DOMAINS: readonly { mesh: MeshName; domains: readonly string[] }[] = PROFILE_LIST.map((p) => ({
  mesh: p.name,
  domains: [
    ...new Set(
      [...p.markers.namespace, ...p.markers.template, ...p.markers.strays]
        .map((k) => k.key)
        .filter((k) => k.includes('/'))
        .map((k) => k.slice(0, k.indexOf('/'))),
    ),
  ],
}));

const under = (domain: string, d: string) => domain === d || domain.endsWith(`.${d}`) || d.endsWith(`.${domain}`);

/** The one mesh whose marker domain a metadata key (`sidecar.istio.io/status`) is under. */
export function meshOfKey(key: string): MeshName | undefined {
  const cut = key.indexOf('/');
  if (cut <= 0) return undefined;
  const domain = key.slice(0, cut);
  const owners = DOMAINS.filter((x) => x.domains.some((d) => under(domain, d))).map((x) => x.mesh);
  return owners.length === 1 ? owners[0] : undefined;
}
