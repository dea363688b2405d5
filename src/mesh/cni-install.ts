/**
 * How a mesh's CNI node agent installed its plugin, read from its DaemonSet's pod template (issue 31):
 * an env switch (Istio's and Kuma's install-cni read CHAINED_CNI_PLUGIN), a `-flag=value` of its
 * command line (consul-k8s install-cni `-multus`), and the host directory of its hostPath volume
 * `cni-bin-dir`, where every mesh's chart puts the plugin's binary (istio/istio 86c9f01f
 * manifests/charts/istio-cni/templates/daemonset.yaml; linkerd/linkerd2 b24cd405
 * charts/linkerd2-cni/templates/cni-plugin.yaml; kumahq/kuma 348b6528
 * deployments/charts/kuma/templates/cni-daemonset.yaml; hashicorp/consul-k8s a507b1d1
 * charts/consul/templates/cni-daemonset.yaml). Only what a snapshot keeps is read (src/cluster/sanitize.ts).
 */
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import type { K8sObject } from '../util/types.js';
import { arr, isObj, nameOf, nsOf, str } from '../util/objects.js';
import type { MeshContext } from './context.js';

/** The hostPath volume the mesh charts mount the host's CNI binary directory from. */
export const CNI_BIN_VOLUME = 'cni-bin-dir';

/** The DaemonSets of this name that were read, by namespace (bounded). */
export function daemonSetsNamed(m: MeshContext, name: string): K8sObject[] {
  if (!m.has('daemonsets')) return [];
  return m
    .list('daemonsets')
    .filter((d) => nameOf(d) === name && m.seesNamespace(nsOf(d) ?? ''))
    .sort((a, b) => (nsOf(a) < nsOf(b) ? -1 : 1))
    .slice(0, 8);
}

const template = (ds: K8sObject) => podSpec(isObj(ds.spec) && isObj(ds.spec.template) ? ds.spec.template : undefined);
const allContainers = (ds: K8sObject) => [...initContainers(template(ds)), ...containers(template(ds))].slice(0, 16);

/** The literal value of env `name` in a container of the DaemonSet's template (the first that sets it). */
export function templateEnv(ds: K8sObject, name: string): string | undefined {
  for (const c of allContainers(ds))
    for (const e of arr(c.env).slice(0, 100))
      if (isObj(e) && e.name === name && typeof e.value === 'string') return e.value;
  return undefined;
}

/** The host directory of the template's hostPath volume `volume`. */
export function hostPathOf(ds: K8sObject, volume: string): string | undefined {
  const v = arr(template(ds).volumes)
    .slice(0, 64)
    .find((x) => isObj(x) && x.name === volume);
  return isObj(v) && isObj(v.hostPath) ? str(v.hostPath.path) : undefined;
}
